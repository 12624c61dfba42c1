// File: ops/split_meshgrid.cc
// -----------------------------------------------------------------------------
// View-like ops that real models use beyond shape.cc / slicing.cc:
// reshape_as, tensor_split (by indices, a section count or a tensor of
// indices), NumPy's hsplit / vsplit / dsplit and meshgrid.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
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

// The number of tensors a Tensor[]-returning node produces.
size_t ListOutputSize(const TranslateContext& ctx) {
  const pt2::Node& node = ctx.node();
  if (node.outputs.empty()) return 0;
  if (node.outputs[0].kind == pt2::Argument::Kind::kTensors) return node.outputs[0].names.size();
  return node.outputs.size();
}

// aten::reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)
absl::Status AtenReshapeAs(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ShapeOf(ctx, "other"));
  return ctx.SetOutput(0, ctx.Op("Reshape", {self, shape}));
}

absl::StatusOr<int64_t> SplitAxis(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  if (rank == 0) return ctx.Invalid("tensor_split needs a tensor with at least one dim");
  return CheckedAxis(dim, rank, "dim of aten::tensor_split");
}

// Piece j of `x` is x[bounds[j-1]:bounds[j]] along `axis`, for a 1-D INT64
// `bounds` of `cuts` entries (Python slice rules: negative positions count
// from the end, a reversed pair gives an empty piece).
absl::Status SplitAtBounds(TranslateContext& ctx, const std::string& x, int64_t axis,
                           const std::string& bounds, size_t cuts) {
  if (ListOutputSize(ctx) != cuts + 1) {
    return ctx.Invalid(absl::StrCat(cuts, " indices give ", cuts + 1, " pieces, the program expects ",
                                    ListOutputSize(ctx)));
  }
  std::string starts = ctx.Op("Concat", {ctx.ConstantInt64s({0}), bounds}, {Attribute::Int("axis", 0)});
  std::string ends = ctx.Op("Concat", {bounds, ctx.ConstantInt64s({std::numeric_limits<int64_t>::max()})},
                            {Attribute::Int("axis", 0)});
  std::vector<std::string> parts;
  for (size_t j = 0; j <= cuts; ++j) {
    std::string at = ctx.ConstantInt64s({static_cast<int64_t>(j)});
    std::string start = ctx.Op("Gather", {starts, at}, {Attribute::Int("axis", 0)});
    std::string end = ctx.Op("Gather", {ends, at}, {Attribute::Int("axis", 0)});
    parts.push_back(ctx.Op("Slice", {x, start, end, ctx.ConstantInt64s({axis})}));
  }
  return ctx.SetListOutput(0, parts);
}

// `x` in `sections` pieces along `axis`: n = q * sections + r, the first r
// pieces get q + 1 elements, the rest q.
absl::Status SplitSections(TranslateContext& ctx, const std::string& x, int64_t axis, int64_t sections) {
  if (sections <= 0) return ctx.Invalid(absl::StrCat("sections must be positive, got ", sections));
  if (ListOutputSize(ctx) != static_cast<size_t>(sections)) {
    return ctx.Invalid(absl::StrCat(sections, " sections, but the program expects ", ListOutputSize(ctx),
                                    " pieces"));
  }
  if (sections == 1) return ctx.SetListOutput(0, {x});
  std::string n = ShapeSlice(ctx, x, axis, axis + 1);
  std::string s = ctx.ConstantInt64s({sections});
  std::string q = ctx.Op("Div", {n, s});
  std::string r = ctx.Op("Sub", {n, ctx.Op("Mul", {q, s})});
  std::string piece = ctx.Op("Range", {ctx.ConstantInt64(0), ctx.ConstantInt64(sections), ctx.ConstantInt64(1)});
  std::string extra = ctx.CastTo(ctx.Op("Less", {piece, r}), DataType::kBool, DataType::kInt64);
  std::string sizes = ctx.Op("Add", {q, extra});
  return ctx.SetListOutput(0, ctx.AddNode("Split", {x, sizes}, {Attribute::Int("axis", axis)},
                                          static_cast<int>(sections)));
}

