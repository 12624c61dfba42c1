// File: ops/masked_index.cc
// -----------------------------------------------------------------------------
// The masked indexing pair that upsampling decompositions emit:
// _unsafe_masked_index (x[indices] with the indices clamped into range,
// `fill` where mask is false) and _unsafe_masked_index_put_accumulate (values
// zeroed where mask is false, added at the clamped indices)
// (torch/_decomp/decompositions.py). The indices, one per leading dim of x,
// broadcast together; GatherND / ScatterND(add) on their stack. None entries
// (unindexed dims between indexed ones) are refused.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

struct StackedIndices {
  std::string stacked;  // [B..., k] int64
  std::string batch_shape;  // shape of B
  int64_t k = 0;
};

// The indices clamped into [low(size), size - 1] per dim, broadcast and
// stacked on a new last axis. `wrap_negative`: put's clamp keeps [-size,
// size) and negative ones then count from the end; else [0, size).
absl::StatusOr<StackedIndices> StackIndices(TranslateContext& ctx, const std::string& x, int64_t rank,
                                            bool wrap_negative) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::optional<std::string>> indices, ctx.OptionalInputs("indices"));
  const int64_t k = static_cast<int64_t>(indices.size());
  if (k == 0 || k > rank) return ctx.Invalid("indices must index between 1 and self's rank dims");
  std::vector<std::string> parts;
  for (int64_t d = 0; d < k; ++d) {
    if (!indices[d]) return ctx.Unsupported("masked indexing with a None index");
    const pt2::TensorMeta* meta = ctx.InputListMeta("indices", static_cast<size_t>(d));
    if (meta == nullptr) return ctx.Unsupported("masked indexing with an index of unknown dtype");
    std::string i = ctx.CastTo(*indices[d], meta->dtype, DataType::kInt64);
    std::string size = Reshape(ctx, ShapeSlice(ctx, x, d, d + 1), {});
    std::string top = ctx.Op("Sub", {size, ctx.ConstantInt64(1)});
    std::string low = wrap_negative ? ctx.Op("Neg", {size}) : ctx.ConstantInt64(0);
    i = ctx.Op("Min", {ctx.Op("Max", {i, low}), top});
    if (wrap_negative) i = ctx.Op("Where", {ctx.Op("Less", {i, ctx.ConstantInt64(0)}), ctx.Op("Add", {i, size}), i});
    parts.push_back(i);
  }
  std::string common = parts[0];
  for (int64_t d = 1; d < k; ++d) common = ctx.Op("Expand", {common, ctx.Op("Shape", {parts[d]})});
  std::string batch_shape = ctx.Op("Shape", {common});
  std::vector<std::string> columns;
  for (const std::string& p : parts) columns.push_back(Unsqueeze(ctx, ctx.Op("Expand", {p, batch_shape}), {-1}));
  std::string stacked = k == 1 ? columns[0] : ctx.Op("Concat", columns, {Attribute::Int("axis", -1)});
  return StackedIndices{stacked, batch_shape, k};
}

// aten::_unsafe_masked_index(Tensor self, Tensor mask, Tensor?[] indices, Scalar fill) -> Tensor
absl::Status AtenUnsafeMaskedIndex(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mask, ctx.Input("mask"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string fill, ctx.InputOrScalarAs("fill", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  bool empty = false;
  for (const pt2::SymInt& s : meta->sizes) empty = empty || (!s.is_symbolic && s.value == 0);
  PT2ONNX_ASSIGN_OR_RETURN(StackedIndices at, StackIndices(ctx, x, rank, false));
  std::string out_shape = ctx.Op("Concat", {at.batch_shape, ShapeSlice(ctx, x, at.k, rank)}, {Attribute::Int("axis", 0)});
  if (empty) return ctx.SetOutput(0, ctx.Op("Expand", {fill, out_shape}));  // torch: all fill
  std::string taken = ctx.Op("GatherND", {x, at.stacked});
  return ctx.SetOutput(0, ctx.Op("Where", {mask, taken, fill}));
}

// aten::_unsafe_masked_index_put_accumulate(Tensor self, Tensor mask, Tensor?[] indices, Tensor values) -> Tensor
absl::Status AtenUnsafeMaskedIndexPutAccumulate(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mask, ctx.Input("mask"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string values, ctx.InputAs("values", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  for (const pt2::SymInt& s : meta->sizes) {
    if (!s.is_symbolic && s.value == 0) return ctx.SetOutput(0, ctx.Op("Identity", {x}));
  }
  if (dtype == DataType::kBool) return ctx.Unsupported("accumulating bool values");
  PT2ONNX_ASSIGN_OR_RETURN(StackedIndices at, StackIndices(ctx, x, rank, true));
  std::string update_shape = ctx.Op("Concat", {at.batch_shape, ShapeSlice(ctx, x, at.k, rank)},
                                    {Attribute::Int("axis", 0)});
  std::string masked = ctx.Op("Where", {mask, values, ctx.ConstantScalar(dtype, 0)});
  std::string updates = ctx.Op("Expand", {masked, update_shape});
  return ctx.SetOutput(0, ctx.Op("ScatterND", {x, at.stacked, updates}, {Attribute::String("reduction", "add")}));
}

}  // namespace

void RegisterMaskedIndexOps(OpRegistry& r) {
  r.Add("aten::_unsafe_masked_index.default", &AtenUnsafeMaskedIndex);
  r.Add("aten::_unsafe_masked_index_put_accumulate.default", &AtenUnsafeMaskedIndexPutAccumulate);
}

}  // namespace pt2onnx::ops
