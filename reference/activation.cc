// Reference kernels: activations (relu, gelu, silu, hard*, leaky_relu, elu)
// with parameters (celu, selu, threshold, shrinks, softplus, log_sigmoid,
// prelu, glu) and softmax / log_softmax over one dim, computed in double.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

absl::Status Apply(RefCall& call, bool in_place, const DoubleUnary& f) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, UnaryMapDouble(self, self.dtype(), f));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}

double Relu(double x) { return std::isnan(x) ? x : (x > 0 ? x : 0); }
double Hardsigmoid(double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; }

// aten::relu(Tensor self) -> Tensor
absl::Status ReluOp(RefCall& call) { return Apply(call, false, Relu); }
absl::Status ReluInPlace(RefCall& call) { return Apply(call, true, Relu); }
// aten::relu6(Tensor self) -> Tensor
absl::Status Relu6(RefCall& call) {
  return Apply(call, false, [](double x) { return std::isnan(x) ? x : std::min(std::max(x, 0.0), 6.0); });
}
absl::Status Relu6InPlace(RefCall& call) {
  return Apply(call, true, [](double x) { return std::isnan(x) ? x : std::min(std::max(x, 0.0), 6.0); });
}

// aten::gelu(Tensor self, *, str approximate='none') -> Tensor
absl::Status GeluImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string approximate, call.String("approximate"));
  if (approximate == "tanh") {
    return Apply(call, in_place, [](double x) {
      const double k = std::sqrt(2.0 / M_PI);
      return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x)));
    });
  }
  if (approximate != "none") return call.Invalid(absl::StrCat("approximate='", approximate, "'"));
  return Apply(call, in_place, [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); });
}
absl::Status Gelu(RefCall& call) { return GeluImpl(call, false); }
absl::Status GeluInPlace(RefCall& call) { return GeluImpl(call, true); }

// aten::silu(Tensor self) -> Tensor
absl::Status Silu(RefCall& call) { return Apply(call, false, [](double x) { return x / (1 + std::exp(-x)); }); }
absl::Status SiluInPlace(RefCall& call) { return Apply(call, true, [](double x) { return x / (1 + std::exp(-x)); }); }
// aten::hardsigmoid(Tensor self) -> Tensor
absl::Status HardsigmoidOp(RefCall& call) { return Apply(call, false, Hardsigmoid); }
absl::Status HardsigmoidInPlace(RefCall& call) { return Apply(call, true, Hardsigmoid); }
// aten::hardswish(Tensor self) -> Tensor
absl::Status Hardswish(RefCall& call) { return Apply(call, false, [](double x) { return x * Hardsigmoid(x); }); }
absl::Status HardswishInPlace(RefCall& call) { return Apply(call, true, [](double x) { return x * Hardsigmoid(x); }); }
// aten::mish(Tensor self) -> Tensor
absl::Status Mish(RefCall& call) {
  return Apply(call, false, [](double x) { return x * std::tanh(std::log1p(std::exp(x))); });
}

// aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor
absl::Status HardtanhImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(double lo, call.Double("min_val"));
  PT2ONNX_ASSIGN_OR_RETURN(double hi, call.Double("max_val"));
  return Apply(call, in_place, [lo, hi](double x) { return std::isnan(x) ? x : std::min(std::max(x, lo), hi); });
}
absl::Status Hardtanh(RefCall& call) { return HardtanhImpl(call, false); }
absl::Status HardtanhInPlace(RefCall& call) { return HardtanhImpl(call, true); }

// aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor
absl::Status LeakyReluImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(double slope, call.Double("negative_slope"));
  return Apply(call, in_place, [slope](double x) { return x > 0 ? x : x * slope; });
}
absl::Status LeakyRelu(RefCall& call) { return LeakyReluImpl(call, false); }
absl::Status LeakyReluInPlace(RefCall& call) { return LeakyReluImpl(call, true); }

// aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor
absl::Status EluImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(double alpha, call.Double("alpha"));
  PT2ONNX_ASSIGN_OR_RETURN(double scale, call.Double("scale"));
  PT2ONNX_ASSIGN_OR_RETURN(double input_scale, call.Double("input_scale"));
  return Apply(call, in_place, [=](double x) {
    return x > 0 ? scale * x : scale * alpha * std::expm1(x * input_scale);
  });
}
absl::Status Elu(RefCall& call) { return EluImpl(call, false); }
absl::Status EluInPlace(RefCall& call) { return EluImpl(call, true); }

// aten::mish_(Tensor(a!) self) -> Tensor(a!)
absl::Status MishInPlace(RefCall& call) {
  return Apply(call, true, [](double x) { return x * std::tanh(std::log1p(std::exp(x))); });
}

// aten::celu(Tensor self, Scalar alpha=1.0) -> Tensor
absl::Status CeluImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(double alpha, call.Double("alpha"));
  if (alpha == 0) return call.Invalid("ZeroDivisionError from celu: alpha cannot be 0");
  return Apply(call, in_place, [alpha](double x) {
    return std::max(x, 0.0) + std::min(0.0, alpha * std::expm1(x / alpha));
  });
}
absl::Status Celu(RefCall& call) { return CeluImpl(call, false); }
absl::Status CeluInPlace(RefCall& call) { return CeluImpl(call, true); }

