// Reference kernels: activations (relu, gelu, silu, hard*, leaky_relu, elu)
// and softmax / log_softmax over one dim, computed in double.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/reference/families.h"
#include "core/reference/kernel_support.h"
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
