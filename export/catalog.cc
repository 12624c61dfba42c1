#include "export/catalog.h"

#include <optional>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/version.h"
#include "export/translations.h"
#include "passes/static_kv_cache.h"
#include "passes/pass_manager.h"
#include "translate/registry.h"
#include "translate/translator.h"

namespace pt2onnx {

absl::string_view Version() { return kPt2OnnxVersion; }

int MinOpset() { return translate::kMinOpset; }
int MaxOpset() { return translate::kMaxOpset; }
int DefaultOpset() { return translate::kDefaultOpset; }

int StaticKvCacheMinOpset() { return static_cast<int>(passes::kStaticKvCacheMinOpset); }

std::vector<std::string> PassNames() { return passes::PassNames(); }

std::vector<std::string> SupportedOps() { return SharedDefaultRegistry().Keys(); }

std::vector<std::string> RefusedOps() {
  std::vector<std::string> lines;
  for (const translate::RefusedOp& op : translate::DeliberatelyRefusedOps()) {
    lines.push_back(absl::StrCat(op.key, "\t", op.reason));
  }
  return lines;
}

std::vector<std::string> UnsupportedOpsOf(const absl::Status& status) {
  std::vector<std::string> ops;
  if (std::optional<absl::Cord> listed = status.GetPayload(translate::kUnsupportedOpsPayload)) {
    for (absl::string_view line : absl::StrSplit(std::string(*listed), '\n', absl::SkipEmpty())) {
      ops.emplace_back(line);
    }
  }
  return ops;
}

}  // namespace pt2onnx
