// File: ops/number_theory.cc
// -----------------------------------------------------------------------------
// gcd and lcm of integer tensors, as ATen's calc_gcd / calc_lcm
// (aten/src/ATen/native/Math.h): Euclid's algorithm on |a| and |b|, here one
// ONNX Loop over the whole tensor that stops once every element is done
// (at most kMaxTrips, more than the 92 steps the largest 64-bit pair needs);
// lcm = |a / gcd * b|, 0 where gcd is 0. ATen computes a / g * b of 8- and
// 16-bit dtypes in C++'s int, so the absolute value is taken before the
// result wraps to the dtype; 32- and 64-bit products wrap first. The most
// negative value of a dtype (whose absolute value wraps in ATen) is not
// reproduced.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/loop_builder.h"

namespace pt2onnx::ops {
namespace {

constexpr int64_t kMaxTrips = 100;

// Values are worked on as int64 (uint64 stays uint64): ONNX Runtime has no
// Equal/Mod for every narrow integer type, and every narrow value fits.
struct Operands {
  DataType dtype, work;
  std::string x, y;  // self, other as `work`
  std::string a, b;  // |self|, |other|, broadcast to one shape
};

absl::StatusOr<Operands> ReadOperands(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (!IsInteger(dtype)) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " of ", DataTypeName(dtype), " (torch defines it for integers)"));
  }
  const DataType work = dtype == DataType::kUint64 ? DataType::kUint64 : DataType::kInt64;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputOrScalarAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.InputOrScalarAs("other", dtype));
  x = ctx.CastTo(x, dtype, work);
  y = ctx.CastTo(y, dtype, work);
  std::string ax = ctx.Op("Abs", {x}), ay = ctx.Op("Abs", {y});
  // v - v is 0 in the other operand's shape: both carried values get the broadcast shape.
  return Operands{dtype, work, x, y, ctx.Op("Add", {ax, ctx.Op("Sub", {ay, ay})}),
                  ctx.Op("Add", {ay, ctx.Op("Sub", {ax, ax})})};
}

// Euclid's loop: while a != 0: (a, b) = (b % a, a); the result is b.
std::string Gcd(TranslateContext& ctx, const Operands& in) {
  std::vector<std::string> out = LoopWhilePending(
      ctx, "gcd", ctx.ConstantInt64(kMaxTrips), {in.a, in.b},
      {LoopValueType{in.work, LoopResultDims(ctx)}, LoopValueType{in.work, LoopResultDims(ctx)}},
      [&](const std::string&, const std::vector<std::string>& v) {
        const std::string zero = ctx.ConstantScalar(in.work, 0);
        std::string nonzero = ctx.Op("Not", {ctx.Op("Equal", {v[0], zero})});
        std::string divisor = ctx.Op("Where", {nonzero, v[0], ctx.ConstantScalar(in.work, 1)});
        std::string a = ctx.Op("Where", {nonzero, ctx.Op("Mod", {v[1], divisor}), zero});
        std::string b = ctx.Op("Where", {nonzero, v[0], v[1]});
        return LoopTrip{{a, b}, ctx.Op("Not", {ctx.Op("Equal", {a, zero})})};
      });
  return out[1];
}

// aten::gcd(Tensor self, Tensor other) -> Tensor
absl::Status AtenGcd(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operands in, ReadOperands(ctx));
  return BindResult(ctx, ctx.CastTo(Gcd(ctx, in), in.work, in.dtype));
}

// aten::lcm(Tensor self, Tensor other) -> Tensor
absl::Status AtenLcm(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Operands in, ReadOperands(ctx));
  std::string g = Gcd(ctx, in);
  std::string zero = ctx.ConstantScalar(in.work, 0);
  std::string is_zero = ctx.Op("Equal", {g, zero});
  std::string safe_g = ctx.Op("Where", {is_zero, ctx.ConstantScalar(in.work, 1), g});
  std::string product = ctx.Op("Mul", {ctx.Op("Div", {in.x, safe_g}), in.y});
  std::string lcm;
  if (ElementSize(in.dtype) == 4) {  // wraps to 32 bits, then abs
    lcm = ctx.CastTo(ctx.Op("Abs", {ctx.CastTo(product, in.work, in.dtype)}), in.dtype, in.work);
  } else {  // 8/16 bits: abs in int, then wraps; 64 bits: wrapped already
    lcm = ctx.Op("Abs", {product});
  }
  // Where in the working type: ONNX Runtime has no Where for 16-bit integers.
  return BindResult(ctx, ctx.CastTo(ctx.Op("Where", {is_zero, zero, lcm}), in.work, in.dtype));
}

}  // namespace

void RegisterNumberTheoryOps(OpRegistry& r) {
  AddWithInPlace(r, "aten::gcd", "default", &AtenGcd);
  AddWithInPlace(r, "aten::lcm", "default", &AtenLcm);
}

}  // namespace pt2onnx::ops
