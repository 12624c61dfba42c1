// File: ops/resample.cc
// -----------------------------------------------------------------------------
// Resampling: upsample_* / _upsample_*_aa (ONNX Resize). The pad family
// (ONNX Pad) is in padding.cc.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/shape_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

std::optional<std::vector<int64_t>> StaticTrailingDims(const TranslateContext& ctx,
                                                       absl::string_view arg, int64_t n) {
  return StaticDims(ctx, arg, -n, n);
}

// ---- upsample (Resize) -------------------------------------------------------------

struct ResizeMode {
  const char* mode;           // nearest / linear / cubic
  bool nearest_exact = false;  // nearest: torch's "nearest-exact"
  bool antialias = false;
};

// Coordinate mapping: torch's align_corners=True is ONNX's "align_corners";
// otherwise linear/cubic use the half-pixel mapping (torch's
// area_pixel_compute_source_index), legacy nearest uses floor(dst * in/out)
// ("asymmetric" + floor) and nearest-exact floor((dst + 0.5) * in/out)
// ("half_pixel" + round_prefer_ceil).
std::vector<ir::Attribute> ResizeAttributes(const ResizeMode& m, bool align_corners) {
  std::vector<ir::Attribute> attrs = {ir::Attribute::String("mode", m.mode)};
  if (std::string(m.mode) == "nearest") {
    attrs.push_back(ir::Attribute::String("coordinate_transformation_mode",
                                          m.nearest_exact ? "half_pixel" : "asymmetric"));
    attrs.push_back(
        ir::Attribute::String("nearest_mode", m.nearest_exact ? "round_prefer_ceil" : "floor"));
    return attrs;
  }
  attrs.push_back(ir::Attribute::String("coordinate_transformation_mode",
                                        align_corners ? "align_corners" : "half_pixel"));
  if (std::string(m.mode) == "cubic") {
    // torch's bicubic uses A = -0.75 (OpenCV's); its anti-aliased kernel
    // A = -0.5 (PIL's), see UpSampleKernel.cpp.
    attrs.push_back(ir::Attribute::Float("cubic_coeff_a", m.antialias ? -0.5f : -0.75f));
  }
  if (m.antialias) {
    // torch's anti-aliased kernels drop out-of-image taps and renormalise.
    attrs.push_back(ir::Attribute::Int("antialias", 1));
    attrs.push_back(ir::Attribute::Int("exclude_outside", 1));
  }
  return attrs;
}

// A float Constant [1, 1, values...] (Resize scales for N and C too).
std::string ScalesConstant(TranslateContext& ctx, const std::vector<double>& scales) {
  std::vector<float> values = {1.0f, 1.0f};
  for (double s : scales) values.push_back(static_cast<float>(s));
  return ctx.Constant(ir::Tensor::Owned(
      DataType::kFloat, {static_cast<int64_t>(values.size())},
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float))));
}

