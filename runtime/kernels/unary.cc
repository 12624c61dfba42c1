// File: runtime/kernels/unary.cc
// -----------------------------------------------------------------------------
// Element-wise unary math and activations, Swish (opset 24) included (float32/float64; Abs, Neg, Sign
// also on integers; Not on bool). Clip takes its bounds as optional inputs.
#include <cmath>
#include <cstdint>
#include <functional>
#include <type_traits>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

enum class UnaryOp { kAbs, kNeg, kSign, kCeil, kFloor, kRound, kSqrt, kExp, kLog, kSin, kCos, kTanh,
                     kSigmoid, kErf, kReciprocal, kRelu, kLeakyRelu, kElu, kSelu, kCelu, kHardSigmoid,
                     kHardSwish, kSoftplus, kMish, kGelu, kShrink, kIsNaN, kNot, kTan, kAsin, kAcos, kAtan,
                     kSinh, kCosh, kAsinh, kAcosh, kAtanh, kIsInf, kSwish };

struct UnaryParams {
  double alpha = 0, beta = 0, gamma = 0, lambd = 0, bias = 0;
  bool tanh_gelu = false;
};

// Transcendental functions are computed in double and rounded once: the float
// versions of glibc (native) and musl (WebAssembly) differ in the last bit,
// and constant folding must write the same bytes in the CLI and the browser.
template <typename T>
T Apply(UnaryOp op, T x, const UnaryParams& p) {
  using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const F v = static_cast<F>(x);
  switch (op) {
    case UnaryOp::kAbs: return x < 0 ? static_cast<T>(0 - x) : x;
    case UnaryOp::kNeg: return static_cast<T>(0 - x);
    case UnaryOp::kSign: return static_cast<T>(x > 0 ? 1 : (x < 0 ? -1 : x));
    case UnaryOp::kCeil: return std::ceil(v);
    case UnaryOp::kFloor: return std::floor(v);
    case UnaryOp::kRound: return std::nearbyint(v);  // ties to even (default rounding mode)
    case UnaryOp::kSqrt: return std::sqrt(v);
    case UnaryOp::kExp: return static_cast<F>(std::exp(static_cast<double>(v)));
    case UnaryOp::kLog: return static_cast<F>(std::log(static_cast<double>(v)));
    case UnaryOp::kSin: return static_cast<F>(std::sin(static_cast<double>(v)));
    case UnaryOp::kCos: return static_cast<F>(std::cos(static_cast<double>(v)));
    case UnaryOp::kTanh: return static_cast<F>(std::tanh(static_cast<double>(v)));
    case UnaryOp::kTan: return static_cast<F>(std::tan(static_cast<double>(v)));
    case UnaryOp::kAsin: return static_cast<F>(std::asin(static_cast<double>(v)));
    case UnaryOp::kAcos: return static_cast<F>(std::acos(static_cast<double>(v)));
    case UnaryOp::kAtan: return static_cast<F>(std::atan(static_cast<double>(v)));
    case UnaryOp::kSinh: return static_cast<F>(std::sinh(static_cast<double>(v)));
    case UnaryOp::kCosh: return static_cast<F>(std::cosh(static_cast<double>(v)));
    case UnaryOp::kAsinh: return static_cast<F>(std::asinh(static_cast<double>(v)));
    case UnaryOp::kAcosh: return static_cast<F>(std::acosh(static_cast<double>(v)));
    case UnaryOp::kAtanh: return static_cast<F>(std::atanh(static_cast<double>(v)));
    case UnaryOp::kSigmoid: return v >= 0 ? F(1) / (F(1) + std::exp(-v)) : std::exp(v) / (F(1) + std::exp(v));
    case UnaryOp::kErf: return static_cast<F>(std::erf(static_cast<double>(v)));
    case UnaryOp::kReciprocal: return F(1) / v;
    case UnaryOp::kRelu: return v > 0 ? v : (std::isnan(v) ? v : F(0));
    case UnaryOp::kLeakyRelu: return v >= 0 ? v : static_cast<F>(p.alpha) * v;
    case UnaryOp::kElu: return v >= 0 ? v : static_cast<F>(p.alpha) * (std::expm1(v));
    case UnaryOp::kSelu:
      return static_cast<F>(p.gamma) * (v > 0 ? v : static_cast<F>(p.alpha) * std::expm1(v));
    case UnaryOp::kCelu: {
      F a = static_cast<F>(p.alpha);
      return std::max(F(0), v) + std::min(F(0), a * std::expm1(v / a));
    }
    case UnaryOp::kHardSigmoid:
      return std::max(F(0), std::min(F(1), static_cast<F>(p.alpha) * v + static_cast<F>(p.beta)));
    case UnaryOp::kHardSwish: return v * std::max(F(0), std::min(F(1), v / F(6) + F(0.5)));
    case UnaryOp::kSwish: {
      // Swish-24: x sigmoid(alpha x), as x / (1 + exp(-alpha x)): torch's silu
      // formula (aten/src/ATen/native/cpu/Activation.cpp) when alpha is 1.
      const double d = static_cast<double>(v);
      return static_cast<F>(d / (1.0 + std::exp(-p.alpha * d)));
    }
    case UnaryOp::kSoftplus: return v > F(20) ? v : std::log1p(std::exp(v));
    case UnaryOp::kMish: {
      F sp = v > F(20) ? v : std::log1p(std::exp(v));
      return v * std::tanh(sp);
    }
    case UnaryOp::kGelu:
      if (p.tanh_gelu) {
        // 0.5 v (1 + tanh(u)) = v sigmoid(2u): one exp instead of tanh (libm's is ~10x slower).
        const F k = static_cast<F>(0.7978845608028654);  // sqrt(2/pi)
        return v / (F(1) + std::exp(F(-2) * k * (v + F(0.044715) * v * v * v)));
      }
      // 1 + erf(v / sqrt2) = erfc(-v / sqrt2): no cancellation in the negative tail.
      return F(0.5) * v * std::erfc(-v * static_cast<F>(0.7071067811865476));
    case UnaryOp::kShrink:
      return v < -p.lambd ? v + static_cast<F>(p.bias) : (v > p.lambd ? v - static_cast<F>(p.bias) : F(0));
    default: return x;
  }
}

