// Reference kernels: comparisons, logical and bitwise ops, where,
// masked_fill, clamp and isnan/isinf. Comparisons happen in the promoted
// dtype of both operands, as torch's comparison kernels do.
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

template <typename Cmp>
absl::Status Compare(RefCall& call, bool in_place, Cmp cmp) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, "other"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType compute, call.ResultType({"self", "other"}));
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, BinaryMap(self, other, compute, DataType::kBool,
                            [cmp](double a, double b) { return cmp(a, b) ? 1.0 : 0.0; },
                            [cmp](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return cmp(a, b) ? 1 : 0; }));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}

struct Eq { template <typename T> bool operator()(T a, T b) const { return a == b; } };
struct Ne { template <typename T> bool operator()(T a, T b) const { return a != b; } };
struct Lt { template <typename T> bool operator()(T a, T b) const { return a < b; } };
struct Le { template <typename T> bool operator()(T a, T b) const { return a <= b; } };
struct Gt { template <typename T> bool operator()(T a, T b) const { return a > b; } };
struct Ge { template <typename T> bool operator()(T a, T b) const { return a >= b; } };

// aten::eq.Tensor(Tensor self, Tensor other) -> Tensor (and .Scalar, ne/lt/le/gt/ge alike)
absl::Status EqOp(RefCall& call) { return Compare(call, false, Eq()); }
absl::Status NeOp(RefCall& call) { return Compare(call, false, Ne()); }
absl::Status LtOp(RefCall& call) { return Compare(call, false, Lt()); }
absl::Status LeOp(RefCall& call) { return Compare(call, false, Le()); }
absl::Status GtOp(RefCall& call) { return Compare(call, false, Gt()); }
absl::Status GeOp(RefCall& call) { return Compare(call, false, Ge()); }
// aten::eq_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!): the result
// in self's dtype (1 / 0), and .Scalar, ne_/lt_/le_/gt_/ge_ alike
absl::Status EqInPlace(RefCall& call) { return Compare(call, true, Eq()); }
absl::Status NeInPlace(RefCall& call) { return Compare(call, true, Ne()); }
absl::Status LtInPlace(RefCall& call) { return Compare(call, true, Lt()); }
absl::Status LeInPlace(RefCall& call) { return Compare(call, true, Le()); }
absl::Status GtInPlace(RefCall& call) { return Compare(call, true, Gt()); }
absl::Status GeInPlace(RefCall& call) { return Compare(call, true, Ge()); }

// Logical ops: any dtype, nonzero is true, bool result.
template <typename F>
absl::Status Logical(RefCall& call, bool in_place, F f) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, call.Input("other"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, CastTensor(self, DataType::kBool));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, CastTensor(other, DataType::kBool));
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, BinaryMap(a, b, DataType::kBool, DataType::kBool, [](double, double) { return 0.0; },
                            [f](int64_t x, int64_t y) -> absl::StatusOr<int64_t> { return f(x != 0, y != 0); }));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
// aten::logical_and(Tensor self, Tensor other) -> Tensor
absl::Status LogicalAnd(RefCall& call) { return Logical(call, false, [](bool a, bool b) { return a && b; }); }
absl::Status LogicalAndInPlace(RefCall& call) { return Logical(call, true, [](bool a, bool b) { return a && b; }); }
absl::Status LogicalOr(RefCall& call) { return Logical(call, false, [](bool a, bool b) { return a || b; }); }
absl::Status LogicalOrInPlace(RefCall& call) { return Logical(call, true, [](bool a, bool b) { return a || b; }); }
absl::Status LogicalXor(RefCall& call) { return Logical(call, false, [](bool a, bool b) { return a != b; }); }
absl::Status LogicalXorInPlace(RefCall& call) { return Logical(call, true, [](bool a, bool b) { return a != b; }); }

// aten::logical_not(Tensor self) -> Tensor
absl::Status LogicalNotImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  std::vector<int64_t> v = ToInts(self);
  if (IsFloatLike(self.dtype())) {
    std::vector<double> d = ToDoubles(self);
    for (size_t i = 0; i < d.size(); ++i) v[i] = d[i] == 0;
  } else {
    for (int64_t& e : v) e = e == 0;
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromInts(DataType::kBool, self.dims(), v));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status LogicalNot(RefCall& call) { return LogicalNotImpl(call, false); }
absl::Status LogicalNotInPlace(RefCall& call) { return LogicalNotImpl(call, true); }

