// File: ops/cumulative.cc
// -----------------------------------------------------------------------------
// Ops that combine neighbouring elements along one dim: diff, and the
// inclusive scans cumprod, cummax, cummin, logcumsumexp (cumsum is ONNX
// CumSum, with the reductions in reduction.cc).
//
// ONNX has no scan for these (for cumprod, before CumProd in opset 26), so
// they are built as a log-step (Hillis-Steele) scan: ceil(log2(n)) rounds, round k combining each element with the one
// 2^k before it (63 rounds when the length is symbolic; elements past the
// start combine with the identity). The combining functions are associative,
// so the result is torch's sequential scan:
// * cummax / cummin keep (value, index) and take the later element when it is
//   NaN or when neither is NaN and it is >= (<=) the earlier one, exactly
//   torch's rule (aten/src/ATen/native/ReduceOps.cpp cummax_cummin_helper):
//   that is "the latest maximum of the prefix, NaN above all", an order-free
//   definition, so values and indices are exact.
// * cumprod multiplies float inputs in float64 (torch accumulates in double
//   on CPU too) and integers in int64 (wrapping products are associative).
// * logcumsumexp combines with torch's log-add-exp (equal infinities stay,
//   NaN propagates) in float64; torch accumulates in the input's precision,
//   so float32 results agree to a few ulps.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// Each order of diff is three nodes; orders above this are refused rather
// than unrolled into a graph whose size the file chooses.
constexpr int64_t kMaxDiffOrder = 64;

// Size of `meta` along `axis` when static.
std::optional<int64_t> StaticSize(const pt2::TensorMeta* meta, int64_t axis) {
  if (meta == nullptr || axis >= static_cast<int64_t>(meta->sizes.size())) return std::nullopt;
  const pt2::SymInt& s = meta->sizes[axis];
  if (s.is_symbolic) return std::nullopt;
  return s.value;
}

// torch (aten/src/ATen/native/ReduceOps.cpp): prepend/append are concatenated
// along dim, then x[1:] - x[:-1] (logical_xor for bool) is taken n times; n
// above the length gives an empty result, and n == 0 returns self unchanged
// (prepend/append ignored). The concatenation promotes to the result dtype.
// aten::diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor
absl::Status AtenDiff(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, ctx.Int("n"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  if (rank == 0) return ctx.Invalid("diff expects input to be at least one-dimensional");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(dim, rank, "dim of aten::diff"));
  if (n < 0) return ctx.Invalid(absl::StrCat("order must be non-negative but got n=", n));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  if (n == 0) return ctx.SetOutput(0, x);

  std::vector<std::string> parts;
  std::optional<int64_t> length = StaticSize(meta, axis);
  for (absl::string_view arg : {"prepend", "self", "append"}) {
    if (arg == "self") {
      parts.push_back(x);
      continue;
    }
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> extra, ctx.OptionalInput(arg));
    if (!extra.has_value()) continue;
    PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* extra_meta, ctx.InputMeta(arg));
    if (static_cast<int64_t>(extra_meta->sizes.size()) != rank) {
      return ctx.Invalid(absl::StrCat(arg, " must have the same number of dimensions as self"));
    }
    std::optional<int64_t> extra_length = StaticSize(extra_meta, axis);
    length = length.has_value() && extra_length.has_value()
                 ? std::optional<int64_t>(*length + *extra_length)
                 : std::nullopt;
    PT2ONNX_ASSIGN_OR_RETURN(DataType extra_dtype, ctx.InputDtype(arg));
    parts.push_back(ctx.CastTo(*extra, extra_dtype, dtype));
  }
  std::string result =
      parts.size() == 1 ? x : ctx.Op("Concat", parts, {ir::Attribute::Int("axis", axis)});

  // Orders beyond a static length all give the same empty result.
  if (length.has_value() && n > *length) n = *length;
  if (n > kMaxDiffOrder) {
    return ctx.Unsupported(absl::StrCat("diff of order n=", n, " (more than ", kMaxDiffOrder,
                                        ") is not supported"));
  }
  std::string axes = ctx.ConstantInt64s({axis});
  std::string zero = ctx.ConstantInt64s({0});
  std::string one = ctx.ConstantInt64s({1});
  std::string minus_one = ctx.ConstantInt64s({-1});
  std::string end = ctx.ConstantInt64s({std::numeric_limits<int64_t>::max()});
  for (int64_t i = 0; i < n; ++i) {
    std::string later = ctx.Op("Slice", {result, one, end, axes});
    std::string earlier = ctx.Op("Slice", {result, zero, minus_one, axes});
    result = ctx.Op(dtype == DataType::kBool ? "Xor" : "Sub", {later, earlier});
  }
  return ctx.SetOutput(0, result);
}

// ---- log-step scans ---------------------------------------------------------

struct ScanAxis {
  int64_t axis = 0;
  std::optional<int64_t> length;
  std::string shape;  // Shape(x)
};

// Rounds needed for `length` elements (the bit length of length - 1).
int Rounds(const ScanAxis& a) {
  if (!a.length.has_value()) return 63;
  int rounds = 0;
  for (int64_t span = 1; span < *a.length; span *= 2) ++rounds;
  return rounds;
}

