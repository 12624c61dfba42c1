// File: ops/creation.cc
// -----------------------------------------------------------------------------
// Tensor factories: arange, zeros/ones/full/empty and their *_like and new_*
// forms, scalar_tensor, linspace, tril/triu.
//
// The element type always comes from the output's FX metadata, which already
// resolved torch's rules (an explicit dtype, else the input's dtype for
// *_like/new_*, else the default float32 / int64 from the fill value).
// Layout, device, pin_memory and memory_format have no ONNX meaning. empty
// tensors are zero-filled: their contents are unspecified in torch.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/bytes.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ArgKind = pt2::Argument::Kind;

// A 0-d fill value broadcast to `shape`. Expand takes every dtype at every
// opset we emit (ConstantOfShape gained bfloat16 only in opset 20).
absl::Status Fill(TranslateContext& ctx, const std::string& value, const std::string& shape) {
  return ctx.SetOutput(0, ctx.Op("Expand", {value, shape}));
}

// The fill value: `constant`, or the Scalar argument `value_arg` if named.
absl::StatusOr<std::string> FillValue(TranslateContext& ctx, DataType dtype, double constant,
                                      absl::string_view value_arg) {
  if (value_arg.empty()) return ctx.ConstantScalar(dtype, constant);
  return ctx.InputOrScalarAs(value_arg, dtype);
}

absl::Status FillSize(TranslateContext& ctx, double constant, absl::string_view value_arg = "") {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ctx.IntsAsTensor("size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string value, FillValue(ctx, dtype, constant, value_arg));
  return Fill(ctx, value, shape);
}

absl::Status FillLike(TranslateContext& ctx, double constant, absl::string_view value_arg = "") {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ShapeOf(ctx, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string value, FillValue(ctx, dtype, constant, value_arg));
  return Fill(ctx, value, shape);
}

// aten::zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenZeros(TranslateContext& ctx) { return FillSize(ctx, 0); }
// aten::ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenOnes(TranslateContext& ctx) { return FillSize(ctx, 1); }
// aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenFull(TranslateContext& ctx) { return FillSize(ctx, 0, "fill_value"); }
// aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
absl::Status AtenEmptyMemoryFormat(TranslateContext& ctx) { return FillSize(ctx, 0); }
// Strides only describe memory; the values are what ONNX sees.
// aten::empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenEmptyStrided(TranslateContext& ctx) { return FillSize(ctx, 0); }
// physical_layout only orders the memory; the logical sizes are `size`.
// aten::empty_permuted(SymInt[] size, int[] physical_layout, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenEmptyPermuted(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> layout, ctx.Ints("physical_layout"));
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument size, ctx.Arg("size"));
  const size_t rank = size.kind == ArgKind::kSymInts ? size.syms.size() : size.ints.size();
  std::vector<bool> seen(layout.size(), false);
  bool permutation = layout.size() == rank;
  for (int64_t d : layout) {
    if (!permutation || d < 0 || d >= static_cast<int64_t>(rank) || seen[d]) {
      permutation = false;
      break;
    }
    seen[d] = true;
  }
  if (!permutation) return ctx.Invalid("physical_layout must be a permutation of the dims of size");
  return FillSize(ctx, 0);
}
// aten::new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenNewZeros(TranslateContext& ctx) { return FillSize(ctx, 0); }
// aten::new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenNewOnes(TranslateContext& ctx) { return FillSize(ctx, 1); }
// aten::new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenNewFull(TranslateContext& ctx) { return FillSize(ctx, 0, "fill_value"); }
// aten::new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenNewEmpty(TranslateContext& ctx) { return FillSize(ctx, 0); }
// aten::new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenNewEmptyStrided(TranslateContext& ctx) { return FillSize(ctx, 0); }

// aten::zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
absl::Status AtenZerosLike(TranslateContext& ctx) { return FillLike(ctx, 0); }

// aten::zero(Tensor self) -> Tensor  (and zero_: Tensor.zero_())
absl::Status AtenZero(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ShapeOf(ctx, "self"));
  return BindResult(ctx, ctx.Op("Expand", {ctx.ConstantScalar(dtype, 0), shape}));
}
// aten::ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
absl::Status AtenOnesLike(TranslateContext& ctx) { return FillLike(ctx, 1); }
// aten::full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
absl::Status AtenFullLike(TranslateContext& ctx) { return FillLike(ctx, 0, "fill_value"); }
// aten::empty_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
absl::Status AtenEmptyLike(TranslateContext& ctx) { return FillLike(ctx, 0); }

