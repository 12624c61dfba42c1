// Reference kernels: add, sub, mul, div (all rounding modes), remainder,
// floor_divide, fmod, pow, rsub, maximum/minimum, atan2, and their in-place twins.
// Integer results use ATen's integer semantics (floor/trunc division, Python
// remainder, division by zero is an error as in torch's CPU kernels).
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

absl::Status ZeroDivision() { return absl::InvalidArgumentError("ZeroDivisionError: integer division by zero"); }

// Python-style floor division of floats as ATen's div_floor does: the
// quotient of (a - fmod(a, b)) / b, corrected so it is an exact integer.
double FloorDivide(double a, double b) {
  if (b == 0) return a / b;
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
  if (div == 0) return std::copysign(0.0, a / b);
  double floored = std::floor(div);
  if (div - floored > 0.5) floored += 1;
  return floored;
}

absl::StatusOr<int64_t> IntFloorDivide(int64_t a, int64_t b) {
  if (b == 0) return ZeroDivision();
  if (a == std::numeric_limits<int64_t>::min() && b == -1) return a;  // wraps, as in C++ two's complement
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

absl::StatusOr<int64_t> IntTruncDivide(int64_t a, int64_t b) {
  if (b == 0) return ZeroDivision();
  if (a == std::numeric_limits<int64_t>::min() && b == -1) return a;
  return a / b;
}

double PyRemainder(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}

absl::StatusOr<int64_t> IntRemainder(int64_t a, int64_t b) {
  if (b == 0) return ZeroDivision();
  if (b == -1) return 0;
  int64_t mod = a % b;
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}

int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// self (op) other with promotion; writes into self when in_place.
absl::Status Binary(RefCall& call, bool in_place, const DoubleBinary& fd, const IntBinary& fi,
                    bool true_division = false) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, "other"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "other"}));
  if (true_division) dtype = FloatResult(dtype);
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BinaryMap(self, other, dtype, dtype, fd, fi));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}

absl::Status AddLike(RefCall& call, bool in_place, double sign) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar alpha, call.Scalar("alpha"));
  const double fa = sign * alpha.AsDouble();
  const int64_t ia = sign < 0 ? -alpha.i : alpha.i;
  return Binary(call, in_place, [fa](double a, double b) { return a + fa * b; },
                [ia](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return WrapAdd(a, WrapMul(ia, b)); });
}

// aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
// aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
absl::Status Add(RefCall& call) { return AddLike(call, false, 1); }
// aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
absl::Status AddInPlace(RefCall& call) { return AddLike(call, true, 1); }
// aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
absl::Status Sub(RefCall& call) { return AddLike(call, false, -1); }
absl::Status SubInPlace(RefCall& call) { return AddLike(call, true, -1); }

// aten::rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor: other - alpha * self
absl::Status Rsub(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar alpha, call.Scalar("alpha"));
  const double fa = alpha.AsDouble();
  const int64_t ia = alpha.i;
  return Binary(call, false, [fa](double a, double b) { return b - fa * a; },
                [ia](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return WrapAdd(b, -WrapMul(ia, a)); });
}

absl::Status MulImpl(RefCall& call, bool in_place) {
  return Binary(call, in_place, [](double a, double b) { return a * b; },
                [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return WrapMul(a, b); });
}
// aten::mul.Tensor(Tensor self, Tensor other) -> Tensor
absl::Status Mul(RefCall& call) { return MulImpl(call, false); }
absl::Status MulInPlace(RefCall& call) { return MulImpl(call, true); }

// aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor
absl::Status DivImpl(RefCall& call, bool in_place) {
  std::string mode;
  if (call.Has("rounding_mode")) {
    PT2ONNX_ASSIGN_OR_RETURN(mode, call.String("rounding_mode"));
  }
  if (mode.empty()) {
    return Binary(call, in_place, [](double a, double b) { return a / b; },
                  [](int64_t, int64_t) -> absl::StatusOr<int64_t> { return 0; }, /*true_division=*/true);
  }
  if (mode == "trunc") {
    return Binary(call, in_place, [](double a, double b) { return std::trunc(a / b); }, IntTruncDivide);
  }
  if (mode == "floor") return Binary(call, in_place, FloorDivide, IntFloorDivide);
  return call.Invalid(absl::StrCat("rounding_mode '", mode, "' is not 'trunc' or 'floor'"));
}
absl::Status Div(RefCall& call) { return DivImpl(call, false); }
absl::Status DivInPlace(RefCall& call) { return DivImpl(call, true); }

// aten::floor_divide(Tensor self, Tensor other) -> Tensor
absl::Status FloorDivideOp(RefCall& call) { return Binary(call, false, FloorDivide, IntFloorDivide); }
absl::Status FloorDivideInPlace(RefCall& call) { return Binary(call, true, FloorDivide, IntFloorDivide); }

// aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor (Python's %)
absl::Status Remainder(RefCall& call) { return Binary(call, false, PyRemainder, IntRemainder); }
absl::Status RemainderInPlace(RefCall& call) { return Binary(call, true, PyRemainder, IntRemainder); }

// aten::fmod.Tensor(Tensor self, Tensor other) -> Tensor (C's fmod: sign of self)
absl::StatusOr<int64_t> IntFmod(int64_t a, int64_t b) {
  if (b == 0) return ZeroDivision();
  return b == -1 ? 0 : a % b;
}
absl::Status Fmod(RefCall& call) {
  return Binary(call, false, [](double a, double b) { return std::fmod(a, b); }, IntFmod);
}
absl::Status FmodInPlace(RefCall& call) {
  return Binary(call, true, [](double a, double b) { return std::fmod(a, b); }, IntFmod);
}

