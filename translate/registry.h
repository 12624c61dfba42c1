// File: translate/registry.h
// -----------------------------------------------------------------------------
// OpRegistry: ATen overload -> translation function, with the ONNX opset range
// each translation is valid for. A plain value: the default one is built by
// ops::CreateDefaultRegistry() (ops/all_ops.h) from one registration function
// per op family, and tests can build their own.
//
//   OpRegistry registry = ops::CreateDefaultRegistry();
//   const OpEntry* entry = registry.Find("aten::addmm.default", /*opset=*/20);
//
// Keys are "<namespace>::<op>.<overload>" ("aten::add.Tensor",
// "aten::relu.default", "_operator::add", "higher_order::cond");
// TargetToKey converts the FX target strings found in .pt2 files.
#ifndef PT2ONNX_TRANSLATE_REGISTRY_H_
#define PT2ONNX_TRANSLATE_REGISTRY_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pt2onnx::translate {

class TranslateContext;

// One translation: reads the node through `ctx`, emits ONNX nodes and binds
// every FX output. Errors name the argument or shape that is unsupported.
using TranslateFn = absl::Status (*)(TranslateContext& ctx);

// Opsets this converter emits (torch.onnx documents 18-24; default 20).
inline constexpr int kMinOpset = 18;
inline constexpr int kMaxOpset = 26;
inline constexpr int kDefaultOpset = 20;

struct OpEntry {
  TranslateFn fn = nullptr;
  int min_opset = kMinOpset;
  int max_opset = kMaxOpset;
};

class OpRegistry {
 public:
  // Registers `fn` for `key` over [min_opset, max_opset]. Several entries may
  // share a key when their opset ranges do not overlap.
  void Add(absl::string_view key, TranslateFn fn, int min_opset = kMinOpset,
           int max_opset = kMaxOpset);

  // Registers under `alias` every entry of `canonical` (ATen's alias
  // overloads, core/aten/aliases.h); false when `canonical` has none.
  bool AddAlias(absl::string_view alias, absl::string_view canonical);

  // Drops every entry of `key` (user translations that override a built-in).
  void Remove(absl::string_view key);

  // The entry valid at `opset`, or nullptr.
  const OpEntry* Find(absl::string_view key, int opset) const;
  bool Contains(absl::string_view key) const;

  // Sorted keys (the README's coverage table is generated from this).
  std::vector<std::string> Keys() const;
  // Keys registered twice with overlapping opset ranges (must be empty).
  std::vector<std::string> Conflicts() const;

 private:
  std::map<std::string, std::vector<OpEntry>, std::less<>> entries_;
};

// "torch.ops.aten.add.Tensor" -> "aten::add.Tensor";
// "_operator.add" -> "_operator::add"; "torch.sym_max" -> "torch::sym_max".
std::string TargetToKey(absl::string_view target);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_REGISTRY_H_