// aten::tensor_split.indices(Tensor(a -> *) self, SymInt[] indices, int dim=0) -> Tensor(a)[]
absl::Status AtenTensorSplitIndices(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, SplitAxis(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string bounds, ctx.IntsAsTensor("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("indices"));
  const size_t cuts = arg.kind == pt2::Argument::Kind::kSymInts ? arg.syms.size() : arg.ints.size();
  return SplitAtBounds(ctx, x, axis, bounds, cuts);
}

// aten::tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]
absl::Status AtenTensorSplitSections(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, SplitAxis(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t sections, ctx.Int("sections"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  return SplitSections(ctx, x, axis, sections);
}

// aten::tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, Tensor tensor_indices_or_sections, int dim=0) -> Tensor(a)[]
// A 1-D int64 tensor holds the indices (read at run time); a 0-d one, the
// section count, which fixes the number of pieces, so it must be known when
// converting (torch.export cannot trace that case either).
absl::Status AtenTensorSplitTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, SplitAxis(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("tensor_indices_or_sections"));
  if (meta->dtype != DataType::kInt64) {
    return ctx.Invalid("tensor_indices_or_sections must be an int64 tensor");
  }
  if (meta->sizes.size() != 1) {
    return ctx.Unsupported("tensor_split with a 0-d sections tensor: the piece count depends on its value; "
                           "pass the count as an int");
  }
  if (meta->sizes[0].is_symbolic) {
    return ctx.Unsupported("tensor_split with an indices tensor of symbolic length");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string bounds, ctx.Input("tensor_indices_or_sections"));
  return SplitAtBounds(ctx, x, axis, bounds, static_cast<size_t>(meta->sizes[0].value));
}

// hsplit / vsplit / dsplit (torch/_refs/__init__.py): tensor_split along a
// fixed dim of a tensor of at least `min_rank` dims; hsplit splits dim 1,
// or dim 0 of a 1-D tensor. An int section count must divide the dim.
absl::StatusOr<int64_t> NumpySplitAxis(const TranslateContext& ctx, int64_t min_rank, int64_t axis,
                                       const char* name) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank < min_rank) {
    return ctx.Invalid(absl::StrCat(name, " needs a tensor of at least ", min_rank, " dims, got ", rank));
  }
  return min_rank == 1 && rank == 1 ? 0 : axis;
}

absl::Status NumpySplitInt(TranslateContext& ctx, int64_t min_rank, int64_t axis_for_rank, const char* name) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, NumpySplitAxis(ctx, min_rank, axis_for_rank, name));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t sections, ctx.Int("sections"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  if (sections <= 0) return ctx.Invalid(absl::StrCat(name, ": sections must be positive, got ", sections));
  const pt2::SymInt& n = meta->sizes[axis];
  if (!n.is_symbolic && n.value % sections != 0) {
    return ctx.Invalid(absl::StrCat(name, ": dim ", axis, " of size ", n.value, " is not divisible by ",
                                    sections));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  return SplitSections(ctx, x, axis, sections);
}

absl::Status NumpySplitArray(TranslateContext& ctx, int64_t min_rank, int64_t axis_for_rank, const char* name) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, NumpySplitAxis(ctx, min_rank, axis_for_rank, name));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ctx.Ints("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  return SplitAtBounds(ctx, x, axis, ctx.ConstantInt64s(indices), indices.size());
}

