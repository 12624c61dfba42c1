// File: ops/block_products.cc
// -----------------------------------------------------------------------------
// block_diag (each input a block on the diagonal, zeros beside it) and
// cartesian_prod (every combination of the inputs' elements, first input
// slowest), with sizes read at run time, and linalg_vander (powers of x). Semantics:
// aten/src/ATen/native/TensorShape.cpp (block_diag) and
// aten/src/ATen/native/Itertools.cpp (cartesian_prod).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// One Mul per column: more columns than this are refused.
constexpr int64_t kMaxVanderColumns = 1024;

// The `tensors` list cast to the output dtype, with each element's rank.
absl::StatusOr<std::vector<std::pair<std::string, int64_t>>> CastParts(TranslateContext& ctx, DataType dtype) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> tensors, ctx.Inputs("tensors"));
  std::vector<std::pair<std::string, int64_t>> parts;
  for (size_t j = 0; j < tensors.size(); ++j) {
    const pt2::TensorMeta* meta = ctx.InputListMeta("tensors", j);
    if (meta == nullptr) return ctx.Invalid(absl::StrCat("tensors[", j, "] has no metadata"));
    parts.push_back({ctx.CastTo(tensors[j], meta->dtype, dtype), static_cast<int64_t>(meta->sizes.size())});
  }
  return parts;
}

// aten::block_diag(Tensor[] tensors) -> Tensor
// 0-d inputs are 1x1 blocks, 1-d inputs one row.
absl::Status AtenBlockDiag(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(auto parts, CastParts(ctx, dtype));
  if (parts.empty()) return ctx.Invalid("block_diag of no tensors");
  std::vector<std::string> blocks, cols;
  for (size_t j = 0; j < parts.size(); ++j) {
    const auto& [value, rank] = parts[j];
    if (rank > 2) return ctx.Invalid(absl::StrCat("block_diag: tensors[", j, "] has ", rank, " dims, at most 2"));
    blocks.push_back(rank == 2 ? value : Reshape(ctx, value, {1, -1}));
    cols.push_back(ShapeSlice(ctx, blocks.back(), 1, 2));
  }
  const Attribute along_cols = Attribute::Int("axis", 1);
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string none = ctx.ConstantInt64s({0});
  std::vector<std::string> rows;
  for (size_t j = 0; j < blocks.size(); ++j) {
    std::string before = none, after = none;
    for (size_t q = 0; q < blocks.size(); ++q) {
      if (q < j) before = ctx.Op("Add", {before, cols[q]});
      if (q > j) after = ctx.Op("Add", {after, cols[q]});
    }
    std::string height = ShapeSlice(ctx, blocks[j], 0, 1);
    auto zeros = [&](const std::string& width) {
      return ctx.Op("Expand", {zero, ctx.Op("Concat", {height, width}, {Attribute::Int("axis", 0)})});
    };
    rows.push_back(ctx.Op("Concat", {zeros(before), blocks[j], zeros(after)}, {along_cols}));
  }
  if (rows.size() == 1) return ctx.SetOutput(0, rows[0]);
  return ctx.SetOutput(0, ctx.Op("Concat", rows, {Attribute::Int("axis", 0)}));
}

// aten::cartesian_prod(Tensor[] tensors) -> Tensor
// One input comes back as is; k inputs give (n_0 * ... * n_{k-1}, k).
absl::Status AtenCartesianProd(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(auto parts, CastParts(ctx, dtype));
  if (parts.empty()) return ctx.Invalid("cartesian_prod of no tensors");
  for (const auto& part : parts) {
    if (part.second != 1) return ctx.Invalid("cartesian_prod expects 1-d tensors");
  }
  if (parts.size() == 1) return ctx.SetOutput(0, parts[0].first);
  const int64_t k = static_cast<int64_t>(parts.size());
  std::vector<std::string> lengths;
  for (const auto& part : parts) lengths.push_back(ctx.Op("Shape", {part.first}));
  std::string grid = ctx.Op("Concat", lengths, {Attribute::Int("axis", 0)});
  std::vector<std::string> columns;
  for (int64_t j = 0; j < k; ++j) {
    std::vector<int64_t> others;
    for (int64_t d = 0; d < k; ++d) {
      if (d != j) others.push_back(d);
    }
    std::string spread = ctx.Op("Expand", {Unsqueeze(ctx, parts[j].first, others), grid});
    columns.push_back(Unsqueeze(ctx, Reshape(ctx, spread, {-1}), {1}));
  }
  return ctx.SetOutput(0, ctx.Op("Concat", columns, {Attribute::Int("axis", 1)}));
}

