// Reference kernels: products beyond matmul (mv, outer, inner, vdot,
// linalg_vecdot, tensordot, bilinear, chain_matmul, einsum), the fused-add
// products (addmv, addr, addbmm) and the out_dtype products (mm/bmm/addmm
// .dtype). All go through Contract (contraction.h): floats accumulate in
// double, integers wrap as torch's integer kernels do.
#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "reference/contraction.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

absl::Status SameDtype(const RefCall& call, const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype()) return absl::OkStatus();
  return call.Invalid(absl::StrCat("expected both operands to have the same dtype, got ", DataTypeName(a.dtype()),
                                   " and ", DataTypeName(b.dtype())));
}

std::vector<int> Range(int from, int to) {
  std::vector<int> v(to - from);
  std::iota(v.begin(), v.end(), from);
  return v;
}

// [n, k] x [k, m] (also [b, n, k] x [b, k, m]) in `dtype`.
absl::StatusOr<Tensor> MatrixProduct(const RefCall& call, const Tensor& a, const Tensor& b, DataType dtype) {
  const int64_t r = a.rank();
  if (b.rank() != r || (r != 2 && r != 3)) return call.Invalid("expected 2-D (or 3-D batched) matrices");
  if (a.dims()[r - 1] != b.dims()[r - 2] || (r == 3 && a.dims()[0] != b.dims()[0])) {
    return call.Invalid(absl::StrCat("mat1 and mat2 shapes cannot be multiplied (", DimsString(a.dims()),
                                     " and ", DimsString(b.dims()), ")"));
  }
  if (r == 2) return Contract({a, b}, {{0, 1}, {1, 2}}, {0, 2}, dtype);
  return Contract({a, b}, {{0, 1, 2}, {0, 2, 3}}, {0, 1, 3}, dtype);
}

// beta * self + alpha * product, in product's dtype; beta == 0 ignores self
// (NaN included), as torch's fused-add products do.
absl::StatusOr<Tensor> AddScaled(RefCall& call, const Tensor& product) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar beta, call.Scalar("beta"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar alpha, call.Scalar("alpha"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor bias, BroadcastTo(self, product.dims()));
  if (bias.dims() != product.dims()) return call.Invalid("self does not broadcast to the product's shape");
  if (IsFloatLike(product.dtype())) {
    std::vector<double> p = ToDoubles(product), s = ToDoubles(bias);
    const double b = beta.AsDouble(), a = alpha.AsDouble();
    for (size_t i = 0; i < p.size(); ++i) p[i] = (b == 0 ? 0 : b * s[i]) + a * p[i];
    return FromDoubles(product.dtype(), product.dims(), p);
  }
  if (beta.is_float() || alpha.is_float()) return call.Invalid("For integral input tensors, beta and alpha must be integers");
  std::vector<int64_t> p = ToInts(product), s = ToInts(bias);
  auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
  for (size_t i = 0; i < p.size(); ++i) {
    const uint64_t scaled_self = beta.i == 0 ? 0 : static_cast<uint64_t>(beta.i) * static_cast<uint64_t>(s[i]);
    p[i] = wrap(scaled_self + static_cast<uint64_t>(alpha.i) * static_cast<uint64_t>(p[i]));
  }
  return FromInts(product.dtype(), product.dims(), p);
}

// aten::mv(Tensor self, Tensor vec) -> Tensor
absl::Status Mv(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor vec, call.Input("vec"));
  PT2ONNX_RETURN_IF_ERROR(SameDtype(call, self, vec));
  if (self.rank() != 2 || vec.rank() != 1 || self.dims()[1] != vec.dims()[0]) {
    return call.Invalid("mv expects a 2-D matrix and a 1-D vector of matching size");
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Contract({self, vec}, {{0, 1}, {1}}, {0}, self.dtype()));
  return call.SetTensor(std::move(out));
}

// aten::addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor
absl::Status Addmv(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mat, call.Input("mat"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor vec, call.Input("vec"));
  PT2ONNX_RETURN_IF_ERROR(SameDtype(call, mat, vec));
  if (mat.rank() != 2 || vec.rank() != 1 || mat.dims()[1] != vec.dims()[0]) {
    return call.Invalid("addmv expects a 2-D matrix and a 1-D vector of matching size");
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor product, Contract({mat, vec}, {{0, 1}, {1}}, {0}, mat.dtype()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, AddScaled(call, product));
  return call.SetTensor(std::move(out));
}

// aten::outer(Tensor self, Tensor vec2) -> Tensor (promotes, as self[:, None] * vec2)
absl::Status Outer(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor vec2, call.Input("vec2"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "vec2"}));
  if (self.rank() != 1 || vec2.rank() != 1) return call.Invalid("outer: expected 1-D vectors");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, CastTensor(self, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, CastTensor(vec2, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Contract({a, b}, {{0}, {1}}, {0, 1}, dtype));
  return call.SetTensor(std::move(out));
}