// aten::selu(Tensor self) -> Tensor (torch's fixed alpha and scale)
double SeluValue(double x) {
  const double alpha = 1.6732632423543772848170429916717;
  const double scale = 1.0507009873554804934193349852946;
  return x > 0 ? scale * x : scale * alpha * std::expm1(x);
}
absl::Status Selu(RefCall& call) { return Apply(call, false, SeluValue); }
absl::Status SeluInPlace(RefCall& call) { return Apply(call, true, SeluValue); }

// aten::threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor
// Keeps x only where x > threshold (NaN is kept: the comparison is false).
absl::Status ThresholdImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(double threshold, call.Double("threshold"));
  PT2ONNX_ASSIGN_OR_RETURN(double value, call.Double("value"));
  return Apply(call, in_place, [=](double x) { return x <= threshold ? value : x; });
}
absl::Status Threshold(RefCall& call) { return ThresholdImpl(call, false); }
absl::Status ThresholdInPlace(RefCall& call) { return ThresholdImpl(call, true); }

// aten::hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor
absl::Status Hardshrink(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double l, call.Double("lambd"));
  return Apply(call, false, [l](double x) { return (x >= -l && x <= l) ? 0.0 : x; });
}
// aten::softshrink(Tensor self, Scalar lambd=0.5) -> Tensor (NaN stays NaN)
absl::Status Softshrink(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double l, call.Double("lambd"));
  return Apply(call, false, [l](double x) { return x > l ? x - l : (x < -l ? x + l : x * 0); });
}

// aten::softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor
absl::Status Softplus(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(double beta, call.Double("beta"));
  PT2ONNX_ASSIGN_OR_RETURN(double threshold, call.Double("threshold"));
  return Apply(call, false, [=](double x) {
    return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta;
  });
}

// log(sigmoid(x)) without overflow: min(x, 0) - log1p(exp(-|x|)).
double LogSigmoidValue(double x) { return std::min(x, 0.0) - std::log1p(std::exp(-std::abs(x))); }
// aten::log_sigmoid(Tensor self) -> Tensor
absl::Status LogSigmoid(RefCall& call) { return Apply(call, false, LogSigmoidValue); }
// aten::log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)
// The CPU buffer holds exp(-|x|) (what the backward reads).
absl::Status LogSigmoidForward(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, UnaryMapDouble(self, self.dtype(), LogSigmoidValue));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor buffer,
                           UnaryMapDouble(self, self.dtype(), [](double x) { return std::exp(-std::abs(x)); }));
  PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(out)));
  return call.SetTensor(std::move(buffer));
}

// x where x > 0, else weight * x (weight broadcast to x).
absl::StatusOr<Tensor> PreluValues(const Tensor& self, const Tensor& weight) {
  return BinaryMap(self, weight, self.dtype(), self.dtype(),
                   [](double x, double w) { return x > 0 ? x : w * x; },
                   [](int64_t x, int64_t w) -> absl::StatusOr<int64_t> { return x > 0 ? x : w * x; });
}
// aten::prelu(Tensor self, Tensor weight) -> Tensor: one weight, or one per
// channel (dim 1).
absl::Status Prelu(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor weight, call.Input("weight"));
  if (weight.rank() > 1) return call.Invalid("prelu: weight must be a 0-d or 1-d tensor");
  Tensor w = weight.Alias({});
  if (weight.numel() != 1) {
    if (self.rank() < 2 || self.dims()[1] != weight.numel()) {
      return call.Invalid("prelu: the number of weights must be 1 or the number of channels (dim 1)");
    }
    Dims dims(self.rank(), 1);
    dims[1] = weight.numel();
    w = weight.Alias(dims);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, PreluValues(self, w));
  return call.SetTensor(std::move(out));
}
// aten::_prelu_kernel(Tensor self, Tensor weight) -> Tensor (weight broadcasts as is)
absl::Status PreluKernel(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor weight, call.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, PreluValues(self, weight));
  if (out.dims() != self.dims()) return call.Invalid("_prelu_kernel: weight does not broadcast to self");
  return call.SetTensor(std::move(out));
}

// aten::glu(Tensor self, int dim=-1) -> Tensor: a * sigmoid(b), a and b the
// halves of dim.
absl::Status Glu(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  if (self.rank() == 0) return call.Invalid("glu does not support scalars because halving size must be even");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  const int64_t n = self.dims()[dim];
  if (n % 2 != 0) return call.Invalid("Halving dimension must be even");
  int64_t inner = 1;
  for (int64_t k = dim + 1; k < self.rank(); ++k) inner *= self.dims()[k];
  const int64_t outer = n == 0 || inner == 0 ? 0 : self.numel() / (n * inner);
  Dims dims = self.dims();
  dims[dim] = n / 2;
  const std::vector<double> v = ToDoubles(self);
  std::vector<double> out;
  out.reserve(self.numel() / 2);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < n / 2; ++k) {
      for (int64_t i = 0; i < inner; ++i) {
        const double a = v[(o * n + k) * inner + i];
        const double b = v[(o * n + k + n / 2) * inner + i];
        out.push_back(a / (1 + std::exp(-b)));
      }
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(self.dtype(), dims, out));
  return call.SetTensor(std::move(t));
}

