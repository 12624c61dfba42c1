// File: ops/sampling.cc
// -----------------------------------------------------------------------------
// Spatial sampling and folding: grid_sampler_2d (ONNX GridSample, whose
// modes and padding rules follow torch's grid_sample) and col2im (ONNX
// Col2Im, torch.nn.functional.fold).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// aten::grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor
// interpolation_mode 0/1/2 = bilinear/nearest/bicubic; padding_mode
// 0/1/2 = zeros/border/reflection (GridSamplerInterpolation / Padding in
// aten/src/ATen/native/GridSampler.h). Opset 20 renamed GridSample's modes
// bilinear -> linear and bicubic -> cubic.
absl::Status GridSample(TranslateContext& ctx, bool volumetric_allowed) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t interpolation, ctx.Int("interpolation_mode"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t padding, ctx.Int("padding_mode"));
  PT2ONNX_ASSIGN_OR_RETURN(bool align_corners, ctx.Bool("align_corners"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t grid_rank, ctx.InputRank("grid"));
  if (volumetric_allowed && rank == 5 && grid_rank == 5) {
    if (ctx.opset() < 20) {
      return ctx.Unsupported(
          "5-D grid_sampler below opset 20 (ONNX GridSample is 2-D only before); convert with "
          "--opset 20 or later");
    }
    if (interpolation == 2) {
      return ctx.Invalid("bicubic interpolation needs a 4-D input, as in torch");
    }
  } else if (rank != 4 || grid_rank != 4) {
    return ctx.Invalid(absl::StrCat("input must be (N, C, H, W) and grid (N, H_out, W_out, 2)",
                                    volumetric_allowed ? " (or 5-D, volumetric)" : "",
                                    "; got ranks ", rank, " and ", grid_rank));
  }
  const bool new_names = ctx.opset() >= 20;
  std::string mode;
  switch (interpolation) {
    case 0: mode = new_names ? "linear" : "bilinear"; break;
    case 1: mode = "nearest"; break;
    case 2: mode = new_names ? "cubic" : "bicubic"; break;
    default:
      return ctx.Invalid(absl::StrCat(
          "interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), got ",
          interpolation));
  }
  const char* padding_names[] = {"zeros", "border", "reflection"};
  if (padding < 0 || padding > 2) {
    return ctx.Invalid(absl::StrCat(
        "padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), got ", padding));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string input, ctx.InputAs("input", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string grid, ctx.InputAs("grid", dtype));
  return ctx.SetOutput(0, ctx.Op("GridSample", {input, grid},
                                 {Attribute::String("mode", mode),
                                  Attribute::String("padding_mode", padding_names[padding]),
                                  Attribute::Int("align_corners", align_corners ? 1 : 0)}));
}

absl::Status AtenGridSampler2d(TranslateContext& ctx) { return GridSample(ctx, false); }

// aten::grid_sampler_3d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor
absl::Status AtenGridSampler3d(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  if (rank != 5) return ctx.Invalid(absl::StrCat("grid_sampler_3d needs a 5-D input, got rank ", rank));
  return GridSample(ctx, true);
}

// aten::grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor
// torch dispatches 4-D inputs to grid_sampler_2d and 5-D ones to grid_sampler_3d.
absl::Status AtenGridSampler(TranslateContext& ctx) { return GridSample(ctx, true); }

// aten::col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor
// (N, C * kH * kW, L) or unbatched (C * kH * kW, L) blocks summed into
// (N, C, H, W) images.
absl::Status AtenCol2im(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank != 2 && rank != 3) {
    return ctx.Invalid(absl::StrCat("self must be (N, C*kH*kW, L) or (C*kH*kW, L), got rank ",
                                    rank));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, SpatialInts(ctx, "kernel_size", 2));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, SpatialInts(ctx, "dilation", 2));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, SpatialInts(ctx, "padding", 2));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, SpatialInts(ctx, "stride", 2));
  for (int i = 0; i < 2; ++i) {
    if (kernel[i] <= 0 || dilation[i] <= 0 || stride[i] <= 0 || padding[i] < 0) {
      return ctx.Invalid(
          "kernel_size, dilation and stride must be positive and padding non-negative");
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string image_shape, ctx.IntsAsTensor("output_size"));
  if (rank == 2) x = Unsqueeze(ctx, x, {0});
  std::string out = ctx.Op("Col2Im", {x, image_shape, ctx.ConstantInt64s(kernel)},
                           {Attribute::Ints("dilations", dilation),
                            Attribute::Ints("pads",
                                            {padding[0], padding[1], padding[0], padding[1]}),
                            Attribute::Ints("strides", stride)});
  if (rank == 2) out = Squeeze(ctx, out, {0});
  return ctx.SetOutput(0, out);
}