// aten::scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenScalarTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string value, ctx.InputOrScalarAs("s", dtype));
  return ctx.SetOutput(0, value);
}

// ---- arange / linspace -------------------------------------------------------

bool IsIntArg(const TranslateContext& ctx, absl::string_view arg) {
  absl::StatusOr<pt2::Argument> a = ctx.Arg(arg);
  return a.ok() && (a->kind == ArgKind::kInt || a->kind == ArgKind::kSymInt);
}

// Range over [start, end) by step. Integer bounds count in int64 (exact);
// any float bound counts in double like ATen's accumulate type, so the length
// ceil((end - start) / step) and the values match torch before the final
// cast to the output dtype.
absl::Status Arange(TranslateContext& ctx, bool has_start, bool has_step) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  bool all_int = IsIntArg(ctx, "end") && (!has_start || IsIntArg(ctx, "start")) &&
                 (!has_step || IsIntArg(ctx, "step"));
  DataType compute = all_int ? DataType::kInt64 : DataType::kDouble;
  auto bound = [&](bool present, absl::string_view arg, double fallback) {
    return present ? ctx.InputOrScalarAs(arg, compute)
                   : absl::StatusOr<std::string>(ctx.ConstantScalar(compute, fallback));
  };
  PT2ONNX_ASSIGN_OR_RETURN(std::string start, bound(has_start, "start", 0));
  PT2ONNX_ASSIGN_OR_RETURN(std::string end, bound(true, "end", 0));
  PT2ONNX_ASSIGN_OR_RETURN(std::string step, bound(has_step, "step", 1));
  std::string range = ctx.Op("Range", {start, end, step});
  return ctx.SetOutput(0, ctx.CastTo(range, compute, dtype));
}

// aten::arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenArange(TranslateContext& ctx) { return Arange(ctx, false, false); }
// aten::arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenArangeStart(TranslateContext& ctx) { return Arange(ctx, true, false); }
// aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenArangeStartStep(TranslateContext& ctx) { return Arange(ctx, true, true); }

// Static linspace folds to a constant computed the way ATen's CPU kernel does
// (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp): the first half counts
// up from start, the second half down from end, in the output's float type
// (double for integer outputs), so the endpoints are exact.
template <typename T>
std::vector<double> LinspaceValues(T start, T end, int64_t steps) {
  std::vector<double> values;
  if (steps == 1) values.push_back(static_cast<double>(start));
  if (steps <= 1) return values;
  T step = (end - start) / static_cast<T>(steps - 1);
  int64_t halfway = steps / 2;
  for (int64_t i = 0; i < steps; ++i) {
    T v = i < halfway ? start + step * static_cast<T>(i)
                      : end - step * static_cast<T>(steps - i - 1);
    values.push_back(static_cast<double>(v));
  }
  return values;
}

// Above this many steps linspace is computed by the model, not folded: the
// file chooses `steps`, and a folded constant would grow with it.
constexpr int64_t kMaxFoldedLinspace = 4096;  // well below kMaxFoldedElements

// The same two-halves formula as LinspaceValues, as ONNX ops over
// Range(0, steps): i < steps / 2 ? start + step * i : end - step * (steps - 1 - i),
// in float (double for double and integer outputs). steps > 1 here.
absl::Status LinspaceAtRunTime(TranslateContext& ctx, DataType dtype, double start, double end,
                               int64_t steps) {
  const bool in_double = dtype == DataType::kDouble || !IsFloatingPoint(dtype);
  const DataType compute = in_double ? DataType::kDouble : DataType::kFloat;
  const double step = in_double ? (end - start) / static_cast<double>(steps - 1)
                                : static_cast<double>((static_cast<float>(end) -
                                                       static_cast<float>(start)) /
                                                      static_cast<float>(steps - 1));
  std::string index = ctx.Op("Range", {ctx.ConstantInt64(0), ctx.ConstantInt64(steps),
                                       ctx.ConstantInt64(1)});
  std::string from_end = ctx.Op("Sub", {ctx.ConstantInt64(steps - 1), index});
  std::string step_t = ctx.ConstantScalar(compute, step);
  std::string low = ctx.Op("Add", {ctx.ConstantScalar(compute, start),
                                   ctx.Op("Mul", {step_t, ctx.CastTo(index, DataType::kInt64,
                                                                     compute)})});
  std::string high = ctx.Op("Sub", {ctx.ConstantScalar(compute, end),
                                    ctx.Op("Mul", {step_t, ctx.CastTo(from_end, DataType::kInt64,
                                                                      compute)})});
  std::string first_half = ctx.Op("Less", {index, ctx.ConstantInt64(steps / 2)});
  std::string values = ctx.Op("Where", {first_half, low, high});
  return ctx.SetOutput(0, ctx.CastTo(values, compute, dtype));
}

