// Reference kernels: symbolic scalars (sym_size, Python operators on
// SymInt/SymFloat/SymBool with Python's int/float rules) and assertions
// (which check what they state, then produce nothing or an empty token).
#include <cmath>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

RefValue FromScalar(const RefScalar& s) {
  if (s.kind == DataType::kFloat) return RefValue::OfFloat(s.f);
  if (s.kind == DataType::kBool) return RefValue::OfBool(s.i != 0);
  return RefValue::OfInt(s.i);
}

// Python arithmetic: ints stay ints unless an operand is a float.
absl::Status PyBinary(RefCall& call, int64_t (*fi)(int64_t, int64_t), double (*fd)(double, double),
                      bool int_allowed = true) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar a, call.ScalarAt(0));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar b, call.ScalarAt(1));
  if (int_allowed && !a.is_float() && !b.is_float()) {
    if (fi == nullptr) return call.Invalid("integer operands are not supported");
    return call.Set(RefValue::OfInt(fi(a.i, b.i)));
  }
  return call.Set(RefValue::OfFloat(fd(a.AsDouble(), b.AsDouble())));
}

int64_t PyFloorDiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t PyMod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t m = a % b;
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  return m;
}

// _operator.add(a, b) and the other Python operators, by position.
absl::Status OpAdd(RefCall& c) { return PyBinary(c, [](int64_t a, int64_t b) { return a + b; }, [](double a, double b) { return a + b; }); }
absl::Status OpSub(RefCall& c) { return PyBinary(c, [](int64_t a, int64_t b) { return a - b; }, [](double a, double b) { return a - b; }); }
absl::Status OpMul(RefCall& c) { return PyBinary(c, [](int64_t a, int64_t b) { return a * b; }, [](double a, double b) { return a * b; }); }
absl::Status OpTruediv(RefCall& c) { return PyBinary(c, nullptr, [](double a, double b) { return a / b; }, false); }
absl::Status OpFloordiv(RefCall& c) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar b, c.ScalarAt(1));
  if (!b.is_float() && b.i == 0) return c.Invalid("integer division by zero");
  return PyBinary(c, PyFloorDiv, [](double a, double b) { return std::floor(a / b); });
}
absl::Status OpMod(RefCall& c) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar b, c.ScalarAt(1));
  if (!b.is_float() && b.i == 0) return c.Invalid("integer modulo by zero");
  return PyBinary(c, PyMod, [](double a, double b) {
    double m = std::fmod(a, b);
    return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m;
  });
}
absl::Status OpPow(RefCall& c) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar a, c.ScalarAt(0));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar b, c.ScalarAt(1));
  if (!a.is_float() && !b.is_float() && b.i >= 0) {
    int64_t r = 1;
    for (int64_t k = 0; k < b.i && k < 64; ++k) r *= a.i;
    return c.Set(RefValue::OfInt(r));
  }
  return c.Set(RefValue::OfFloat(std::pow(a.AsDouble(), b.AsDouble())));
}
absl::Status OpNeg(RefCall& c) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar a, c.ScalarAt(0));
  return c.Set(a.is_float() ? RefValue::OfFloat(-a.f) : RefValue::OfInt(-a.i));
}

template <typename Cmp>
absl::Status PyCompare(RefCall& c, Cmp cmp) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar a, c.ScalarAt(0));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar b, c.ScalarAt(1));
  if (!a.is_float() && !b.is_float()) return c.Set(RefValue::OfBool(cmp(a.i, b.i)));
  return c.Set(RefValue::OfBool(cmp(a.AsDouble(), b.AsDouble())));
}
absl::Status OpEq(RefCall& c) { return PyCompare(c, [](auto a, auto b) { return a == b; }); }
absl::Status OpNe(RefCall& c) { return PyCompare(c, [](auto a, auto b) { return a != b; }); }
absl::Status OpLt(RefCall& c) { return PyCompare(c, [](auto a, auto b) { return a < b; }); }
absl::Status OpLe(RefCall& c) { return PyCompare(c, [](auto a, auto b) { return a <= b; }); }
absl::Status OpGt(RefCall& c) { return PyCompare(c, [](auto a, auto b) { return a > b; }); }
absl::Status OpGe(RefCall& c) { return PyCompare(c, [](auto a, auto b) { return a >= b; }); }
absl::Status OpAnd(RefCall& c) { return PyCompare(c, [](auto a, auto b) { return a != 0 && b != 0; }); }
absl::Status OpOr(RefCall& c) { return PyCompare(c, [](auto a, auto b) { return a != 0 || b != 0; }); }