// aten::addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
absl::Status Addr(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor v1, call.Input("vec1"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor v2, call.Input("vec2"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "vec1", "vec2"}));
  if (v1.rank() != 1 || v2.rank() != 1) return call.Invalid("addr: expected 1-D vectors");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, CastTensor(v1, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, CastTensor(v2, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor product, Contract({a, b}, {{0}, {1}}, {0, 1}, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, AddScaled(call, product));
  return call.SetTensor(std::move(out));
}

// aten::addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
// The batch products summed over the batch.
absl::Status Addbmm(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b1, call.Input("batch1"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b2, call.Input("batch2"));
  PT2ONNX_RETURN_IF_ERROR(SameDtype(call, b1, b2));
  if (b1.rank() != 3 || b2.rank() != 3 || b1.dims()[0] != b2.dims()[0] || b1.dims()[2] != b2.dims()[1]) {
    return call.Invalid("addbmm expects 3-D batches [b, n, k] and [b, k, m]");
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor product, Contract({b1, b2}, {{0, 1, 2}, {0, 2, 3}}, {1, 3}, b1.dtype()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, AddScaled(call, product));
  return call.SetTensor(std::move(out));
}

// aten::mm.dtype(Tensor self, Tensor mat2, ScalarType out_dtype) -> Tensor (bmm.dtype alike)
absl::Status MmDtype(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mat2, call.Input("mat2"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("out_dtype"));
  PT2ONNX_RETURN_IF_ERROR(SameDtype(call, self, mat2));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, MatrixProduct(call, self, mat2, dtype.value_or(self.dtype())));
  return call.SetTensor(std::move(out));
}
// aten::addmm.dtype(Tensor self, Tensor mat1, Tensor mat2, ScalarType out_dtype, *, Scalar beta=1, Scalar alpha=1) -> Tensor
absl::Status AddmmDtype(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mat1, call.Input("mat1"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mat2, call.Input("mat2"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("out_dtype"));
  PT2ONNX_RETURN_IF_ERROR(SameDtype(call, mat1, mat2));
  if (mat1.rank() != 2) return call.Invalid("addmm expects 2-D matrices");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor product, MatrixProduct(call, mat1, mat2, dtype.value_or(mat1.dtype())));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, AddScaled(call, product));
  return call.SetTensor(std::move(out));
}

// aten::vdot(Tensor self, Tensor other) -> Tensor (conj is the identity on reals)
absl::Status Vdot(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  PT2ONNX_RETURN_IF_ERROR(SameDtype(call, self, other));
  if (self.rank() != 1 || other.rank() != 1 || self.numel() != other.numel()) {
    return call.Invalid("vdot: expected 1-D tensors of the same size");
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Contract({self, other}, {{0}, {0}}, {}, self.dtype()));
  return call.SetTensor(std::move(out));
}

// aten::inner(Tensor self, Tensor other) -> Tensor: a product over the last
// dims (a 0-d operand multiplies, with promotion).
absl::Status Inner(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  if (self.rank() == 0 || other.rank() == 0) {
    PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "other"}));
    PT2ONNX_ASSIGN_OR_RETURN(Tensor a, CastTensor(self, dtype));
    PT2ONNX_ASSIGN_OR_RETURN(Tensor b, CastTensor(other, dtype));
    const int ra = static_cast<int>(a.rank()), rb = static_cast<int>(b.rank());
    PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Contract({a, b}, {Range(0, ra), Range(ra, ra + rb)}, Range(0, ra + rb), dtype));
    return call.SetTensor(std::move(out));
  }
  PT2ONNX_RETURN_IF_ERROR(SameDtype(call, self, other));
  if (self.dims().back() != other.dims().back()) return call.Invalid("inner: the last dims must match");
  const int ra = static_cast<int>(self.rank()), rb = static_cast<int>(other.rank());
  // self's dims are labels 0..ra-1; other's free dims ra.., its last dim ra-1.
  std::vector<int> la = Range(0, ra), lb = Range(ra, ra + rb - 1);
  lb.push_back(ra - 1);
  std::vector<int> out_labels = Range(0, ra - 1);
  out_labels.insert(out_labels.end(), lb.begin(), lb.end() - 1);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Contract({self, other}, {la, lb}, out_labels, self.dtype()));
  return call.SetTensor(std::move(out));
}