// The length along the axis as a 1-D INT64 value.
std::string Length(TranslateContext& ctx, const ScanAxis& a) {
  if (a.length.has_value()) return ctx.ConstantInt64s({*a.length});
  return ctx.Op("Slice",
                {a.shape, ctx.ConstantInt64s({a.axis}), ctx.ConstantInt64s({a.axis + 1})});
}

// y shifted `shift` places along the axis, the first places taken from
// `fill` (a tensor of y's shape).
std::string Shifted(TranslateContext& ctx, const ScanAxis& a, const std::string& y,
                    const std::string& fill, int64_t shift) {
  std::string axes = ctx.ConstantInt64s({a.axis});
  std::string zero = ctx.ConstantInt64s({0});
  std::string n = Length(ctx, a);
  std::string s = ctx.Op("Min", {ctx.ConstantInt64s({shift}), n});
  std::string head = ctx.Op("Slice", {fill, zero, s, axes});
  std::string tail = ctx.Op("Slice", {y, zero, ctx.Op("Sub", {n, s}), axes});
  return ctx.Op("Concat", {head, tail}, {ir::Attribute::Int("axis", a.axis)});
}

absl::StatusOr<ScanAxis> ReadScanAxis(TranslateContext& ctx, const std::string& x) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  ScanAxis a;
  PT2ONNX_ASSIGN_OR_RETURN(a.axis, CheckedAxis(dim, rank, absl::StrCat("dim of ", ctx.key())));
  a.length = rank == 0 ? std::optional<int64_t>(1) : StaticSize(meta, a.axis);
  a.shape = ctx.Op("Shape", {x});
  return a;
}

bool IsSmallInteger(DataType t) {
  return t == DataType::kBool || t == DataType::kUint8 || t == DataType::kInt8 ||
         t == DataType::kInt16 || t == DataType::kInt32 || t == DataType::kUint16;
}