// The scales torch's kernels really map coordinates with. Where a dim's
// output size floor(in * s) equals its input size, legacy nearest and the
// linear kernels copy that dim (nearest_idx, and the linear kernels' own
// shortcut) instead of mapping by 1/s; legacy nearest also maps an output of
// exactly twice the input by i / 2. Those dims get scale 1 (or 2).
// nearest-exact and cubic never copy, but ONNX Runtime does when no size
// changes: refused.
// Only non-integer scales can hit these cases: with static sizes it is
// decided here, otherwise (linear, legacy nearest) at run time from the
// input's shape.
absl::StatusOr<std::string> EffectiveScales(TranslateContext& ctx, const ResizeMode& m,
                                            const std::string& x, absl::string_view input_arg,
                                            int64_t n, std::vector<double> scales) {
  const bool legacy_nearest = std::string(m.mode) == "nearest" && !m.nearest_exact;
  const bool copies_equal_size = legacy_nearest || std::string(m.mode) == "linear";
  // The anti-aliased cubic kernel copies when no size changes, as ONNX
  // Runtime does.
  if (!copies_equal_size && m.antialias) return ScalesConstant(ctx, scales);
  if (!copies_equal_size) {
    // nearest-exact and cubic map by 1/s even when no dim changes size, but
    // ONNX Runtime then copies the input instead of resampling it.
    std::optional<std::vector<int64_t>> in = StaticTrailingDims(ctx, input_arg, n);
    bool all_equal = true, unknown = false;
    for (int64_t i = 0; i < n; ++i) {
      if (!(scales[i] > 1.0 && scales[i] < 2.0)) {
        all_equal = all_equal && scales[i] == 1.0;
      } else if (!in) {
        unknown = true;
      } else {
        all_equal = all_equal && std::floor((*in)[i] * scales[i]) == (*in)[i];
      }
    }
    bool identity_scales = true;
    for (double v : scales) identity_scales = identity_scales && v == 1.0;
    if (unknown || (all_equal && !identity_scales)) {
      return ctx.Unsupported(absl::StrCat(
          "scale factors that ", unknown ? "may " : "", "leave every size unchanged: torch's ",
          m.nearest_exact ? "nearest-exact" : m.mode,
          " kernel still maps by 1/scale, ONNX Runtime copies the input; pass the output size "
          "instead"));
    }
    return ScalesConstant(ctx, scales);
  }
  auto at_risk = [&](double s) {
    return (s > 1.0 && s < 2.0) || (legacy_nearest && s > 2.0 && s < 3.0);
  };
  std::optional<std::vector<int64_t>> in = StaticTrailingDims(ctx, input_arg, n);
  bool runtime = false;
  for (int64_t i = 0; i < n; ++i) {
    if (!at_risk(scales[i])) continue;
    if (!in) {
      runtime = true;
      continue;
    }
    const int64_t size = (*in)[i];
    const double out = std::floor(static_cast<double>(size) * scales[i]);
    if (out == static_cast<double>(size)) scales[i] = 1.0;
    if (legacy_nearest && out == 2.0 * static_cast<double>(size)) scales[i] = 2.0;
  }
  if (!runtime) return ScalesConstant(ctx, scales);
  // Per dim, as ONNX Runtime sizes the output: out = floor(in * s) in float.
  std::string given = ctx.Op("Slice", {ScalesConstant(ctx, scales), ctx.ConstantInt64s({2}),
                                       ctx.ConstantInt64s({n + 2})});
  std::string in_f = ctx.CastTo(ShapeSlice(ctx, x, 2, n + 2), DataType::kInt64, DataType::kFloat);
  std::string out_f = ctx.Op("Floor", {ctx.Op("Mul", {in_f, given})});
  std::string effective =
      ctx.Op("Where", {ctx.Op("Equal", {out_f, in_f}), ctx.ConstantScalar(DataType::kFloat, 1.0),
                       given});
  if (legacy_nearest) {
    std::string twice = ctx.Op("Mul", {in_f, ctx.ConstantScalar(DataType::kFloat, 2.0)});
    effective = ctx.Op("Where", {ctx.Op("Equal", {out_f, twice}),
                                 ctx.ConstantScalar(DataType::kFloat, 2.0), effective});
  }
  return ctx.Op("Concat", {ScalesConstant(ctx, {}), effective}, {ir::Attribute::Int("axis", 0)});
}

