// Reference kernels: tensor factories (arange, full, zeros/ones, *_like,
// new_*, empty*, scalar_tensor, linspace, eye), fill/zero and tril/triu.
// Default dtypes follow torch: floats -> float32, ints -> int64, bools ->
// bool for inferred fills; *_like and new_* take self's dtype. empty*
// values are unspecified in torch; they are zeros here.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

absl::StatusOr<Tensor> Filled(DataType dtype, const std::vector<int64_t>& size, const RefScalar& value) {
  for (int64_t s : size) {
    if (s < 0) return absl::InvalidArgumentError("negative dimension in a factory size");
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(dtype, Dims(size.begin(), size.end())));
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (value.is_float()) StoreDouble(t, i, value.f); else StoreInt(t, i, value.i);
  }
  return t;
}

DataType InferredDtype(const RefScalar& v) {
  if (v.is_float()) return DataType::kFloat;
  return v.kind == DataType::kBool ? DataType::kBool : DataType::kInt64;
}

absl::Status ArangeImpl(RefCall& call, bool has_start, bool has_step) {
  RefScalar start{DataType::kInt64, 0, 0}, step{DataType::kInt64, 1, 1};
  if (has_start) {
    PT2ONNX_ASSIGN_OR_RETURN(start, call.Scalar("start"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar end, call.Scalar("end"));
  if (has_step) {
    PT2ONNX_ASSIGN_OR_RETURN(step, call.Scalar("step"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  const bool any_float = start.is_float() || end.is_float() || step.is_float();
  const DataType out = dtype.value_or(any_float ? DataType::kFloat : DataType::kInt64);
  const double s = start.AsDouble(), e = end.AsDouble(), st = step.AsDouble();
  if (st == 0) return call.Invalid("step must be nonzero");
  if ((st > 0 && e < s) || (st < 0 && e > s)) return call.Invalid("upper bound and larger bound inconsistent with step sign");
  const double count = std::ceil((e - s) / st);
  if (!(count >= 0) || count > static_cast<double>(int64_t{1} << 40)) return call.Invalid("arange size is out of range");
  const int64_t n = static_cast<int64_t>(count);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(out, {n}));
  for (int64_t i = 0; i < n; ++i) {
    if (!any_float && !IsFloatingPoint(out)) StoreInt(t, i, start.i + i * step.i);
    else StoreDouble(t, i, s + static_cast<double>(i) * st);
  }
  return call.SetTensor(std::move(t));
}
// aten::arange(Scalar end, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status Arange(RefCall& c) { return ArangeImpl(c, false, false); }
// aten::arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status ArangeStart(RefCall& c) { return ArangeImpl(c, true, false); }
// aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status ArangeStartStep(RefCall& c) { return ArangeImpl(c, true, true); }

// aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status Full(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("size"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar value, call.Scalar("fill_value"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, Filled(dtype.value_or(InferredDtype(value)), size, value));
  return call.SetTensor(std::move(t));
}

// zeros/ones/empty(SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status Constant(RefCall& call, double v) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, Filled(dtype.value_or(DataType::kFloat), size,
                                            RefScalar{DataType::kFloat, v, static_cast<int64_t>(v)}));
  return call.SetTensor(std::move(t));
}
absl::Status Zeros(RefCall& c) { return Constant(c, 0); }
absl::Status Ones(RefCall& c) { return Constant(c, 1); }

