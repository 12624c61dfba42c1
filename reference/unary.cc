// Reference kernels: elementwise math of one tensor (exp, log, sqrt, rsqrt,
// trigonometry, rounding, abs/neg/sign) and their in-place twins. Float-valued
// functions of integer tensors give the default float dtype, as torch does.
#include <cmath>

#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

// A float-valued function: integer inputs are promoted to float32.
absl::Status FloatUnary(RefCall& call, bool in_place, const DoubleUnary& f) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, UnaryMapDouble(self, FloatResult(self.dtype()), f));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}

// A dtype-preserving function; integers go through int64.
absl::Status SameTypeUnary(RefCall& call, bool in_place, const DoubleUnary& f,
                           int64_t (*fi)(int64_t)) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  // The program's dtype where it records one: square of bool is int64.
  DataType out_dtype = in_place ? DataType::kUndefined : call.OutputDtype();
  if (out_dtype == DataType::kUndefined) out_dtype = self.dtype();
  Tensor out;
  if (IsFloatLike(self.dtype())) {
    PT2ONNX_ASSIGN_OR_RETURN(out, UnaryMapDouble(self, out_dtype, f));
  } else {
    std::vector<int64_t> v = ToInts(self);
    for (int64_t& e : v) e = fi(e);
    PT2ONNX_ASSIGN_OR_RETURN(out, FromInts(out_dtype, self.dims(), v));
  }
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}

int64_t Identity(int64_t v) { return v; }
int64_t IntNeg(int64_t v) { return static_cast<int64_t>(0 - static_cast<uint64_t>(v)); }
int64_t IntAbs(int64_t v) { return v < 0 ? IntNeg(v) : v; }
int64_t IntSign(int64_t v) { return (v > 0) - (v < 0); }

double Rsqrt(double v) { return 1.0 / std::sqrt(v); }
double Reciprocal(double v) { return 1.0 / v; }
double Sign(double v) { return static_cast<double>((v > 0) - (v < 0)); }  // NaN gives 0, as torch
double RoundHalfEven(double v) { return std::nearbyint(v); }
double Sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

#define PT2ONNX_FLOAT_UNARY(Name, expr)                                                   \
  absl::Status Name(RefCall& call) { return FloatUnary(call, false, [](double x) { return expr; }); } \
  absl::Status Name##InPlace(RefCall& call) { return FloatUnary(call, true, [](double x) { return expr; }); }

// aten::exp(Tensor self) -> Tensor, and the same one-line schema for each below.
PT2ONNX_FLOAT_UNARY(Exp, std::exp(x))
PT2ONNX_FLOAT_UNARY(Exp2, std::exp2(x))
PT2ONNX_FLOAT_UNARY(Expm1, std::expm1(x))
PT2ONNX_FLOAT_UNARY(Log, std::log(x))
PT2ONNX_FLOAT_UNARY(Log2, std::log2(x))
PT2ONNX_FLOAT_UNARY(Log10, std::log10(x))
PT2ONNX_FLOAT_UNARY(Log1p, std::log1p(x))
PT2ONNX_FLOAT_UNARY(Sqrt, std::sqrt(x))
PT2ONNX_FLOAT_UNARY(RsqrtOp, Rsqrt(x))
PT2ONNX_FLOAT_UNARY(ReciprocalOp, Reciprocal(x))
PT2ONNX_FLOAT_UNARY(Sin, std::sin(x))
PT2ONNX_FLOAT_UNARY(Cos, std::cos(x))
PT2ONNX_FLOAT_UNARY(Tan, std::tan(x))
PT2ONNX_FLOAT_UNARY(Asin, std::asin(x))
PT2ONNX_FLOAT_UNARY(Acos, std::acos(x))
PT2ONNX_FLOAT_UNARY(Atan, std::atan(x))
PT2ONNX_FLOAT_UNARY(Sinh, std::sinh(x))
PT2ONNX_FLOAT_UNARY(Cosh, std::cosh(x))
PT2ONNX_FLOAT_UNARY(Tanh, std::tanh(x))
PT2ONNX_FLOAT_UNARY(Asinh, std::asinh(x))
PT2ONNX_FLOAT_UNARY(Acosh, std::acosh(x))
PT2ONNX_FLOAT_UNARY(Atanh, std::atanh(x))
PT2ONNX_FLOAT_UNARY(Erf, std::erf(x))
PT2ONNX_FLOAT_UNARY(SigmoidOp, Sigmoid(x))

#define PT2ONNX_SAME_UNARY(Name, expr, int_fn)                                                    \
  absl::Status Name(RefCall& call) { return SameTypeUnary(call, false, [](double x) { return expr; }, int_fn); } \
  absl::Status Name##InPlace(RefCall& call) { return SameTypeUnary(call, true, [](double x) { return expr; }, int_fn); }