// Bitwise ops on integers and bools (floats are an error in torch).
template <typename F>
absl::Status Bitwise(RefCall& call, bool in_place, F f) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, "other"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "other"}));
  if (IsFloatLike(dtype)) return call.Invalid("bitwise ops are not defined for floating point tensors");
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, BinaryMap(self, other, dtype, dtype, [](double, double) { return 0.0; },
                            [f](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return f(a, b); }));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
// aten::bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor (and __and__.Tensor)
absl::Status BitAnd(RefCall& call) { return Bitwise(call, false, [](int64_t a, int64_t b) { return a & b; }); }
absl::Status BitAndInPlace(RefCall& call) { return Bitwise(call, true, [](int64_t a, int64_t b) { return a & b; }); }
absl::Status BitOr(RefCall& call) { return Bitwise(call, false, [](int64_t a, int64_t b) { return a | b; }); }
absl::Status BitOrInPlace(RefCall& call) { return Bitwise(call, true, [](int64_t a, int64_t b) { return a | b; }); }
absl::Status BitXor(RefCall& call) { return Bitwise(call, false, [](int64_t a, int64_t b) { return a ^ b; }); }
absl::Status BitXorInPlace(RefCall& call) { return Bitwise(call, true, [](int64_t a, int64_t b) { return a ^ b; }); }

// aten::bitwise_not(Tensor self) -> Tensor
absl::Status BitNotImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (IsFloatLike(self.dtype())) return call.Invalid("bitwise_not is not defined for floating point tensors");
  std::vector<int64_t> v = ToInts(self);
  for (int64_t& e : v) e = self.dtype() == DataType::kBool ? !e : ~e;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromInts(self.dtype(), self.dims(), v));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status BitNot(RefCall& call) { return BitNotImpl(call, false); }
absl::Status BitNotInPlace(RefCall& call) { return BitNotImpl(call, true); }

// aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
// (.ScalarSelf / .ScalarOther / .Scalar take Scalars for self / other)
absl::Status Where(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor cond, call.Input("condition"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, "other"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "other"}));
  PT2ONNX_ASSIGN_OR_RETURN(Dims d1, BroadcastDims(cond.dims(), self.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(d1, other.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor c, BroadcastTo(cond, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, BroadcastTo(self, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, BroadcastTo(other, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor ca, CastTensor(a, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor cb, CastTensor(b, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(dtype, dims));
  const size_t es = ElementSize(dtype);
  for (int64_t i = 0; i < out.numel(); ++i) {
    const Tensor& src = LoadInt(c, i) != 0 ? ca : cb;
    std::memcpy(out.raw() + i * es, src.raw() + i * es, es);
  }
  return call.SetTensor(std::move(out));
}

// aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor
// aten::masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor
absl::Status MaskedFillImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor mask, call.Input("mask"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor value, TensorOrScalar(call, "value"));
  if (value.numel() != 1) return call.Invalid("masked_fill's value must be a single value");
  PT2ONNX_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(self.dims(), mask.dims()));
  if (in_place && dims != self.dims()) return call.Invalid("the mask does not broadcast to self");
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BroadcastTo(self, dims));
  if (!in_place || out.raw() == self.raw()) {
    PT2ONNX_ASSIGN_OR_RETURN(out, CopyTensor(out));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor m, BroadcastTo(mask, dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor v, CastTensor(value, self.dtype()));
  const size_t es = ElementSize(self.dtype());
  for (int64_t i = 0; i < out.numel(); ++i) {
    if (LoadInt(m, i) != 0) std::memcpy(out.raw() + i * es, v.raw(), es);
  }
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status MaskedFill(RefCall& call) { return MaskedFillImpl(call, false); }
absl::Status MaskedFillInPlace(RefCall& call) { return MaskedFillImpl(call, true); }

// aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor
// aten::clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor
absl::Status ClampImpl(RefCall& call, const char* lo_name, const char* hi_name, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  std::vector<absl::string_view> operands = {"self"};
  const bool has_lo = lo_name != nullptr && call.Has(lo_name);
  const bool has_hi = hi_name != nullptr && call.Has(hi_name);
  if (!has_lo && !has_hi) return call.Invalid("at least one of 'min' and 'max' must be given");
  if (has_lo) operands.push_back(lo_name);
  if (has_hi) operands.push_back(hi_name);
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType(operands));
  Tensor out = self;
  auto apply = [&](const char* name, bool is_min) -> absl::Status {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor bound, TensorOrScalar(call, name));
    PT2ONNX_ASSIGN_OR_RETURN(
        out, BinaryMap(out, bound, dtype, dtype,
                       [is_min](double x, double b) -> double {
                         if (std::isnan(x) || std::isnan(b)) return NAN;
                         return is_min ? std::max(x, b) : std::min(x, b);
                       },
                       [is_min](int64_t x, int64_t b) -> absl::StatusOr<int64_t> {
                         return is_min ? std::max(x, b) : std::min(x, b);
                       }));
    return absl::OkStatus();
  };
  if (has_lo) PT2ONNX_RETURN_IF_ERROR(apply(lo_name, true));
  if (has_hi) PT2ONNX_RETURN_IF_ERROR(apply(hi_name, false));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status Clamp(RefCall& call) { return ClampImpl(call, "min", "max", false); }
absl::Status ClampInPlace(RefCall& call) { return ClampImpl(call, "min", "max", true); }
// aten::clamp_min(Tensor self, Scalar min) -> Tensor
absl::Status ClampMin(RefCall& call) { return ClampImpl(call, "min", nullptr, false); }
absl::Status ClampMinInPlace(RefCall& call) { return ClampImpl(call, "min", nullptr, true); }
// aten::clamp_max(Tensor self, Scalar max) -> Tensor
absl::Status ClampMax(RefCall& call) { return ClampImpl(call, nullptr, "max", false); }
absl::Status ClampMaxInPlace(RefCall& call) { return ClampImpl(call, nullptr, "max", true); }

// aten::isnan(Tensor self) -> Tensor
absl::Status IsNan(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, UnaryMapDouble(self, DataType::kBool, [](double x) { return std::isnan(x) ? 1.0 : 0.0; }));
  return call.SetTensor(std::move(out));
}
// aten::isinf(Tensor self) -> Tensor
absl::Status IsInf(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, UnaryMapDouble(self, DataType::kBool, [](double x) { return std::isinf(x) ? 1.0 : 0.0; }));
  return call.SetTensor(std::move(out));
}

// aten::isin.Tensor_Tensor(Tensor elements, Tensor test_elements, *, bool assume_unique=False, bool invert=False) -> Tensor
absl::Status IsinTensorTensor(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor elements, call.Input("elements"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor test, call.Input("test_elements"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType compute, call.ResultType({"elements", "test_elements"}));
  bool invert = false;
  if (call.Has("invert")) {
    PT2ONNX_ASSIGN_OR_RETURN(invert, call.Bool("invert"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor e, CastTensor(elements, compute));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, CastTensor(test, compute));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(DataType::kBool, elements.dims()));
  const bool fl = IsFloatLike(compute);
  const std::vector<double> ed = fl ? ToDoubles(e) : std::vector<double>(), td = fl ? ToDoubles(t) : std::vector<double>();
  const std::vector<int64_t> ei = fl ? std::vector<int64_t>() : ToInts(e), ti = fl ? std::vector<int64_t>() : ToInts(t);
  for (int64_t i = 0; i < e.numel(); ++i) {
    bool hit = false;
    for (int64_t j = 0; j < t.numel() && !hit; ++j) hit = fl ? ed[i] == td[j] : ei[i] == ti[j];
    StoreInt(out, i, hit != invert ? 1 : 0);
  }
  return call.SetTensor(std::move(out));
}

}  // namespace

void RegisterComparisonRef(RefRegistry& r) {
  r.Add("aten::isin.Tensor_Tensor", IsinTensorTensor);
  r.Add("aten::eq.Tensor", EqOp);
  r.Add("aten::eq.Scalar", EqOp);
  r.Add("aten::ne.Tensor", NeOp);
  r.Add("aten::ne.Scalar", NeOp);
  r.Add("aten::lt.Tensor", LtOp);
  r.Add("aten::lt.Scalar", LtOp);
  r.Add("aten::le.Tensor", LeOp);
  r.Add("aten::le.Scalar", LeOp);
  r.Add("aten::gt.Tensor", GtOp);
  r.Add("aten::gt.Scalar", GtOp);
  r.Add("aten::ge.Tensor", GeOp);
  r.Add("aten::ge.Scalar", GeOp);
  r.Add("aten::eq_.Tensor", EqInPlace);
  r.Add("aten::eq_.Scalar", EqInPlace);
  r.Add("aten::ne_.Tensor", NeInPlace);
  r.Add("aten::ne_.Scalar", NeInPlace);
  r.Add("aten::lt_.Tensor", LtInPlace);
  r.Add("aten::lt_.Scalar", LtInPlace);
  r.Add("aten::le_.Tensor", LeInPlace);
  r.Add("aten::le_.Scalar", LeInPlace);
  r.Add("aten::gt_.Tensor", GtInPlace);
  r.Add("aten::gt_.Scalar", GtInPlace);
  r.Add("aten::ge_.Tensor", GeInPlace);
  r.Add("aten::ge_.Scalar", GeInPlace);
  r.Add("aten::logical_and.default", LogicalAnd);
  r.Add("aten::logical_and_.default", LogicalAndInPlace);
  r.Add("aten::logical_or.default", LogicalOr);
  r.Add("aten::logical_or_.default", LogicalOrInPlace);
  r.Add("aten::logical_xor.default", LogicalXor);
  r.Add("aten::logical_xor_.default", LogicalXorInPlace);
  r.Add("aten::logical_not.default", LogicalNot);
  r.Add("aten::logical_not_.default", LogicalNotInPlace);
  r.Add("aten::bitwise_and.Tensor", BitAnd);
  r.Add("aten::bitwise_and.Scalar", BitAnd);
  r.Add("aten::bitwise_and.Scalar_Tensor", BitAnd);
  r.Add("aten::bitwise_or.Scalar_Tensor", BitOr);
  r.Add("aten::bitwise_xor.Scalar_Tensor", BitXor);
  r.Add("aten::bitwise_and_.Tensor", BitAndInPlace);
  r.Add("aten::bitwise_and_.Scalar", BitAndInPlace);
  r.Add("aten::__and__.Tensor", BitAnd);
  r.Add("aten::__and__.Scalar", BitAnd);
  r.Add("aten::bitwise_or.Tensor", BitOr);
  r.Add("aten::bitwise_or.Scalar", BitOr);
  r.Add("aten::bitwise_or_.Tensor", BitOrInPlace);
  r.Add("aten::bitwise_or_.Scalar", BitOrInPlace);
  r.Add("aten::__or__.Tensor", BitOr);
  r.Add("aten::__or__.Scalar", BitOr);
  r.Add("aten::bitwise_xor.Tensor", BitXor);
  r.Add("aten::bitwise_xor.Scalar", BitXor);
  r.Add("aten::bitwise_xor_.Tensor", BitXorInPlace);
  r.Add("aten::bitwise_xor_.Scalar", BitXorInPlace);
  r.Add("aten::__xor__.Tensor", BitXor);
  r.Add("aten::__xor__.Scalar", BitXor);
  r.Add("aten::bitwise_not.default", BitNot);
  r.Add("aten::bitwise_not_.default", BitNotInPlace);
  r.Add("aten::where.self", Where);
  r.Add("aten::where.ScalarSelf", Where);
  r.Add("aten::where.ScalarOther", Where);
  r.Add("aten::where.Scalar", Where);
  r.Add("aten::masked_fill.Scalar", MaskedFill);
  r.Add("aten::masked_fill.Tensor", MaskedFill);
  r.Add("aten::masked_fill_.Scalar", MaskedFillInPlace);
  r.Add("aten::masked_fill_.Tensor", MaskedFillInPlace);
  r.Add("aten::clamp.default", Clamp);
  r.Add("aten::clamp.Tensor", Clamp);
  r.Add("aten::clamp_.default", ClampInPlace);
  r.Add("aten::clamp_.Tensor", ClampInPlace);
  r.Add("aten::clamp_min.default", ClampMin);
  r.Add("aten::clamp_min.Tensor", ClampMin);
  r.Add("aten::clamp_min_.default", ClampMinInPlace);
  r.Add("aten::clamp_min_.Tensor", ClampMinInPlace);
  r.Add("aten::clamp_max.default", ClampMax);
  r.Add("aten::clamp_max.Tensor", ClampMax);
  r.Add("aten::clamp_max_.default", ClampMaxInPlace);
  r.Add("aten::clamp_max_.Tensor", ClampMaxInPlace);
  r.Add("aten::isnan.default", IsNan);
  r.Add("aten::isinf.default", IsInf);
}

}  // namespace pt2onnx::reference
