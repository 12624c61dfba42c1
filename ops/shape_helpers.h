// File: ops/shape_helpers.h
// -----------------------------------------------------------------------------
// Shape arithmetic shared by the view families (shape.cc, slicing.cc): sizes
// that are static or read at run time (SizeExpr), shape values assembled from
// them, and reshapes/transposes that stay exact for ONNX shape inference.
//
//   std::vector<SizeExpr> sizes = {InputSize(ctx, x, *meta, 0), SizeExpr{4, ""}};
//   std::string y = ReshapeToOutput(ctx, x, sizes);
//
// Static sizes become constants (so shape inference sees them); symbolic ones
// are sliced out of Shape(x) at run time.
#ifndef PT2ONNX_OPS_SHAPE_HELPERS_H_
#define PT2ONNX_OPS_SHAPE_HELPERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/pt2/schema.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

// Sizes of `meta` when every one is static (nullopt for a null `meta` or any
// symbolic size).
std::optional<std::vector<int64_t>> StaticSizes(const pt2::TensorMeta* meta);

// An empty constant for output `i` when the program gives it static sizes,
// one of them 0, and a known dtype; nullopt otherwise. For translations whose
// ONNX form ONNX Runtime cannot run on empty inputs (Einsum, Pad 'wrap'):
// such a result does not depend on the input values.
std::optional<std::string> StaticEmptyOutput(TranslateContext& ctx, int i);

// Static sizes of dims [begin, begin + n) of tensor argument `arg`, or nullopt
// when any is symbolic or the range does not fit. A negative `begin` counts
// from the back.
std::optional<std::vector<int64_t>> StaticDims(const TranslateContext& ctx, absl::string_view arg,
                                               int64_t begin, int64_t n);

// Reshape to fully known sizes. A literal 0 needs allowzero=1 (otherwise ONNX
// copies the input's size there); with every size explicit that is exact.
std::string ReshapeToStatic(TranslateContext& ctx, const std::string& x,
                            const std::vector<int64_t>& sizes);

// One size of a shape being assembled: static (`value`), or a 1-element 1-D
// INT64 value (`tensor`).
struct SizeExpr {
  std::optional<int64_t> value;
  std::string tensor;
};

// Size `axis` of `x`, whose FX metadata is `meta`.
SizeExpr InputSize(TranslateContext& ctx, const std::string& x, const pt2::TensorMeta& meta,
                   int64_t axis);
// `s` as a 1-element 1-D INT64 value.
std::string SizeTensor(TranslateContext& ctx, const SizeExpr& s);
// a * b and a / b, folded when static.
SizeExpr MulSizes(TranslateContext& ctx, const SizeExpr& a, const SizeExpr& b);
SizeExpr DivSize(TranslateContext& ctx, const SizeExpr& a, int64_t b);

// A 1-D INT64 shape value from `sizes`; runs of static sizes become one
// constant.
std::string ShapeTensor(TranslateContext& ctx, const std::vector<SizeExpr>& sizes);

// Reshape to the node's output sizes when static, else to `sizes`.
std::string ReshapeToOutput(TranslateContext& ctx, const std::string& x,
                            const std::vector<SizeExpr>& sizes);

// [0, 1, ..., n - 1].
std::vector<int64_t> Iota(int64_t n);

// The permutation that undoes `perm`.
std::vector<int64_t> InversePermutation(const std::vector<int64_t>& perm);

// `x` transposed by `perm` (no node for the identity perm).
std::string TransposeBy(TranslateContext& ctx, const std::string& x,
                        const std::vector<int64_t>& perm);

// Binds output 0 to `x` transposed by `perm` (no node for the identity perm).
absl::Status SetTransposed(TranslateContext& ctx, const std::string& x,
                           const std::vector<int64_t>& perm);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_SHAPE_HELPERS_H_
