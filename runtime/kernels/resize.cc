// File: runtime/kernels/resize.cc
// -----------------------------------------------------------------------------
// Resize(x, roi?, scales?, sizes?) in the modes nearest / linear / cubic,
// following ONNX's reference: coordinates mapped by
// coordinate_transformation_mode (half_pixel, pytorch_half_pixel,
// asymmetric, align_corners), taps beyond the edge clamped to it (or, with
// exclude_outside, dropped and the weights renormalised), and with
// antialias the linear / cubic kernel stretched by 1 / scale when shrinking.
// Separable: one pass per resized dim, in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class CoordMode { kHalfPixel, kPytorchHalfPixel, kAsymmetric, kAlignCorners };
enum class NearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

using Taps = std::vector<std::pair<int64_t, double>>;  // input index, weight

class ResizeKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    const ir::Node& n = info.node;
    const std::string mode = AttrString(n, "mode", "nearest");
    if (mode == "nearest") mode_ = ResizeMode::kNearest;
    else if (mode == "linear") mode_ = ResizeMode::kLinear;
    else if (mode == "cubic") mode_ = ResizeMode::kCubic;
    else return absl::UnimplementedError("Resize: mode '" + mode + "' is not supported");
    const std::string coord = AttrString(n, "coordinate_transformation_mode", "half_pixel");
    if (coord == "half_pixel") coord_ = CoordMode::kHalfPixel;
    else if (coord == "pytorch_half_pixel") coord_ = CoordMode::kPytorchHalfPixel;
    else if (coord == "asymmetric") coord_ = CoordMode::kAsymmetric;
    else if (coord == "align_corners") coord_ = CoordMode::kAlignCorners;
    else return absl::UnimplementedError("Resize: coordinate_transformation_mode '" + coord + "' is not supported");
    const std::string nearest = AttrString(n, "nearest_mode", "round_prefer_floor");
    if (nearest == "round_prefer_floor") nearest_ = NearestMode::kRoundPreferFloor;
    else if (nearest == "round_prefer_ceil") nearest_ = NearestMode::kRoundPreferCeil;
    else if (nearest == "floor") nearest_ = NearestMode::kFloor;
    else if (nearest == "ceil") nearest_ = NearestMode::kCeil;
    else return absl::UnimplementedError("Resize: nearest_mode '" + nearest + "' is not supported");
    const std::string policy = AttrString(n, "keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch") return absl::UnimplementedError("Resize: keep_aspect_ratio_policy '" + policy + "' is not supported");
    if (HasAttr(n, "axes")) return absl::UnimplementedError("Resize: the axes attribute is not supported");
    cubic_a_ = AttrFloat(n, "cubic_coeff_a", -0.75f);
    exclude_outside_ = AttrInt(n, "exclude_outside", 0) != 0;
    antialias_ = AttrInt(n, "antialias", 0) != 0;
    return absl::OkStatus();
  }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    const int64_t rank = x.rank();
    const Tensor* scales_t = ctx.input(2);
    const Tensor* sizes_t = ctx.input(3);
    if (scales_t != nullptr && scales_t->numel() == 0) scales_t = nullptr;
    if (sizes_t != nullptr && sizes_t->numel() == 0) sizes_t = nullptr;
    if ((scales_t == nullptr) == (sizes_t == nullptr)) {
      return absl::InvalidArgumentError("Resize: exactly one of scales and sizes must be given");
    }
    std::vector<double> scales(rank);
    Dims out_dims(rank);
    if (scales_t != nullptr) {
      if (scales_t->numel() != rank || scales_t->dtype() != DataType::kFloat) {
        return absl::InvalidArgumentError("Resize: scales must be float32 with one value per dim");
      }
      for (int64_t d = 0; d < rank; ++d) {
        scales[d] = scales_t->data<float>()[d];
        // float product truncated, as ONNX Runtime sizes it
        const double size = std::floor(static_cast<double>(static_cast<float>(scales[d]) * static_cast<float>(x.dim(d))));
        if (!(scales[d] > 0) || !(size <= double{int64_t{1} << 40})) {
          return absl::InvalidArgumentError("Resize: scales must be positive and give sizes below 2^40");
        }
        out_dims[d] = static_cast<int64_t>(size);
      }
    } else {
      PT2ONNX_ASSIGN_OR_RETURN(auto sizes, ReadInts(*sizes_t, "Resize sizes"));
      if (static_cast<int64_t>(sizes.size()) != rank) {
        return absl::InvalidArgumentError("Resize: sizes must have one value per dim");
      }
      for (int64_t d = 0; d < rank; ++d) {
        out_dims[d] = (sizes)[d];
        if (out_dims[d] < 0 || out_dims[d] > (int64_t{1} << 40)) return absl::InvalidArgumentError("Resize: a size is out of range");
        scales[d] = x.dim(d) == 0 ? 1.0f : static_cast<float>(out_dims[d]) / static_cast<float>(x.dim(d));
      }
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), out_dims));
    if ((out)->numel() == 0) return absl::OkStatus();
    for (int64_t d = 0; d < rank; ++d) {
      if (x.dim(d) == 0) return absl::InvalidArgumentError("Resize: cannot resize an empty input to a non-empty one");
    }
    const unsigned set = mode_ == ResizeMode::kNearest ? (kFloats | kInts) : kFloats;
    return VisitDtype(x.dtype(), set, "Resize", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        // Integers (nearest only) are copied, never rounded through double.
        using Acc = std::conditional_t<std::is_integral_v<T>, T, double>;
        std::vector<Acc> cur(x.data<T>(), x.data<T>() + x.numel());
        Dims cur_dims = x.dims();
        for (int64_t d = 0; d < rank; ++d) {
          // Scale 1 maps i -> i in every mode; the anti-aliased kernels copy a
          // dim whose size does not change whatever its scale, as ONNX Runtime
          // (and torch's _aa kernels) do.
          if (out_dims[d] == cur_dims[d] && (scales[d] == 1.0 || (antialias_ && mode_ != ResizeMode::kNearest))) continue;
          std::vector<Taps> taps(out_dims[d]);
          for (int64_t o = 0; o < out_dims[d]; ++o) taps[o] = TapsFor(o, x.dim(d), out_dims[d], scales[d]);
          int64_t outer = 1, inner = 1;
          for (int64_t k = 0; k < d; ++k) outer *= cur_dims[k];
          for (int64_t k = d + 1; k < rank; ++k) inner *= cur_dims[k];
          std::vector<Acc> next(static_cast<size_t>(outer * out_dims[d] * inner));
          for (int64_t a = 0; a < outer; ++a) {
            for (int64_t o = 0; o < out_dims[d]; ++o) {
              Acc* dst = next.data() + (a * out_dims[d] + o) * inner;
              for (const auto& [index, weight] : taps[o]) {
                const Acc* src = cur.data() + (a * cur_dims[d] + index) * inner;
                if (mode_ == ResizeMode::kNearest) {
                  std::copy(src, src + inner, dst);
                } else {
                  for (int64_t i = 0; i < inner; ++i) dst[i] += weight * src[i];
                }
              }
            }
          }
          cur.swap(next);
          cur_dims[d] = out_dims[d];
        }
        T* po = (out)->data<T>();
        for (int64_t i = 0; i < (out)->numel(); ++i) po[i] = static_cast<T>(cur[i]);
      }
    });
  }

 private:
  // In float, as ONNX Runtime computes it (a nearest index can depend on it).
  double SourceCoordinate(int64_t o, int64_t in, int64_t out, double scale) const {
    const float x = static_cast<float>(o), s = static_cast<float>(scale);
    switch (coord_) {
      case CoordMode::kHalfPixel: return (x + 0.5f) / s - 0.5f;
      case CoordMode::kPytorchHalfPixel: return out > 1 ? (x + 0.5f) / s - 0.5f : -0.5f;
      case CoordMode::kAsymmetric: return x / s;
      case CoordMode::kAlignCorners:
        return out == 1 ? 0.0f : x * static_cast<float>(in - 1) / static_cast<float>(out - 1);
    }
    return 0;
  }

  double Kernel(double x) const {  // the linear or cubic filter at distance x
    x = std::fabs(x);
    if (mode_ == ResizeMode::kLinear) return x < 1 ? 1 - x : 0;
    const double a = cubic_a_;
    if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0;
  }

  Taps TapsFor(int64_t o, int64_t in, int64_t out, double scale) const {
    const double src = SourceCoordinate(o, in, out, scale);
    auto clamp = [&](int64_t i) { return i < 0 ? int64_t{0} : (i >= in ? in - 1 : i); };
    if (mode_ == ResizeMode::kNearest) {
      const double f = std::floor(src);
      double r = f;
      switch (nearest_) {
        case NearestMode::kFloor: r = f; break;
        case NearestMode::kCeil: r = std::ceil(src); break;
        case NearestMode::kRoundPreferFloor: r = src - f <= 0.5 ? f : f + 1; break;
        case NearestMode::kRoundPreferCeil: r = src - f < 0.5 ? f : f + 1; break;
      }
      const double bounded = std::fmin(std::fmax(r, 0.0), static_cast<double>(in - 1));
      return {{static_cast<int64_t>(bounded), 1.0}};
    }
    // Taps at base + i; ratio in (0, 1] (an integer coordinate counts from the left).
    int64_t base = static_cast<int64_t>(std::floor(src));
    double ratio = src - std::floor(src);
    if (ratio == 0) {
      ratio = 1;
      --base;
    }
    const double s = antialias_ && scale < 1 ? scale : 1.0;
    const int64_t reach = mode_ == ResizeMode::kLinear ? 1 : 2;
    const int64_t start = static_cast<int64_t>(std::floor(-static_cast<double>(reach) / s)) + 1;
    Taps taps;
    double total = 0;
    for (int64_t i = start; i < 2 - start; ++i) {
      const double w = Kernel((i - ratio) * s);
      const int64_t at = base + i;
      const bool outside = at < 0 || at >= in;
      if (exclude_outside_ && outside) continue;
      taps.push_back({clamp(at), w});
      total += w;
    }
    const bool normalise = exclude_outside_ || s != 1.0;
    if (normalise && total != 0) {
      for (auto& tap : taps) tap.second /= total;
    }
    return taps;
  }

  ResizeMode mode_ = ResizeMode::kNearest;
  CoordMode coord_ = CoordMode::kHalfPixel;
  NearestMode nearest_ = NearestMode::kRoundPreferFloor;
  double cubic_a_ = -0.75;
  bool exclude_outside_ = false, antialias_ = false;
};

}  // namespace

extern const KernelRegistration kResizeKernels[] = {
    {"Resize", MakeKernel<ResizeKernel>, HalfMode::kViaFloat32},
};
extern const size_t kNumResizeKernels = sizeof(kResizeKernels) / sizeof(kResizeKernels[0]);

}  // namespace pt2onnx::runtime