// aten::abs(Tensor self) -> Tensor; integers keep their dtype for these.
PT2ONNX_SAME_UNARY(Abs, std::fabs(x), IntAbs)
PT2ONNX_SAME_UNARY(Neg, -x, IntNeg)
PT2ONNX_SAME_UNARY(SignOp, Sign(x), IntSign)
PT2ONNX_SAME_UNARY(Floor, std::floor(x), Identity)
PT2ONNX_SAME_UNARY(Ceil, std::ceil(x), Identity)
PT2ONNX_SAME_UNARY(Trunc, std::trunc(x), Identity)
PT2ONNX_SAME_UNARY(Round, RoundHalfEven(x), Identity)
PT2ONNX_SAME_UNARY(Square, x * x, [](int64_t v) { return static_cast<int64_t>(static_cast<uint64_t>(v) * static_cast<uint64_t>(v)); })

}  // namespace

void RegisterUnaryRef(RefRegistry& r) {
  r.Add("aten::exp.default", Exp);
  r.Add("aten::exp_.default", ExpInPlace);
  r.Add("aten::exp2.default", Exp2);
  r.Add("aten::exp2_.default", Exp2InPlace);
  r.Add("aten::expm1.default", Expm1);
  r.Add("aten::expm1_.default", Expm1InPlace);
  r.Add("aten::log.default", Log);
  r.Add("aten::log_.default", LogInPlace);
  r.Add("aten::log2.default", Log2);
  r.Add("aten::log2_.default", Log2InPlace);
  r.Add("aten::log10.default", Log10);
  r.Add("aten::log10_.default", Log10InPlace);
  r.Add("aten::log1p.default", Log1p);
  r.Add("aten::log1p_.default", Log1pInPlace);
  r.Add("aten::sqrt.default", Sqrt);
  r.Add("aten::sqrt_.default", SqrtInPlace);
  r.Add("aten::rsqrt.default", RsqrtOp);
  r.Add("aten::rsqrt_.default", RsqrtOpInPlace);
  r.Add("aten::reciprocal.default", ReciprocalOp);
  r.Add("aten::reciprocal_.default", ReciprocalOpInPlace);
  r.Add("aten::sin.default", Sin);
  r.Add("aten::sin_.default", SinInPlace);
  r.Add("aten::cos.default", Cos);
  r.Add("aten::cos_.default", CosInPlace);
  r.Add("aten::tan.default", Tan);
  r.Add("aten::tan_.default", TanInPlace);
  r.Add("aten::asin.default", Asin);
  r.Add("aten::asin_.default", AsinInPlace);
  r.Add("aten::acos.default", Acos);
  r.Add("aten::acos_.default", AcosInPlace);
  r.Add("aten::atan.default", Atan);
  r.Add("aten::atan_.default", AtanInPlace);
  r.Add("aten::sinh.default", Sinh);
  r.Add("aten::sinh_.default", SinhInPlace);
  r.Add("aten::cosh.default", Cosh);
  r.Add("aten::cosh_.default", CoshInPlace);
  r.Add("aten::tanh.default", Tanh);
  r.Add("aten::tanh_.default", TanhInPlace);
  r.Add("aten::asinh.default", Asinh);
  r.Add("aten::asinh_.default", AsinhInPlace);
  r.Add("aten::acosh.default", Acosh);
  r.Add("aten::acosh_.default", AcoshInPlace);
  r.Add("aten::atanh.default", Atanh);
  r.Add("aten::atanh_.default", AtanhInPlace);
  r.Add("aten::erf.default", Erf);
  r.Add("aten::erf_.default", ErfInPlace);
  r.Add("aten::sigmoid.default", SigmoidOp);
  r.Add("aten::sigmoid_.default", SigmoidOpInPlace);
  r.Add("aten::abs.default", Abs);
  r.Add("aten::abs_.default", AbsInPlace);
  r.Add("aten::neg.default", Neg);
  r.Add("aten::neg_.default", NegInPlace);
  r.Add("aten::sign.default", SignOp);
  r.Add("aten::sign_.default", SignOpInPlace);
  r.Add("aten::floor.default", Floor);
  r.Add("aten::floor_.default", FloorInPlace);
  r.Add("aten::ceil.default", Ceil);
  r.Add("aten::ceil_.default", CeilInPlace);
  r.Add("aten::trunc.default", Trunc);
  r.Add("aten::trunc_.default", TruncInPlace);
  r.Add("aten::round.default", Round);
  r.Add("aten::round_.default", RoundInPlace);
  r.Add("aten::square.default", Square);
  r.Add("aten::square_.default", SquareInPlace);
}

}  // namespace pt2onnx::reference