// aten::linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenLinspace(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  absl::StatusOr<double> start = ctx.Float("start");
  absl::StatusOr<double> end = ctx.Float("end");
  if (!start.ok() || !end.ok()) {
    return ctx.Unsupported("linspace with symbolic start or end; export with constant bounds");
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t steps, ctx.Int("steps"));
  if (steps < 0) return ctx.Invalid(absl::StrCat("steps is negative (", steps, ")"));
  if (steps > kMaxFoldedLinspace) return LinspaceAtRunTime(ctx, dtype, *start, *end, steps);
  std::vector<double> values =
      dtype == DataType::kDouble || !IsFloatingPoint(dtype)
          ? LinspaceValues<double>(*start, *end, steps)
          : LinspaceValues<float>(static_cast<float>(*start), static_cast<float>(*end), steps);
  std::string bytes;
  for (double v : values) bytes += std::string(AsStringView(ir::Tensor::Scalar(dtype, v).bytes()));
  return ctx.SetOutput(0, ctx.Constant(ir::Tensor::Owned(dtype, {steps}, std::move(bytes))));
}

// ---- tril / triu -------------------------------------------------------------

absl::Status Trilu(TranslateContext& ctx, int64_t upper) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  std::string k = ctx.ConstantInt64(0);
  // In-place overloads have no schema to fill the default diagonal from.
  if (ctx.Has("diagonal")) {
    PT2ONNX_ASSIGN_OR_RETURN(k, ctx.SymIntAsTensor("diagonal"));
  }
  std::string y = ctx.Op("Trilu", {x, k}, {ir::Attribute::Int("upper", upper)});
  absl::string_view key = ctx.key();
  if (absl::StartsWith(key, "aten::tril_.") || absl::StartsWith(key, "aten::triu_.")) {
    return ctx.SetInPlaceResult("self", y);
  }
  return ctx.SetOutput(0, y);
}

// aten::tril(Tensor self, SymInt diagonal=0) -> Tensor
absl::Status AtenTril(TranslateContext& ctx) { return Trilu(ctx, 0); }
// aten::triu(Tensor self, SymInt diagonal=0) -> Tensor
absl::Status AtenTriu(TranslateContext& ctx) { return Trilu(ctx, 1); }

}  // namespace

void RegisterCreationOps(OpRegistry& r) {
  r.Add("aten::arange.default", &AtenArange);
  r.Add("aten::arange.start", &AtenArangeStart);
  r.Add("aten::arange.start_step", &AtenArangeStartStep);
  r.Add("aten::zeros.default", &AtenZeros);
  r.Add("aten::ones.default", &AtenOnes);
  r.Add("aten::full.default", &AtenFull);
  r.Add("aten::empty.memory_format", &AtenEmptyMemoryFormat);
  r.Add("aten::empty_strided.default", &AtenEmptyStrided);
  r.Add("aten::empty_permuted.default", &AtenEmptyPermuted);
  r.Add("aten::new_zeros.default", &AtenNewZeros);
  r.Add("aten::new_ones.default", &AtenNewOnes);
  r.Add("aten::new_full.default", &AtenNewFull);
  r.Add("aten::new_empty.default", &AtenNewEmpty);
  r.Add("aten::new_empty_strided.default", &AtenNewEmptyStrided);
  r.Add("aten::zeros_like.default", &AtenZerosLike);
  AddWithInPlace(r, "aten::zero", "default", &AtenZero);
  r.Add("aten::ones_like.default", &AtenOnesLike);
  r.Add("aten::full_like.default", &AtenFullLike);
  r.Add("aten::empty_like.default", &AtenEmptyLike);
  r.Add("aten::scalar_tensor.default", &AtenScalarTensor);
  r.Add("aten::linspace.default", &AtenLinspace);
  r.Add("aten::tril.default", &AtenTril);
  r.Add("aten::tril_.default", &AtenTril);
  r.Add("aten::triu.default", &AtenTriu);
  r.Add("aten::triu_.default", &AtenTriu);
}

}  // namespace pt2onnx::ops