template <UnaryOp kOp>
class UnaryKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    const ir::Node& n = info.node;
    switch (kOp) {
      case UnaryOp::kLeakyRelu: params_.alpha = AttrFloat(n, "alpha", 0.01f); break;
      case UnaryOp::kSwish: params_.alpha = AttrFloat(n, "alpha", 1.0f); break;
      case UnaryOp::kElu: case UnaryOp::kCelu: params_.alpha = AttrFloat(n, "alpha", 1.0f); break;
      case UnaryOp::kSelu:
        params_.alpha = AttrFloat(n, "alpha", 1.67326319217681884765625f);
        params_.gamma = AttrFloat(n, "gamma", 1.05070102214813232421875f);
        break;
      case UnaryOp::kHardSigmoid:
        params_.alpha = AttrFloat(n, "alpha", 0.2f);
        params_.beta = AttrFloat(n, "beta", 0.5f);
        break;
      case UnaryOp::kShrink:
        params_.lambd = AttrFloat(n, "lambd", 0.5f);
        params_.bias = AttrFloat(n, "bias", 0.0f);
        break;
      case UnaryOp::kIsInf:
        detect_positive_ = AttrInt(n, "detect_positive", 1) != 0;
        detect_negative_ = AttrInt(n, "detect_negative", 1) != 0;
        break;
      case UnaryOp::kGelu: {
        std::string approximate = AttrString(n, "approximate", "none");
        if (approximate != "none" && approximate != "tanh") {
          return absl::InvalidArgumentError("Gelu: approximate must be 'none' or 'tanh', got '" + approximate + "'");
        }
        params_.tanh_gelu = approximate == "tanh";
        break;
      }
      default: break;
    }
    return absl::OkStatus();
  }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto in, ctx.RequiredInput(0));
    const Tensor& x = *in;
    if (kOp == UnaryOp::kIsNaN || kOp == UnaryOp::kNot || kOp == UnaryOp::kIsInf) {
      PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kBool, x.dims()));
      bool* po = (out)->data<bool>();
      if (kOp == UnaryOp::kNot) {
        if (x.dtype() != DataType::kBool) return UnsupportedDtype("Not", x.dtype());
        for (int64_t i = 0; i < x.numel(); ++i) po[i] = !x.data<bool>()[i];
        return absl::OkStatus();
      }
      if (kOp == UnaryOp::kIsInf) {
        return VisitDtype(x.dtype(), kFloats, "IsInf", [&](auto tag) {
          using T = decltype(tag);
          for (int64_t i = 0; i < x.numel(); ++i) {
            const T v = x.data<T>()[i];
            po[i] = std::isinf(v) && (v > 0 ? detect_positive_ : detect_negative_);
          }
        });
      }
      return VisitDtype(x.dtype(), kFloats, "IsNaN", [&](auto tag) {
        using T = decltype(tag);
        for (int64_t i = 0; i < x.numel(); ++i) po[i] = std::isnan(x.data<T>()[i]);
      });
    }
    const bool int_ok = kOp == UnaryOp::kAbs || kOp == UnaryOp::kNeg || kOp == UnaryOp::kSign ||
                        kOp == UnaryOp::kRelu;
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    return VisitDtype(x.dtype(), int_ok ? (kFloats | kInts) : kFloats, kName(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* px = x.data<T>();
        T* po = (out)->data<T>();
        const int64_t n = x.numel();
        if constexpr (std::is_integral_v<T>) {
          for (int64_t i = 0; i < n; ++i) {
            po[i] = kOp == UnaryOp::kRelu ? (px[i] > 0 ? px[i] : T(0)) : Apply<T>(kOp, px[i], params_);
          }
        } else if constexpr (kOp == UnaryOp::kRelu) {
          // Apply's Relu (NaN kept, -0 -> +0) as one select the compiler vectorises.
          for (int64_t i = 0; i < n; ++i) po[i] = px[i] <= T(0) ? T(0) : px[i];
        } else {
          for (int64_t i = 0; i < n; ++i) po[i] = Apply<T>(kOp, px[i], params_);
        }
      }
    });
  }

 private:
  static const char* kName();
  UnaryParams params_;
  bool detect_positive_ = true, detect_negative_ = true;  // IsInf
};