// aten::linalg_vander(Tensor x, *, SymInt? N=None) -> Tensor
// Columns 1, x, x*x, ... (N of them, N defaults to x's last size), each the
// previous times x as torch's cumprod computes them, so the values match
// exactly (aten/src/ATen/native/LinearAlgebra.cpp, linalg_vander).
absl::Status AtenLinalgVander(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("x"));
  if (meta->dtype == DataType::kBool) return ctx.Invalid("linalg.vander does not take bool tensors");
  int64_t rank = static_cast<int64_t>(meta->sizes.size());
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> given, ctx.OptionalInt("N"));
  int64_t n = 0;
  if (given) {
    n = *given;
  } else if (rank == 0) {
    n = 1;
  } else if (!meta->sizes.back().is_symbolic) {
    n = meta->sizes.back().value;
  } else {
    return ctx.Unsupported("linalg.vander with N taken from a symbolic size; pass N");
  }
  if (n <= 1) return ctx.Invalid(absl::StrCat("N must be greater than 1, got ", n));
  if (n > kMaxVanderColumns) return ctx.Unsupported(absl::StrCat("linalg.vander with ", n, " columns"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("x", dtype));
  if (rank == 0) {
    x = Reshape(ctx, x, {1});
    rank = 1;
  }
  std::string column = Unsqueeze(ctx, x, {rank});
  std::vector<std::string> columns = {ctx.Op("Expand", {ctx.ConstantScalar(dtype, 1), ctx.Op("Shape", {column})}),
                                      column};
  for (int64_t j = 2; j < n; ++j) columns.push_back(ctx.Op("Mul", {columns.back(), column}));
  return ctx.SetOutput(0, ctx.Op("Concat", columns, {Attribute::Int("axis", rank)}));
}

// Index rows of r-combinations of 0..n-1 in lexicographic order (each index
// >= the previous one with replacement, > without); nullopt past `limit`.
std::optional<std::vector<int64_t>> CombinationRows(int64_t n, int64_t r, bool replace, int64_t limit) {
  std::vector<int64_t> rows, at(static_cast<size_t>(r), 0);
  std::function<bool(int64_t, int64_t)> fill = [&](int64_t k, int64_t from) {
    if (k == r) {
      if (static_cast<int64_t>(rows.size()) + r > limit) return false;
      rows.insert(rows.end(), at.begin(), at.end());
      return true;
    }
    for (int64_t i = from; i < n; ++i) {
      at[static_cast<size_t>(k)] = i;
      if (!fill(k + 1, replace ? i : i + 1)) return false;
    }
    return true;
  };
  if (!fill(0, 0)) return std::nullopt;
  return rows;
}

// aten::combinations(Tensor self, int r=2, bool with_replacement=False) -> Tensor
// (count, r) rows of self's elements, as itertools.combinations(_with_replacement)
// orders them; r = 0 gives an empty 1-D tensor (aten/src/ATen/native/Itertools.cpp).
// A Gather at constant index rows, so self's length must be static.
absl::Status AtenCombinations(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t r, ctx.Int("r"));
  PT2ONNX_ASSIGN_OR_RETURN(bool replace, ctx.Bool("with_replacement"));
  if (meta->sizes.size() != 1) return ctx.Invalid("combinations expects a 1-D tensor");
  if (r < 0) return ctx.Invalid("combinations expects a non-negative r");
  if (meta->sizes[0].is_symbolic) return ctx.Unsupported("combinations of a dynamic-length tensor");
  const int64_t n = meta->sizes[0].value;
  if (r == 0) return ctx.SetOutput(0, ctx.Op("Gather", {x, ctx.Constant(ir::Tensor::Int64s({0}, {}))}));
  std::optional<std::vector<int64_t>> rows = CombinationRows(n, r, replace, int64_t{1} << 22);
  if (!rows) return ctx.Unsupported("combinations with more than 4M index entries");
  const int64_t count = static_cast<int64_t>(rows->size()) / r;
  std::string at = ctx.Constant(ir::Tensor::Int64s({count, r}, std::move(*rows)));
  return ctx.SetOutput(0, ctx.Op("Gather", {x, at}, {Attribute::Int("axis", 0)}));
}

}  // namespace

void RegisterBlockProductOps(OpRegistry& r) {
  r.Add("aten::combinations.default", &AtenCombinations);
  r.Add("aten::block_diag.default", &AtenBlockDiag);
  r.Add("aten::cartesian_prod.default", &AtenCartesianProd);
  r.Add("aten::linalg_vander.default", &AtenLinalgVander);
}

}  // namespace pt2onnx::ops
