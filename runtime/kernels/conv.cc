// File: runtime/kernels/conv.cc
// -----------------------------------------------------------------------------
// Conv and ConvTranspose, NC[D]HW layout, 1-3 spatial dims, groups, dilation,
// padding modes. float32 2-D cases run through XNNPACK (xnn_kernels.cc)
// when it is linked; these direct loops serve every other case.
#include <cstdint>
#include <type_traits>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/window.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

// Pads a 1-3 element spatial description to 3 dims (leading size-1 dims).
struct Spatial3 {
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, d[3] = {1, 1, 1}, p[3] = {0, 0, 0};
  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t k_size() const { return k[0] * k[1] * k[2]; }
};

Spatial3 ToSpatial3(const std::vector<WindowDim>& w) {
  Spatial3 s;
  const size_t off = 3 - w.size();
  for (size_t i = 0; i < w.size(); ++i) {
    s.in[off + i] = w[i].in;
    s.out[off + i] = w[i].out;
    s.k[off + i] = w[i].kernel;
    s.s[off + i] = w[i].stride;
    s.d[off + i] = w[i].dilation;
    s.p[off + i] = w[i].pad_begin;
  }
  return s;
}

// Every tap of a window between two grids: for each kernel offset (k0, k1, k2)
// and each point a of grid `a`, the point b = a * stride - pad + k * dilation
// of grid `b` (per dim), when it lies inside; f(a, b, k) gets flat indices.
// Conv walks its output (b: the input it reads), ConvTranspose its input (b:
// the output it writes); kernel taps are the outer loops, rows the inner.
template <typename F>
void ForEachTap(const Spatial3& s, const int64_t (&a)[3], const int64_t (&b)[3], F&& f) {
  for (int64_t k0 = 0; k0 < s.k[0]; ++k0)
  for (int64_t k1 = 0; k1 < s.k[1]; ++k1)
  for (int64_t k2 = 0; k2 < s.k[2]; ++k2) {
    const int64_t k = (k0 * s.k[1] + k1) * s.k[2] + k2;
    for (int64_t a0 = 0; a0 < a[0]; ++a0) {
      const int64_t b0 = a0 * s.s[0] - s.p[0] + k0 * s.d[0];
      if (b0 < 0 || b0 >= b[0]) continue;
      for (int64_t a1 = 0; a1 < a[1]; ++a1) {
        const int64_t b1 = a1 * s.s[1] - s.p[1] + k1 * s.d[1];
        if (b1 < 0 || b1 >= b[1]) continue;
        const int64_t arow = (a0 * a[1] + a1) * a[2], brow = (b0 * b[1] + b1) * b[2];
        for (int64_t a2 = 0; a2 < a[2]; ++a2) {
          const int64_t b2 = a2 * s.s[2] - s.p[2] + k2 * s.d[2];
          if (b2 >= 0 && b2 < b[2]) f(arow + a2, brow + b2, k);
        }
      }
    }
  }
}

absl::Status CheckBias(const Tensor* bias, int64_t channels, DataType dtype, const char* op) {
  if (bias != nullptr && (bias->numel() != channels || bias->dtype() != dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": bias must hold ", channels, " values of the input dtype"));
  }
  return absl::OkStatus();
}

class ConvKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    PT2ONNX_ASSIGN_OR_RETURN(auto attrs, ReadWindowAttrs(info.node));
    attrs_ = attrs;
    group_ = AttrInt(info.node, "group", 1);
    if (group_ < 1) return absl::InvalidArgumentError("Conv: group must be >= 1");
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    auto xi = ctx.RequiredInput(0);
    auto wi = ctx.RequiredInput(1);
    if (!xi.ok() || !wi.ok()) return absl::InvalidArgumentError("Conv needs X and W");
    const Tensor& x = **xi;
    const Tensor& w = **wi;
    const Tensor* bias = ctx.input(2);
    if (x.rank() < 3 || w.rank() != x.rank() || x.dtype() != w.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat("Conv: X ", DimsString(x.dims()), " and W ",
                                                     DimsString(w.dims()), " do not match"));
    }
    const int64_t n = x.dim(0), c = x.dim(1), m = w.dim(0), cg = w.dim(1);
    if (c != cg * group_ || m % group_ != 0) {
      return absl::InvalidArgumentError(absl::StrCat("Conv: ", c, " input channels, W ", DimsString(w.dims()),
                                                     " and group ", group_, " do not match"));
    }
    PT2ONNX_RETURN_IF_ERROR(CheckBias(bias, m, x.dtype(), "Conv"));
    Dims in(x.dims().begin() + 2, x.dims().end()), kernel(w.dims().begin() + 2, w.dims().end());
    if (!attrs_.kernel_shape.empty() && attrs_.kernel_shape != kernel) {
      return absl::InvalidArgumentError("Conv: kernel_shape differs from W's spatial dims");
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto window, ResolveWindow(attrs_, in, kernel, "Conv"));
    Dims out_dims = {n, m};
    for (const WindowDim& d : window) out_dims.push_back(d.out);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), out_dims));
    const Spatial3 s = ToSpatial3(window);
    const int64_t mg = m / group_;
    return VisitDtype(x.dtype(), kFloats | kInts, "Conv", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* px = x.data<T>();
        const T* pw = w.data<T>();
        T* py = (out)->data<T>();
        for (int64_t b = 0; b < n; ++b) {
          for (int64_t oc = 0; oc < m; ++oc) {
            const int64_t g = oc / mg;
            T* yplane = py + (b * m + oc) * s.out_size();
            const T init = bias != nullptr ? bias->data<T>()[oc] : T(0);
            for (int64_t o = 0; o < s.out_size(); ++o) yplane[o] = init;
            for (int64_t ic = 0; ic < cg; ++ic) {
              const T* xplane = px + (b * c + g * cg + ic) * s.in_size();
              const T* wk = pw + (oc * cg + ic) * s.k_size();
              ForEachTap(s, s.out, s.in, [&](int64_t o, int64_t i, int64_t k) {
                yplane[o] = static_cast<T>(yplane[o] + wk[k] * xplane[i]);
              });
            }
          }
        }
      }
    });
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
};