// math.trunc(x) -> int
absl::Status MathTrunc(RefCall& c) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar a, c.ScalarAt(0));
  return c.Set(RefValue::OfInt(a.is_float() ? static_cast<int64_t>(std::trunc(a.f)) : a.i));
}
// torch.sym_float(a) -> float
absl::Status SymFloat(RefCall& c) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar a, c.ScalarAt(0));
  return c.Set(RefValue::OfFloat(a.AsDouble()));
}
// torch.sym_not(a) -> bool
absl::Status SymNot(RefCall& c) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar a, c.ScalarAt(0));
  return c.Set(RefValue::OfBool(a.AsDouble() == 0));
}
// torch._sym_sqrt(a) -> float
absl::Status SymSqrt(RefCall& c) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar a, c.ScalarAt(0));
  return c.Set(RefValue::OfFloat(std::sqrt(a.AsDouble())));
}
// torch.sym_ite(cond, a, b)
absl::Status SymIte(RefCall& c) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar cond, c.ScalarAt(0));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar a, c.ScalarAt(1));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar b, c.ScalarAt(2));
  return c.Set(FromScalar(cond.AsDouble() != 0 ? a : b));
}
absl::Status SymMaxMin(RefCall& c, bool max) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar a, c.ScalarAt(0));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar b, c.ScalarAt(1));
  if (!a.is_float() && !b.is_float()) return c.Set(RefValue::OfInt(max ? std::max(a.i, b.i) : std::min(a.i, b.i)));
  const double x = a.AsDouble(), y = b.AsDouble();
  return c.Set(RefValue::OfFloat(max ? std::max(x, y) : std::min(x, y)));
}
// torch.sym_max(a, b) / torch.sym_min(a, b)
absl::Status SymMax(RefCall& c) { return SymMaxMin(c, true); }
absl::Status SymMin(RefCall& c) { return SymMaxMin(c, false); }

// aten::sym_size.int(Tensor self, int dim) -> SymInt
absl::Status SymSize(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, WrapDim(d, self.rank()));
  return call.Set(RefValue::OfInt(self.rank() == 0 ? 1 : self.dims()[dim]));
}
// aten::sym_numel(Tensor self) -> SymInt
absl::Status SymNumel(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  return call.Set(RefValue::OfInt(self.numel()));
}

// aten::sym_storage_offset(Tensor self) -> SymInt
// The interpreter keeps views as copies but records, per element, the base
// element shown (view_tracking.h): element 0's is the view's offset. Plain
// tensors, and empty views (which record none), start at 0.
absl::Status SymStorageOffset(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(RefValue self, call.ValueAt(0));
  if (self.kind != RefValue::Kind::kTensor) return call.Invalid("sym_storage_offset needs a tensor");
  const bool viewed = self.view_index != nullptr && !self.view_index->empty();
  return call.Set(RefValue::OfInt(viewed ? (*self.view_index)[0] : 0));
}

