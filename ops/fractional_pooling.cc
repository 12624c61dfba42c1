// File: ops/fractional_pooling.cc
// -----------------------------------------------------------------------------
// Fractional max pooling (fractional_max_pool2d / 3d). The randomness is an
// input: `random_samples` [N, C, n], which an exported program draws with
// aten::rand before the call (ops/random.cc); given the samples the op is
// deterministic, and it is translated exactly as torch's CPU kernel computes
// it (aten/src/ATen/native/FractionalMaxPooling.h, generate_intervals, and
// FractionalMaxPool2d.cpp / FractionalMaxPool3d.cpp):
//
//   alpha    = (in - k) / (out - 1)                 in the input's dtype
//   start[i] = trunc((i + u) * alpha) - trunc(u * alpha),  i < out - 1
//   start[out - 1] = in - k
//
// per plane (n, c) and spatial dim, with u = random_samples[n, c, s]: s is 0
// for W and 1 for H in 2-D, 0 for T, 1 for H, 2 for W in 3-D. Each output
// takes the k-window from its start: the first maximum, or the last NaN once
// one is seen; the index is the flat position in the input plane.
//
// The windows are gathered with GatherElements on the flattened planes (the
// starts differ per plane), so the spatial sizes must be static.
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
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// The starts [N, C, out] (INT64) of one spatial dim's windows. `u` [N, C]
// holds the samples in `dtype`; `shape_nc1` is [N, C, 1].
std::string WindowStarts(TranslateContext& ctx, const std::string& u, DataType dtype, int64_t in, int64_t out,
                         int64_t k, const std::string& shape_nc1) {
  std::string last = ctx.Op("Expand", {ctx.ConstantInt64(in - k), shape_nc1});
  if (out == 1) return last;
  // alpha rounded to the dtype as torch computes it there.
  const double alpha = dtype == DataType::kDouble
                           ? static_cast<double>(in - k) / static_cast<double>(out - 1)
                           : static_cast<double>(static_cast<float>(in - k) / static_cast<float>(out - 1));
  std::string steps = ctx.CastTo(
      ctx.Op("Range", {ctx.ConstantInt64(0), ctx.ConstantInt64(out - 1), ctx.ConstantInt64(1)}), DataType::kInt64, dtype);
  std::string a = ctx.ConstantScalar(dtype, alpha);
  std::string shifted = ctx.Op("Floor", {ctx.Op("Mul", {ctx.Op("Add", {Unsqueeze(ctx, u, {-1}), steps}), a})});
  std::string base = ctx.Op("Floor", {ctx.Op("Mul", {Unsqueeze(ctx, u, {-1}), a})});
  std::string starts = ctx.CastTo(ctx.Op("Sub", {shifted, base}), dtype, DataType::kInt64);
  return ctx.Op("Concat", {starts, last}, {Attribute::Int("axis", -1)});
}