#define PT2ONNX_UNARY_NAME(op, text) template <> const char* UnaryKernel<UnaryOp::op>::kName() { return text; }
PT2ONNX_UNARY_NAME(kAbs, "Abs") PT2ONNX_UNARY_NAME(kNeg, "Neg") PT2ONNX_UNARY_NAME(kSign, "Sign")
PT2ONNX_UNARY_NAME(kCeil, "Ceil") PT2ONNX_UNARY_NAME(kFloor, "Floor") PT2ONNX_UNARY_NAME(kRound, "Round")
PT2ONNX_UNARY_NAME(kSqrt, "Sqrt") PT2ONNX_UNARY_NAME(kExp, "Exp") PT2ONNX_UNARY_NAME(kLog, "Log")
PT2ONNX_UNARY_NAME(kSin, "Sin") PT2ONNX_UNARY_NAME(kCos, "Cos") PT2ONNX_UNARY_NAME(kTanh, "Tanh")
PT2ONNX_UNARY_NAME(kSigmoid, "Sigmoid") PT2ONNX_UNARY_NAME(kErf, "Erf")
PT2ONNX_UNARY_NAME(kReciprocal, "Reciprocal") PT2ONNX_UNARY_NAME(kRelu, "Relu")
PT2ONNX_UNARY_NAME(kLeakyRelu, "LeakyRelu") PT2ONNX_UNARY_NAME(kElu, "Elu") PT2ONNX_UNARY_NAME(kSelu, "Selu")
PT2ONNX_UNARY_NAME(kCelu, "Celu") PT2ONNX_UNARY_NAME(kHardSigmoid, "HardSigmoid")
PT2ONNX_UNARY_NAME(kHardSwish, "HardSwish") PT2ONNX_UNARY_NAME(kSoftplus, "Softplus")
PT2ONNX_UNARY_NAME(kMish, "Mish") PT2ONNX_UNARY_NAME(kGelu, "Gelu") PT2ONNX_UNARY_NAME(kShrink, "Shrink")
PT2ONNX_UNARY_NAME(kIsNaN, "IsNaN") PT2ONNX_UNARY_NAME(kNot, "Not") PT2ONNX_UNARY_NAME(kTan, "Tan")
PT2ONNX_UNARY_NAME(kAsin, "Asin") PT2ONNX_UNARY_NAME(kAcos, "Acos") PT2ONNX_UNARY_NAME(kAtan, "Atan")
PT2ONNX_UNARY_NAME(kSinh, "Sinh") PT2ONNX_UNARY_NAME(kCosh, "Cosh") PT2ONNX_UNARY_NAME(kAsinh, "Asinh")
PT2ONNX_UNARY_NAME(kAcosh, "Acosh") PT2ONNX_UNARY_NAME(kAtanh, "Atanh") PT2ONNX_UNARY_NAME(kIsInf, "IsInf")
PT2ONNX_UNARY_NAME(kSwish, "Swish")
#undef PT2ONNX_UNARY_NAME

