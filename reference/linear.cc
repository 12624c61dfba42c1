// Reference kernels: matrix products (matmul with torch's 1-D / batched
// broadcasting rules, mm, bmm, addmm, baddbmm, linear, dot). Products are
// accumulated in double and rounded once to the result dtype, except small
// float32/16 bmm and baddbmm, which sum as torch's CPU kernel for them does.
#include <cstring>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// [..., n, k] x [..., k, m] with broadcast batch dims, in double.
absl::StatusOr<Tensor> BatchedMatMul(const Tensor& a, const Tensor& b, DataType out_dtype) {
  if (a.rank() < 2 || b.rank() < 2) return absl::InvalidArgumentError("matmul needs 2-D operands here");
  const int64_t n = a.dims()[a.rank() - 2], k = a.dims()[a.rank() - 1];
  const int64_t k2 = b.dims()[b.rank() - 2], m = b.dims()[b.rank() - 1];
  if (k != k2) {
    return absl::InvalidArgumentError(absl::StrCat("mat1 and mat2 shapes cannot be multiplied (", n, "x", k,
                                                   " and ", k2, "x", m, ")"));
  }
  Dims ba(a.dims().begin(), a.dims().end() - 2), bb(b.dims().begin(), b.dims().end() - 2);
  PT2ONNX_ASSIGN_OR_RETURN(Dims batch, BroadcastDims(ba, bb));
  std::vector<int64_t> ia = BroadcastIndices(ba, batch), ib = BroadcastIndices(bb, batch);
  Dims out_dims = batch;
  out_dims.push_back(n);
  out_dims.push_back(m);
  std::vector<double> va = ToDoubles(a), vb = ToDoubles(b);
  PT2ONNX_ASSIGN_OR_RETURN(int64_t numel, CheckedNumel(out_dims));
  std::vector<double> out(numel, 0.0);
  for (size_t p = 0; p < ia.size(); ++p) {
    const double* pa = va.data() + ia[p] * n * k;
    const double* pb = vb.data() + ib[p] * k * m;
    double* po = out.data() + p * n * m;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t kk = 0; kk < k; ++kk) {
        const double x = pa[i * k + kk];
        const double* row = pb + kk * m;
        double* dst = po + i * m;
        for (int64_t j = 0; j < m; ++j) dst[j] += x * row[j];
      }
    }
  }
  return FromDoubles(out_dtype, out_dims, out);
}

// torch's CPU bmm/baddbmm of float32, float16 and bfloat16 with k*n*m < 400
// (its naive kernel; larger ones go to BLAS) sums each dot product in float,
// k ascending, every product rounded to float. Cancellations must end as
// torch's do: cdist's matrix-product form gives exactly 0 for equal points
// only when |a|^2 + |b|^2 - 2 a.b is summed in float in this order.
bool SumsAsTorchSmallBmm(const Tensor& a, const Tensor& b) {
  const DataType t = a.dtype();
  if (a.rank() != 3 || b.rank() != 3 || (t != DataType::kFloat && t != DataType::kFloat16 && t != DataType::kBFloat16)) {
    return false;
  }
  const int64_t n = a.dims()[1], k = a.dims()[2], m = b.dims()[2];
  // Each factor is below 400 when the product is (no dim is 0 past this test).
  if (n <= 0 || k <= 0 || m <= 0 || n >= 400 || k >= 400 || m >= 400) return false;
  return n * k * m < 400;
}

