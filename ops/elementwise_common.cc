#include "ops/elementwise_common.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/aten/type_promotion.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"

namespace pt2onnx::ops {

using pt2::Argument;
using ArgKind = pt2::Argument::Kind;

// torch.result_type over the named Tensor/Scalar arguments: dimensioned
// tensors outrank 0-d tensors, which outrank Python scalars (a float scalar
// counts as the default dtype float32, an int one as int64).
absl::StatusOr<DataType> ResultType(const TranslateContext& ctx,
                                    std::vector<absl::string_view> args) {
  std::vector<aten::ResultTypeOperand> operands;
  for (absl::string_view name : args) {
    PT2ONNX_ASSIGN_OR_RETURN(Argument a, ctx.Arg(name));
    switch (a.kind) {
      case ArgKind::kTensor: {
        PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta(name));
        operands.push_back({meta->dtype, meta->sizes.empty() ? aten::OperandKind::kZeroDimTensor
                                                             : aten::OperandKind::kTensor});
        break;
      }
      case ArgKind::kInt:
      case ArgKind::kSymInt:
        operands.push_back({DataType::kInt64, aten::OperandKind::kScalar});
        break;
      case ArgKind::kFloat:
      case ArgKind::kSymFloat:
        operands.push_back({DataType::kFloat, aten::OperandKind::kScalar});
        break;
      case ArgKind::kBool:
      case ArgKind::kSymBool:
        operands.push_back({DataType::kBool, aten::OperandKind::kScalar});
        break;
      default:
        return ctx.Invalid(absl::StrCat("argument '", name, "' is neither a tensor nor a scalar"));
    }
  }
  return aten::ResultType(operands);
}

absl::Status BinaryInOutputType(TranslateContext& ctx, absl::string_view op_type,
                                absl::string_view a_arg, absl::string_view b_arg) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, ctx.InputOrScalarAs(a_arg, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, ctx.InputOrScalarAs(b_arg, dtype));
  return BindResult(ctx, ctx.Op(op_type, {a, b}));
}

std::string EmitComparison(TranslateContext& ctx, Comparison comparison, const std::string& a,
                           const std::string& b) {
  std::string result = ctx.Op(comparison.op_type, {a, b});
  return comparison.negate ? ctx.Op("Not", {result}) : result;
}

std::string Zero(TranslateContext& ctx, DataType dtype) { return ctx.ConstantScalar(dtype, 0); }

// trunc for floats: ONNX has no Trunc operator.
std::string TruncFloat(TranslateContext& ctx, const std::string& x, DataType dtype) {
  std::string negative = ctx.Op("Less", {x, Zero(ctx, dtype)});
  return ctx.Op("Where", {negative, ctx.Op("Ceil", {x}), ctx.Op("Floor", {x})});
}

// Python floor division for integers. ONNX integer Div truncates toward zero,
// so quotients of inexact divisions with operands of opposite signs drop by 1.
std::string FloorDivInt(TranslateContext& ctx, const std::string& a, const std::string& b,
                        DataType dtype) {
  std::string q = ctx.Op("Div", {a, b});
  std::string inexact = ctx.Op("Not", {ctx.Op("Equal", {ctx.Op("Mul", {q, b}), a})});
  std::string zero = Zero(ctx, dtype);
  std::string signs_differ =
      ctx.Op("Xor", {ctx.Op("Less", {a, zero}), ctx.Op("Less", {b, zero})});
  std::string adjust = ctx.Op("And", {inexact, signs_differ});
  return ctx.Op("Where", {adjust, ctx.Op("Sub", {q, ctx.ConstantScalar(dtype, 1)}), q});
}

// Floor division for floats as ATen computes it (div_floor_floating in
// c10/util/generic_math.h): from fmod, so 1 // 0.1 is 9 (not floor(1 / 0.1)
// = 10) and inf // b is NaN; a zero divisor gives IEEE a / b.
std::string FloorDivFloat(TranslateContext& ctx, const std::string& a, const std::string& b,
                          DataType dtype) {
  std::string zero = Zero(ctx, dtype);
  std::string one = ctx.ConstantScalar(dtype, 1);
  std::string mod = ctx.Op("Mod", {a, b}, {ir::Attribute::Int("fmod", 1)});
  std::string div = ctx.Op("Div", {ctx.Op("Sub", {a, mod}), b});
  std::string signs_differ =
      ctx.Op("Xor", {ctx.Op("Less", {b, zero}), ctx.Op("Less", {mod, zero})});
  std::string adjust = ctx.Op("And", {ctx.Op("Not", {ctx.Op("Equal", {mod, zero})}), signs_differ});
  div = ctx.Op("Where", {adjust, ctx.Op("Sub", {div, one}), div});
  std::string floor = ctx.Op("Floor", {div});
  std::string round_up =
      ctx.Op("Greater", {ctx.Op("Sub", {div, floor}), ctx.ConstantScalar(dtype, 0.5)});
  floor = ctx.Op("Where", {round_up, ctx.Op("Add", {floor, one}), floor});
  // A zero quotient takes the sign of a / b (finite here: |a| < |b|).
  std::string quotient = ctx.Op("Div", {a, b});
  std::string signed_zero = ctx.Op("Mul", {quotient, zero});
  std::string result = ctx.Op("Where", {ctx.Op("Equal", {div, zero}), signed_zero, floor});
  return ctx.Op("Where", {ctx.Op("Equal", {b, zero}), quotient, result});
}

// Python modulo (result has the divisor's sign). Integers: Mod with fmod=0.
// Floats: ONNX requires fmod=1, so fix the sign afterwards as ATen's
// remainder kernel does (aten/src/ATen/native/cpu/BinaryOpsKernel.cpp).
std::string PythonMod(TranslateContext& ctx, const std::string& a, const std::string& b,
                      DataType dtype) {
  if (!IsFloatingPoint(dtype)) return ctx.Op("Mod", {a, b}, {ir::Attribute::Int("fmod", 0)});
  std::string r = ctx.Op("Mod", {a, b}, {ir::Attribute::Int("fmod", 1)});
  std::string zero = Zero(ctx, dtype);
  std::string nonzero = ctx.Op("Not", {ctx.Op("Equal", {r, zero})});
  std::string signs_differ =
      ctx.Op("Xor", {ctx.Op("Less", {r, zero}), ctx.Op("Less", {b, zero})});
  std::string fix = ctx.Op("And", {nonzero, signs_differ});
  return ctx.Op("Where", {fix, ctx.Op("Add", {r, b}), r});
}

}  // namespace pt2onnx::ops