// Clip(x, min?, max?): absent bounds are unbounded; NaN inputs stay NaN.
class ClipKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto in, ctx.RequiredInput(0));
    const Tensor& x = *in;
    const Tensor* lo = ctx.input(1);
    const Tensor* hi = ctx.input(2);
    for (const Tensor* bound : {lo, hi}) {
      if (bound != nullptr && (bound->numel() != 1 || bound->dtype() != x.dtype())) {
        return absl::InvalidArgumentError("Clip: min/max must be scalars of the input's dtype");
      }
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    return VisitDtype(x.dtype(), kFloats | kInts, "Clip", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* px = x.data<T>();
        T* po = (out)->data<T>();
        const bool has_lo = lo != nullptr, has_hi = hi != nullptr;
        const T vlo = has_lo ? lo->data<T>()[0] : T(0);
        const T vhi = has_hi ? hi->data<T>()[0] : T(0);
        for (int64_t i = 0; i < x.numel(); ++i) {
          T v = px[i];
          if (has_lo && v < vlo) v = vlo;
          if (has_hi && v > vhi) v = vhi;
          po[i] = v;
        }
      }
    });
  }
};

}  // namespace

extern const KernelRegistration kUnaryKernels[] = {
    {"Abs", MakeKernel<UnaryKernel<UnaryOp::kAbs>>, HalfMode::kViaFloat32},
    {"Neg", MakeKernel<UnaryKernel<UnaryOp::kNeg>>, HalfMode::kViaFloat32},
    {"Sign", MakeKernel<UnaryKernel<UnaryOp::kSign>>, HalfMode::kViaFloat32},
    {"Ceil", MakeKernel<UnaryKernel<UnaryOp::kCeil>>, HalfMode::kViaFloat32},
    {"Floor", MakeKernel<UnaryKernel<UnaryOp::kFloor>>, HalfMode::kViaFloat32},
    {"Round", MakeKernel<UnaryKernel<UnaryOp::kRound>>, HalfMode::kViaFloat32},
    {"Sqrt", MakeKernel<UnaryKernel<UnaryOp::kSqrt>>, HalfMode::kViaFloat32},
    {"Exp", MakeKernel<UnaryKernel<UnaryOp::kExp>>, HalfMode::kViaFloat32},
    {"Log", MakeKernel<UnaryKernel<UnaryOp::kLog>>, HalfMode::kViaFloat32},
    {"Sin", MakeKernel<UnaryKernel<UnaryOp::kSin>>, HalfMode::kViaFloat32},
    {"Cos", MakeKernel<UnaryKernel<UnaryOp::kCos>>, HalfMode::kViaFloat32},
    {"Tanh", MakeKernel<UnaryKernel<UnaryOp::kTanh>>, HalfMode::kViaFloat32},
    {"Sigmoid", MakeKernel<UnaryKernel<UnaryOp::kSigmoid>>, HalfMode::kViaFloat32},
    {"Erf", MakeKernel<UnaryKernel<UnaryOp::kErf>>, HalfMode::kViaFloat32},
    {"Reciprocal", MakeKernel<UnaryKernel<UnaryOp::kReciprocal>>, HalfMode::kViaFloat32},
    {"Relu", MakeKernel<UnaryKernel<UnaryOp::kRelu>>, HalfMode::kViaFloat32},
    {"LeakyRelu", MakeKernel<UnaryKernel<UnaryOp::kLeakyRelu>>, HalfMode::kViaFloat32},
    {"Elu", MakeKernel<UnaryKernel<UnaryOp::kElu>>, HalfMode::kViaFloat32},
    {"Selu", MakeKernel<UnaryKernel<UnaryOp::kSelu>>, HalfMode::kViaFloat32},
    {"Celu", MakeKernel<UnaryKernel<UnaryOp::kCelu>>, HalfMode::kViaFloat32},
    {"HardSigmoid", MakeKernel<UnaryKernel<UnaryOp::kHardSigmoid>>, HalfMode::kViaFloat32},
    {"HardSwish", MakeKernel<UnaryKernel<UnaryOp::kHardSwish>>, HalfMode::kViaFloat32},
    {"Swish", MakeKernel<UnaryKernel<UnaryOp::kSwish>>, HalfMode::kViaFloat32},
    {"Softplus", MakeKernel<UnaryKernel<UnaryOp::kSoftplus>>, HalfMode::kViaFloat32},
    {"Mish", MakeKernel<UnaryKernel<UnaryOp::kMish>>, HalfMode::kViaFloat32},
    {"Gelu", MakeKernel<UnaryKernel<UnaryOp::kGelu>>, HalfMode::kViaFloat32},
    {"Shrink", MakeKernel<UnaryKernel<UnaryOp::kShrink>>, HalfMode::kViaFloat32},
    {"IsNaN", MakeKernel<UnaryKernel<UnaryOp::kIsNaN>>, HalfMode::kViaFloat32},
    {"Not", MakeKernel<UnaryKernel<UnaryOp::kNot>>, HalfMode::kNative},
    {"Tan", MakeKernel<UnaryKernel<UnaryOp::kTan>>, HalfMode::kViaFloat32},
    {"Asin", MakeKernel<UnaryKernel<UnaryOp::kAsin>>, HalfMode::kViaFloat32},
    {"Acos", MakeKernel<UnaryKernel<UnaryOp::kAcos>>, HalfMode::kViaFloat32},
    {"Atan", MakeKernel<UnaryKernel<UnaryOp::kAtan>>, HalfMode::kViaFloat32},
    {"Sinh", MakeKernel<UnaryKernel<UnaryOp::kSinh>>, HalfMode::kViaFloat32},
    {"Cosh", MakeKernel<UnaryKernel<UnaryOp::kCosh>>, HalfMode::kViaFloat32},
    {"Asinh", MakeKernel<UnaryKernel<UnaryOp::kAsinh>>, HalfMode::kViaFloat32},
    {"Acosh", MakeKernel<UnaryKernel<UnaryOp::kAcosh>>, HalfMode::kViaFloat32},
    {"Atanh", MakeKernel<UnaryKernel<UnaryOp::kAtanh>>, HalfMode::kViaFloat32},
    {"IsInf", MakeKernel<UnaryKernel<UnaryOp::kIsInf>>, HalfMode::kViaFloat32},
    {"Clip", MakeKernel<ClipKernel>, HalfMode::kViaFloat32},
};
extern const size_t kNumUnaryKernels = sizeof(kUnaryKernels) / sizeof(kUnaryKernels[0]);

}  // namespace pt2onnx::runtime