// [b, n, k] x [b, k, m] as SumsAsTorchSmallBmm describes; with `bias`, torch's
// beta * bias + alpha * product in float (beta == 0 ignores bias).
absl::StatusOr<Tensor> SmallBmmAsTorch(const Tensor& a, const Tensor& b, const Tensor* bias, float beta, float alpha) {
  if (a.dims()[0] != b.dims()[0] || a.dims()[2] != b.dims()[1]) {
    return absl::InvalidArgumentError("bmm: the batch or inner dims do not match");
  }
  const int64_t batch = a.dims()[0], n = a.dims()[1], k = a.dims()[2], m = b.dims()[2];
  const std::vector<double> va = ToDoubles(a), vb = ToDoubles(b);
  std::vector<double> out(batch * n * m);
  std::vector<double> vbias = bias != nullptr ? ToDoubles(*bias) : std::vector<double>();
  for (int64_t p = 0; p < batch; ++p) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < m; ++j) {
        float acc = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          // Separate float roundings (no FMA: neither x86-64's baseline nor wasm has one).
          const float product = static_cast<float>(va[(p * n + i) * k + kk]) * static_cast<float>(vb[(p * k + kk) * m + j]);
          acc += product;
        }
        const int64_t o = (p * n + i) * m + j;
        if (bias == nullptr) out[o] = acc;
        else out[o] = beta == 0 ? alpha * acc : static_cast<float>(vbias[o]) * beta + alpha * acc;
      }
    }
  }
  return FromDoubles(a.dtype(), {batch, n, m}, out);
}

// torch.matmul: 1-D operands get a dim prepended (left) / appended (right)
// that is removed from the result.
absl::StatusOr<Tensor> MatMul(const Tensor& a, const Tensor& b) {
  if (a.rank() == 0 || b.rank() == 0) return absl::InvalidArgumentError("matmul of a 0-d tensor");
  if (a.dtype() != b.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat("expected both operands to have the same dtype, got ",
                                                   DataTypeName(a.dtype()), " and ", DataTypeName(b.dtype())));
  }
  Tensor a2 = a, b2 = b;
  if (a.rank() == 1) a2 = a.Alias({1, a.dims()[0]});
  if (b.rank() == 1) b2 = b.Alias({b.dims()[0], 1});
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BatchedMatMul(a2, b2, a.dtype()));
  Dims dims = out.dims();
  if (b.rank() == 1) dims.erase(dims.end() - 1);
  if (a.rank() == 1) dims.erase(dims.end() - (b.rank() == 1 ? 1 : 2));
  return out.Alias(dims);
}

// aten::matmul(Tensor self, Tensor other) -> Tensor
absl::Status MatMulOp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, MatMul(self, other));
  return call.SetTensor(std::move(out));
}

// aten::mm(Tensor self, Tensor mat2) -> Tensor; aten::bmm(Tensor self, Tensor mat2) -> Tensor
absl::Status MmImpl(RefCall& call, int64_t rank) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mat2, call.Input("mat2"));
  if (self.rank() != rank || mat2.rank() != rank) return call.Invalid(absl::StrCat("expects ", rank, "-D tensors"));
  if (rank == 3 && self.dims()[0] != mat2.dims()[0]) return call.Invalid("batch sizes differ");
  if (rank == 3 && self.dtype() == mat2.dtype() && SumsAsTorchSmallBmm(self, mat2)) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, SmallBmmAsTorch(self, mat2, nullptr, 0, 1));
    return call.SetTensor(std::move(out));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, MatMul(self, mat2));
  return call.SetTensor(std::move(out));
}
absl::Status Mm(RefCall& call) { return MmImpl(call, 2); }

// aten::_int_mm(Tensor self, Tensor mat2) -> Tensor: int8 operands, int32 sums.
absl::Status IntMm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mat2, call.Input("mat2"));
  if (self.rank() != 2 || mat2.rank() != 2) return call.Invalid("expects 2-D tensors");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BatchedMatMul(self, mat2, DataType::kInt32));
  return call.SetTensor(std::move(out));
}
absl::Status Bmm(RefCall& call) { return MmImpl(call, 3); }

