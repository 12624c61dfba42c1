// File: ops/symbolic.cc
// -----------------------------------------------------------------------------
// Symbolic scalars and runtime assertions.
//
// SymInt / SymFloat / SymBool values are 0-d INT64 / FLOAT / BOOL ONNX values
// (as in torch.onnx). They come from aten::sym_size.int and friends and are
// combined by Python-level ops the exporter records as `_operator.add`,
// `math.trunc`, `torch.sym_max`, ... Those nodes have no ATen schema; their
// arguments are named after the Python signature (`a`, `b`; `x` for math.*;
// older files always say `a`/`b`), so operands are read by position.
//
// Assertion ops (_assert_scalar, sym_constrain_range_for_size, ...) check
// what export already guaranteed; they emit nothing, like torch.onnx, which
// removes them before translating. Their functional forms return an effect
// token that only orders other assertions: it becomes an empty constant.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/checked_math.h"
#include "core/status_macros.h"
#include "ops/elementwise_common.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ArgKind = pt2::Argument::Kind;

// The ONNX dtype of a symbolic (or constant) scalar of this kind.
DataType ScalarDtype(ArgKind kind) {
  switch (kind) {
    case ArgKind::kInt:
    case ArgKind::kSymInt:
      return DataType::kInt64;
    case ArgKind::kFloat:
    case ArgKind::kSymFloat:
      return DataType::kFloat;
    case ArgKind::kBool:
    case ArgKind::kSymBool:
      return DataType::kBool;
    default:
      return DataType::kUndefined;
  }
}

// The dtype of the node's result: SymInt -> INT64, SymFloat -> FLOAT,
// SymBool -> BOOL (kUndefined when the result is a constant or absent).
DataType ResultDtype(const TranslateContext& ctx) {
  if (ctx.num_outputs() == 0) return DataType::kUndefined;
  const pt2::Argument& out = ctx.node().outputs[0];
  if (out.kind == ArgKind::kTensor) return ctx.OutputDtype(0);
  return out.sym.is_name ? ScalarDtype(out.kind) : DataType::kUndefined;
}

// The node's positional operand `i` (a symbol, a constant or, rarely, a
// 0-d tensor).
absl::StatusOr<const pt2::NamedArgument*> OperandArg(const TranslateContext& ctx, size_t i) {
  const std::vector<pt2::NamedArgument>& inputs = ctx.node().inputs;
  if (i >= inputs.size()) {
    return ctx.Invalid(absl::StrCat("expected at least ", i + 1, " operands, got ", inputs.size()));
  }
  return &inputs[i];
}

absl::StatusOr<DataType> OperandDtype(const TranslateContext& ctx, size_t i) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::NamedArgument* a, OperandArg(ctx, i));
  if (a->arg.kind == ArgKind::kTensor) return ctx.InputDtype(a->name);
  DataType dtype = ScalarDtype(a->arg.kind);
  if (dtype == DataType::kUndefined) {
    return ctx.Invalid(absl::StrCat("operand ", i, " ('", a->name, "') is not a number"));
  }
  return dtype;
}

// Operand `i` as a 0-d value of `dtype` (constants are emitted in it directly).
absl::StatusOr<std::string> OperandAs(TranslateContext& ctx, size_t i, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::NamedArgument* a, OperandArg(ctx, i));
  return ctx.InputOrScalarAs(a->name, dtype);
}

// Nodes whose result was folded to a constant have nothing to bind.
bool ResultIsConstant(const TranslateContext& ctx) {
  return ResultDtype(ctx) == DataType::kUndefined;
}

// ---- Arithmetic --------------------------------------------------------------

// Both operands in the result dtype, then `op_type`.
absl::Status Binary(TranslateContext& ctx, absl::string_view op_type) {
  if (ResultIsConstant(ctx)) return absl::OkStatus();
  DataType dtype = ResultDtype(ctx);
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, OperandAs(ctx, 0, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, OperandAs(ctx, 1, dtype));
  return ctx.SetOutput(0, ctx.Op(op_type, {a, b}));
}

