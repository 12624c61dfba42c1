// File: translate/op_helpers.h
// -----------------------------------------------------------------------------
// Small helpers several op families share: checked dim arguments, per-spatial-dim
// int-list arguments, reshapes with constant shapes, unsqueeze/squeeze by
// constant axes, the output dtype and input shapes, defaulted Scalars, and the
// in-place overload convention (below).
//
// In-place overloads ("aten::add_.Tensor", "aten::relu_.default") share the
// functional translation: AddWithInPlace registers both keys, and BindResult
// also rebinds `self` when the node's key names the in-place op. They have no
// schema in core/aten/op_schema.h (it holds no in-place variants), so their defaulted
// Scalars are read with FloatOr, never assumed filled.
#ifndef PT2ONNX_TRANSLATE_OP_HELPERS_H_
#define PT2ONNX_TRANSLATE_OP_HELPERS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::translate {

// A dim argument read from the file, checked as torch's maybe_wrap_dim does:
// valid values are [-rank, rank-1] (rank-0 tensors accept 0 and -1); the
// result is in [0, max(rank, 1)). Anything else is InvalidArgument naming
// `what` (e.g. "dim of aten::topk"). Never index a vector with an unchecked dim.
absl::StatusOr<int64_t> CheckedAxis(int64_t axis, int64_t rank, absl::string_view what);
// Every entry through CheckedAxis; a dim listed twice is InvalidArgument.
absl::StatusOr<std::vector<int64_t>> CheckedAxes(const std::vector<int64_t>& axes, int64_t rank,
                                                 absl::string_view what);
// The same for argument `arg` of the node `ctx` translates: the error names
// the node and the argument ("node 'x' (aten::transpose.int): dim1: ...").
absl::StatusOr<int64_t> CheckedAxis(const TranslateContext& ctx, absl::string_view arg,
                                    int64_t axis, int64_t rank);
absl::StatusOr<std::vector<int64_t>> CheckedAxes(const TranslateContext& ctx,
                                                 absl::string_view arg,
                                                 const std::vector<int64_t>& axes, int64_t rank);
// Int argument `arg` read and checked as a dim of a rank-`rank` tensor.
absl::StatusOr<int64_t> AxisArg(const TranslateContext& ctx, absl::string_view arg, int64_t rank);

// The most elements a translation folds into one constant computed from the
// program's sizes (gather positions of diagonal/unfold, linspace values).
// Beyond it the translation computes at run time or refuses: the file
// chooses those sizes, so the output must not grow with them.
inline constexpr int64_t kMaxFoldedElements = int64_t{1} << 22;

// An int-list argument with one entry per spatial dim (conv, pool). torch
// expands a single entry to every dim (expand_param_if_needed in
// aten/src/ATen/native/Convolution.cpp); any other count but `n` is
// InvalidArgument.
absl::StatusOr<std::vector<int64_t>> SpatialInts(const TranslateContext& ctx, absl::string_view arg,
                                                 int64_t n);
// As above, except that an empty list gives `fallback`: pools spell "same as
// kernel_size" (stride) or "default" (padding, dilation) as [].
absl::StatusOr<std::vector<int64_t>> SpatialInts(const TranslateContext& ctx, absl::string_view arg,
                                                 int64_t n, const std::vector<int64_t>& fallback);
// InvalidArgument naming `arg` unless every entry of `values` is in
// [lo, hi]: keeps file-chosen strides, paddings and dilations where torch
// accepts them and their arithmetic far from int64 overflow.
absl::Status CheckIntsInRange(const TranslateContext& ctx, absl::string_view arg,
                              const std::vector<int64_t>& values, int64_t lo, int64_t hi);

std::string Unsqueeze(TranslateContext& ctx, const std::string& x, std::vector<int64_t> axes);
std::string Squeeze(TranslateContext& ctx, const std::string& x, std::vector<int64_t> axes);
std::string Reshape(TranslateContext& ctx, const std::string& x, std::vector<int64_t> shape);
// Shape(x)[start:end] as a 1-D INT64 value.
std::string ShapeSlice(TranslateContext& ctx, const std::string& x, int64_t start, int64_t end);

// The node's output 0 dtype; InvalidArgument when the program's metadata has
// none (translations cannot pick ONNX types without it).
absl::StatusOr<DataType> OutDtype(const TranslateContext& ctx);

// The shape of tensor argument `arg` as a 1-D INT64 value: a constant when
// every size is static, Shape(arg) otherwise.
absl::StatusOr<std::string> ShapeOf(TranslateContext& ctx, absl::string_view arg);

// A Scalar argument as a double, or `fallback` when the node omits it and no
// schema fills it (in-place overloads).
absl::StatusOr<double> FloatOr(const TranslateContext& ctx, absl::string_view arg,
                               double fallback);

// True when the node's key names an in-place overload: "aten::add_.Tensor"
// is, "aten::__and__.Tensor" (a dunder) is not.
bool IsInPlace(const TranslateContext& ctx);

// Binds output 0 to `value`; for an in-place overload `self` is rebound too,
// so later readers of the mutated tensor see the result.
absl::Status BindResult(TranslateContext& ctx, const std::string& value);

// Registers `fn` under `name.overload` and its in-place twin `name_.overload`.
void AddWithInPlace(OpRegistry& r, absl::string_view name, absl::string_view overload,
                    TranslateFn fn, int min_opset = kMinOpset, int max_opset = kMaxOpset);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_OP_HELPERS_H_
