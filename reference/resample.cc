// Reference kernels: upsampling (nearest, nearest-exact, linear / bilinear /
// trilinear, bicubic) over the trailing 1-3 spatial dims. Each output index
// reads a few input taps per dim with weights; the index math follows
// torch's CPU kernels (float scales, the align_corners rules, A = -0.75 for
// cubic, clamped border taps; antialiased: ATen's separable AA weights).
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/index_support.h"
#include "reference/kernel_support.h"
#include "core/dtype.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// kLinearAA / kCubicAA: antialias=True (PIL-style filters over the
// footprint of each output pixel, scaled by the scale when downsampling).
enum class Interp { kNearest, kNearestExact, kLinear, kCubic, kLinearAA, kCubicAA };

struct Taps {
  std::vector<std::vector<int64_t>> index;  // per output index
  std::vector<std::vector<double>> weight;
};

// 1/scale when a positive scale is given, else in/out.
float ScaleValue(std::optional<double> scale, int64_t in, int64_t out) {
  if (scale.has_value() && *scale > 0) return static_cast<float>(1.0 / *scale);
  return static_cast<float>(in) / static_cast<float>(out);
}

double CubicNear(double x) { const double a = -0.75; return ((a + 2) * x - (a + 3)) * x * x + 1; }
double CubicFar(double x) { const double a = -0.75; return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

// The antialiasing filters: triangle, and cubic with A = -0.5 (PIL's).
double AntialiasFilter(Interp mode, double x) {
  x = std::fabs(x);
  if (mode == Interp::kLinearAA) return x < 1 ? 1 - x : 0;
  const double a = -0.5;
  if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

// Output o covers input [center - support, center + support], center =
// scale * (o + 0.5); the taps are the input pixels in it, weighted by the
// filter at their distance (divided by the scale when downsampling) and
// normalized to sum 1, as ATen's _compute_weights_aa.
void AntialiasTaps(Interp mode, int64_t in, int64_t o, double scale, Taps& t) {
  const double interp_size = mode == Interp::kLinearAA ? 2 : 4;
  const double support = scale >= 1 ? interp_size * 0.5 * scale : interp_size * 0.5;
  const double invscale = scale >= 1 ? 1 / scale : 1;
  const double center = scale * (static_cast<double>(o) + 0.5);
  const int64_t xmin = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
  const int64_t xmax = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in);
  double total = 0;
  for (int64_t j = xmin; j < xmax; ++j) {
    const double w = AntialiasFilter(mode, (static_cast<double>(j) - center + 0.5) * invscale);
    t.index[o].push_back(j);
    t.weight[o].push_back(w);
    total += w;
  }
  if (total != 0) for (double& w : t.weight[o]) w /= total;
}

Taps TapsFor(Interp mode, int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  Taps t;
  t.index.resize(out);
  t.weight.resize(out);
  float area_scale = 0;
  if (mode != Interp::kNearest && mode != Interp::kNearestExact) {
    area_scale = align_corners ? (out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f)
                               : ScaleValue(scale, in, out);
  }
  for (int64_t o = 0; o < out; ++o) {
    // ATen's separable AA kernel skips a dim whose size is unchanged.
    if ((mode == Interp::kLinearAA || mode == Interp::kCubicAA) && in != out) {
      AntialiasTaps(mode, in, o, area_scale, t);
      continue;
    }
    // torch's linear kernels copy a dim whose size is unchanged, whatever the scale.
    if ((mode == Interp::kLinear || mode == Interp::kLinearAA || mode == Interp::kCubicAA) && in == out) {
      t.index[o] = {o};
      t.weight[o] = {1.0};
      continue;
    }
    if (mode == Interp::kNearest || mode == Interp::kNearestExact) {
      int64_t src;
      if (mode == Interp::kNearest && out == in) {
        src = o;
      } else if (mode == Interp::kNearest && out == 2 * in) {
        src = o >> 1;
      } else {
        const float s = ScaleValue(scale, in, out);
        const float pos = mode == Interp::kNearest ? static_cast<float>(o) * s : (static_cast<float>(o) + 0.5f) * s;
        src = std::min(static_cast<int64_t>(std::floor(pos)), in - 1);
      }
      t.index[o] = {src};
      t.weight[o] = {1.0};
      continue;
    }
    float real = align_corners ? area_scale * static_cast<float>(o)
                               : area_scale * (static_cast<float>(o) + 0.5f) - 0.5f;
    if (mode == Interp::kLinear) {
      if (!align_corners && real < 0) real = 0;
      const int64_t i0 = std::min(static_cast<int64_t>(real), in - 1);
      const int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
      const double l1 = std::min(std::max(static_cast<double>(real) - i0, 0.0), 1.0);
      t.index[o] = {i0, i1};
      t.weight[o] = {1 - l1, l1};
      continue;
    }
    const int64_t base = static_cast<int64_t>(std::floor(real));
    const double f = static_cast<double>(real) - base;
    t.weight[o] = {CubicFar(f + 1), CubicNear(f), CubicNear(1 - f), CubicFar(2 - f)};
    for (int64_t k = 0; k < 4; ++k) t.index[o].push_back(std::clamp<int64_t>(base - 1 + k, 0, in - 1));
  }
  return t;
}

absl::StatusOr<Tensor> Resample(const Tensor& x, Interp mode, const std::vector<int64_t>& out_size,
                                bool align_corners, const std::vector<std::optional<double>>& scales) {
  const int64_t n = static_cast<int64_t>(out_size.size());
  if (x.rank() != n + 2) {
    return absl::InvalidArgumentError(absl::StrCat("expected a ", n + 2, "-D input, got ", x.rank(), "-D"));
  }
  Dims dims = x.dims();
  std::vector<Taps> taps;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t in = x.dims()[2 + k];
    if (out_size[k] <= 0 || in <= 0) return absl::InvalidArgumentError("input and output sizes must be positive");
    dims[2 + k] = out_size[k];
    taps.push_back(TapsFor(mode, in, out_size[k], align_corners, scales[k]));
  }
  const std::vector<int64_t> strides = RowMajorStrides(x.dims());
  const std::vector<double> v = ToDoubles(x);
  int64_t numel = 1;
  for (int64_t s : dims) numel *= s;
  std::vector<double> r(numel);
  for (int64_t i = 0; i < numel; ++i) {
    const std::vector<int64_t> c = Coords(i, dims);
    const int64_t base = c[0] * strides[0] + c[1] * strides[1];
    std::vector<size_t> pick(n, 0);
    double acc = 0;
    while (true) {
      int64_t off = base;
      double w = 1;
      for (int64_t k = 0; k < n; ++k) {
        off += taps[k].index[c[2 + k]][pick[k]] * strides[2 + k];
        w *= taps[k].weight[c[2 + k]][pick[k]];
      }
      acc += w * v[off];
      int64_t k = n - 1;
      while (k >= 0 && ++pick[k] == taps[k].index[c[2 + k]].size()) pick[k--] = 0;
      if (k < 0) break;
    }
    r[i] = acc;
  }
  return FromDoubles(x.dtype(), dims, r);
}

