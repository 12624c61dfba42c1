// File: ops/adaptive_pooling.cc
// -----------------------------------------------------------------------------
// Adaptive pools (adaptive_avg_pool1-3d, adaptive_max_pool1-3d): torch picks
// the windows from the output size; they map onto plain pooling when the
// sizes divide, onto a global pool for output size 1, and are gathered
// window by window otherwise.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/pool_helpers.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/shape_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// Uneven adaptive pooling, one spatial dim (`axis` of the batched input
// `x`, static size `in`) at a time: max and mean over a rectangular window
// are the max / mean over each of its dims in turn. Output k covers
// [s_k, e_k) = [floor(k*in/out), ceil((k+1)*in/out)), at most in/out + 2
// cells: a [out, K] index min(s_k + j, e_k - 1) gathers every window (cells
// past e_k repeat its last one; for the mean they are masked out and the sum
// divided by e_k - s_k). The indices are computed at run time from Range.
absl::StatusOr<std::string> AdaptivePoolAlongAxis(TranslateContext& ctx, const std::string& x,
                                                  int64_t rank, int64_t axis, int64_t in,
                                                  int64_t out, bool is_max) {
  constexpr int64_t kMaxSize = int64_t{1} << 31;  // keeps k * in within int64
  if (in <= 0 || out <= 0 || in >= kMaxSize || out >= kMaxSize) {
    return ctx.Invalid(absl::StrCat("adaptive pooling from size ", in, " to ", out));
  }
  const int64_t window = std::min(in, in / out + 2);
  auto i64 = [&](int64_t v) { return ctx.ConstantInt64(v); };
  std::string k = ctx.Op("Range", {i64(0), i64(out), i64(1)});
  std::string start = ctx.Op("Div", {ctx.Op("Mul", {k, i64(in)}), i64(out)});
  std::string end = ctx.Op(
      "Div", {ctx.Op("Add", {ctx.Op("Mul", {ctx.Op("Add", {k, i64(1)}), i64(in)}), i64(out - 1)}),
              i64(out)});
  std::string end_col = Unsqueeze(ctx, end, {1});
  std::string pos = ctx.Op("Add", {Unsqueeze(ctx, start, {1}),
                                   Unsqueeze(ctx, ctx.Op("Range", {i64(0), i64(window), i64(1)}), {0})});
  std::string index = ctx.Op("Min", {pos, ctx.Op("Sub", {end_col, i64(1)})});
  std::string windows = ctx.Op("Gather", {x, index}, {ir::Attribute::Int("axis", axis)});
  std::string window_axis = ctx.ConstantInt64s({axis + 1});
  const std::vector<ir::Attribute> drop = {ir::Attribute::Int("keepdims", 0)};
  if (is_max) return ctx.Op("ReduceMax", {windows, window_axis}, drop);
  // [out, K] and [out] broadcast against [..., out, K, trailing dims...].
  std::vector<int64_t> trailing;
  for (int64_t d = axis + 1; d < rank; ++d) trailing.push_back(d - axis + 1);
  std::string valid = ctx.Op("Less", {pos, end_col});
  if (!trailing.empty()) valid = Unsqueeze(ctx, valid, trailing);
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  std::string sum = ctx.Op(
      "ReduceSum",
      {ctx.Op("Where", {valid, windows, ctx.ConstantScalar(dtype, 0.0)}), window_axis}, drop);
  std::string count = ctx.CastTo(ctx.Op("Sub", {end, start}), DataType::kInt64, dtype);
  std::vector<int64_t> count_trailing;
  for (int64_t d = axis + 1; d < rank; ++d) count_trailing.push_back(d - axis);
  if (!count_trailing.empty()) count = Unsqueeze(ctx, count, count_trailing);
  return ctx.Op("Div", {sum, count});
}