// cumprod's operand in its compute dtype (float64 or int64), and the result dtype.
struct CumprodOperand {
  std::string x;
  DataType out;
  DataType compute;
};
absl::StatusOr<CumprodOperand> ReadCumprodOperand(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  DataType compute = IsFloatingPoint(out) ? DataType::kDouble : DataType::kInt64;
  if (IsComplex(out) || (!IsFloatingPoint(out) && !IsInteger(out))) {
    return ctx.Unsupported(absl::StrCat("cumprod with a ", DataTypeName(out), " result"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType in, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  x = ctx.CastTo(ctx.CastTo(x, in, out), out, compute);  // torch converts to dtype first
  return CumprodOperand{std::move(x), out, compute};
}

// aten::cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
absl::Status AtenCumprod(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(CumprodOperand c, ReadCumprodOperand(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(ScanAxis a, ReadScanAxis(ctx, c.x));
  std::string ones = ctx.Op("Expand", {ctx.ConstantScalar(c.compute, 1), a.shape});
  std::string y = c.x;
  for (int k = 0; k < Rounds(a); ++k) {
    y = ctx.Op("Mul", {y, Shifted(ctx, a, y, ones, int64_t{1} << k)});
  }
  return ctx.SetOutput(0, ctx.CastTo(y, c.compute, c.out));
}

// Opset 26: one CumProd in the same compute dtype, multiplying in order as
// torch does (aten/src/ATen/native/cpu/ReduceOpsKernel.cpp, cumprod_cpu_kernel).
absl::Status AtenCumprodOpset26(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(CumprodOperand c, ReadCumprodOperand(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  const int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(dim, rank, absl::StrCat("dim of ", ctx.key())));
  std::string y = rank == 0 ? c.x  // a 0-d tensor is its own product
                            : ctx.Op("CumProd", {c.x, ctx.ConstantInt64s({axis})});
  return ctx.SetOutput(0, ctx.CastTo(y, c.compute, c.out));
}

// aten::logcumsumexp(Tensor self, int dim) -> Tensor
absl::Status AtenLogcumsumexp(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  if (!IsFloatingPoint(out)) {
    return ctx.Unsupported(absl::StrCat("logcumsumexp with a ", DataTypeName(out), " result"));
  }
  const DataType f64 = DataType::kDouble;
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", f64));
  PT2ONNX_ASSIGN_OR_RETURN(ScanAxis a, ReadScanAxis(ctx, x));
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::string minus_inf = ctx.Op("Expand", {ctx.ConstantScalar(f64, -kInf), a.shape});
  std::string nan = ctx.ConstantScalar(f64, std::numeric_limits<double>::quiet_NaN());
  std::string y = x;
  for (int k = 0; k < Rounds(a); ++k) {
    std::string earlier = Shifted(ctx, a, y, minus_inf, int64_t{1} << k);
    std::string hi = ctx.Op("Max", {earlier, y});
    std::string lo = ctx.Op("Min", {earlier, y});
    std::string exp = ctx.Op("Exp", {ctx.Op("Sub", {lo, hi})});
    std::string log1p = ctx.Op("Log", {ctx.Op("Add", {ctx.ConstantScalar(f64, 1), exp})});
    std::string sum = ctx.Op("Add", {hi, log1p});
    // Equal infinities stay as they are (inf - inf would be NaN).
    std::string same_infinity = ctx.Op("And", {ctx.Op("Equal", {lo, hi}), ctx.Op("IsInf", {lo})});
    std::string combined = ctx.Op("Where", {same_infinity, hi, sum});
    std::string any_nan = ctx.Op("Or", {ctx.Op("IsNaN", {earlier}), ctx.Op("IsNaN", {y})});
    y = ctx.Op("Where", {any_nan, nan, combined});
  }
  return ctx.SetOutput(0, ctx.CastTo(y, f64, out));
}

// aten::cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)
// aten::cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)
absl::Status CumulativeExtreme(TranslateContext& ctx, bool maximum) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  DataType compute = dtype;
  if (dtype == DataType::kFloat16 || dtype == DataType::kBFloat16) compute = DataType::kFloat;
  if (IsSmallInteger(dtype)) compute = DataType::kInt32;
  if (dtype == DataType::kUint32) compute = DataType::kInt64;
  bool floating = IsFloatingPoint(compute);
  if (!floating && compute != DataType::kInt32 && compute != DataType::kInt64) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " of ", DataTypeName(dtype), " tensors"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", compute));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(ScanAxis a, ReadScanAxis(ctx, x));
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  if (rank == 0) {  // a 0-d tensor is its own running extreme, at index 0
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.CastTo(x, compute, dtype)));
    return ctx.OutputUsed(1) ? ctx.SetOutput(1, ctx.ConstantInt64(0)) : absl::OkStatus();
  }
  // Identity: below (above) every value, so any later element wins. The int64
  // bounds are built as int64 constants: INT64_MAX is no double (it rounds to
  // 2^63, which does not convert back).
  std::string identity;
  if (floating) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    identity = ctx.ConstantScalar(compute, maximum ? -kInf : kInf);
  } else if (compute == DataType::kInt32) {
    identity = ctx.ConstantScalar(compute, maximum ? std::numeric_limits<int32_t>::min()
                                                   : std::numeric_limits<int32_t>::max());
  } else {
    identity = ctx.ConstantInt64(maximum ? std::numeric_limits<int64_t>::min()
                                         : std::numeric_limits<int64_t>::max());
  }
  std::string fill_value = ctx.Op("Expand", {identity, a.shape});
  std::string fill_index = ctx.Op("Expand", {ctx.ConstantInt64(-1), a.shape});
  // Positions along the axis, broadcast to x's shape.
  std::string n = Squeeze(ctx, Length(ctx, a), {0});
  std::string iota = ctx.Op("Range", {ctx.ConstantInt64(0), n, ctx.ConstantInt64(1)});
  std::vector<int64_t> trailing;
  for (int64_t d = a.axis + 1; d < rank; ++d) trailing.push_back(d - a.axis);
  if (!trailing.empty()) iota = Unsqueeze(ctx, iota, trailing);
  std::string values = x;
  std::string indices = ctx.Op("Expand", {iota, a.shape});
  for (int k = 0; k < Rounds(a); ++k) {
    int64_t shift = int64_t{1} << k;
    std::string earlier = Shifted(ctx, a, values, fill_value, shift);
    std::string earlier_index = Shifted(ctx, a, indices, fill_index, shift);
    std::string later_wins = ctx.Op(maximum ? "GreaterOrEqual" : "LessOrEqual", {values, earlier});
    if (floating) {
      std::string not_nan_earlier = ctx.Op("Not", {ctx.Op("IsNaN", {earlier})});
      std::string not_nan_later_wins = ctx.Op("And", {not_nan_earlier, later_wins});
      later_wins = ctx.Op("Or", {ctx.Op("IsNaN", {values}), not_nan_later_wins});
    }
    values = ctx.Op("Where", {later_wins, values, earlier});
    indices = ctx.Op("Where", {later_wins, indices, earlier_index});
  }
  if (ctx.OutputUsed(0)) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.CastTo(values, compute, dtype)));
  }
  if (ctx.OutputUsed(1)) PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, indices));
  return absl::OkStatus();
}

absl::Status AtenCummax(TranslateContext& ctx) { return CumulativeExtreme(ctx, true); }
absl::Status AtenCummin(TranslateContext& ctx) { return CumulativeExtreme(ctx, false); }

}  // namespace

void RegisterCumulativeOps(OpRegistry& r) {
  r.Add("aten::diff.default", &AtenDiff);
  r.Add("aten::cumprod.default", &AtenCumprod, kMinOpset, 25);
  // CumProd became an ONNX operator in opset 26.
  r.Add("aten::cumprod.default", &AtenCumprodOpset26, 26);
  r.Add("aten::logcumsumexp.default", &AtenLogcumsumexp);
  r.Add("aten::cummax.default", &AtenCummax);
  r.Add("aten::cummin.default", &AtenCummin);
}

}  // namespace pt2onnx::ops
