// File: ops/library_ops.cc
// -----------------------------------------------------------------------------
// Custom operators that libraries put in the programs they export, translated
// as built-ins so users need no translation library for them (--translations
// stays for the rest). Semantics are the library's own, cited per op.
// transformers' grouped_mm_fallback is with ATen's _grouped_mm in
// grouped_matmul.cc.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// ---- torchvision (0.29, torchvision/csrc/ops/cpu/*_kernel.cpp) ----
// ONNX's RoiAlign, MaxRoiPool and NonMaxSuppression come from the same
// Caffe2 / Detectron kernels torchvision's CPU kernels do; the mapping below
// is the one torchvision's own ONNX export uses. ONNX Runtime runs them in
// float32, so other float dtypes are computed in float32 and cast back.

struct Rois {
  std::string x;      // input, float32
  std::string boxes;  // rois [K, 5] (batch index, x1, y1, x2, y2), float32
  DataType dtype = DataType::kFloat;
  int64_t pooled_h = 0, pooled_w = 0;
  double spatial_scale = 1;
};

absl::StatusOr<Rois> ReadRois(TranslateContext& ctx) {
  Rois r;
  PT2ONNX_ASSIGN_OR_RETURN(r.dtype, ctx.InputDtype("input"));
  if (!IsFloatingPoint(r.dtype) || IsComplex(r.dtype)) {
    return ctx.Invalid(absl::StrCat("expects a floating-point input, got ", DataTypeName(r.dtype)));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* rois_meta, ctx.InputMeta("rois"));
  if (rank != 4 || rois_meta->sizes.size() != 2 ||
      (!rois_meta->sizes[1].is_symbolic && rois_meta->sizes[1].value != 5)) {
    return ctx.Invalid("expects input (N, C, H, W) and rois (K, 5) as (batch index, x1, y1, x2, y2)");
  }
  PT2ONNX_ASSIGN_OR_RETURN(r.pooled_h, ctx.Int("pooled_height"));
  PT2ONNX_ASSIGN_OR_RETURN(r.pooled_w, ctx.Int("pooled_width"));
  if (r.pooled_h <= 0 || r.pooled_w <= 0) {
    return ctx.Invalid(absl::StrCat("pooled sizes must be positive, got ", r.pooled_h, "x", r.pooled_w));
  }
  PT2ONNX_ASSIGN_OR_RETURN(r.spatial_scale, ctx.Float("spatial_scale"));
  PT2ONNX_ASSIGN_OR_RETURN(r.x, ctx.InputAs("input", DataType::kFloat));
  PT2ONNX_ASSIGN_OR_RETURN(DataType rois_dtype, ctx.InputDtype("rois"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string rois, ctx.Input("rois"));
  r.boxes = ctx.CastTo(rois, rois_dtype, DataType::kFloat);
  return r;
}

// torchvision::roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor
// aligned=True shifts the boxes by half a pixel (ONNX half_pixel);
// aligned=False keeps them and makes each at least 1x1 (output_half_pixel).
absl::Status TorchvisionRoiAlign(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Rois r, ReadRois(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t sampling_ratio, ctx.Int("sampling_ratio"));
  PT2ONNX_ASSIGN_OR_RETURN(bool aligned, ctx.Bool("aligned"));
  std::string axis1 = ctx.ConstantInt64s({1});
  std::string batch = ctx.CastTo(Squeeze(ctx, ctx.Op("Slice", {r.boxes, ctx.ConstantInt64s({0}), axis1, axis1}), {1}),
                                 DataType::kFloat, DataType::kInt64);
  std::string corners = ctx.Op("Slice", {r.boxes, axis1, ctx.ConstantInt64s({5}), axis1});
  std::string y = ctx.Op("RoiAlign", {r.x, corners, batch},
                         {ir::Attribute::String("coordinate_transformation_mode", aligned ? "half_pixel" : "output_half_pixel"),
                          ir::Attribute::String("mode", "avg"), ir::Attribute::Int("output_height", r.pooled_h),
                          ir::Attribute::Int("output_width", r.pooled_w),
                          ir::Attribute::Int("sampling_ratio", std::max<int64_t>(sampling_ratio, 0)),
                          ir::Attribute::Float("spatial_scale", static_cast<float>(r.spatial_scale))});
  return ctx.SetOutput(0, ctx.CastTo(y, DataType::kFloat, r.dtype));
}

// torchvision::roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) -> (Tensor, Tensor)
// The second result (the argmax positions, for backward) has no ONNX form.
absl::Status TorchvisionRoiPool(TranslateContext& ctx) {
  if (ctx.OutputUsed(1)) {
    return ctx.Unsupported("roi_pool's argmax output (used by its backward): ONNX's MaxRoiPool gives only the "
                           "pooled values");
  }
  PT2ONNX_ASSIGN_OR_RETURN(Rois r, ReadRois(ctx));
  std::string y = ctx.Op("MaxRoiPool", {r.x, r.boxes},
                         {ir::Attribute::Ints("pooled_shape", {r.pooled_h, r.pooled_w}),
                          ir::Attribute::Float("spatial_scale", static_cast<float>(r.spatial_scale))});
  return ctx.SetOutput(0, ctx.CastTo(y, DataType::kFloat, r.dtype));
}

// torchvision::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor
// Greedy suppression in descending score order of every box whose IoU with
// a kept box is > iou_threshold; the kept indices, best first.
absl::Status TorchvisionNms(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* dets_meta, ctx.InputMeta("dets"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t scores_rank, ctx.InputRank("scores"));
  if (dets_meta->sizes.size() != 2 || scores_rank != 1 ||
      (!dets_meta->sizes[1].is_symbolic && dets_meta->sizes[1].value != 4)) {
    return ctx.Invalid("expects dets (N, 4) as (x1, y1, x2, y2) and scores (N,)");
  }
  PT2ONNX_ASSIGN_OR_RETURN(double iou, ctx.Float("iou_threshold"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string dets, ctx.InputAs("dets", DataType::kFloat));
  PT2ONNX_ASSIGN_OR_RETURN(std::string scores, ctx.InputAs("scores", DataType::kFloat));
  std::string count = ShapeSlice(ctx, dets, 0, 1);  // no per-class limit: every box may be kept
  std::vector<std::string> sel = ctx.AddNode(
      "NonMaxSuppression",
      {Unsqueeze(ctx, dets, {0}), Unsqueeze(ctx, scores, {0, 1}), count,
       Reshape(ctx, ctx.ConstantScalar(DataType::kFloat, iou), {1})},
      {ir::Attribute::Int("center_point_box", 0)}, 1);
  std::string axis1 = ctx.ConstantInt64s({1});
  return ctx.SetOutput(0, Squeeze(ctx, ctx.Op("Slice", {sel[0], ctx.ConstantInt64s({2}), ctx.ConstantInt64s({3}), axis1}), {1}));
}

}  // namespace

void RegisterLibraryOps(OpRegistry& r) {
  r.Add("torchvision::roi_align.default", &TorchvisionRoiAlign);
  r.Add("torchvision::roi_pool.default", &TorchvisionRoiPool);
  r.Add("torchvision::nms.default", &TorchvisionNms);
}

}  // namespace pt2onnx::ops