// ConvTranspose: W is [C, M/group, k...]; each input pixel scatters its
// kernel-weighted contribution into the output.
class ConvTransposeKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    PT2ONNX_ASSIGN_OR_RETURN(auto attrs, ReadWindowAttrs(info.node));
    attrs_ = attrs;
    group_ = AttrInt(info.node, "group", 1);
    output_padding_ = AttrInts(info.node, "output_padding");
    output_shape_ = AttrInts(info.node, "output_shape");
    if (group_ < 1) return absl::InvalidArgumentError("ConvTranspose: group must be >= 1");
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    auto xi = ctx.RequiredInput(0);
    auto wi = ctx.RequiredInput(1);
    if (!xi.ok() || !wi.ok()) return absl::InvalidArgumentError("ConvTranspose needs X and W");
    const Tensor& x = **xi;
    const Tensor& w = **wi;
    const Tensor* bias = ctx.input(2);
    if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank() || x.dtype() != w.dtype() || w.dim(0) != x.dim(1) ||
        x.dim(1) % group_ != 0) {
      return absl::InvalidArgumentError(absl::StrCat("ConvTranspose: X ", DimsString(x.dims()), " and W ",
                                                     DimsString(w.dims()), " do not match"));
    }
    const size_t nsp = x.rank() - 2;
    const int64_t n = x.dim(0), c = x.dim(1), mg = w.dim(1), m = mg * group_, cg = c / group_;
    PT2ONNX_RETURN_IF_ERROR(CheckBias(bias, m, x.dtype(), "ConvTranspose"));
    auto vec = [&](const std::vector<int64_t>& v, size_t i, int64_t fallback) { return v.empty() ? fallback : v[i]; };
    for (auto* v : {&attrs_.strides, &attrs_.dilations, &output_padding_, &output_shape_}) {
      if (!v->empty() && v->size() != nsp) return absl::InvalidArgumentError("ConvTranspose: attribute length mismatch");
    }
    if (!attrs_.pads.empty() && attrs_.pads.size() != 2 * nsp) return absl::InvalidArgumentError("ConvTranspose: pads length");
    Spatial3 s;
    Dims out_dims = {n, m};
    for (size_t i = 0; i < nsp; ++i) {
      const size_t j = 3 - nsp + i;
      s.in[j] = x.dim(2 + i);
      s.k[j] = w.dim(2 + i);
      s.s[j] = vec(attrs_.strides, i, 1);
      s.d[j] = vec(attrs_.dilations, i, 1);
      if (s.s[j] < 1 || s.d[j] < 1 || s.s[j] > (1 << 30) || s.d[j] > (1 << 30)) {
        return absl::InvalidArgumentError("ConvTranspose: strides and dilations must be in [1, 2^30]");
      }
      const int64_t op = vec(output_padding_, i, 0);
      const int64_t full = s.s[j] * (s.in[j] - 1) + op + s.d[j] * (s.k[j] - 1) + 1;
      int64_t pb = vec(attrs_.pads, i, 0), pe = attrs_.pads.empty() ? 0 : attrs_.pads[i + nsp];
      if (!output_shape_.empty() || attrs_.auto_pad == "SAME_UPPER" || attrs_.auto_pad == "SAME_LOWER") {
        const int64_t target = output_shape_.empty() ? s.in[j] * s.s[j] : output_shape_[i];
        const int64_t total = full - target;
        if (total < 0) return absl::InvalidArgumentError("ConvTranspose: output_shape too large");
        pb = attrs_.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
        pe = total - pb;
      }
      if (pb < 0 || pe < 0) return absl::InvalidArgumentError("ConvTranspose: negative pads");
      s.p[j] = pb;
      s.out[j] = full - pb - pe;
      if (s.out[j] < 0) return absl::InvalidArgumentError("ConvTranspose: pads larger than the output");
      out_dims.push_back(s.out[j]);
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), out_dims));
    return VisitDtype(x.dtype(), kFloats | kInts, "ConvTranspose", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* px = x.data<T>();
        const T* pw = w.data<T>();
        T* py = (out)->data<T>();
        for (int64_t b = 0; b < n; ++b) {
          for (int64_t oc = 0; oc < m; ++oc) {
            T* yplane = py + (b * m + oc) * s.out_size();
            const T init = bias != nullptr ? bias->data<T>()[oc] : T(0);
            for (int64_t o = 0; o < s.out_size(); ++o) yplane[o] = init;
            const int64_t g = oc / mg, ocg = oc % mg;
            for (int64_t icg = 0; icg < cg; ++icg) {
              const int64_t ic = g * cg + icg;
              const T* xplane = px + (b * c + ic) * s.in_size();
              const T* wk = pw + (ic * mg + ocg) * s.k_size();
              ForEachTap(s, s.in, s.out, [&](int64_t i, int64_t o, int64_t k) {
                yplane[o] = static_cast<T>(yplane[o] + xplane[i] * wk[k]);
              });
            }
          }
        }
      }
    });
  }

 private:
  WindowAttrs attrs_;
  int64_t group_ = 1;
  std::vector<int64_t> output_padding_, output_shape_;
};

}  // namespace

extern const KernelRegistration kConvKernels[] = {
    {"Conv", MakeKernel<ConvKernel>, HalfMode::kViaFloat32},
    {"ConvTranspose", MakeKernel<ConvTransposeKernel>, HalfMode::kViaFloat32},
};
extern const size_t kNumConvKernels = sizeof(kConvKernels) / sizeof(kConvKernels[0]);

}  // namespace pt2onnx::runtime