// A negative exponent gives 0 but for bases 1 and -1, as ATen's powi
// (aten/src/ATen/native/Pow.h); ATen refuses only a negative integer
// *scalar* exponent, before any program could be exported with one.
absl::StatusOr<int64_t> IntPow(int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return exp % 2 == 0 ? 1 : -1;
    return 0;
  }
  int64_t result = 1;
  while (exp > 0) {
    if (exp & 1) result = WrapMul(result, base);
    base = WrapMul(base, base);
    exp >>= 1;
  }
  return result;
}

// aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor
// aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor
// aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor
absl::Status PowImpl(RefCall& call, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor exponent, TensorOrScalar(call, "exponent"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "exponent"}));
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, BinaryMap(self, exponent, dtype, dtype, [](double a, double b) { return std::pow(a, b); },
                            IntPow));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}
absl::Status Pow(RefCall& call) { return PowImpl(call, false); }
absl::Status PowInPlace(RefCall& call) { return PowImpl(call, true); }

// aten::maximum(Tensor self, Tensor other) -> Tensor (NaN propagates)
absl::Status Maximum(RefCall& call) {
  return Binary(call, false,
                [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : (a > b ? a : b); },
                [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return a > b ? a : b; });
}
// aten::minimum(Tensor self, Tensor other) -> Tensor
absl::Status Minimum(RefCall& call) {
  return Binary(call, false,
                [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : (a < b ? a : b); },
                [](int64_t a, int64_t b) -> absl::StatusOr<int64_t> { return a < b ? a : b; });
}

// aten::atan2(Tensor self, Tensor other) -> Tensor (integers give float32)
absl::Status Atan2Impl(RefCall& call, bool in_place) {
  auto no_int = [](int64_t, int64_t) -> absl::StatusOr<int64_t> { return absl::InternalError("atan2 on integers"); };
  return Binary(call, in_place, [](double a, double b) { return std::atan2(a, b); }, no_int, true);
}
absl::Status Atan2(RefCall& call) { return Atan2Impl(call, false); }
absl::Status Atan2InPlace(RefCall& call) { return Atan2Impl(call, true); }

}  // namespace

void RegisterArithmeticRef(RefRegistry& r) {
  r.Add("aten::add.Tensor", Add);
  r.Add("aten::add.Scalar", Add);
  r.Add("aten::add_.Tensor", AddInPlace);
  r.Add("aten::add_.Scalar", AddInPlace);
  r.Add("aten::sub.Tensor", Sub);
  r.Add("aten::sub.Scalar", Sub);
  r.Add("aten::sub_.Tensor", SubInPlace);
  r.Add("aten::sub_.Scalar", SubInPlace);
  r.Add("aten::rsub.Tensor", Rsub);
  r.Add("aten::rsub.Scalar", Rsub);
  r.Add("aten::mul.Tensor", Mul);
  r.Add("aten::mul.Scalar", Mul);
  r.Add("aten::mul_.Tensor", MulInPlace);
  r.Add("aten::mul_.Scalar", MulInPlace);
  r.Add("aten::div.Tensor", Div);
  r.Add("aten::div.Scalar", Div);
  r.Add("aten::div.Tensor_mode", Div);
  r.Add("aten::div.Scalar_mode", Div);
  r.Add("aten::div_.Tensor", DivInPlace);
  r.Add("aten::div_.Scalar", DivInPlace);
  r.Add("aten::div_.Tensor_mode", DivInPlace);
  r.Add("aten::div_.Scalar_mode", DivInPlace);
  r.Add("aten::true_divide.Tensor", Div);
  r.Add("aten::true_divide.Scalar", Div);
  r.Add("aten::floor_divide.default", FloorDivideOp);
  r.Add("aten::floor_divide.Scalar", FloorDivideOp);
  r.Add("aten::floor_divide_.Tensor", FloorDivideInPlace);
  r.Add("aten::floor_divide_.Scalar", FloorDivideInPlace);
  r.Add("aten::remainder.Tensor", Remainder);
  r.Add("aten::remainder.Scalar", Remainder);
  r.Add("aten::remainder.Scalar_Tensor", Remainder);
  r.Add("aten::remainder_.Tensor", RemainderInPlace);
  r.Add("aten::remainder_.Scalar", RemainderInPlace);
  r.Add("aten::fmod.Tensor", Fmod);
  r.Add("aten::fmod.Scalar", Fmod);
  r.Add("aten::fmod_.Tensor", FmodInPlace);
  r.Add("aten::fmod_.Scalar", FmodInPlace);
  r.Add("aten::pow.Tensor_Scalar", Pow);
  r.Add("aten::pow.Tensor_Tensor", Pow);
  r.Add("aten::pow.Scalar", Pow);
  r.Add("aten::pow_.Scalar", PowInPlace);
  r.Add("aten::pow_.Tensor", PowInPlace);
  r.Add("aten::maximum.default", Maximum);
  r.Add("aten::minimum.default", Minimum);
  r.Add("aten::max.other", Maximum);
  r.Add("aten::min.other", Minimum);
  r.Add("aten::atan2.default", Atan2);
  r.Add("aten::atan2_.default", Atan2InPlace);
}

}  // namespace pt2onnx::reference