// aten::hsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]
absl::Status AtenHsplitInt(TranslateContext& ctx) { return NumpySplitInt(ctx, 1, 1, "hsplit"); }
// aten::hsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]
absl::Status AtenHsplitArray(TranslateContext& ctx) { return NumpySplitArray(ctx, 1, 1, "hsplit"); }
// aten::vsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]
absl::Status AtenVsplitInt(TranslateContext& ctx) { return NumpySplitInt(ctx, 2, 0, "vsplit"); }
// aten::vsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]
absl::Status AtenVsplitArray(TranslateContext& ctx) { return NumpySplitArray(ctx, 2, 0, "vsplit"); }
// aten::dsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]
absl::Status AtenDsplitInt(TranslateContext& ctx) { return NumpySplitInt(ctx, 3, 2, "dsplit"); }
// aten::dsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]
absl::Status AtenDsplitArray(TranslateContext& ctx) { return NumpySplitArray(ctx, 3, 2, "dsplit"); }

// meshgrid: output i holds tensors[i] varying along axis i ("ij"); "xy"
// swaps the first two axes of the grid.
absl::Status Meshgrid(TranslateContext& ctx, bool xy) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> tensors, ctx.Inputs("tensors"));
  const int64_t k = static_cast<int64_t>(tensors.size());
  if (k == 0) return ctx.Invalid("meshgrid needs at least one tensor");
  for (int64_t i = 0; i < k; ++i) {
    const pt2::TensorMeta* meta = ctx.InputListMeta("tensors", static_cast<size_t>(i));
    if (meta == nullptr || meta->sizes.size() > 1) {
      return ctx.Invalid(absl::StrCat("meshgrid takes 0-d or 1-d tensors; tensor ", i, " is not"));
    }
  }
  std::vector<std::string> flat;
  std::vector<std::string> sizes;
  for (const std::string& t : tensors) {
    flat.push_back(Reshape(ctx, t, {-1}));
    sizes.push_back(ctx.Op("Shape", {flat.back()}));
  }
  std::vector<int64_t> axis_of(k);
  for (int64_t i = 0; i < k; ++i) axis_of[i] = i;
  if (xy && k >= 2) std::swap(axis_of[0], axis_of[1]);
  std::vector<std::string> grid_sizes(k);
  for (int64_t i = 0; i < k; ++i) grid_sizes[axis_of[i]] = sizes[i];
  std::string grid = ctx.Op("Concat", grid_sizes, {Attribute::Int("axis", 0)});
  std::vector<std::string> outs;
  for (int64_t i = 0; i < k; ++i) {
    std::vector<int64_t> shape(k, 1);
    shape[axis_of[i]] = -1;
    outs.push_back(ctx.Op("Expand", {Reshape(ctx, flat[i], shape), grid}));
  }
  return ctx.SetListOutput(0, outs);
}

// aten::meshgrid(Tensor[] tensors) -> Tensor[]
absl::Status AtenMeshgrid(TranslateContext& ctx) { return Meshgrid(ctx, false); }

// aten::meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]
absl::Status AtenMeshgridIndexing(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string indexing, ctx.String("indexing"));
  if (indexing != "ij" && indexing != "xy") {
    return ctx.Invalid(absl::StrCat("indexing must be 'ij' or 'xy', got '", indexing, "'"));
  }
  return Meshgrid(ctx, indexing == "xy");
}

}  // namespace

void RegisterSplitMeshgridOps(OpRegistry& r) {
  r.Add("aten::meshgrid.default", &AtenMeshgrid);
  r.Add("aten::meshgrid.indexing", &AtenMeshgridIndexing);
  r.Add("aten::reshape_as.default", &AtenReshapeAs);
  r.Add("aten::tensor_split.indices", &AtenTensorSplitIndices);
  r.Add("aten::tensor_split.sections", &AtenTensorSplitSections);
  r.Add("aten::tensor_split.tensor_indices_or_sections", &AtenTensorSplitTensor);
  r.Add("aten::hsplit.int", &AtenHsplitInt);
  r.Add("aten::hsplit.array", &AtenHsplitArray);
  r.Add("aten::vsplit.int", &AtenVsplitInt);
  r.Add("aten::vsplit.array", &AtenVsplitArray);
  r.Add("aten::dsplit.int", &AtenDsplitInt);
  r.Add("aten::dsplit.array", &AtenDsplitArray);
}

}  // namespace pt2onnx::ops