// beta * self + alpha * product (beta == 0 ignores self, NaN included).
absl::StatusOr<Tensor> AddScaled(RefCall& call, const Tensor& product) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(double beta, call.Double("beta"));
  PT2ONNX_ASSIGN_OR_RETURN(double alpha, call.Double("alpha"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor bias, BroadcastTo(self, product.dims()));
  std::vector<double> p = ToDoubles(product), s = ToDoubles(bias);
  for (size_t i = 0; i < p.size(); ++i) p[i] = (beta == 0 ? 0 : beta * s[i]) + alpha * p[i];
  return FromDoubles(product.dtype(), product.dims(), p);
}

// beta * self + alpha * (a @ b), a and b both of `rank` dims.
absl::Status AddScaledProduct(RefCall& call, const char* a_name, const char* b_name, int64_t rank,
                              absl::string_view rank_error) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, call.Input(a_name));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, call.Input(b_name));
  if (a.rank() != rank || b.rank() != rank) return call.Invalid(rank_error);
  if (rank == 3 && a.dtype() == b.dtype() && SumsAsTorchSmallBmm(a, b)) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
    PT2ONNX_ASSIGN_OR_RETURN(double beta, call.Double("beta"));
    PT2ONNX_ASSIGN_OR_RETURN(double alpha, call.Double("alpha"));
    if (self.dtype() == a.dtype()) {
      const Dims out_dims = {a.dims()[0], a.dims()[1], b.dims()[2]};
      PT2ONNX_ASSIGN_OR_RETURN(Tensor bias, BroadcastTo(self, out_dims));
      if (bias.dims() != out_dims) return call.Invalid("self does not broadcast to the product's shape");
      PT2ONNX_ASSIGN_OR_RETURN(Tensor out, SmallBmmAsTorch(a, b, &bias, static_cast<float>(beta),
                                                           static_cast<float>(alpha)));
      return call.SetTensor(std::move(out));
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor product, MatMul(a, b));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, AddScaled(call, product));
  return call.SetTensor(std::move(out));
}

// aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
absl::Status Addmm(RefCall& call) {
  return AddScaledProduct(call, "mat1", "mat2", 2, "addmm expects 2-D matrices");
}

// aten::baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
absl::Status Baddbmm(RefCall& call) {
  return AddScaledProduct(call, "batch1", "batch2", 3, "baddbmm expects 3-D tensors");
}

// aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
absl::Status Linear(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor weight, call.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> bias, call.OptionalInput("bias"));
  if (weight.rank() != 1 && weight.rank() != 2) return call.Invalid("linear weight must be 1-D or 2-D");
  Tensor wt = weight;
  if (weight.rank() == 2) {
    std::vector<double> w = ToDoubles(weight), t(w.size());
    const int64_t o = weight.dims()[0], i = weight.dims()[1];
    for (int64_t r = 0; r < o; ++r) {
      for (int64_t c = 0; c < i; ++c) t[c * o + r] = w[r * i + c];
    }
    PT2ONNX_ASSIGN_OR_RETURN(wt, FromDoubles(weight.dtype(), {i, o}, t));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, MatMul(input, wt));
  if (bias.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(out, BinaryMap(out, *bias, out.dtype(), out.dtype(),
                                            [](double a, double b) { return a + b; },
                                            [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return a + b; }));
  }
  return call.SetTensor(std::move(out));
}

// aten::dot(Tensor self, Tensor tensor) -> Tensor
absl::Status Dot(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("tensor"));
  if (self.rank() != 1 || other.rank() != 1) return call.Invalid("1D tensors expected");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, MatMul(self, other));
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterLinearRef(RefRegistry& r) {
  r.Add("aten::matmul.default", MatMulOp);
  r.Add("aten::mm.default", Mm);
  r.Add("aten::_int_mm.default", IntMm);
  r.Add("aten::bmm.default", Bmm);
  r.Add("aten::addmm.default", Addmm);
  r.Add("aten::baddbmm.default", Baddbmm);
  r.Add("aten::linear.default", Linear);
  r.Add("aten::dot.default", Dot);
}

}  // namespace pt2onnx::reference
