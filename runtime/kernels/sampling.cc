// File: runtime/kernels/sampling.cc
// -----------------------------------------------------------------------------
// GridSample (2-D and 3-D; linear / nearest, and cubic in 2-D; zeros /
// border / reflection padding; align_corners), following the coordinate
// rules torch's grid_sample defines and ONNX adopted, and Col2Im (blocks
// summed back into images, N-D). Computed in double, written in T.
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

enum class SampleMode { kLinear, kNearest, kCubic };
enum class Padding { kZeros, kBorder, kReflection };

// Reflects x into [low2 / 2, high2 / 2] (bounds given doubled).
double Reflect(double x, double low2, double high2) {
  if (low2 == high2) return 0;
  const double min = low2 / 2, span = (high2 - low2) / 2;
  x = std::fabs(x - min);
  const double extra = std::fmod(x, span);
  const double flips = std::floor(x / span);
  return std::fmod(flips, 2.0) == 0 ? extra + min : span - extra + min;
}

// A coordinate moved inside [0, size - 1] by the padding rule (zeros keeps it).
double ApplyPadding(double x, int64_t size, Padding padding, bool align_corners) {
  if (padding == Padding::kZeros) return x;
  if (padding == Padding::kReflection) {
    x = align_corners ? Reflect(x, 0, 2.0 * (size - 1)) : Reflect(x, -1, 2.0 * size - 1);
  }
  return std::fmin(std::fmax(x, 0.0), static_cast<double>(size - 1));
}