// _operator.add(a, b)
absl::Status OperatorAdd(TranslateContext& ctx) { return Binary(ctx, "Add"); }
// _operator.sub(a, b)
absl::Status OperatorSub(TranslateContext& ctx) { return Binary(ctx, "Sub"); }
// _operator.mul(a, b)
absl::Status OperatorMul(TranslateContext& ctx) { return Binary(ctx, "Mul"); }
// _operator.pow(a, b): int ** non-negative int stays int (result kind says).
absl::Status OperatorPow(TranslateContext& ctx) { return Binary(ctx, "Pow"); }
// torch.sym_max(a, b)
absl::Status TorchSymMax(TranslateContext& ctx) { return Binary(ctx, "Max"); }
// torch.sym_min(a, b)
absl::Status TorchSymMin(TranslateContext& ctx) { return Binary(ctx, "Min"); }

// _operator.truediv(a, b): always a float.
absl::Status OperatorTruediv(TranslateContext& ctx) {
  if (ResultIsConstant(ctx)) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, OperandAs(ctx, 0, DataType::kFloat));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, OperandAs(ctx, 1, DataType::kFloat));
  std::string q = ctx.Op("Div", {a, b});
  return ctx.SetOutput(0, ctx.CastTo(q, DataType::kFloat, ResultDtype(ctx)));
}

// _operator.floordiv(a, b): Python rounds toward -inf; ONNX integer Div
// truncates, so inexact quotients of opposite-sign operands drop by one.
absl::Status OperatorFloordiv(TranslateContext& ctx) {
  if (ResultIsConstant(ctx)) return absl::OkStatus();
  DataType dtype = ResultDtype(ctx);
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, OperandAs(ctx, 0, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, OperandAs(ctx, 1, dtype));
  std::string q = ctx.Op("Div", {a, b});
  if (IsFloatingPoint(dtype)) return ctx.SetOutput(0, ctx.Op("Floor", {q}));
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string inexact = ctx.Op("Not", {ctx.Op("Equal", {ctx.Op("Mul", {q, b}), a})});
  std::string signs_differ =
      ctx.Op("Xor", {ctx.Op("Less", {a, zero}), ctx.Op("Less", {b, zero})});
  std::string adjust = ctx.Op("And", {inexact, signs_differ});
  std::string lower = ctx.Op("Sub", {q, ctx.ConstantScalar(dtype, 1)});
  return ctx.SetOutput(0, ctx.Op("Where", {adjust, lower, q}));
}

// _operator.mod(a, b): Python's sign rule (the divisor's). Mod fmod=0 does it
// for integers; floats need fmod=1 and a fix-up.
absl::Status OperatorMod(TranslateContext& ctx) {
  if (ResultIsConstant(ctx)) return absl::OkStatus();
  DataType dtype = ResultDtype(ctx);
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, OperandAs(ctx, 0, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, OperandAs(ctx, 1, dtype));
  if (!IsFloatingPoint(dtype)) {
    return ctx.SetOutput(0, ctx.Op("Mod", {a, b}, {ir::Attribute::Int("fmod", 0)}));
  }
  std::string r = ctx.Op("Mod", {a, b}, {ir::Attribute::Int("fmod", 1)});
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string nonzero = ctx.Op("Not", {ctx.Op("Equal", {r, zero})});
  std::string signs_differ =
      ctx.Op("Xor", {ctx.Op("Less", {r, zero}), ctx.Op("Less", {b, zero})});
  std::string fix = ctx.Op("And", {nonzero, signs_differ});
  return ctx.SetOutput(0, ctx.Op("Where", {fix, ctx.Op("Add", {r, b}), r}));
}

// _operator.neg(a)
absl::Status OperatorNeg(TranslateContext& ctx) {
  if (ResultIsConstant(ctx)) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, OperandAs(ctx, 0, ResultDtype(ctx)));
  return ctx.SetOutput(0, ctx.Op("Neg", {a}));
}