// The .default overloads: explicit output_size and one optional scale per dim.
// Integer inputs interpolate by nearest neighbour only: torch's fixed-point
// uint8 kernels are refused, as the translation refuses them (ops/resample.cc).
absl::Status CheckInterpolatedDtype(const RefCall& call, const Tensor& x, Interp mode) {
  if (mode == Interp::kNearest || mode == Interp::kNearestExact || IsFloatingPoint(x.dtype())) {
    return absl::OkStatus();
  }
  return call.Unsupported(absl::StrCat(DataTypeName(x.dtype()),
                                       " linear/cubic interpolation: torch computes it in fixed point with its own "
                                       "rounding; interpolate a float copy of the input instead"));
}

absl::Status ResampleDefault(RefCall& call, Interp mode, const std::vector<const char*>& scale_names, bool has_align) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_RETURN_IF_ERROR(CheckInterpolatedDtype(call, self, mode));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("output_size"));
  bool align = false;
  if (has_align) {
    PT2ONNX_ASSIGN_OR_RETURN(align, call.Bool("align_corners"));
  }
  if (size.size() != scale_names.size()) return call.Invalid("output_size has the wrong length");
  std::vector<std::optional<double>> scales;
  for (const char* name : scale_names) {
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> s, call.OptionalDouble(name));
    scales.push_back(s);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Resample(self, mode, size, align, scales));
  return call.SetTensor(std::move(out));
}