// aten::fractional_max_pool2d(Tensor self, int[2] kernel_size, int[2] output_size, Tensor random_samples) -> (Tensor, Tensor)
// aten::fractional_max_pool3d(Tensor self, int[3] kernel_size, int[3] output_size, Tensor random_samples) -> (Tensor, Tensor)
absl::Status FractionalMaxPool(TranslateContext& ctx, int64_t n) {
  PT2ONNX_ASSIGN_OR_RETURN(Batched x, BatchedInput(ctx, "self", n));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    return ctx.Unsupported(absl::StrCat("fractional max pooling of ", DataTypeName(dtype),
                                        " (float32 and float64 are translated)"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ctx.Ints("kernel_size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> out_size, ctx.Ints("output_size"));
  if (static_cast<int64_t>(kernel.size()) != n || static_cast<int64_t>(out_size.size()) != n) {
    return ctx.Invalid(absl::StrCat("kernel_size and output_size need ", n, " values each"));
  }
  std::optional<std::vector<int64_t>> in_size = StaticTrailingDims(ctx, "self", n);
  if (!in_size) return ctx.Unsupported("fractional max pooling over symbolic spatial sizes");
  int64_t plane = 1, windows = 1, cells = 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t in = (*in_size)[i], out = out_size[i], k = kernel[i];
    if (k <= 0 || out <= 0 || out + k - 1 > in) {
      return ctx.Invalid(absl::StrCat("fractional_max_pool", n, "d(): pool size ", k, " and output size ", out,
                                      " do not fit input size ", in));
    }
    plane *= in;
    windows *= out;
    cells *= k;
  }
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* s_meta, ctx.InputMeta("random_samples"));
  if (s_meta->sizes.size() != 3 || s_meta->dtype != dtype) {
    return ctx.Invalid("random_samples must be [N, C, n] of the input's dtype");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string samples, ctx.Input("random_samples"));
  // torch reads the first N rows of the samples.
  std::string batch = ShapeSlice(ctx, x.value, 0, 1);
  samples = ctx.Op("Slice", {samples, ctx.ConstantInt64s({0}), batch, ctx.ConstantInt64s({0})});
  std::string shape_nc1 =
      ctx.Op("Concat", {ShapeSlice(ctx, x.value, 0, 2), ctx.ConstantInt64s({1})}, {Attribute::Int("axis", 0)});

  // flat: [N, C, O_0, K_0, O_1, K_1, ..] flat positions in the input plane.
  std::string flat;
  int64_t stride = plane;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t in = (*in_size)[i];
    stride /= in;
    const int64_t sample_index = n == 2 ? 1 - i : i;  // 2-D: [W, H]; 3-D: [T, H, W]
    std::string u = ctx.Op("Gather", {samples, ctx.ConstantInt64(sample_index)}, {Attribute::Int("axis", 2)});
    std::string starts = WindowStarts(ctx, u, dtype, in, out_size[i], kernel[i], shape_nc1);
    std::string offsets = ctx.Op("Range", {ctx.ConstantInt64(0), ctx.ConstantInt64(kernel[i]), ctx.ConstantInt64(1)});
    std::string pos = ctx.Op("Add", {Unsqueeze(ctx, starts, {-1}), offsets});  // [N, C, O_i, K_i]
    std::string term = ctx.Op("Mul", {pos, ctx.ConstantInt64(stride)});
    std::vector<int64_t> axes;
    for (int64_t j = 0; j < 2 * i; ++j) axes.push_back(2 + j);
    for (int64_t j = 2 * i + 2; j < 2 * n; ++j) axes.push_back(2 + j);
    if (!axes.empty()) term = Unsqueeze(ctx, term, axes);
    flat = flat.empty() ? term : ctx.Op("Add", {flat, term});
  }
  std::vector<int64_t> perm = {0, 1};
  for (int64_t i = 0; i < n; ++i) perm.push_back(2 + 2 * i);
  for (int64_t i = 0; i < n; ++i) perm.push_back(3 + 2 * i);
  std::string index = Reshape(ctx, ctx.Op("Transpose", {flat}, {Attribute::Ints("perm", perm)}), {0, 0, windows * cells});
  std::string planes = Reshape(ctx, x.value, {0, 0, plane});
  std::string values = Reshape(ctx, ctx.Op("GatherElements", {planes, index}, {Attribute::Int("axis", 2)}),
                               {0, 0, windows, cells});
  index = Reshape(ctx, index, {0, 0, windows, cells});

  std::string first_max = ctx.Op("ArgMax", {values}, {Attribute::Int("axis", 3), Attribute::Int("keepdims", 1)});
  std::string nan_i = ctx.CastTo(ctx.Op("IsNaN", {values}), DataType::kBool, DataType::kInt32);
  std::string last_nan = ctx.Op("ArgMax", {nan_i}, {Attribute::Int("axis", 3), Attribute::Int("keepdims", 1),
                                                    Attribute::Int("select_last_index", 1)});
  std::string any_nan = ctx.Op("Greater", {ctx.Op("ReduceMax", {nan_i, ctx.ConstantInt64s({3})}),
                                           ctx.ConstantScalar(DataType::kInt32, 0)});
  std::string pick = ctx.Op("Where", {any_nan, last_nan, first_max});

  std::vector<int64_t> out_shape = {0, 0};
  out_shape.insert(out_shape.end(), out_size.begin(), out_size.end());
  std::string y = Reshape(ctx, ctx.Op("GatherElements", {values, pick}, {Attribute::Int("axis", 3)}), out_shape);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, Unbatch(ctx, x, y)));
  if (!ctx.OutputUsed(1)) return absl::OkStatus();
  std::string where = Reshape(ctx, ctx.Op("GatherElements", {index, pick}, {Attribute::Int("axis", 3)}), out_shape);
  return ctx.SetOutput(1, Unbatch(ctx, x, where));
}

absl::Status AtenFractionalMaxPool2d(TranslateContext& ctx) { return FractionalMaxPool(ctx, 2); }
absl::Status AtenFractionalMaxPool3d(TranslateContext& ctx) { return FractionalMaxPool(ctx, 3); }

}  // namespace

void RegisterFractionalPoolingOps(OpRegistry& r) {
  r.Add("aten::fractional_max_pool2d.default", &AtenFractionalMaxPool2d);
  r.Add("aten::fractional_max_pool3d.default", &AtenFractionalMaxPool3d);
}

}  // namespace pt2onnx::ops