// Resize to explicit sizes (`output_size` argument) or by scale factors.
// Scales, when torch has them, are what its kernels map coordinates with, so
// they are preferred over the sizes they imply.
absl::Status EmitResize(TranslateContext& ctx, int64_t n, const ResizeMode& m, bool align_corners,
                        std::optional<std::vector<double>> scales) {
  const char* input_arg = ctx.Has("self") ? "self" : "input";  // .vec overloads say "input"
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input(input_arg));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank(input_arg));
  if (rank != n + 2) {
    return ctx.Invalid(absl::StrCat("input has rank ", rank, ", expected ", n + 2));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype(input_arg));
  if (absl::string_view(m.mode) != "nearest" && !IsFloatingPoint(dtype)) {
    return ctx.Unsupported(absl::StrCat(
        DataTypeName(dtype), " ", m.mode, " interpolation: torch computes it in fixed point with "
        "rounding (aten/src/ATen/native/cpu/UpSampleKernel.cpp) where ONNX Resize truncates; "
        "interpolate a float copy of the input instead"));
  }
  if (m.antialias && align_corners) {
    // torch's anti-aliased kernels then centre taps at (i + 0.5) * (in - 1) / (out - 1),
    // a mapping no Resize coordinate mode has.
    return ctx.Unsupported("antialias=True with align_corners=True; use align_corners=False");
  }
  if (m.antialias && n == 2) {
    // torch 2.15's anti-aliased kernels fill every row with the first one
    // when the width shrinks to 1 while the height is resized (a torch bug:
    // resizing the two dims one at a time differs); refused, not copied.
    const pt2::TensorMeta* out = ctx.OutputMeta(0);
    std::optional<std::vector<int64_t>> in = StaticTrailingDims(ctx, input_arg, 2);
    if (out != nullptr && out->sizes.size() == 4 && !out->sizes[3].is_symbolic &&
        out->sizes[3].value == 1 && (!in || (*in)[1] != 1) &&
        (out->sizes[2].is_symbolic || out->sizes[2].value != 1) &&
        (!in || out->sizes[2].is_symbolic || out->sizes[2].value != (*in)[0])) {
      return ctx.Unsupported(
          "antialias=True resizing the height while the width shrinks to 1: torch's kernel "
          "repeats the first row there (resize the two dims in two calls instead)");
    }
  }
  std::vector<ir::Attribute> attrs = ResizeAttributes(m, align_corners);
  if (scales) {
    if (static_cast<int64_t>(scales->size()) != n) {
      return ctx.Invalid(absl::StrCat("expected ", n, " scale factors, got ", scales->size()));
    }
    PT2ONNX_ASSIGN_OR_RETURN(std::string scale_values,
                             EffectiveScales(ctx, m, x, input_arg, n, *scales));
    return ctx.SetOutput(0, ctx.Op("Resize", {x, "", scale_values}, attrs));
  }
  std::string sizes;
  std::optional<std::vector<int64_t>> lead = StaticDims(ctx, input_arg, 0, 2);
  if (lead && ctx.IsStaticInts("output_size")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> out_size, ctx.Ints("output_size"));
    lead->insert(lead->end(), out_size.begin(), out_size.end());
    sizes = ctx.ConstantInt64s(*lead);
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(std::string out_size, ctx.IntsAsTensor("output_size"));
    sizes = ctx.Op("Concat", {ShapeSlice(ctx, x, 0, 2), out_size}, {ir::Attribute::Int("axis", 0)});
  }
  return ctx.SetOutput(0, ctx.Op("Resize", {x, "", "", sizes}, attrs));
}

// The .default overloads: output_size plus optional per-dim scales
// (scales_d/scales_h/scales_w, or `scales` for 1-d). Scales are used only
// when all are present.
absl::Status UpsampleDefault(TranslateContext& ctx, int64_t n, const ResizeMode& m,
                             bool has_align_corners) {
  bool align_corners = false;
  if (has_align_corners) {
    PT2ONNX_ASSIGN_OR_RETURN(align_corners, ctx.Bool("align_corners"));
  }
  std::vector<const char*> names;
  if (n == 1) names = {"scales"};
  if (n == 2) names = {"scales_h", "scales_w"};
  if (n == 3) names = {"scales_d", "scales_h", "scales_w"};
  std::vector<double> scales;
  for (const char* name : names) {
    if (!ctx.Has(name)) break;
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> s, ctx.OptionalFloat(name));
    if (!s) break;
    scales.push_back(*s);
  }
  // With align_corners torch ignores the scales (it maps by the sizes);
  // otherwise it maps coordinates by 1/scale, so the scales must be used.
  const bool use_scales = scales.size() == names.size() && !align_corners;
  if (use_scales) {
    // Resize derives its output size from the scales: where the sizes are
    // known, that must be torch's output_size. (Symbolic sizes come from
    // torch's own floor(in * scale).)
    const char* input_arg = ctx.Has("self") ? "self" : "input";
    std::optional<std::vector<int64_t>> in = StaticTrailingDims(ctx, input_arg, n);
    if (in && ctx.IsStaticInts("output_size")) {
      PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> out, ctx.Ints("output_size"));
      if (static_cast<int64_t>(out.size()) != n) {
        return ctx.Invalid(absl::StrCat("output_size has ", out.size(), " entries, expected ", n));
      }
      for (int64_t i = 0; i < n; ++i) {
        if (static_cast<int64_t>(std::floor((*in)[i] * scales[i])) != out[i]) {
          return ctx.Unsupported(absl::StrCat(
              "output_size ", out[i], " is not floor(", (*in)[i], " * scale ", scales[i],
              "): torch maps coordinates by the scale, ONNX Resize cannot with another size; "
              "pass either the size or the scale factor"));
        }
      }
    }
  }
  return EmitResize(ctx, n, m, align_corners,
                    use_scales ? std::optional<std::vector<double>>(scales) : std::nullopt);
}