double CubicWeight(double t, int tap) {  // A = -0.75, taps at -1, 0, 1, 2
  const double a = -0.75;
  auto near = [&](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto far = [&](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  switch (tap) {
    case 0: return far(t + 1);
    case 1: return near(t);
    case 2: return near(1 - t);
    default: return far(2 - t);
  }
}

struct Tap {
  int64_t offset;  // in the input plane
  double weight;
};

class GridSampleKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    const std::string mode = AttrString(info.node, "mode", info.opset >= 20 ? "linear" : "bilinear");
    if (mode == "linear" || mode == "bilinear") mode_ = SampleMode::kLinear;
    else if (mode == "nearest") mode_ = SampleMode::kNearest;
    else if (mode == "cubic" || mode == "bicubic") mode_ = SampleMode::kCubic;
    else return absl::UnimplementedError("GridSample: mode '" + mode + "' is not supported");
    const std::string padding = AttrString(info.node, "padding_mode", "zeros");
    if (padding == "zeros") padding_ = Padding::kZeros;
    else if (padding == "border") padding_ = Padding::kBorder;
    else if (padding == "reflection") padding_ = Padding::kReflection;
    else return absl::UnimplementedError("GridSample: padding_mode '" + padding + "' is not supported");
    align_corners_ = AttrInt(info.node, "align_corners", 0) != 0;
    return absl::OkStatus();
  }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(grid, 1);
    const int64_t rank = x.rank(), dims = rank - 2;
    if ((rank != 4 && rank != 5) || grid.rank() != rank || grid.dim(0) != x.dim(0) ||
        grid.dim(rank - 1) != dims || grid.dtype() != x.dtype()) {
      return absl::InvalidArgumentError("GridSample: input must be (N, C, spatial...) and grid (N, out..., " +
                                        std::to_string(dims) + ") of the same dtype");
    }
    if (mode_ == SampleMode::kCubic && dims != 2) {
      return absl::UnimplementedError("GridSample: cubic mode needs a 4-D input");
    }
    const int64_t batch = x.dim(0), channels = x.dim(1);
    Dims out_dims = {batch, channels};
    int64_t points = 1, plane = 1;
    for (int64_t d = 0; d < dims; ++d) {
      out_dims.push_back(grid.dim(1 + d));
      points *= grid.dim(1 + d);
      plane *= x.dim(2 + d);
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), out_dims));
    const std::vector<int64_t> strides = ContiguousStrides(Dims(x.dims().begin() + 2, x.dims().end()));
    return VisitDtype(x.dtype(), kFloats, "GridSample", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        const T* px = x.data<T>();
        const T* pg = grid.data<T>();
        T* po = (out)->data<T>();
        std::vector<Tap> taps;
        for (int64_t n = 0; n < batch; ++n) {
          for (int64_t p = 0; p < points; ++p) {
            taps.clear();
            taps.push_back({0, 1.0});
            // Grid component g indexes spatial dim dims - 1 - g (x is the width).
            for (int64_t g = 0; g < dims; ++g) {
              const int64_t d = dims - 1 - g, size = x.dim(2 + d);
              // Unnormalised in T, as torch computes it (ties of nearest depend on it).
              const T v = pg[(n * points + p) * dims + g];
              const T sz = static_cast<T>(size);
              const double u = align_corners_ ? (v + 1) / 2 * (sz - 1) : ((v + 1) * sz - 1) / 2;
              std::vector<std::pair<int64_t, double>> axis_taps;  // index, weight
              if (mode_ == SampleMode::kCubic) {
                const double base = std::floor(u), t = u - base;
                for (int k = 0; k < 4; ++k) {
                  const double c = ApplyPadding(base - 1 + k, size, padding_, align_corners_);
                  axis_taps.push_back({c >= 0 && c < size ? static_cast<int64_t>(c) : -1, CubicWeight(t, k)});
                }
              } else {
                const double c = ApplyPadding(u, size, padding_, align_corners_);
                if (mode_ == SampleMode::kNearest) {
                  const double r = std::nearbyint(c);
                  axis_taps.push_back({r >= 0 && r < size ? static_cast<int64_t>(r) : -1, 1.0});
                } else {
                  const double base = std::floor(c), t = c - base;
                  for (int k = 0; k < 2; ++k) {
                    const double i = base + k;
                    axis_taps.push_back({i >= 0 && i < size ? static_cast<int64_t>(i) : -1, k ? t : 1 - t});
                  }
                }
              }
              std::vector<Tap> next;
              for (const Tap& tap : taps) {
                for (const auto& [index, weight] : axis_taps) {
                  if (index >= 0) next.push_back({tap.offset + index * strides[d], tap.weight * weight});
                }
              }
              taps.swap(next);
            }
            for (int64_t c = 0; c < channels; ++c) {
              const T* src = px + (n * channels + c) * plane;
              double acc = 0;
              for (const Tap& tap : taps) acc += tap.weight * static_cast<double>(src[tap.offset]);
              po[(n * channels + c) * points + p] = static_cast<T>(acc);
            }
          }
        }
      }
    });
  }

 private:
  SampleMode mode_ = SampleMode::kLinear;
  Padding padding_ = Padding::kZeros;
  bool align_corners_ = false;
};

