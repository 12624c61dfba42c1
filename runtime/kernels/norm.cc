// File: runtime/kernels/norm.cc
// -----------------------------------------------------------------------------
// Normalizations: BatchNormalization (inference), InstanceNormalization,
// LayerNormalization (with Mean / InvStdDev outputs), GroupNormalization
// (opset 18 per-group and opset 21 per-channel scale), RMSNormalization.
// Statistics are computed in double.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

// Mean and 1/sqrt(var + eps) of `n` values (or of their squares for RMS).
template <typename T>
void Moments(const T* x, int64_t n, double eps, bool rms, double* mean, double* inv_std) {
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const double m = rms ? 0.0 : (n > 0 ? sum / n : 0.0);
  for (int64_t i = 0; i < n; ++i) {
    const double d = x[i] - m;
    sq += d * d;
  }
  *mean = m;
  *inv_std = 1.0 / std::sqrt((n > 0 ? sq / n : 0.0) + eps);
}

// The same for float rows (LayerNormalization's hot case): eight float
// partial sums per pass (blocks the SLP vectoriser turns into SIMD, and no
// long dependency chain), combined in double.
void FloatMoments(const float* x, int64_t n, double eps, bool rms, double* mean, double* inv_std) {
  float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  double tail = 0;
  int64_t i = 0;
  if (!rms) {
    for (; i + 8 <= n; i += 8) {
      for (int k = 0; k < 8; ++k) lanes[k] += x[i + k];
    }
    for (; i < n; ++i) tail += x[i];
  }
  double sum = tail;
  for (float v : lanes) sum += v;
  const double m = rms || n == 0 ? 0.0 : sum / n;
  const float mf = static_cast<float>(m);
  float sq_lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  double sq = 0;
  for (i = 0; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) {
      const float d = x[i + k] - mf;
      sq_lanes[k] += d * d;
    }
  }
  for (; i < n; ++i) sq += (x[i] - m) * (x[i] - m);
  for (float v : sq_lanes) sq += v;
  *mean = m;
  *inv_std = 1.0 / std::sqrt((n > 0 ? sq / n : 0.0) + eps);
}

// y = (x - mean) * inv_std * scale + bias over one row, in float, eight
// lanes at a time (blocks that -O2's SLP vectoriser turns into SIMD).
void NormalizeFloatRow(const float* __restrict x, int64_t n, float mean, float inv_std, const float* __restrict scale,
                       const float* __restrict bias, float* __restrict y) {
  int64_t i = 0;
  if (bias != nullptr) {
    for (; i + 8 <= n; i += 8) {
      for (int k = 0; k < 8; ++k) y[i + k] = (x[i + k] - mean) * inv_std * scale[i + k] + bias[i + k];
    }
    for (; i < n; ++i) y[i] = (x[i] - mean) * inv_std * scale[i] + bias[i];
  } else {
    for (; i + 8 <= n; i += 8) {
      for (int k = 0; k < 8; ++k) y[i + k] = (x[i + k] - mean) * inv_std * scale[i + k];
    }
    for (; i < n; ++i) y[i] = (x[i] - mean) * inv_std * scale[i];
  }
}

absl::Status CheckVector(const Tensor* t, int64_t n, DataType dtype, const char* what) {
  if (t == nullptr || t->numel() != n || t->dtype() != dtype) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must hold ", n, " values of the input dtype"));
  }
  return absl::OkStatus();
}

class BatchNormKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    epsilon_ = AttrFloat(info.node, "epsilon", 1e-5f);
    if (AttrInt(info.node, "training_mode", 0) != 0) {
      return absl::UnimplementedError("BatchNormalization: training_mode=1 is not supported");
    }
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto xi, ctx.RequiredInput(0));
    const Tensor& x = *xi;
    if (x.rank() < 2) return absl::InvalidArgumentError("BatchNormalization: rank must be >= 2");
    const int64_t c = x.dim(1);
    for (size_t i = 1; i < 5; ++i) {
      PT2ONNX_RETURN_IF_ERROR(CheckVector(ctx.input(i), c, x.dtype(), "BatchNormalization scale/B/mean/var"));
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    int64_t inner = 1;
    for (int64_t d = 2; d < x.rank(); ++d) inner *= x.dim(d);
    return VisitDtype(x.dtype(), kFloats, "BatchNormalization", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        for (int64_t b = 0; b < x.dim(0); ++b) {
          for (int64_t ch = 0; ch < c; ++ch) {
            const double scale = ctx.input(1)->data<T>()[ch] /
                                 std::sqrt(static_cast<double>(ctx.input(4)->data<T>()[ch]) + epsilon_);
            const double shift = ctx.input(2)->data<T>()[ch] - ctx.input(3)->data<T>()[ch] * scale;
            const T* px = x.data<T>() + (b * c + ch) * inner;
            T* py = (out)->data<T>() + (b * c + ch) * inner;
            for (int64_t i = 0; i < inner; ++i) py[i] = static_cast<T>(px[i] * scale + shift);
          }
        }
      }
    });
  }

 private:
  float epsilon_ = 1e-5f;
};

// Instance and group normalization: statistics per (batch, group) block of
// contiguous values, then a per-channel (or per-group) affine.
template <bool kGroup>
class GroupNormKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    epsilon_ = AttrFloat(info.node, "epsilon", 1e-5f);
    groups_ = AttrInt(info.node, "num_groups", 0);
    per_group_scale_ = kGroup && info.opset < 21;
    if (kGroup && groups_ < 1) return absl::InvalidArgumentError("GroupNormalization: num_groups must be >= 1");
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto xi, ctx.RequiredInput(0));
    const Tensor& x = *xi;
    if (x.rank() < 2) return absl::InvalidArgumentError("normalization input rank must be >= 2");
    const int64_t n = x.dim(0), c = x.dim(1);
    const int64_t groups = kGroup ? groups_ : c;
    if (c % groups != 0) return absl::InvalidArgumentError("GroupNormalization: channels not divisible by num_groups");
    const int64_t affine = per_group_scale_ ? groups : c;
    for (size_t i = 1; i < 3; ++i) {
      PT2ONNX_RETURN_IF_ERROR(CheckVector(ctx.input(i), affine, x.dtype(), "normalization scale/bias"));
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    int64_t spatial = 1;
    for (int64_t d = 2; d < x.rank(); ++d) spatial *= x.dim(d);
    const int64_t per_group = c / groups;
    return VisitDtype(x.dtype(), kFloats, "normalization", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        for (int64_t b = 0; b < n; ++b) {
          for (int64_t g = 0; g < groups; ++g) {
            const int64_t base = (b * c + g * per_group) * spatial;
            double mean, inv_std;
            Moments(x.data<T>() + base, per_group * spatial, epsilon_, false, &mean, &inv_std);
            for (int64_t cc = 0; cc < per_group; ++cc) {
              const int64_t ch = g * per_group + cc;
              const int64_t a = per_group_scale_ ? g : ch;
              const double scale = ctx.input(1)->data<T>()[a], bias = ctx.input(2)->data<T>()[a];
              const T* px = x.data<T>() + base + cc * spatial;
              T* py = (out)->data<T>() + base + cc * spatial;
              for (int64_t i = 0; i < spatial; ++i) py[i] = static_cast<T>((px[i] - mean) * inv_std * scale + bias);
            }
          }
        }
      }
    });
  }

 private:
  float epsilon_ = 1e-5f;
  int64_t groups_ = 0;
  bool per_group_scale_ = false;
};

