// File: ops/cumulative.cc
// -----------------------------------------------------------------------------
// Ops that combine neighbouring elements along one dim: diff. (cumsum lives
// with the reductions in reduction.cc.)
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/families.h"
#include "ops/op_helpers.h"
#include "ops/translate_context.h"

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

}  // namespace

void RegisterCumulativeOps(OpRegistry& r) {
  r.Add("aten::diff.default", &AtenDiff);
}

}  // namespace pt2onnx::ops