// Col2Im(x (N, C * prod(block), L), image_shape, block_shape): each column is
// one block position; its values are added into the (padded) image.
class Col2ImKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    dilations_ = AttrInts(info.node, "dilations");
    pads_ = AttrInts(info.node, "pads");
    strides_ = AttrInts(info.node, "strides");
    return absl::OkStatus();
  }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(image_tensor, 1);
    PT2ONNX_INPUT(block_tensor, 2);
    PT2ONNX_ASSIGN_OR_RETURN(auto image, ReadInts(image_tensor, "Col2Im image_shape"));
    PT2ONNX_ASSIGN_OR_RETURN(auto block, ReadInts(block_tensor, "Col2Im block_shape"));
    const size_t dims = image.size();
    if (dims == 0 || block.size() != dims || x.rank() != 3) {
      return absl::InvalidArgumentError("Col2Im: input must be (N, C*prod(block), L) with matching image/block ranks");
    }
    auto attr = [&](const std::vector<int64_t>& v, size_t i, int64_t fallback) {
      return v.empty() ? fallback : v[i];
    };
    if ((!dilations_.empty() && dilations_.size() != dims) || (!strides_.empty() && strides_.size() != dims) ||
        (!pads_.empty() && pads_.size() != 2 * dims)) {
      return absl::InvalidArgumentError("Col2Im: dilations/strides/pads do not match the image rank");
    }
    int64_t block_size = 1, expected_l = 1;
    std::vector<int64_t> counts(dims);
    constexpr int64_t kLimit = int64_t{1} << 31;
    for (size_t i = 0; i < dims; ++i) {
      const int64_t img = (image)[i], k = (block)[i], dil = attr(dilations_, i, 1), stride = attr(strides_, i, 1);
      const int64_t span = attr(pads_, i, 0) + attr(pads_, i + dims, 0) + img;
      if (img < 0 || img > kLimit || k < 1 || k > kLimit || dil < 1 || dil > kLimit || stride < 1 || stride > kLimit ||
          attr(pads_, i, 0) < 0 || attr(pads_, i + dims, 0) < 0 || span > 2 * kLimit + kLimit) {
        return absl::InvalidArgumentError("Col2Im: image/block sizes, dilations, strides or pads out of range");
      }
      const int64_t extent = dil * (k - 1) + 1;
      counts[i] = span < extent ? 0 : (span - extent) / stride + 1;
      block_size *= k;
      expected_l *= counts[i];
      if (block_size > kLimit || expected_l > kLimit) return absl::InvalidArgumentError("Col2Im: too many blocks");
    }
    if (x.dim(1) % block_size != 0 || x.dim(2) != expected_l) {
      return absl::InvalidArgumentError(absl::StrCat("Col2Im: input ", DimsString(x.dims()), " does not match ",
                                                     block_size, " values per block and ", expected_l, " blocks"));
    }
    const int64_t batch = x.dim(0), channels = x.dim(1) / block_size;
    Dims out_dims = {batch, channels};
    for (int64_t v : image) out_dims.push_back(v);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), out_dims));
    const std::vector<int64_t> image_strides = ContiguousStrides(image);
    int64_t plane = 1;
    for (int64_t v : image) plane *= v;
    return VisitDtype(x.dtype(), kFloats | kInts, "Col2Im", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        T* po = (out)->data<T>();
        const T* px = x.data<T>();
        for (int64_t i = 0; i < (out)->numel(); ++i) po[i] = T(0);
        std::vector<int64_t> kidx(dims), lidx(dims);
        for (int64_t n = 0; n < batch; ++n) {
          for (int64_t c = 0; c < channels; ++c) {
            for (int64_t kb = 0; kb < block_size; ++kb) {
              for (int64_t rem = kb, i = static_cast<int64_t>(dims) - 1; i >= 0; --i) {
                kidx[i] = rem % (block)[i];
                rem /= (block)[i];
              }
              const T* column = px + ((n * channels + c) * block_size + kb) * expected_l;
              for (int64_t l = 0; l < expected_l; ++l) {
                int64_t offset = 0;
                bool inside = true;
                for (int64_t rem = l, i = static_cast<int64_t>(dims) - 1; i >= 0; --i) {
                  lidx[i] = rem % counts[i];
                  rem /= counts[i];
                }
                for (size_t i = 0; i < dims && inside; ++i) {
                  const int64_t pos = lidx[i] * attr(strides_, i, 1) + kidx[i] * attr(dilations_, i, 1) - attr(pads_, i, 0);
                  inside = pos >= 0 && pos < (image)[i];
                  offset += pos * image_strides[i];
                }
                if (inside) po[(n * channels + c) * plane + offset] += column[l];
              }
            }
          }
        }
      }
    });
  }

 private:
  std::vector<int64_t> dilations_, pads_, strides_;
};

}  // namespace

extern const KernelRegistration kSamplingKernels[] = {
    {"GridSample", MakeKernel<GridSampleKernel>, HalfMode::kViaFloat32},
    {"Col2Im", MakeKernel<Col2ImKernel>, HalfMode::kViaFloat32},
};
extern const size_t kNumSamplingKernels = sizeof(kSamplingKernels) / sizeof(kSamplingKernels[0]);

}  // namespace pt2onnx::runtime
