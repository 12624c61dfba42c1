#include "reference/registry.h"

#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"

namespace pt2onnx::reference {

void RefRegistry::Add(absl::string_view key, RefKernel kernel) {
  auto [it, inserted] = kernels_.emplace(std::string(key), kernel);
  if (!inserted) duplicates_.push_back(std::string(key));
}

RefKernel RefRegistry::Find(absl::string_view key) const {
  auto it = kernels_.find(key);
  return it == kernels_.end() ? nullptr : it->second;
}

std::vector<std::string> RefRegistry::Keys() const {
  std::vector<std::string> keys;
  for (const auto& [key, kernel] : kernels_) keys.push_back(key);
  return keys;
}

std::string TargetKey(absl::string_view target) {
  absl::ConsumePrefix(&target, "torch.ops.");
  size_t dot = target.find('.');
  if (dot == absl::string_view::npos) return std::string(target);
  return absl::StrCat(target.substr(0, dot), "::", target.substr(dot + 1));
}

}  // namespace pt2onnx::reference
