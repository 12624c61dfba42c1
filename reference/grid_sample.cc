// Reference kernels: grid_sampler (4-D and 5-D inputs) and grid_sampler_2d,
// with ATen's coordinate rules: grid values in [-1, 1] unnormalized with or
// without align_corners, padding by zeros, border clipping or reflection,
// bilinear/trilinear, nearest (half to even) and bicubic (A = -0.75, 2-D).
#include <array>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/index_support.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };
enum Mode : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };

// In the grid's precision (float32 grids unnormalize in float32, as ATen:
// the rounding decides nearest's ties).
template <typename T>
T UnnormalizeAs(T coord, int64_t size, bool align) {
  return align ? (coord + 1) / 2 * static_cast<T>(size - 1) : ((coord + 1) * static_cast<T>(size) - 1) / 2;
}
double Unnormalize(double coord, int64_t size, bool align, bool single) {
  if (single) return UnnormalizeAs<float>(static_cast<float>(coord), size, align);
  return UnnormalizeAs<double>(coord, size, align);
}

// Reflects `x` into [low/2, high/2] (the bounds given doubled).
double Reflect(double x, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0;
  const double min = twice_low / 2.0, span = (twice_high - twice_low) / 2.0;
  x = std::fabs(x - min);
  const double extra = std::fmod(x, span);
  const int64_t flips = static_cast<int64_t>(std::floor(x / span));
  return flips % 2 == 0 ? extra + min : span - extra + min;
}

double Clip(double x, int64_t size) { return std::min(static_cast<double>(size - 1), std::max(x, 0.0)); }

// The padding rule on an unnormalized coordinate; non-finite or huge
// values become -100 (outside), as ATen keeps them in int range.
double ApplyPadding(double x, int64_t size, int64_t padding, bool align) {
  if (padding == kBorder) {
    x = Clip(x, size);
  } else if (padding == kReflection) {
    x = align ? Reflect(x, 0, 2 * (size - 1)) : Reflect(x, -1, 2 * size - 1);
    x = Clip(x, size);
  }
  if (!std::isfinite(x) || x > 2147483647.0 || x < -2147483648.0) return -100;
  return x;
}

double Cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double Cubic2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

struct Sampler {
  const std::vector<double>* in;
  int64_t channels;
  std::vector<int64_t> size;  // spatial sizes, input order (D,) H, W
  int64_t padding;
  bool align;
  // Value at integer spatial coords (input order) of plane `plane`, 0 outside.
  double At(int64_t plane, const std::vector<int64_t>& c) const {
    int64_t flat = plane;
    for (size_t d = 0; d < size.size(); ++d) {
      if (c[d] < 0 || c[d] >= size[d]) return 0;
      flat = flat * size[d] + c[d];
    }
    return (*in)[flat];
  }
};

