// File: ops/formula.h
// -----------------------------------------------------------------------------
// Node builders for elementwise formulas in one dtype, shared by the special
// functions that ONNX has no operator for (bessel, gamma, polynomials, ...).
// Operands come as braced lists, evaluated left to right, so nested formulas
// emit their nodes in the same order with every compiler: the wasm build must
// write the CLI's bytes.
#ifndef PT2ONNX_OPS_FORMULA_H_
#define PT2ONNX_OPS_FORMULA_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

struct Formula {
  struct Two {
    std::string a, b;
  };
  struct Three {
    std::string cond, a, b;
  };
  TranslateContext& ctx;
  DataType dtype;

  std::string c(double v) { return ctx.ConstantScalar(dtype, v); }
  std::string add(Two t) { return ctx.Op("Add", {t.a, t.b}); }
  std::string sub(Two t) { return ctx.Op("Sub", {t.a, t.b}); }
  std::string mul(Two t) { return ctx.Op("Mul", {t.a, t.b}); }
  std::string div(Two t) { return ctx.Op("Div", {t.a, t.b}); }
  std::string op(absl::string_view type, const std::string& a) { return ctx.Op(type, {a}); }
  std::string where(Three t) { return ctx.Op("Where", {t.cond, t.a, t.b}); }
  std::string where(const std::string& cond, const std::string& a, const std::string& b) {
    return ctx.Op("Where", {cond, a, b});
  }
  std::string eq(Two t) { return ctx.Op("Equal", {t.a, t.b}); }
  std::string ne(Two t) { return ctx.Op("Not", {ctx.Op("Equal", {t.a, t.b})}); }
  std::string lt(Two t) { return ctx.Op("Less", {t.a, t.b}); }
  std::string le(Two t) { return ctx.Op("LessOrEqual", {t.a, t.b}); }
  std::string gt(Two t) { return ctx.Op("Greater", {t.a, t.b}); }
  std::string both(Two t) { return ctx.Op("And", {t.a, t.b}); }
  std::string either(Two t) { return ctx.Op("Or", {t.a, t.b}); }

  // coefficients[0] * z^(n-1) + ... + coefficients[n-1] (Horner, from the
  // highest coefficient as torch's loops).
  std::string poly(const std::string& z, const double* coefficients, size_t count) {
    std::string acc = c(coefficients[0]);
    for (size_t i = 1; i < count; ++i) {
      std::string product = mul({acc, z});
      acc = add({product, c(coefficients[i])});
    }
    return acc;
  }
  std::string poly(const std::string& z, const std::vector<double>& coefficients) {
    return poly(z, coefficients.data(), coefficients.size());
  }
  template <size_t kCount>
  std::string poly(const std::string& z, const double (&coefficients)[kCount]) {
    return poly(z, coefficients, kCount);
  }
};

// A special function's input in float64, where the formulas are evaluated,
// and the dtype of its result (integer inputs give torch's default float).
struct Float64Operand {
  std::string x;
  DataType out;
};
inline absl::StatusOr<Float64Operand> AsFloat64Operand(TranslateContext& ctx,
                                                       absl::string_view arg) {
  DataType out = ctx.OutputDtype(0);
  if (!IsFloatingPoint(out)) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " with a ", DataTypeName(out), " result"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputOrScalarAs(arg, DataType::kDouble));
  return Float64Operand{x, out};
}

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_FORMULA_H_