// Bools combine logically, ints bitwise (BitwiseAnd/Or exist since opset 18).
absl::Status Bitwise(TranslateContext& ctx, absl::string_view bool_op, absl::string_view int_op) {
  return Binary(ctx, ResultDtype(ctx) == DataType::kBool ? bool_op : int_op);
}
// _operator.and_(a, b)
absl::Status OperatorAnd(TranslateContext& ctx) { return Bitwise(ctx, "And", "BitwiseAnd"); }
// _operator.or_(a, b)
absl::Status OperatorOr(TranslateContext& ctx) { return Bitwise(ctx, "Or", "BitwiseOr"); }

// ---- Comparisons -------------------------------------------------------------

// Operands meet as FLOAT if either is a float, else as INT64 (bools too,
// except for (in)equality, which ONNX defines on BOOL).
absl::Status CompareSymbols(TranslateContext& ctx, Comparison comparison) {
  if (ResultIsConstant(ctx)) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(DataType a_dtype, OperandDtype(ctx, 0));
  PT2ONNX_ASSIGN_OR_RETURN(DataType b_dtype, OperandDtype(ctx, 1));
  DataType dtype = DataType::kInt64;
  if (IsFloatingPoint(a_dtype) || IsFloatingPoint(b_dtype)) {
    dtype = DataType::kFloat;
  } else if (a_dtype == DataType::kBool && b_dtype == DataType::kBool && ComparesBools(comparison)) {
    dtype = DataType::kBool;
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, OperandAs(ctx, 0, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string b, OperandAs(ctx, 1, dtype));
  return ctx.SetOutput(0, EmitComparison(ctx, comparison, a, b));
}

// _operator.eq(a, b)
absl::Status OperatorEq(TranslateContext& ctx) { return CompareSymbols(ctx, kCompareEq); }
// _operator.ne(a, b)
absl::Status OperatorNe(TranslateContext& ctx) { return CompareSymbols(ctx, kCompareNe); }
// _operator.lt(a, b)
absl::Status OperatorLt(TranslateContext& ctx) { return CompareSymbols(ctx, kCompareLt); }
// _operator.le(a, b)
absl::Status OperatorLe(TranslateContext& ctx) { return CompareSymbols(ctx, kCompareLe); }
// _operator.gt(a, b)
absl::Status OperatorGt(TranslateContext& ctx) { return CompareSymbols(ctx, kCompareGt); }
// _operator.ge(a, b)
absl::Status OperatorGe(TranslateContext& ctx) { return CompareSymbols(ctx, kCompareGe); }

// ---- Conversions and rounding ------------------------------------------------

// math.trunc(x): floats round toward zero to an int; ints pass. (math.floor,
// math.ceil and torch.sym_sum cannot be saved by torch.export, and torch.sym_int
// and operator.pos are never recorded, so they have no translation.)
absl::Status MathTrunc(TranslateContext& ctx) {
  if (ResultIsConstant(ctx)) return absl::OkStatus();
  DataType dtype = ResultDtype(ctx);
  PT2ONNX_ASSIGN_OR_RETURN(DataType in, OperandDtype(ctx, 0));
  if (!IsFloatingPoint(in)) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string x, OperandAs(ctx, 0, dtype));
    return ctx.SetOutput(0, x);
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, OperandAs(ctx, 0, in));
  // ONNX has no Trunc and leaves the rounding of a float-to-int Cast
  // unspecified, so round explicitly before casting.
  std::string negative = ctx.Op("Less", {x, ctx.ConstantScalar(in, 0)});
  std::string rounded = ctx.Op("Where", {negative, ctx.Op("Ceil", {x}), ctx.Op("Floor", {x})});
  return ctx.SetOutput(0, ctx.CastTo(rounded, in, dtype));
}

// torch.sym_float(a)
absl::Status TorchSymFloat(TranslateContext& ctx) {
  if (ResultIsConstant(ctx)) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, OperandAs(ctx, 0, ResultDtype(ctx)));
  return ctx.SetOutput(0, a);
}

// torch.sym_not(a)
absl::Status TorchSymNot(TranslateContext& ctx) {
  if (ResultIsConstant(ctx)) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, OperandAs(ctx, 0, DataType::kBool));
  return ctx.SetOutput(0, ctx.Op("Not", {a}));
}