// The .vec overloads: SymInt[]? output_size, float[]? scale_factors.
absl::Status UpsampleVec(TranslateContext& ctx, int64_t n, const ResizeMode& m,
                         bool has_align_corners) {
  bool align_corners = false;
  if (has_align_corners) {
    PT2ONNX_ASSIGN_OR_RETURN(align_corners, ctx.Bool("align_corners"));
  }
  if (ctx.Has("scale_factors")) {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("scale_factors"));
    // align_corners maps by the sizes, which floor(in * scale) gives in both.
    if (arg.kind == pt2::Argument::Kind::kFloats) {
      return EmitResize(ctx, n, m, align_corners, arg.floats);
    }
  }
  if (!ctx.Has("output_size")) return ctx.Invalid("neither output_size nor scale_factors given");
  return EmitResize(ctx, n, m, align_corners, std::nullopt);
}

constexpr ResizeMode kNearest = {"nearest"};
constexpr ResizeMode kNearestExact = {"nearest", true};
constexpr ResizeMode kLinear = {"linear"};
constexpr ResizeMode kCubic = {"cubic"};
constexpr ResizeMode kLinearAa = {"linear", false, true};
constexpr ResizeMode kCubicAa = {"cubic", false, true};

// aten::upsample_nearest{1,2,3}d(Tensor self, SymInt[n] output_size, float? scales...=None)
absl::Status AtenUpsampleNearest1d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 1, kNearest, false);
}
absl::Status AtenUpsampleNearest2d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kNearest, false);
}
absl::Status AtenUpsampleNearest3d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 3, kNearest, false);
}
// aten::upsample_nearest{1,2,3}d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors)
absl::Status AtenUpsampleNearest1dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 1, kNearest, false);
}
absl::Status AtenUpsampleNearest2dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kNearest, false);
}
absl::Status AtenUpsampleNearest3dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 3, kNearest, false);
}
// aten::_upsample_nearest_exact{1,2,3}d(Tensor self, SymInt[n] output_size, float? scales...=None)
absl::Status AtenUpsampleNearestExact1d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 1, kNearestExact, false);
}
absl::Status AtenUpsampleNearestExact2d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kNearestExact, false);
}
absl::Status AtenUpsampleNearestExact3d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 3, kNearestExact, false);
}
// aten::_upsample_nearest_exact{1,2,3}d.vec(Tensor input, SymInt[]? output_size,
//                                           float[]? scale_factors)
absl::Status AtenUpsampleNearestExact1dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 1, kNearestExact, false);
}
absl::Status AtenUpsampleNearestExact2dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kNearestExact, false);
}
absl::Status AtenUpsampleNearestExact3dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 3, kNearestExact, false);
}
// aten::upsample_linear1d / upsample_bilinear2d / upsample_trilinear3d
//   (Tensor self, SymInt[n] output_size, bool align_corners, float? scales...=None) -> Tensor
absl::Status AtenUpsampleLinear1d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 1, kLinear, true);
}
absl::Status AtenUpsampleBilinear2d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kLinear, true);
}
absl::Status AtenUpsampleTrilinear3d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 3, kLinear, true);
}
// ... .vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors)
absl::Status AtenUpsampleLinear1dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 1, kLinear, true);
}
absl::Status AtenUpsampleBilinear2dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kLinear, true);
}
absl::Status AtenUpsampleTrilinear3dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 3, kLinear, true);
}
// aten::upsample_bicubic2d(Tensor self, SymInt[2] output_size, bool align_corners,
//                          float? scales_h=None, float? scales_w=None) -> Tensor
absl::Status AtenUpsampleBicubic2d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kCubic, true);
}
absl::Status AtenUpsampleBicubic2dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kCubic, true);
}
// aten::_upsample_bilinear2d_aa / _upsample_bicubic2d_aa (+ .vec): antialiased.
absl::Status AtenUpsampleBilinear2dAa(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kLinearAa, true);
}
absl::Status AtenUpsampleBilinear2dAaVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kLinearAa, true);
}
absl::Status AtenUpsampleBicubic2dAa(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kCubicAa, true);
}
absl::Status AtenUpsampleBicubic2dAaVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kCubicAa, true);
}

}  // namespace