// LayerNormalization / RMSNormalization over dims [axis, rank); Scale and B
// broadcast to those dims.
template <bool kRms>
class LayerNormKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    axis_ = AttrInt(info.node, "axis", -1);
    epsilon_ = AttrFloat(info.node, "epsilon", 1e-5f);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    auto xi = ctx.RequiredInput(0);
    auto si = ctx.RequiredInput(1);
    if (!xi.ok() || !si.ok()) return absl::InvalidArgumentError("normalization needs X and Scale");
    const Tensor& x = **xi;
    PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_, x.rank(), "normalization axis"));
    Dims norm_dims(x.dims().begin() + axis, x.dims().end());
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < x.rank(); ++d) (d < axis ? outer : inner) *= x.dim(d);
    const Tensor* bias = kRms ? nullptr : ctx.input(2);
    for (const Tensor* t : {*si, bias}) {
      if (t == nullptr) continue;
      auto bd = BroadcastDims(t->dims(), norm_dims);
      if (!bd.ok() || *bd != norm_dims || t->dtype() != x.dtype()) {
        return absl::InvalidArgumentError("normalization: Scale/B do not broadcast to the normalized dims");
      }
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    Dims stat_dims = x.dims();
    for (int64_t d = axis; d < x.rank(); ++d) stat_dims[d] = 1;
    float* mean_out = nullptr;
    float* inv_out = nullptr;
    if (!kRms && ctx.num_outputs() > 1) {
      PT2ONNX_ASSIGN_OR_RETURN(auto m, ctx.AllocateOutput(1, DataType::kFloat, stat_dims));
      mean_out = (m)->data<float>();
    }
    if (!kRms && ctx.num_outputs() > 2) {
      PT2ONNX_ASSIGN_OR_RETURN(auto v, ctx.AllocateOutput(2, DataType::kFloat, stat_dims));
      inv_out = (v)->data<float>();
    }
    // Scale and B of the normalized block's own size (the usual case): no
    // broadcast offsets, float arithmetic.
    if (x.dtype() == DataType::kFloat && (*si)->numel() == inner && (bias == nullptr || bias->numel() == inner)) {
      const float* ps = (*si)->data<float>();
      const float* pb = bias ? bias->data<float>() : nullptr;
      for (int64_t r = 0; r < outer; ++r) {
        const float* px = x.data<float>() + r * inner;
        double mean, inv_std;
        FloatMoments(px, inner, epsilon_, kRms, &mean, &inv_std);
        NormalizeFloatRow(px, inner, static_cast<float>(mean), static_cast<float>(inv_std), ps, pb,
                          (out)->data<float>() + r * inner);
        if (mean_out) mean_out[r] = static_cast<float>(mean);
        if (inv_out) inv_out[r] = static_cast<float>(inv_std);
      }
      return absl::OkStatus();
    }
    std::vector<int64_t> sstr = BroadcastStrides((*si)->dims(), norm_dims);
    std::vector<int64_t> bstr = bias ? BroadcastStrides(bias->dims(), norm_dims) : sstr;
    std::vector<int64_t> strides[2] = {sstr, bstr};
    return VisitDtype(x.dtype(), kFloats, kRms ? "RMSNormalization" : "LayerNormalization", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        // Per-element scale/bias offsets within one normalized block.
        std::vector<int64_t> so(inner), bo(inner);
        ForEachBroadcast(norm_dims, strides, [&](int64_t i, const int64_t* o) { so[i] = o[0]; bo[i] = o[1]; });
        const T* ps = (*si)->data<T>();
        const T* pb = bias ? bias->data<T>() : nullptr;
        for (int64_t r = 0; r < outer; ++r) {
          const T* px = x.data<T>() + r * inner;
          T* py = (out)->data<T>() + r * inner;
          double mean, inv_std;
          Moments(px, inner, epsilon_, kRms, &mean, &inv_std);
          for (int64_t i = 0; i < inner; ++i) {
            double v = (px[i] - mean) * inv_std * ps[so[i]];
            if (pb) v += pb[bo[i]];
            py[i] = static_cast<T>(v);
          }
          if (mean_out) mean_out[r] = static_cast<float>(mean);
          if (inv_out) inv_out[r] = static_cast<float>(inv_std);
        }
      }
    });
  }

 private:
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
};

}  // namespace

extern const KernelRegistration kNormKernels[] = {
    {"BatchNormalization", MakeKernel<BatchNormKernel>, HalfMode::kViaFloat32},
    {"InstanceNormalization", MakeKernel<GroupNormKernel<false>>, HalfMode::kViaFloat32},
    {"GroupNormalization", MakeKernel<GroupNormKernel<true>>, HalfMode::kViaFloat32},
    {"LayerNormalization", MakeKernel<LayerNormKernel<false>>, HalfMode::kViaFloat32},
    {"RMSNormalization", MakeKernel<LayerNormKernel<true>>, HalfMode::kViaFloat32},
};
extern const size_t kNumNormKernels = sizeof(kNormKernels) / sizeof(kNormKernels[0]);

}  // namespace pt2onnx::runtime
