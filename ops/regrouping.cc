// File: ops/regrouping.cc
// -----------------------------------------------------------------------------
// take (a Gather from the flattened tensor), sum_to_size (ReduceSum over the
// dims a broadcast would have added or stretched) and channel_shuffle (a
// reshape into (N, groups, C / groups, ...), a swap and a reshape back).
// Semantics: aten/src/ATen/native/TensorAdvancedIndexing.cpp (take),
// aten/src/ATen/ExpandUtils.h (sum_to), aten/src/ATen/native/ChanelShuffle.cpp.
#include <cstdint>
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

// aten::take(Tensor self, Tensor index) -> Tensor
// Negative indices count from the end, as Gather's do; out-of-range ones are
// a run-time error in both.
absl::Status AtenTake(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.InputAs("index", DataType::kInt64));
  return ctx.SetOutput(0, ctx.Op("Gather", {Reshape(ctx, self, {-1}), index}, {Attribute::Int("axis", 0)}));
}

// aten::sum_to_size(Tensor self, SymInt[] size) -> Tensor
// Sums the leading dims `size` lacks and the dims where size is 1 but self
// is not; integer and bool inputs sum in int64 (sum promotes them).
absl::Status AtenSumToSize(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.Ints("size"));
  const int64_t rank = static_cast<int64_t>(meta->sizes.size());
  const int64_t lead = rank - static_cast<int64_t>(size.size());
  if (lead < 0) return ctx.Invalid(absl::StrCat("size has ", size.size(), " dims, self only ", rank));
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < lead) {
      axes.push_back(d);
      continue;
    }
    const pt2::SymInt& dim = meta->sizes[d];
    const int64_t want = size[d - lead];
    if (want == 1 && (dim.is_symbolic || dim.value != 1)) {
      axes.push_back(d);
    } else if (!dim.is_symbolic && dim.value != want) {
      return ctx.Invalid(absl::StrCat("size ", want, " does not broadcast to self's dim ", d, " of ", dim.value));
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.InputAs("self", dtype));
  if (axes.empty()) return ctx.SetOutput(0, self);
  std::string summed = ctx.Op("ReduceSum", {self, ctx.ConstantInt64s(axes)}, {Attribute::Int("keepdims", 1)});
  if (lead == 0) return ctx.SetOutput(0, summed);
  std::vector<int64_t> leading(lead);
  for (int64_t d = 0; d < lead; ++d) leading[d] = d;
  return ctx.SetOutput(0, Squeeze(ctx, summed, leading));
}

// aten::channel_shuffle(Tensor self, SymInt groups) -> Tensor
absl::Status AtenChannelShuffle(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  const int64_t rank = static_cast<int64_t>(meta->sizes.size());
  if (rank < 3) return ctx.Invalid(absl::StrCat("channel_shuffle expects at least 3 dims, got ", rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t groups, ctx.Int("groups"));
  if (groups <= 0) return ctx.Invalid(absl::StrCat("groups must be positive, got ", groups));
  const pt2::SymInt& channels = meta->sizes[1];
  if (!channels.is_symbolic && channels.value % groups != 0) {
    return ctx.Invalid(absl::StrCat(channels.value, " channels do not split into ", groups, " groups"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  std::string shape = ctx.Op("Shape", {self});
  std::string group = ctx.ConstantInt64s({groups});
  std::string per_group = ctx.Op("Div", {ShapeSlice(ctx, self, 1, 2), group});
  std::string split = ctx.Op("Concat", {ShapeSlice(ctx, self, 0, 1), group, per_group,
                                        ctx.Op("Shape", {self}, {Attribute::Int("start", 2)})},
                             {Attribute::Int("axis", 0)});
  const Attribute keep_zeros = Attribute::Int("allowzero", 1);
  std::vector<int64_t> perm(rank + 1);
  for (int64_t d = 0; d <= rank; ++d) perm[d] = d;
  perm[1] = 2;
  perm[2] = 1;
  std::string swapped = ctx.Op("Transpose", {ctx.Op("Reshape", {self, split}, {keep_zeros})},
                               {Attribute::Ints("perm", perm)});
  return ctx.SetOutput(0, ctx.Op("Reshape", {swapped, shape}, {keep_zeros}));
}

// aten::put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor
// take's write twin: source's elements go to the flat positions `index`
// names (negative ones wrap once), added when accumulating; a ScatterND on
// the flattened tensor.
absl::Status AtenPut(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string index, ctx.InputAs("index", DataType::kInt64));
  PT2ONNX_ASSIGN_OR_RETURN(std::string source, ctx.InputAs("source", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(bool accumulate, ctx.Bool("accumulate"));
  std::string flat = Reshape(ctx, self, {-1});
  std::string numel = ctx.Op("Shape", {flat});
  std::string at = Reshape(ctx, index, {-1, 1});
  at = ctx.Op("Where", {ctx.Op("Less", {at, ctx.ConstantInt64(0)}), ctx.Op("Add", {at, numel}), at});
  std::vector<Attribute> attrs;
  if (accumulate) attrs.push_back(Attribute::String("reduction", dtype == DataType::kBool ? "max" : "add"));
  std::string written = ctx.Op("ScatterND", {flat, at, Reshape(ctx, source, {-1})}, attrs);
  return BindResult(ctx, ctx.Op("Reshape", {written, ctx.Op("Shape", {self})}));
}

}  // namespace

void RegisterRegroupingOps(OpRegistry& r) {
  AddWithInPlace(r, "aten::put", "default", &AtenPut);
  r.Add("aten::take.default", &AtenTake);
  r.Add("aten::sum_to_size.default", &AtenSumToSize);
  r.Add("aten::channel_shuffle.default", &AtenChannelShuffle);
}

}  // namespace pt2onnx::ops