absl::Status GridSample(RefCall& call, bool only_2d) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor grid, call.Input("grid"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t mode, call.Int("interpolation_mode"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t padding, call.Int("padding_mode"));
  PT2ONNX_ASSIGN_OR_RETURN(bool align, call.Bool("align_corners"));
  const int64_t spatial = input.rank() - 2;
  if ((spatial != 2 && spatial != 3) || (only_2d && spatial != 2)) {
    return call.Invalid("grid_sampler: expected a 4-D (or 5-D) input");
  }
  if (grid.rank() != input.rank() || grid.dims().back() != spatial || grid.dims()[0] != input.dims()[0]) {
    return call.Invalid(absl::StrCat("grid_sampler: the grid must be [N, ..., ", spatial, "] with input's batch"));
  }
  if (mode < kBilinear || mode > kBicubic || padding < kZeros || padding > kReflection) {
    return call.Invalid("grid_sampler: unknown interpolation or padding mode");
  }
  if (mode == kBicubic && spatial != 2) return call.Invalid("grid_sampler: bicubic interpolation only supports 4-D input");
  if (input.dtype() != grid.dtype()) return call.Invalid("grid_sampler: input and grid must have the same dtype");
  const int64_t n = input.dims()[0], channels = input.dims()[1];
  Sampler s;
  const std::vector<double> in = ToDoubles(input);
  s.in = &in;
  s.channels = channels;
  s.size.assign(input.dims().begin() + 2, input.dims().end());
  s.padding = padding;
  s.align = align;
  Dims out_dims = {n, channels};
  out_dims.insert(out_dims.end(), grid.dims().begin() + 1, grid.dims().end() - 1);
  int64_t points = 1;
  for (size_t d = 2; d < out_dims.size(); ++d) points *= out_dims[d];
  const std::vector<double> g = ToDoubles(grid);
  std::vector<double> out(n * channels * points, 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t p = 0; p < points; ++p) {
      // The grid's last dim is (x, y[, z]): the input's spatial dims reversed.
      std::vector<double> src(spatial);
      for (int64_t d = 0; d < spatial; ++d) {
        const double v = g[(b * points + p) * spatial + (spatial - 1 - d)];
        const double u = Unnormalize(v, s.size[d], align, grid.dtype() == DataType::kFloat);
        src[d] = mode == kBicubic ? u : ApplyPadding(u, s.size[d], padding, align);
      }
      for (int64_t c = 0; c < channels; ++c) {
        const int64_t plane = b * channels + c;
        double value = 0;
        if (mode == kNearest) {
          std::vector<int64_t> at(spatial);
          for (int64_t d = 0; d < spatial; ++d) at[d] = static_cast<int64_t>(std::nearbyint(src[d]));
          value = s.At(plane, at);
        } else if (mode == kBilinear) {
          std::vector<int64_t> lo(spatial);
          std::vector<double> frac(spatial);
          for (int64_t d = 0; d < spatial; ++d) {
            lo[d] = static_cast<int64_t>(std::floor(src[d]));
            frac[d] = src[d] - lo[d];
          }
          for (int64_t corner = 0; corner < (int64_t{1} << spatial); ++corner) {
            std::vector<int64_t> at(spatial);
            double w = 1;
            for (int64_t d = 0; d < spatial; ++d) {
              const bool high = (corner >> (spatial - 1 - d)) & 1;
              at[d] = lo[d] + (high ? 1 : 0);
              w *= high ? frac[d] : 1 - frac[d];
            }
            value += w * s.At(plane, at);
          }
        } else {
          const double a = -0.75;
          std::array<double, 4> wy, wx;
          const double y0 = std::floor(src[0]), x0 = std::floor(src[1]);
          const double ty = src[0] - y0, tx = src[1] - x0;
          wy = {Cubic2(ty + 1, a), Cubic1(ty, a), Cubic1(1 - ty, a), Cubic2(2 - ty, a)};
          wx = {Cubic2(tx + 1, a), Cubic1(tx, a), Cubic1(1 - tx, a), Cubic2(2 - tx, a)};
          for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) {
              // Each tap is padded on its own (integer) coordinate.
              const double yy = ApplyPadding(y0 - 1 + i, s.size[0], padding, align);
              const double xx = ApplyPadding(x0 - 1 + j, s.size[1], padding, align);
              value += wy[i] * wx[j] * s.At(plane, {static_cast<int64_t>(yy), static_cast<int64_t>(xx)});
            }
          }
        }
        out[plane * points + p] = value;
      }
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(input.dtype(), out_dims, out));
  return call.SetTensor(std::move(result));
}

// aten::grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor
absl::Status GridSampler(RefCall& call) { return GridSample(call, false); }
// aten::grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor
absl::Status GridSampler2d(RefCall& call) { return GridSample(call, true); }
// aten::grid_sampler_3d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor
absl::Status GridSampler3d(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  if (input.rank() != 5) return call.Invalid("grid_sampler_3d: expected a 5-D input");
  return GridSample(call, false);
}

}  // namespace

void RegisterGridSampleRef(RefRegistry& r) {
  r.Add("aten::grid_sampler.default", GridSampler);
  r.Add("aten::grid_sampler_2d.default", GridSampler2d);
  r.Add("aten::grid_sampler_3d.default", GridSampler3d);
}

}  // namespace pt2onnx::reference
