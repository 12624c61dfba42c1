// File: ops/adaptive_pooling.cc
// -----------------------------------------------------------------------------
// Adaptive pools (adaptive_avg_pool1-3d, adaptive_max_pool1-3d): torch picks
// the windows from the output size; they map onto plain pooling when the
// sizes divide, onto a global pool for output size 1, and are gathered
// window by window otherwise.

#include <algorithm>
#include <cmath>
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
#include "ops/translate_api.h"
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
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (is_max) {
    std::string max = ctx.Op("ReduceMax", {windows, window_axis}, drop);
    if (!IsFloatingPoint(dtype)) return max;
    // ReduceMax need not propagate NaN; torch's max does.
    std::string nan = ctx.Op("ReduceMax", {ctx.CastTo(ctx.Op("IsNaN", {windows}), DataType::kBool, DataType::kInt32),
                                           window_axis}, drop);
    return ctx.Op("Where", {ctx.Op("Greater", {nan, ctx.ConstantScalar(DataType::kInt32, 0)}),
                            ctx.ConstantScalar(dtype, std::nan("")), max});
  }
  // [out, K] and [out] broadcast against [..., out, K, trailing dims...].
  std::vector<int64_t> trailing;
  for (int64_t d = axis + 1; d < rank; ++d) trailing.push_back(d - axis + 1);
  std::string valid = ctx.Op("Less", {pos, end_col});
  if (!trailing.empty()) valid = Unsqueeze(ctx, valid, trailing);
  std::string sum = ctx.Op(
      "ReduceSum",
      {ctx.Op("Where", {valid, windows, ctx.ConstantScalar(dtype, 0.0)}), window_axis}, drop);
  std::string count = ctx.CastTo(ctx.Op("Sub", {end, start}), DataType::kInt64, dtype);
  std::vector<int64_t> count_trailing;
  for (int64_t d = axis + 1; d < rank; ++d) count_trailing.push_back(d - axis);
  if (!count_trailing.empty()) count = Unsqueeze(ctx, count, count_trailing);
  return ctx.Op("Div", {sum, count});
}

// Uneven adaptive max pooling with indices, all n spatial dims at once:
// each dim's windows gathered as in AdaptivePoolAlongAxis ([O_i, K_i]
// indices, cells past a window's end repeating its last one), brought to
// [N, C, O_1.., K_1 * ..] in torch's row-major scan order. torch keeps the
// first maximum, or the last NaN once one is seen
// (aten/src/ATen/native/cpu/AdaptiveMaxPoolKernel.cpp); repeated cells
// carry their own flat index, so they never change which cell is chosen.
absl::Status AdaptiveMaxWithIndices(TranslateContext& ctx, const Batched& x, int64_t n,
                                    const std::vector<int64_t>& in_size, const std::vector<int64_t>& out_size) {
  constexpr int64_t kMaxSize = int64_t{1} << 31;
  auto i64 = [&](int64_t v) { return ctx.ConstantInt64(v); };
  std::string y = x.value;
  std::string flat = i64(0);  // [O_1, K_1, O_2, K_2, ...] plane offsets
  int64_t stride = 1;
  for (int64_t i = n - 1; i >= 0; --i) stride *= in_size[i];
  int64_t total_k = 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t in = in_size[i], out = out_size[i];
    if (in <= 0 || out <= 0 || in >= kMaxSize || out >= kMaxSize) {
      return ctx.Invalid(absl::StrCat("adaptive pooling from size ", in, " to ", out));
    }
    stride /= in;
    const int64_t window = std::min(in, in / out + 2);
    total_k *= window;
    std::string k = ctx.Op("Range", {i64(0), i64(out), i64(1)});
    std::string start = ctx.Op("Div", {ctx.Op("Mul", {k, i64(in)}), i64(out)});
    std::string end = ctx.Op(
        "Div", {ctx.Op("Add", {ctx.Op("Mul", {ctx.Op("Add", {k, i64(1)}), i64(in)}), i64(out - 1)}), i64(out)});
    std::string pos = ctx.Op("Add", {Unsqueeze(ctx, start, {1}),
                                     Unsqueeze(ctx, ctx.Op("Range", {i64(0), i64(window), i64(1)}), {0})});
    std::string index = ctx.Op("Min", {pos, ctx.Op("Sub", {Unsqueeze(ctx, end, {1}), i64(1)})});  // [O, K]
    // Gathering along axis 2 + 2i of [N, C, O_1, K_1, .., in_i, ..] inserts [O_i, K_i] there.
    y = ctx.Op("Gather", {y, index}, {ir::Attribute::Int("axis", 2 + 2 * i)});
    std::vector<int64_t> spread;
    for (int64_t j = 0; j < 2 * (n - 1 - i); ++j) spread.push_back(2 + j);
    std::string term = ctx.Op("Mul", {index, i64(stride)});
    if (!spread.empty()) term = Unsqueeze(ctx, term, spread);
    flat = ctx.Op("Add", {flat, term});  // term's dims align with flat's trailing ones
  }
  // [N, C, O_1, K_1, ..] -> [N, C, O_1, .., K_1, ..] -> [N, C, O_1, .., K].
  std::vector<int64_t> perm = {0, 1}, flat_perm;
  for (int64_t i = 0; i < n; ++i) perm.push_back(2 + 2 * i), flat_perm.push_back(2 * i);
  for (int64_t i = 0; i < n; ++i) perm.push_back(3 + 2 * i), flat_perm.push_back(2 * i + 1);
  std::vector<int64_t> shape = {0, 0};
  shape.insert(shape.end(), out_size.begin(), out_size.end());
  shape.push_back(total_k);
  std::vector<int64_t> flat_shape(out_size.begin(), out_size.end());
  flat_shape.push_back(total_k);
  std::string windows = Reshape(ctx, ctx.Op("Transpose", {y}, {ir::Attribute::Ints("perm", perm)}), shape);
  std::string offsets = Reshape(ctx, ctx.Op("Transpose", {flat}, {ir::Attribute::Ints("perm", flat_perm)}), flat_shape);
  const int64_t last = n + 2;
  std::string first_max = ctx.Op("ArgMax", {windows}, {ir::Attribute::Int("axis", last), ir::Attribute::Int("keepdims", 1)});
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  std::string pick = first_max;
  if (IsFloatingPoint(dtype)) {
    std::string nan = ctx.Op("IsNaN", {windows});
    std::string nan_i = ctx.CastTo(nan, DataType::kBool, DataType::kInt32);
    std::string last_nan = ctx.Op("ArgMax", {nan_i}, {ir::Attribute::Int("axis", last), ir::Attribute::Int("keepdims", 1),
                                                      ir::Attribute::Int("select_last_index", 1)});
    std::string any_nan = ctx.Op("Greater", {ctx.Op("ReduceMax", {nan_i, ctx.ConstantInt64s({last})}),
                                             ctx.ConstantScalar(DataType::kInt32, 0)});
    pick = ctx.Op("Where", {any_nan, last_nan, first_max});
  }
  std::string values = Squeeze(ctx, ctx.Op("GatherElements", {windows, pick}, {ir::Attribute::Int("axis", last)}), {last});
  std::string full_offsets = ctx.Op("Expand", {offsets, ctx.Op("Shape", {windows})});
  std::string indices = Squeeze(ctx, ctx.Op("GatherElements", {full_offsets, pick}, {ir::Attribute::Int("axis", last)}), {last});
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, Unbatch(ctx, x, values)));
  return ctx.SetOutput(1, Unbatch(ctx, x, indices));
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
    if (indices_used) return AdaptiveMaxWithIndices(ctx, x, n, *in_size, out_size);
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