void RegisterResampleOps(OpRegistry& r) {
  r.Add("aten::upsample_nearest1d.default", &AtenUpsampleNearest1d);
  r.Add("aten::upsample_nearest2d.default", &AtenUpsampleNearest2d);
  r.Add("aten::upsample_nearest3d.default", &AtenUpsampleNearest3d);
  r.Add("aten::upsample_nearest1d.vec", &AtenUpsampleNearest1dVec);
  r.Add("aten::upsample_nearest2d.vec", &AtenUpsampleNearest2dVec);
  r.Add("aten::upsample_nearest3d.vec", &AtenUpsampleNearest3dVec);
  r.Add("aten::_upsample_nearest_exact1d.default", &AtenUpsampleNearestExact1d);
  r.Add("aten::_upsample_nearest_exact2d.default", &AtenUpsampleNearestExact2d);
  r.Add("aten::_upsample_nearest_exact3d.default", &AtenUpsampleNearestExact3d);
  r.Add("aten::_upsample_nearest_exact1d.vec", &AtenUpsampleNearestExact1dVec);
  r.Add("aten::_upsample_nearest_exact2d.vec", &AtenUpsampleNearestExact2dVec);
  r.Add("aten::_upsample_nearest_exact3d.vec", &AtenUpsampleNearestExact3dVec);
  r.Add("aten::upsample_linear1d.default", &AtenUpsampleLinear1d);
  r.Add("aten::upsample_bilinear2d.default", &AtenUpsampleBilinear2d);
  r.Add("aten::upsample_trilinear3d.default", &AtenUpsampleTrilinear3d);
  r.Add("aten::upsample_linear1d.vec", &AtenUpsampleLinear1dVec);
  r.Add("aten::upsample_bilinear2d.vec", &AtenUpsampleBilinear2dVec);
  r.Add("aten::upsample_trilinear3d.vec", &AtenUpsampleTrilinear3dVec);
  r.Add("aten::upsample_bicubic2d.default", &AtenUpsampleBicubic2d);
  r.Add("aten::upsample_bicubic2d.vec", &AtenUpsampleBicubic2dVec);
  r.Add("aten::_upsample_bilinear2d_aa.default", &AtenUpsampleBilinear2dAa);
  r.Add("aten::_upsample_bilinear2d_aa.vec", &AtenUpsampleBilinear2dAaVec);
  r.Add("aten::_upsample_bicubic2d_aa.default", &AtenUpsampleBicubic2dAa);
  r.Add("aten::_upsample_bicubic2d_aa.vec", &AtenUpsampleBicubic2dAaVec);
}

}  // namespace pt2onnx::ops