// aten::_assert_scalar(Scalar self, str assert_msg) -> (): the condition must hold.
absl::Status AssertScalar(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar v, call.ScalarAt(0));
  if (v.AsDouble() == 0) {
    std::string msg;
    if (call.num_inputs() > 1 && call.node().inputs[1].arg.kind == pt2::Argument::Kind::kString) {
      msg = call.node().inputs[1].arg.s;
    }
    return call.Invalid(absl::StrCat("assertion failed for these inputs: ", msg));
  }
  return absl::OkStatus();
}
// aten::_assert_tensor_metadata(...) -> (); _assert_async: checked by export.
absl::Status NoOutput(RefCall&) { return absl::OkStatus(); }
// aten::_make_dep_token(...) -> Tensor and the _functional_* assertions: an empty token.
absl::Status Token(RefCall& call) {
  const pt2::TensorMeta* meta = call.OutputMeta(0);
  DataType dtype = meta != nullptr && meta->dtype != DataType::kUndefined ? meta->dtype : DataType::kFloat;
  Dims dims = {0};
  if (meta != nullptr) {
    dims.clear();
    for (const pt2::SymInt& s : meta->sizes) dims.push_back(s.is_symbolic ? 0 : s.value);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, NewTensor(dtype, dims));
  return call.SetTensor(std::move(t));
}

// aten::_local_scalar_dense(Tensor self) -> Scalar; aten::item(Tensor self) -> Scalar
absl::Status Item(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  if (self.numel() != 1) return call.Invalid("a Tensor with more than one element cannot be converted to Scalar");
  if (IsFloatingPoint(self.dtype())) return call.Set(RefValue::OfFloat(LoadDouble(self, 0)));
  if (self.dtype() == DataType::kBool) return call.Set(RefValue::OfBool(LoadInt(self, 0) != 0));
  return call.Set(RefValue::OfInt(LoadInt(self, 0)));
}

}  // namespace

void RegisterSymbolicRef(RefRegistry& r) {
  r.Add("_operator::add", OpAdd);
  r.Add("_operator::sub", OpSub);
  r.Add("_operator::mul", OpMul);
  r.Add("_operator::pow", OpPow);
  r.Add("_operator::truediv", OpTruediv);
  r.Add("_operator::floordiv", OpFloordiv);
  r.Add("_operator::mod", OpMod);
  r.Add("_operator::neg", OpNeg);
  r.Add("_operator::and_", OpAnd);
  r.Add("_operator::or_", OpOr);
  r.Add("_operator::eq", OpEq);
  r.Add("_operator::ne", OpNe);
  r.Add("_operator::lt", OpLt);
  r.Add("_operator::le", OpLe);
  r.Add("_operator::gt", OpGt);
  r.Add("_operator::ge", OpGe);
  r.Add("math::trunc", MathTrunc);
  r.Add("torch::sym_float", SymFloat);
  r.Add("torch::sym_not", SymNot);
  r.Add("torch::_sym_sqrt", SymSqrt);
  r.Add("torch::sym_ite", SymIte);
  r.Add("torch::sym_max", SymMax);
  r.Add("torch::sym_min", SymMin);
  r.Add("aten::sym_size.int", SymSize);
  r.Add("aten::sym_numel.default", SymNumel);
  r.Add("aten::sym_storage_offset.default", SymStorageOffset);
  r.Add("aten::_assert_scalar.default", AssertScalar);
  r.Add("aten::_assert_tensor_metadata.default", NoOutput);
  r.Add("aten::_assert_async.default", NoOutput);
  r.Add("aten::_assert_async.msg", NoOutput);
  r.Add("aten::sym_constrain_range.default", NoOutput);
  r.Add("aten::sym_constrain_range_for_size.default", NoOutput);
  r.Add("aten::_functional_assert_async.msg", Token);
  r.Add("aten::_functional_assert_scalar.default", Token);
  r.Add("aten::_functional_sym_constrain_range.default", Token);
  r.Add("aten::_functional_sym_constrain_range_for_size.default", Token);
  r.Add("aten::_make_dep_token.default", Token);
  r.Add("aten::_local_scalar_dense.default", Item);
  r.Add("aten::item.default", Item);
}

}  // namespace pt2onnx::reference
