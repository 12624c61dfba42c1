// File: passes/attention_match.h
// -----------------------------------------------------------------------------
// Pattern pieces of attention_fusion (and the dim test rotary_embedding_fusion
// shares): declared shapes, torch's fully-masked-row guard, head repetition
// (HF repeat_kv, enable_gqa) and is_causal's mask. Sizes are the file's, so
// every test compares declared dims and never multiplies them.
#ifndef PT2ONNX_PASSES_ATTENTION_MATCH_H_
#define PT2ONNX_PASSES_ATTENTION_MATCH_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "passes/fusion_match.h"

namespace pt2onnx::passes {

using Dims = std::vector<ir::Dim>;

// Equal static sizes or the same symbol.
bool SameDim(const ir::Dim& a, const ir::Dim& b);
// Declared float32 rank-4 dims of `value`.
std::optional<Dims> Float4d(const ValueIndex& index, const std::string& value);
// One-element float32 constants equal to -inf / 0.
bool IsNegInf(const ValueIndex& index, const std::string& value);
bool IsZero(const ValueIndex& index, const std::string& value);

// torch's _safe_softmax guard Where(row_all_neg_inf(scores), 0, softmax),
// as translated or decomposed: the scores it tests and the axes ([-1]; ""
// for none) / zero constants it uses.
struct Guard {
  std::string scores, axes, zero;
};
std::optional<Guard> MatchGuard(FusionMatch& match, const ir::Node& where);
// The guard's reduction axes, or a new [-1] initializer named from `prefix`
// when the guard reduces without an axes input.
std::string GuardAxesOrLast(const Guard& guard, ir::GraphEditor& editor, const std::string& prefix);

// True if every (..., row, :) of a constant mask keeps at least one key.
bool ConstantMaskKeepsEveryRow(const ir::Tensor* mask, bool is_bool);
// The sizes a shape tensor holds (constant, or with `slices` a Concat of
// constants and Shape slices of values with declared dims).
std::optional<Dims> ShapeDims(const ValueIndex& index, const ir::GraphEditor& editor, const std::string& shape,
                              bool slices);

// Reshape(Expand(Unsqueeze(kv, 2), [B, Hk, G, S, E]), [B, Hk*G, S, E]).
struct HeadRepeat {
  std::string kv;
  Dims repeated;  // [B, Hq, S, E]
  const ir::Node *reshape = nullptr, *expand = nullptr, *unsqueeze = nullptr;
};
std::optional<HeadRepeat> MatchHeadRepeat(const ValueIndex& index, const ir::GraphEditor& editor,
                                          const std::string& value);
// Declared float32 rank-4 dims of `value`, or those of a head repetition.
std::optional<Dims> QkvDims(const ValueIndex& index, const ir::GraphEditor& editor, const std::string& value);
// The kv under a head repetition read only here (taken into `match`), else `value`.
std::string StripHeadRepeat(FusionMatch& match, const std::string& value);

// is_causal's Cast<bool>(Trilu<upper=0>(Expand(1, [L, S]))): the (L, S) it
// resolves to, with `dim_of(t, axis)` giving the dims of Shape(t) slices.
using DimOfFn = std::function<std::optional<ir::Dim>(const std::string&, int64_t)>;
std::optional<std::pair<ir::Dim, ir::Dim>> MatchCausalMask(FusionMatch& match, const std::string& keep,
                                                           const DimOfFn& dim_of);

// A 4-D batched MatMul, or its bmm form between Reshapes: its (a, b).
std::optional<std::pair<std::string, std::string>> TakeMatMul4d(FusionMatch& match, const std::string& value);

// The mask's declared dims, each 1 or the matching one of `full` (B, Hq, L, S).
bool MaskBroadcasts(const ValueIndex& index, const std::string& mask, DataType dtype, const Dims& full);

}  // namespace pt2onnx::passes

#endif  // PT2ONNX_PASSES_ATTENTION_MATCH_H_