// torch._sym_sqrt(a): a float (torch.sym_sqrt is serialized under this name).
absl::Status TorchSymSqrt(TranslateContext& ctx) {
  if (ResultIsConstant(ctx)) return absl::OkStatus();
  PT2ONNX_ASSIGN_OR_RETURN(std::string a, OperandAs(ctx, 0, DataType::kFloat));
  return ctx.SetOutput(0, ctx.CastTo(ctx.Op("Sqrt", {a}), DataType::kFloat, ResultDtype(ctx)));
}

// torch.sym_ite(b, t, f): b ? t : f.
absl::Status TorchSymIte(TranslateContext& ctx) {
  if (ResultIsConstant(ctx)) return absl::OkStatus();
  DataType dtype = ResultDtype(ctx);
  PT2ONNX_ASSIGN_OR_RETURN(std::string cond, OperandAs(ctx, 0, DataType::kBool));
  PT2ONNX_ASSIGN_OR_RETURN(std::string t, OperandAs(ctx, 1, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string f, OperandAs(ctx, 2, dtype));
  return ctx.SetOutput(0, ctx.Op("Where", {cond, t, f}));
}

// ---- Sizes of tensors --------------------------------------------------------

// aten::sym_size.int(Tensor self, int dim) -> SymInt
absl::Status AtenSymSizeInt(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(dim, CheckedAxis(ctx, "dim", dim, rank));
  if (dim >= rank) return ctx.Invalid("a 0-d tensor has no sizes");
  if (!meta->sizes[dim].is_symbolic) {
    return ctx.SetOutput(0, ctx.ConstantInt64(meta->sizes[dim].value));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  return ctx.SetOutput(0, Squeeze(ctx, ShapeSlice(ctx, x, dim, dim + 1), {0}));
}

// aten::sym_numel(Tensor self) -> SymInt
absl::Status AtenSymNumel(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t numel = 1;
  bool is_static = true;
  for (const pt2::SymInt& s : meta->sizes) {
    is_static = is_static && !s.is_symbolic;
    if (s.is_symbolic) continue;
    std::optional<int64_t> product = CheckedMul(numel, s.value);
    if (!product.has_value()) return ctx.Invalid("the element count overflows int64");
    numel = *product;
  }
  if (is_static) return ctx.SetOutput(0, ctx.ConstantInt64(numel));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  return ctx.SetOutput(0, ctx.Op("ReduceProd", {ctx.Op("Shape", {x})},
                                 {ir::Attribute::Int("keepdims", 0)}));
}

// True when the symbol `name` reaches only assertions: each use is an
// _assert_scalar, or a Python-level operator (comparison, arithmetic) whose
// results in turn reach only assertions; never a tensor op, a list or an
// output of the graph.
bool OnlyAsserted(const pt2::Graph& graph, const std::string& name, int depth) {
  if (depth > 16) return false;
  for (const pt2::Argument& out : graph.outputs) {
    if (out.sym.is_name && out.sym.name == name) return false;
  }
  for (const pt2::Node& node : graph.nodes) {
    bool used = false;
    for (const pt2::NamedArgument& in : node.inputs) {
      used = used || (in.arg.sym.is_name && in.arg.sym.name == name);
      for (const pt2::SymArg& item : in.arg.syms) {
        if (item.is_name && item.name == name) return false;
      }
    }
    if (!used) continue;
    if (node.target == "torch.ops.aten._assert_scalar.default") continue;
    if (!absl::StartsWith(node.target, "_operator.")) return false;
    for (const pt2::Argument& out : node.outputs) {
      if (!out.sym.is_name || !OnlyAsserted(graph, out.sym.name, depth + 1)) return false;
    }
  }
  return true;
}

// aten::sym_storage_offset(Tensor self) -> SymInt
// ONNX values have no storage: a view's offset into its base exists only in
// torch. A static offset is a constant. A symbolic one (a data-dependent view
// such as tensor_split by a tensor) is accepted when it only feeds runtime
// assertions, which emit nothing: a placeholder 0 stands in, and dead-code
// elimination removes it with the comparisons.
absl::Status AtenSymStorageOffset(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  if (!meta->storage_offset.is_symbolic) return ctx.SetOutput(0, ctx.ConstantInt64(meta->storage_offset.value));
  if (ctx.num_outputs() == 0) return absl::OkStatus();
  const pt2::Argument& out = ctx.node().outputs[0];
  if (!out.sym.is_name || !OnlyAsserted(ctx.fx_graph(), out.sym.name, 0)) {
    return ctx.Unsupported("the storage offset of a data-dependent view used as a value (ONNX tensors have no "
                           "storage); compute the offset from the view's indices instead");
  }
  return ctx.SetOutput(0, ctx.ConstantInt64(0));
}

// ---- Assertions ----------------------------------------------------------------

// aten::_assert_scalar(Scalar self, str assert_msg) -> ()
// (also _assert_tensor_metadata, _assert_async(.msg), sym_constrain_range(_for_size))
absl::Status AtenAssertNoOutput(TranslateContext&) { return absl::OkStatus(); }

// aten::_functional_assert_async.msg(Tensor self, str assert_msg, Tensor dep_token) -> Tensor
// (also _functional_assert_scalar, _functional_sym_constrain_range(_for_size), _make_dep_token)
absl::Status AtenAssertToken(TranslateContext& ctx) {
  if (ctx.num_outputs() == 0) return absl::OkStatus();
  return ctx.SetOutput(0, ctx.Constant(ir::Tensor::Owned(DataType::kFloat, {0}, "")));
}

}  // namespace

void RegisterSymbolicOps(OpRegistry& r) {
  r.Add("_operator::add", &OperatorAdd);
  r.Add("_operator::sub", &OperatorSub);
  r.Add("_operator::mul", &OperatorMul);
  r.Add("_operator::pow", &OperatorPow);
  r.Add("_operator::truediv", &OperatorTruediv);
  r.Add("_operator::floordiv", &OperatorFloordiv);
  r.Add("_operator::mod", &OperatorMod);
  r.Add("_operator::neg", &OperatorNeg);
  r.Add("_operator::and_", &OperatorAnd);
  r.Add("_operator::or_", &OperatorOr);
  r.Add("_operator::eq", &OperatorEq);
  r.Add("_operator::ne", &OperatorNe);
  r.Add("_operator::lt", &OperatorLt);
  r.Add("_operator::le", &OperatorLe);
  r.Add("_operator::gt", &OperatorGt);
  r.Add("_operator::ge", &OperatorGe);
  r.Add("math::trunc", &MathTrunc);
  r.Add("torch::sym_float", &TorchSymFloat);
  r.Add("torch::sym_not", &TorchSymNot);
  r.Add("torch::_sym_sqrt", &TorchSymSqrt);
  r.Add("torch::sym_ite", &TorchSymIte);
  r.Add("torch::sym_max", &TorchSymMax);
  r.Add("torch::sym_min", &TorchSymMin);
  r.Add("aten::sym_size.int", &AtenSymSizeInt);
  r.Add("aten::sym_numel.default", &AtenSymNumel);
  r.Add("aten::sym_storage_offset.default", &AtenSymStorageOffset);
  r.Add("aten::_assert_scalar.default", &AtenAssertNoOutput);
  r.Add("aten::_assert_tensor_metadata.default", &AtenAssertNoOutput);
  r.Add("aten::_assert_async.default", &AtenAssertNoOutput);
  r.Add("aten::_assert_async.msg", &AtenAssertNoOutput);
  r.Add("aten::sym_constrain_range.default", &AtenAssertNoOutput);
  r.Add("aten::sym_constrain_range_for_size.default", &AtenAssertNoOutput);
  r.Add("aten::_functional_assert_async.msg", &AtenAssertToken);
  r.Add("aten::_functional_assert_scalar.default", &AtenAssertToken);
  r.Add("aten::_functional_sym_constrain_range.default", &AtenAssertToken);
  r.Add("aten::_functional_sym_constrain_range_for_size.default", &AtenAssertToken);
  r.Add("aten::_make_dep_token.default", &AtenAssertToken);
}

}  // namespace pt2onnx::ops