// The .vec overloads: output_size, or scale_factors giving floor(in * scale).
absl::Status ResampleVec(RefCall& call, Interp mode, int64_t n, bool has_align) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_RETURN_IF_ERROR(CheckInterpolatedDtype(call, input, mode));
  bool align = false;
  if (has_align) {
    PT2ONNX_ASSIGN_OR_RETURN(align, call.Bool("align_corners"));
  }
  if (input.rank() != n + 2) return call.Invalid(absl::StrCat("expected a ", n + 2, "-D input"));
  std::vector<int64_t> size;
  std::vector<std::optional<double>> scales(n);
  if (call.Has("output_size")) {
    if (call.Has("scale_factors")) return call.Invalid("give either output_size or scale_factors, not both");
    PT2ONNX_ASSIGN_OR_RETURN(size, call.Ints("output_size"));
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, call.Arg("scale_factors"));
    if (arg.kind != pt2::Argument::Kind::kFloats) return call.Invalid("scale_factors must be a list of floats");
    if (static_cast<int64_t>(arg.floats.size()) != n) return call.Invalid("scale_factors has the wrong length");
    for (int64_t k = 0; k < n; ++k) {
      const double s = arg.floats[k];
      const double o = std::floor(static_cast<double>(input.dims()[2 + k]) * s);
      if (!(o >= 1 && o < 1e12)) return call.Invalid(absl::StrCat("scale factor ", s, " gives an invalid size"));
      size.push_back(static_cast<int64_t>(o));
      scales[k] = s;
    }
  }
  if (static_cast<int64_t>(size.size()) != n) return call.Invalid("output_size has the wrong length");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Resample(input, mode, size, align, scales));
  return call.SetTensor(std::move(out));
}

// aten::upsample_nearest1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor
absl::Status Nearest1d(RefCall& c) { return ResampleDefault(c, Interp::kNearest, {"scales"}, false); }
// aten::upsample_nearest2d(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor
absl::Status Nearest2d(RefCall& c) { return ResampleDefault(c, Interp::kNearest, {"scales_h", "scales_w"}, false); }
// aten::upsample_nearest3d(Tensor self, SymInt[3] output_size, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor
absl::Status Nearest3d(RefCall& c) {
  return ResampleDefault(c, Interp::kNearest, {"scales_d", "scales_h", "scales_w"}, false);
}
// aten::_upsample_nearest_exact{1,2,3}d: as upsample_nearest{1,2,3}d
absl::Status Exact1d(RefCall& c) { return ResampleDefault(c, Interp::kNearestExact, {"scales"}, false); }
absl::Status Exact2d(RefCall& c) { return ResampleDefault(c, Interp::kNearestExact, {"scales_h", "scales_w"}, false); }
absl::Status Exact3d(RefCall& c) {
  return ResampleDefault(c, Interp::kNearestExact, {"scales_d", "scales_h", "scales_w"}, false);
}
// aten::upsample_nearest{1,2,3}d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor
// (and _upsample_nearest_exact{1,2,3}d.vec)
absl::Status Nearest1dVec(RefCall& c) { return ResampleVec(c, Interp::kNearest, 1, false); }
absl::Status Nearest2dVec(RefCall& c) { return ResampleVec(c, Interp::kNearest, 2, false); }
absl::Status Nearest3dVec(RefCall& c) { return ResampleVec(c, Interp::kNearest, 3, false); }
absl::Status Exact1dVec(RefCall& c) { return ResampleVec(c, Interp::kNearestExact, 1, false); }
absl::Status Exact2dVec(RefCall& c) { return ResampleVec(c, Interp::kNearestExact, 2, false); }
absl::Status Exact3dVec(RefCall& c) { return ResampleVec(c, Interp::kNearestExact, 3, false); }
// aten::upsample_linear1d(Tensor self, SymInt[1] output_size, bool align_corners, float? scales=None) -> Tensor
absl::Status Linear1d(RefCall& c) { return ResampleDefault(c, Interp::kLinear, {"scales"}, true); }
// aten::upsample_bilinear2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor
absl::Status Bilinear2d(RefCall& c) { return ResampleDefault(c, Interp::kLinear, {"scales_h", "scales_w"}, true); }
// aten::upsample_trilinear3d(Tensor self, SymInt[3] output_size, bool align_corners, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor
absl::Status Trilinear3d(RefCall& c) {
  return ResampleDefault(c, Interp::kLinear, {"scales_d", "scales_h", "scales_w"}, true);
}
// aten::upsample_bicubic2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor
absl::Status Bicubic2d(RefCall& c) { return ResampleDefault(c, Interp::kCubic, {"scales_h", "scales_w"}, true); }
// aten::upsample_{linear1d,bilinear2d,trilinear3d,bicubic2d}.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor
absl::Status Linear1dVec(RefCall& c) { return ResampleVec(c, Interp::kLinear, 1, true); }
absl::Status Bilinear2dVec(RefCall& c) { return ResampleVec(c, Interp::kLinear, 2, true); }
absl::Status Trilinear3dVec(RefCall& c) { return ResampleVec(c, Interp::kLinear, 3, true); }
absl::Status Bicubic2dVec(RefCall& c) { return ResampleVec(c, Interp::kCubic, 2, true); }
// aten::_upsample_bilinear2d_aa(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor
absl::Status Bilinear2dAA(RefCall& c) { return ResampleDefault(c, Interp::kLinearAA, {"scales_h", "scales_w"}, true); }
// aten::_upsample_bicubic2d_aa(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor
absl::Status Bicubic2dAA(RefCall& c) { return ResampleDefault(c, Interp::kCubicAA, {"scales_h", "scales_w"}, true); }
// aten::_upsample_{bilinear,bicubic}2d_aa.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor
absl::Status Bilinear2dAAVec(RefCall& c) { return ResampleVec(c, Interp::kLinearAA, 2, true); }
absl::Status Bicubic2dAAVec(RefCall& c) { return ResampleVec(c, Interp::kCubicAA, 2, true); }

}  // namespace