// aten::linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor:
// sum(x * y, dim) over the broadcast of x and y.
absl::Status LinalgVecdot(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, call.Input("x"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor y, call.Input("y"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_RETURN_IF_ERROR(SameDtype(call, x, y));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(x.dims(), y.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, static_cast<int64_t>(dims.size())));
  if (dims.empty()) return call.Invalid("linalg.vecdot: the operands must have at least 1 dim");
  if (x.rank() + dim - static_cast<int64_t>(dims.size()) < 0 || y.rank() + dim - static_cast<int64_t>(dims.size()) < 0 ||
      x.dims()[x.rank() - dims.size() + dim] != y.dims()[y.rank() - dims.size() + dim]) {
    return call.Invalid("linalg.vecdot: x and y must have the same size along dim");
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor bx, BroadcastTo(x, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor by, BroadcastTo(y, dims));
  const int r = static_cast<int>(dims.size());
  std::vector<int> out_labels = Range(0, r);
  out_labels.erase(out_labels.begin() + dim);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Contract({bx, by}, {Range(0, r), Range(0, r)}, out_labels, x.dtype()));
  return call.SetTensor(std::move(out));
}

// aten::tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor
// The free dims of self, then those of other.
absl::Status Tensordot(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> ds, call.Ints("dims_self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dt, call.Ints("dims_other"));
  PT2ONNX_RETURN_IF_ERROR(SameDtype(call, self, other));
  if (ds.size() != dt.size()) return call.Invalid("both dimension lists should have the same length");
  const int ra = static_cast<int>(self.rank()), rb = static_cast<int>(other.rank());
  std::vector<int> la = Range(0, ra), lb = Range(ra, ra + rb);
  std::vector<bool> contracted_a(ra, false), contracted_b(rb, false);
  for (size_t k = 0; k < ds.size(); ++k) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t a, WrapDim(ds[k], ra));
    PT2ONNX_ASSIGN_OR_RETURN(int64_t b, WrapDim(dt[k], rb));
    if (ra == 0 || rb == 0 || contracted_a[a] || contracted_b[b]) return call.Invalid("tensordot: repeated or invalid dim");
    contracted_a[a] = contracted_b[b] = true;
    if (self.dims()[a] == other.dims()[b]) {
      lb[b] = la[a];
    } else if (self.dims()[a] != 1 && other.dims()[b] != 1) {
      return call.Invalid("contracted dimensions need to match");
    }
    // else: one side is 1 and torch sums the other over it alone
    // (aten/src/ATen/native/Linear.cpp, tensordot): own labels, both summed.
  }
  std::vector<int> out_labels;
  for (int d = 0; d < ra; ++d) {
    if (!contracted_a[d]) out_labels.push_back(la[d]);
  }
  for (int d = 0; d < rb; ++d) {
    if (!contracted_b[d]) out_labels.push_back(lb[d]);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Contract({self, other}, {la, lb}, out_labels, self.dtype()));
  return call.SetTensor(std::move(out));
}

// aten::bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor
// y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]
absl::Status Bilinear(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x1, call.Input("input1"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x2, call.Input("input2"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor w, call.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> bias, call.OptionalInput("bias"));
  PT2ONNX_RETURN_IF_ERROR(SameDtype(call, x1, w));
  PT2ONNX_RETURN_IF_ERROR(SameDtype(call, x2, w));
  if (x1.rank() < 1 || x1.rank() != x2.rank() || w.rank() != 3 ||
      !std::equal(x1.dims().begin(), x1.dims().end() - 1, x2.dims().begin()) ||
      x1.dims().back() != w.dims()[1] || x2.dims().back() != w.dims()[2]) {
    return call.Invalid("bilinear: input1 [..., in1], input2 [..., in2] and weight [out, in1, in2] do not match");
  }
  const int lead = static_cast<int>(x1.rank()) - 1;
  std::vector<int> l1 = Range(0, lead), l2 = Range(0, lead), out_labels = Range(0, lead);
  l1.push_back(lead);
  l2.push_back(lead + 1);
  out_labels.push_back(lead + 2);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Contract({x1, w, x2}, {l1, {lead + 2, lead, lead + 1}, l2}, out_labels, w.dtype()));
  if (bias.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(out, BinaryMap(out, *bias, out.dtype(), out.dtype(), [](double a, double b) { return a + b; },
                                            [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return a + b; }));
  }
  return call.SetTensor(std::move(out));
}

// aten::chain_matmul(Tensor[] matrices) -> Tensor: left to right
absl::Status ChainMatmul(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> ms, call.Inputs("matrices"));
  if (ms.empty()) return call.Invalid("chain_matmul(): Expected one or more matrices");
  for (const Tensor& m : ms) {
    if (m.rank() != 2) return call.Invalid("chain_matmul(): Expected 2-D matrices");
    PT2ONNX_RETURN_IF_ERROR(SameDtype(call, ms[0], m));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor acc, CopyTensor(ms[0]));
  for (size_t k = 1; k < ms.size(); ++k) {
    PT2ONNX_ASSIGN_OR_RETURN(acc, MatrixProduct(call, acc, ms[k], acc.dtype()));
  }
  return call.SetTensor(std::move(acc));
}

}  // namespace

void RegisterProductsRef(RefRegistry& r) {
  r.Add("aten::mv.default", Mv);
  r.Add("aten::addmv.default", Addmv);
  r.Add("aten::outer.default", Outer);
  r.Add("aten::addr.default", Addr);
  r.Add("aten::addbmm.default", Addbmm);
  r.Add("aten::mm.dtype", MmDtype);
  r.Add("aten::bmm.dtype", MmDtype);
  r.Add("aten::addmm.dtype", AddmmDtype);
  r.Add("aten::vdot.default", Vdot);
  r.Add("aten::inner.default", Inner);
  r.Add("aten::linalg_vecdot.default", LinalgVecdot);
  r.Add("aten::tensordot.default", Tensordot);
  r.Add("aten::bilinear.default", Bilinear);
  r.Add("aten::chain_matmul.default", ChainMatmul);
}

}  // namespace pt2onnx::reference