// Adaptive pooling maps onto plain pooling when every output size divides
// its input size: torch's windows [floor(i*in/out), ceil((i+1)*in/out)) are
// then the fixed kernel in/out at stride in/out. Output size 1 everywhere is
// a global pool and works with symbolic sizes. Otherwise (static sizes) the
// windows are gathered dim by dim (AdaptivePoolAlongAxis).
absl::Status AdaptivePoolNd(TranslateContext& ctx, int64_t n, bool is_max) {
  PT2ONNX_ASSIGN_OR_RETURN(Batched x, BatchedInput(ctx, "self", n));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> out_size, SpatialInts(ctx, "output_size", n, {}));
  if (static_cast<int64_t>(out_size.size()) != n) return ctx.Invalid("output_size is empty");
  const bool indices_used = is_max && ctx.OutputUsed(1);
  std::optional<std::vector<int64_t>> in_size = StaticTrailingDims(ctx, "self", n);

  bool global = true;
  for (int64_t o : out_size) global = global && o == 1;
  if (global && !indices_used) {
    std::string out = ctx.Op(is_max ? "GlobalMaxPool" : "GlobalAveragePool", {x.value});
    return ctx.SetOutput(0, Unbatch(ctx, x, out));
  }
  if (!in_size) {
    return ctx.Unsupported("adaptive pooling to a size other than 1 needs static input sizes");
  }
  bool even = true;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t in = (*in_size)[i], out = out_size[i];
    if (in <= 0 || out <= 0) {
      return ctx.Invalid(absl::StrCat("adaptive pooling from size ", in, " to ", out));
    }
    even = even && in % out == 0;
  }
  if (!even) {
    if (indices_used) {
      return ctx.Unsupported(
          "adaptive max pooling with indices to an output size that does not divide the input "
          "size; use the values only, or resize the input to a multiple of the output size");
    }
    std::string y = x.value;
    for (int64_t i = 0; i < n; ++i) {
      PT2ONNX_ASSIGN_OR_RETURN(y, AdaptivePoolAlongAxis(ctx, y, x.rank, 2 + i, (*in_size)[i],
                                                        out_size[i], is_max));
    }
    return ctx.SetOutput(0, Unbatch(ctx, x, y));
  }
  PoolAttrs a;
  for (int64_t i = 0; i < n; ++i) {
    a.kernel.push_back((*in_size)[i] / out_size[i]);
    a.strides.push_back((*in_size)[i] / out_size[i]);
  }
  a.pads.assign(2 * n, 0);
  a.dilations.assign(n, 1);
  std::vector<std::string> outs = ctx.AddNode(is_max ? "MaxPool" : "AveragePool", {x.value},
                                              PoolAttributes(a, false), indices_used ? 2 : 1);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, Unbatch(ctx, x, outs[0])));
  if (!indices_used) return absl::OkStatus();
  return ctx.SetOutput(1, Unbatch(ctx, x, PlaneIndices(ctx, x, outs[1], n)));
}

// aten::adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor
absl::Status AtenAdaptiveAvgPool1d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 1, false); }
// aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor
// aten::_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor
absl::Status AtenAdaptiveAvgPool2d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 2, false); }
// aten::adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor
// aten::_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor
absl::Status AtenAdaptiveAvgPool3d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 3, false); }
// aten::adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor, Tensor)
absl::Status AtenAdaptiveMaxPool1d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 1, true); }
// aten::adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)
absl::Status AtenAdaptiveMaxPool2d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 2, true); }
// aten::adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)
absl::Status AtenAdaptiveMaxPool3d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 3, true); }

}  // namespace

void RegisterAdaptivePoolingOps(OpRegistry& r) {
  r.Add("aten::adaptive_avg_pool1d.default", &AtenAdaptiveAvgPool1d);
  r.Add("aten::adaptive_avg_pool2d.default", &AtenAdaptiveAvgPool2d);
  r.Add("aten::_adaptive_avg_pool2d.default", &AtenAdaptiveAvgPool2d);
  r.Add("aten::adaptive_avg_pool3d.default", &AtenAdaptiveAvgPool3d);
  r.Add("aten::_adaptive_avg_pool3d.default", &AtenAdaptiveAvgPool3d);
  r.Add("aten::adaptive_max_pool1d.default", &AtenAdaptiveMaxPool1d);
  r.Add("aten::adaptive_max_pool2d.default", &AtenAdaptiveMaxPool2d);
  r.Add("aten::adaptive_max_pool3d.default", &AtenAdaptiveMaxPool3d);
}

}  // namespace pt2onnx::ops