void RegisterResampleRef(RefRegistry& r) {
  r.Add("aten::upsample_nearest1d.default", Nearest1d);
  r.Add("aten::upsample_nearest2d.default", Nearest2d);
  r.Add("aten::upsample_nearest3d.default", Nearest3d);
  r.Add("aten::upsample_nearest1d.vec", Nearest1dVec);
  r.Add("aten::upsample_nearest2d.vec", Nearest2dVec);
  r.Add("aten::upsample_nearest3d.vec", Nearest3dVec);
  r.Add("aten::_upsample_nearest_exact1d.default", Exact1d);
  r.Add("aten::_upsample_nearest_exact2d.default", Exact2d);
  r.Add("aten::_upsample_nearest_exact3d.default", Exact3d);
  r.Add("aten::_upsample_nearest_exact1d.vec", Exact1dVec);
  r.Add("aten::_upsample_nearest_exact2d.vec", Exact2dVec);
  r.Add("aten::_upsample_nearest_exact3d.vec", Exact3dVec);
  r.Add("aten::upsample_linear1d.default", Linear1d);
  r.Add("aten::upsample_bilinear2d.default", Bilinear2d);
  r.Add("aten::upsample_trilinear3d.default", Trilinear3d);
  r.Add("aten::upsample_linear1d.vec", Linear1dVec);
  r.Add("aten::upsample_bilinear2d.vec", Bilinear2dVec);
  r.Add("aten::upsample_trilinear3d.vec", Trilinear3dVec);
  r.Add("aten::upsample_bicubic2d.default", Bicubic2d);
  r.Add("aten::upsample_bicubic2d.vec", Bicubic2dVec);
  r.Add("aten::_upsample_bilinear2d_aa.default", Bilinear2dAA);
  r.Add("aten::_upsample_bicubic2d_aa.default", Bicubic2dAA);
  r.Add("aten::_upsample_bilinear2d_aa.vec", Bilinear2dAAVec);
  r.Add("aten::_upsample_bicubic2d_aa.vec", Bicubic2dAAVec);
}

}  // namespace pt2onnx::reference
