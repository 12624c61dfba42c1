// File: ops/data_dependent.cc
// -----------------------------------------------------------------------------
// Ops whose output size depends on the values: nonzero and masked_select
// (the .pt2 gives the result an unbacked size symbol, u0; ONNX NonZero and
// Compress compute it at run time), and masked_scatter, which has a fixed
// output shape but reads a data-dependent number of source elements.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

std::string Flatten1d(TranslateContext& ctx, const std::string& x) { return Reshape(ctx, x, {-1}); }

// `x` as bool (nonzero test), with no node when it already is.
std::string AsBool(TranslateContext& ctx, const std::string& x, DataType dtype) {
  return ctx.CastTo(x, dtype, DataType::kBool);
}

// aten::nonzero(Tensor self) -> Tensor
// (n, rank) int64 indices of the nonzero elements in row-major order, as
// ONNX NonZero (rank, n) transposed. A 0-d input gives (n, 0).
absl::Status AtenNonzero(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank == 0) {
    std::string indices = ctx.Op("NonZero", {Reshape(ctx, self, {1})});  // (1, n)
    std::string columns = ctx.Op("Transpose", {indices}, {Attribute::Ints("perm", {1, 0})});
    return ctx.SetOutput(0, ctx.Op("Slice", {columns, ctx.ConstantInt64s({0}),
                                             ctx.ConstantInt64s({0}), ctx.ConstantInt64s({1})}));
  }
  std::string indices = ctx.Op("NonZero", {self});
  return ctx.SetOutput(0, ctx.Op("Transpose", {indices}, {Attribute::Ints("perm", {1, 0})}));
}

// aten::nonzero_numpy(Tensor self) -> Tensor[]
// nonzero's columns, one 1-D tensor per dim; a 0-d input counts as 1-D
// (aten/src/ATen/native/TensorAdvancedIndexing.cpp unsqueezes it).
absl::Status AtenNonzeroNumpy(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  std::string indices = ctx.Op("NonZero", {rank == 0 ? Reshape(ctx, self, {1}) : self});  // (rank, n)
  std::vector<std::string> columns;
  for (int64_t d = 0; d < std::max<int64_t>(rank, 1); ++d) {
    columns.push_back(ctx.Op("Gather", {indices, ctx.ConstantInt64(d)}, {Attribute::Int("axis", 0)}));
  }
  return ctx.SetListOutput(0, columns);
}

// self and mask broadcast to their common shape.
struct Broadcast {
  std::string self;
  std::string mask;  // bool
};
absl::StatusOr<Broadcast> BroadcastSelfMask(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mask, ctx.Input("mask"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType mask_dtype, ctx.InputDtype("mask"));
  if (mask_dtype != DataType::kBool && mask_dtype != DataType::kUint8) {
    return ctx.Invalid("mask must be a bool tensor, as torch requires");
  }
  mask = AsBool(ctx, mask, mask_dtype);
  std::string self_b = ctx.Op("Expand", {self, ctx.Op("Shape", {mask})});
  std::string mask_b = ctx.Op("Expand", {mask, ctx.Op("Shape", {self_b})});
  return Broadcast{std::move(self_b), std::move(mask_b)};
}

// aten::masked_select(Tensor self, Tensor mask) -> Tensor
// The elements of broadcast(self, mask) where mask is true, row-major, 1-D.
absl::Status AtenMaskedSelect(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Broadcast b, BroadcastSelfMask(ctx));
  return ctx.SetOutput(0, ctx.Op("Compress", {Flatten1d(ctx, b.self), Flatten1d(ctx, b.mask)},
                                 {Attribute::Int("axis", 0)}));
}

// aten::masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor
// Where mask is true (row-major), the next element of source.flatten(); the
// k-th true position reads source[k], i.e. index cumsum(mask) - 1.
absl::Status AtenMaskedScatter(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Broadcast b, BroadcastSelfMask(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string source, ctx.InputAs("source", dtype));
  std::string flat_mask = Flatten1d(ctx, b.mask);
  std::string counts = ctx.Op("CumSum", {ctx.CastTo(flat_mask, DataType::kBool, DataType::kInt64),
                                         ctx.ConstantInt64(0)});
  // False positions read a zero appended to source (Where discards it), so
  // an empty source works when nothing is selected. A true position past the
  // end of source reads past the zero too: ONNX Runtime fails, as torch does.
  std::string available = ShapeSlice(ctx, Flatten1d(ctx, source), 0, 1);
  std::string wanted = ctx.Op("Sub", {counts, ctx.ConstantInt64(1)});
  std::string past_end = ctx.Op("Add", {available, ctx.ConstantInt64(1)});
  std::string index = ctx.Op("Where",
                             {flat_mask,
                              ctx.Op("Where",
                                     {ctx.Op("Less", {wanted, available}), wanted, past_end}),
                                       available});
  std::string padded = ctx.Op("Concat",
                              {Flatten1d(ctx, source),
                               Reshape(ctx, ctx.ConstantScalar(dtype, 0), {1})},
                              {Attribute::Int("axis", 0)});
  std::string picked = ctx.Op("Gather", {padded, index}, {Attribute::Int("axis", 0)});
  std::string flat = ctx.Op("Where", {flat_mask, picked, Flatten1d(ctx, b.self)});
  return ctx.SetOutput(0, ctx.Op("Reshape", {flat, ctx.Op("Shape", {b.self})}));
}

}  // namespace

void RegisterDataDependentOps(OpRegistry& r) {
  r.Add("aten::nonzero.default", &AtenNonzero);
  r.Add("aten::nonzero_numpy.default", &AtenNonzeroNumpy);
  r.Add("aten::masked_select.default", &AtenMaskedSelect);
  r.Add("aten::masked_scatter.default", &AtenMaskedScatter);
}

}  // namespace pt2onnx::ops
