#include "translate/registry.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace pt2onnx::translate {

void OpRegistry::Add(absl::string_view key, TranslateFn fn, int min_opset,
                     int max_opset) {
  entries_[std::string(key)].push_back(OpEntry{fn, min_opset, max_opset});
}

bool OpRegistry::AddAlias(absl::string_view alias, absl::string_view canonical) {
  auto it = entries_.find(canonical);
  if (it == entries_.end()) return false;
  std::vector<OpEntry> copy = it->second;
  entries_[std::string(alias)] = std::move(copy);
  return true;
}

void OpRegistry::Remove(absl::string_view key) {
  auto it = entries_.find(key);
  if (it != entries_.end()) entries_.erase(it);
}

const OpEntry* OpRegistry::Find(absl::string_view key, int opset) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return nullptr;
  for (const OpEntry& entry : it->second) {
    if (entry.min_opset <= opset && opset <= entry.max_opset) return &entry;
  }
  return nullptr;
}

bool OpRegistry::Contains(absl::string_view key) const {
  return entries_.find(key) != entries_.end();
}

std::vector<std::string> OpRegistry::Keys() const {
  std::vector<std::string> keys;
  keys.reserve(entries_.size());
  for (const auto& [key, unused] : entries_) keys.push_back(key);
  return keys;
}

std::vector<std::string> OpRegistry::Conflicts() const {
  std::vector<std::string> conflicts;
  for (const auto& [key, list] : entries_) {
    for (size_t i = 0; i < list.size(); ++i) {
      for (size_t j = i + 1; j < list.size(); ++j) {
        if (list[i].min_opset <= list[j].max_opset &&
            list[j].min_opset <= list[i].max_opset) {
          if (conflicts.empty() || conflicts.back() != key) conflicts.push_back(key);
        }
      }
    }
  }
  return conflicts;
}

std::string TargetToKey(absl::string_view target) {
  absl::string_view rest = target;
  absl::ConsumePrefix(&rest, "torch.ops.");
  size_t dot = rest.find('.');
  if (dot == absl::string_view::npos) return std::string(rest);
  return absl::StrCat(rest.substr(0, dot), "::", rest.substr(dot + 1));
}

}  // namespace pt2onnx::translate