// Softmax over `dim` in double; `log` gives log_softmax.
absl::Status SoftmaxImpl(RefCall& call, DataType out_dtype, bool log, bool safe = false) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim_arg, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(dim_arg, self.rank()));
  if (out_dtype == DataType::kUndefined) out_dtype = self.dtype();
  std::vector<double> v = ToDoubles(self);
  const int64_t n = self.rank() == 0 ? 1 : self.dims()[dim];
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < self.rank(); ++d) inner *= self.dims()[d];
  const int64_t outer = n == 0 ? 0 : self.numel() / (n * inner);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      double* base = v.data() + o * n * inner + in;
      double mx = -INFINITY;
      for (int64_t k = 0; k < n; ++k) mx = std::max(mx, base[k * inner]);
      if (safe && std::isinf(mx) && mx < 0) {
        for (int64_t k = 0; k < n; ++k) base[k * inner] = 0;  // a fully masked row gives 0
        continue;
      }
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += std::exp(base[k * inner] - mx);
      for (int64_t k = 0; k < n; ++k) {
        double& e = base[k * inner];
        e = log ? e - mx - std::log(sum) : std::exp(e - mx) / sum;
      }
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromDoubles(out_dtype, self.dims(), v));
  return call.SetTensor(std::move(out));
}

// aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
absl::Status Softmax(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  return SoftmaxImpl(call, dtype.value_or(DataType::kUndefined), false);
}
absl::Status LogSoftmax(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  return SoftmaxImpl(call, dtype.value_or(DataType::kUndefined), true);
}
// aten::_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
absl::Status SafeSoftmax(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  return SoftmaxImpl(call, dtype.value_or(DataType::kUndefined), false, true);
}
// aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor
absl::Status SoftmaxInternal(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(bool half_to_float, call.Bool("half_to_float"));
  return SoftmaxImpl(call, half_to_float ? DataType::kFloat : DataType::kUndefined, false);
}
absl::Status LogSoftmaxInternal(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(bool half_to_float, call.Bool("half_to_float"));
  return SoftmaxImpl(call, half_to_float ? DataType::kFloat : DataType::kUndefined, true);
}

}  // namespace

void RegisterActivationRef(RefRegistry& r) {
  r.Add("aten::relu.default", ReluOp);
  r.Add("aten::relu_.default", ReluInPlace);
  r.Add("aten::relu6.default", Relu6);
  r.Add("aten::relu6_.default", Relu6InPlace);
  r.Add("aten::gelu.default", Gelu);
  r.Add("aten::gelu_.default", GeluInPlace);
  r.Add("aten::silu.default", Silu);
  r.Add("aten::silu_.default", SiluInPlace);
  r.Add("aten::hardsigmoid.default", HardsigmoidOp);
  r.Add("aten::hardsigmoid_.default", HardsigmoidInPlace);
  r.Add("aten::hardswish.default", Hardswish);
  r.Add("aten::hardswish_.default", HardswishInPlace);
  r.Add("aten::mish.default", Mish);
  r.Add("aten::mish_.default", MishInPlace);
  r.Add("aten::celu.default", Celu);
  r.Add("aten::celu_.default", CeluInPlace);
  r.Add("aten::selu.default", Selu);
  r.Add("aten::selu_.default", SeluInPlace);
  r.Add("aten::threshold.default", Threshold);
  r.Add("aten::threshold_.default", ThresholdInPlace);
  r.Add("aten::hardshrink.default", Hardshrink);
  r.Add("aten::softshrink.default", Softshrink);
  r.Add("aten::softplus.default", Softplus);
  r.Add("aten::log_sigmoid.default", LogSigmoid);
  r.Add("aten::log_sigmoid_forward.default", LogSigmoidForward);
  r.Add("aten::prelu.default", Prelu);
  r.Add("aten::_prelu_kernel.default", PreluKernel);
  r.Add("aten::glu.default", Glu);
  r.Add("aten::hardtanh.default", Hardtanh);
  r.Add("aten::hardtanh_.default", HardtanhInPlace);
  r.Add("aten::leaky_relu.default", LeakyRelu);
  r.Add("aten::leaky_relu_.default", LeakyReluInPlace);
  r.Add("aten::elu.default", Elu);
  r.Add("aten::elu_.default", EluInPlace);
  r.Add("aten::softmax.int", Softmax);
  r.Add("aten::log_softmax.int", LogSoftmax);
  r.Add("aten::_softmax.default", SoftmaxInternal);
  r.Add("aten::_safe_softmax.default", SafeSoftmax);
  r.Add("aten::_log_softmax.default", LogSoftmaxInternal);
}

}  // namespace pt2onnx::reference