// *_like(Tensor self, [Scalar fill_value,] *, ScalarType? dtype=None, ...) -> Tensor
absl::Status Like(RefCall& call, std::optional<double> v) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  RefScalar value{DataType::kFloat, v.value_or(0), static_cast<int64_t>(v.value_or(0))};
  if (!v) {
    PT2ONNX_ASSIGN_OR_RETURN(value, call.Scalar("fill_value"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, Filled(dtype.value_or(self.dtype()), self.dims(), value));
  return call.SetTensor(std::move(t));
}
absl::Status ZerosLike(RefCall& c) { return Like(c, 0.0); }
absl::Status OnesLike(RefCall& c) { return Like(c, 1.0); }
absl::Status FullLike(RefCall& c) { return Like(c, std::nullopt); }

// new_*(Tensor self, SymInt[] size, [Scalar fill_value,] *, ScalarType? dtype=None, ...) -> Tensor
absl::Status New(RefCall& call, std::optional<double> v) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, call.Ints("size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  RefScalar value{DataType::kFloat, v.value_or(0), static_cast<int64_t>(v.value_or(0))};
  if (!v) {
    PT2ONNX_ASSIGN_OR_RETURN(value, call.Scalar("fill_value"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, Filled(dtype.value_or(self.dtype()), size, value));
  return call.SetTensor(std::move(t));
}
absl::Status NewZeros(RefCall& c) { return New(c, 0.0); }
absl::Status NewOnes(RefCall& c) { return New(c, 1.0); }
absl::Status NewFull(RefCall& c) { return New(c, std::nullopt); }

// aten::scalar_tensor(Scalar s, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status ScalarTensorOp(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar s, call.Scalar("s"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, Filled(dtype.value_or(DataType::kFloat), {}, s));
  return call.SetTensor(std::move(t));
}

// aten::linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, ...) -> Tensor
absl::Status Linspace(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor start_t, TensorOrScalar(call, "start"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor end_t, TensorOrScalar(call, "end"));
  if (start_t.rank() != 0 || end_t.rank() != 0) return call.Invalid("start and end must be 0-dimensional");
  double start = LoadDouble(start_t, 0);
  double end = LoadDouble(end_t, 0);
  PT2ONNX_ASSIGN_OR_RETURN(int64_t steps, call.Int("steps"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  if (steps < 0 || steps > (int64_t{1} << 32)) return call.Invalid("number of steps must be non-negative");
  const DataType out = dtype.value_or(DataType::kFloat);
  if (!IsFloatingPoint(out)) {
    // Integer results take integer bounds (torch converts them first).
    start = std::trunc(start);
    end = std::trunc(end);
  }
  std::vector<double> v(steps);
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0;
  // torch fills the second half from the end, so the last value is exact.
  const int64_t half = steps / 2;
  for (int64_t i = 0; i < steps; ++i) v[i] = i < half ? start + step * i : end - step * (steps - 1 - i);
  if (steps == 1) v[0] = start;  // one step is `start`, not `end`
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(out, {steps}, v));
  return call.SetTensor(std::move(t));
}

// aten::eye(SymInt n, *, ScalarType? dtype=None, ...) -> Tensor; eye.m(SymInt n, SymInt m, ...)
absl::Status Eye(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, call.Int("n"));
  int64_t m = n;
  if (call.Has("m")) {
    PT2ONNX_ASSIGN_OR_RETURN(m, call.Int("m"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> dtype, call.Dtype("dtype"));
  if (n < 0 || m < 0) return call.Invalid("n and m must be non-negative");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(dtype.value_or(DataType::kFloat), {n, m}));
  for (int64_t i = 0; i < std::min(n, m); ++i) StoreInt(t, i * m + i, 1);
  return call.SetTensor(std::move(t));
}

// aten::fill.Scalar(Tensor self, Scalar value) -> Tensor (and fill.Tensor, fill_, zero, zero_)
absl::Status FillImpl(RefCall& call, bool in_place, std::optional<double> fixed) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  RefScalar value{DataType::kInt64, 0, 0};
  if (!fixed) {
    PT2ONNX_ASSIGN_OR_RETURN(value, call.Scalar("value"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Filled(self.dtype(), self.dims(), value));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status Fill(RefCall& c) { return FillImpl(c, false, std::nullopt); }
absl::Status FillInPlace(RefCall& c) { return FillImpl(c, true, std::nullopt); }
absl::Status Zero(RefCall& c) { return FillImpl(c, false, 0.0); }
absl::Status ZeroInPlace(RefCall& c) { return FillImpl(c, true, 0.0); }

// aten::tril(Tensor self, int diagonal=0) -> Tensor; triu keeps the other side.
absl::Status Triangle(RefCall& call, bool lower, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t diagonal, call.Int("diagonal"));
  if (self.rank() < 2) return call.Invalid("tril/triu: input tensor must have at least 2 dimensions");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, CopyTensor(self));
  const int64_t rows = self.dims()[self.rank() - 2], cols = self.dims()[self.rank() - 1];
  const size_t es = ElementSize(self.dtype());
  for (int64_t i = 0; i < out.numel(); ++i) {
    const int64_t c = i % cols, r = (i / cols) % rows;
    const bool keep = lower ? c - r <= diagonal : c - r >= diagonal;
    if (!keep) std::memset(out.raw() + i * es, 0, es);
  }
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status Tril(RefCall& c) { return Triangle(c, true, false); }
absl::Status TrilInPlace(RefCall& c) { return Triangle(c, true, true); }
absl::Status Triu(RefCall& c) { return Triangle(c, false, false); }
absl::Status TriuInPlace(RefCall& c) { return Triangle(c, false, true); }

// aten::one_hot(Tensor self, int num_classes=-1) -> Tensor: int64, a new
// last dim; -1 takes max(self) + 1 classes.
absl::Status OneHot(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t classes, call.Int("num_classes"));
  if (self.dtype() != DataType::kInt64) return call.Invalid("one_hot is only applicable to index tensor of type LongTensor");
  const std::vector<int64_t> v = ToInts(self);
  if (classes == -1) {
    if (v.empty()) return call.Invalid("Can not infer total number of classes from empty tensor");
    classes = *std::max_element(v.begin(), v.end()) + 1;
  }
  if (classes < 0) return call.Invalid("num_classes should be positive");
  for (int64_t x : v) {
    if (x < 0) return call.Invalid("Class values must be non-negative");
    if (x >= classes) return call.Invalid("Class values must be smaller than num_classes");
  }
  Dims dims = self.dims();
  dims.push_back(classes);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(DataType::kInt64, dims));
  for (size_t i = 0; i < v.size(); ++i) StoreInt(out, static_cast<int64_t>(i) * classes + v[i], 1);
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterCreationRef(RefRegistry& r) {
  r.Add("aten::arange.default", Arange);
  r.Add("aten::arange.start", ArangeStart);
  r.Add("aten::arange.start_step", ArangeStartStep);
  r.Add("aten::full.default", Full);
  r.Add("aten::zeros.default", Zeros);
  r.Add("aten::ones.default", Ones);
  r.Add("aten::empty.memory_format", Zeros);
  r.Add("aten::empty_strided.default", Zeros);
  r.Add("aten::empty_permuted.default", Zeros);  // physical_layout orders memory only  // contents undefined; layout is row-major here
  r.Add("aten::new_empty_strided.default", NewZeros);
  r.Add("aten::one_hot.default", OneHot);
  r.Add("aten::zeros_like.default", ZerosLike);
  r.Add("aten::ones_like.default", OnesLike);
  r.Add("aten::empty_like.default", ZerosLike);
  r.Add("aten::full_like.default", FullLike);
  r.Add("aten::new_zeros.default", NewZeros);
  r.Add("aten::new_ones.default", NewOnes);
  r.Add("aten::new_empty.default", NewZeros);
  r.Add("aten::new_full.default", NewFull);
  r.Add("aten::scalar_tensor.default", ScalarTensorOp);
  r.Add("aten::linspace.default", Linspace);
  r.Add("aten::linspace.Tensor_Tensor", Linspace);
  r.Add("aten::linspace.Tensor_Scalar", Linspace);
  r.Add("aten::linspace.Scalar_Tensor", Linspace);
  r.Add("aten::eye.default", Eye);
  r.Add("aten::eye.m", Eye);
  r.Add("aten::fill.Scalar", Fill);
  r.Add("aten::fill.Tensor", Fill);
  r.Add("aten::fill_.Scalar", FillInPlace);
  r.Add("aten::fill_.Tensor", FillInPlace);
  r.Add("aten::zero.default", Zero);
  r.Add("aten::zero_.default", ZeroInPlace);
  r.Add("aten::tril.default", Tril);
  r.Add("aten::tril_.default", TrilInPlace);
  r.Add("aten::triu.default", Triu);
  r.Add("aten::triu_.default", TriuInPlace);
}

}  // namespace pt2onnx::reference