// aten::im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor
// (N, C, H, W) or unbatched (C, H, W) to sliding blocks (N, C * kH * kW, L),
// row c * kH * kW + i * kW + j holding the (i, j) tap of every block. A
// Gather of the zero-padded image at run-time computed flat positions, so
// it is exact for any value (inf and NaN included) and sizes may be symbolic.
absl::Status AtenIm2col(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank != 3 && rank != 4) {
    return ctx.Invalid(absl::StrCat("self must be (N, C, H, W) or (C, H, W), got rank ", rank));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, SpatialInts(ctx, "kernel_size", 2));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, SpatialInts(ctx, "dilation", 2));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, SpatialInts(ctx, "padding", 2));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, SpatialInts(ctx, "stride", 2));
  for (int i = 0; i < 2; ++i) {
    if (kernel[i] <= 0 || dilation[i] <= 0 || stride[i] <= 0 || padding[i] < 0) {
      return ctx.Invalid(
          "kernel_size, dilation and stride must be positive and padding non-negative");
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  if (rank == 3) x = Unsqueeze(ctx, x, {0});
  x = ctx.Op("Pad", {x, ctx.ConstantInt64s({0, 0, padding[0], padding[1], 0, 0, padding[0], padding[1]})});
  std::string hp = ShapeSlice(ctx, x, 2, 3), wp = ShapeSlice(ctx, x, 3, 4);
  // Blocks along each dim: (padded - dilation * (k - 1) - 1) / stride + 1.
  auto blocks = [&](const std::string& size, int d) {
    std::string span = ctx.Op("Sub", {size, ctx.ConstantInt64s({dilation[d] * (kernel[d] - 1) + 1})});
    return ctx.Op("Add", {ctx.Op("Div", {span, ctx.ConstantInt64s({stride[d]})}), ctx.ConstantInt64s({1})});
  };
  std::string oh = blocks(hp, 0), ow = blocks(wp, 1);
  auto range = [&](const std::string& n, int64_t step) {
    return ctx.Op("Range", {ctx.ConstantInt64(0), Reshape(ctx, ctx.Op("Mul", {n, ctx.ConstantInt64s({step})}), {}),
                            ctx.ConstantInt64(step)});
  };
  std::vector<int64_t> taps_h, taps_w;
  for (int64_t i = 0; i < kernel[0]; ++i) taps_h.push_back(i * dilation[0]);
  for (int64_t j = 0; j < kernel[1]; ++j) taps_w.push_back(j * dilation[1]);
  std::string rows = ctx.Op("Add", {Reshape(ctx, ctx.ConstantInt64s(taps_h), {-1, 1, 1, 1}),
                                    Reshape(ctx, range(oh, stride[0]), {1, 1, -1, 1})});
  std::string cols = ctx.Op("Add", {Reshape(ctx, ctx.ConstantInt64s(taps_w), {1, -1, 1, 1}),
                                    Reshape(ctx, range(ow, stride[1]), {1, 1, 1, -1})});
  std::string flat = ctx.Op("Add", {ctx.Op("Mul", {rows, Reshape(ctx, wp, {})}), cols});
  std::string length = ctx.Op("Mul", {oh, ow});
  std::string at = ctx.Op("Reshape", {flat, ctx.Op("Concat", {ctx.ConstantInt64s({kernel[0] * kernel[1]}), length},
                                                   {Attribute::Int("axis", 0)})});
  // Explicit sizes, no -1: a batch may be empty.
  std::string image = ctx.Op("Reshape", {x, ctx.Op("Concat", {ShapeSlice(ctx, x, 0, 2), ctx.Op("Mul", {hp, wp})},
                                                    {Attribute::Int("axis", 0)})});
  std::string taken = ctx.Op("Gather", {image, at}, {Attribute::Int("axis", 2)});  // (N, C, kk, L)
  std::string rows_out = ctx.Op("Mul", {ShapeSlice(ctx, x, 1, 2), ctx.ConstantInt64s({kernel[0] * kernel[1]})});
  std::string out = ctx.Op("Reshape", {taken, ctx.Op("Concat", {ShapeSlice(ctx, x, 0, 1), rows_out, length},
                                                      {Attribute::Int("axis", 0)})});
  if (rank == 3) out = Squeeze(ctx, out, {0});
  return ctx.SetOutput(0, out);
}

}  // namespace

void RegisterSamplingOps(OpRegistry& r) {
  r.Add("aten::im2col.default", &AtenIm2col);
  r.Add("aten::grid_sampler.default", &AtenGridSampler);
  r.Add("aten::grid_sampler_2d.default", &AtenGridSampler2d);
  r.Add("aten::grid_sampler_3d.default", &AtenGridSampler3d);
  r.Add("aten::col2im.default", &AtenCol2im);
}

}  // namespace pt2onnx::ops
