// File: ops/embedding_bag.cc
// -----------------------------------------------------------------------------
// embedding_bag: sums, means or maxima of embedding rows over bags of
// indices. Bag b holds positions [offsets[b], offsets[b + 1]) of the 1-D
// indices (the last bag runs to the end, unless include_last_offset makes
// the last offset an end marker, which torch documents as equal to the
// number of indices: with a smaller one its CPU kernels disagree with each
// other, and this translation ends the last bag there). Positions holding padding_idx count for
// nothing (not in a mean's divisor, not in a max); an empty bag gives zeros.
// per_sample_weights scale the rows (mode sum only).
//
// Each position's bag is found without a positions x bags matrix: a 1 is
// added at every offset and a running sum counts the bags started so far.
//
// Only the pooled output is translated. The auxiliary outputs (offset2bag,
// bag_size, max_indices) exist for the backward pass and their contents
// depend on torch's CPU fast paths; a graph that reads them is refused.
#include <cstdint>
#include <limits>
#include <optional>
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

enum Mode : int64_t { kSum = 0, kMean = 1, kMax = 2 };

// `padding_idx` as the row it names, or -1 for none. `wraps`: the public
// embedding_bag.padding_idx overload takes a Python-style negative row
// (None = no padding); _embedding_bag already holds the row or -1.
absl::StatusOr<int64_t> PaddingRow(const TranslateContext& ctx, bool wraps) {
  if (!ctx.Has("padding_idx")) return -1;
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> padding_idx, ctx.OptionalInt("padding_idx"));
  if (!padding_idx) return -1;
  if (!wraps) return *padding_idx;
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* weight, ctx.InputMeta("weight"));
  if (weight == nullptr || weight->sizes.size() != 2 || weight->sizes[0].is_symbolic) {
    return ctx.Unsupported("padding_idx with a weight whose row count is not static");
  }
  return CheckedAxis(*padding_idx, weight->sizes[0].value, "padding_idx of aten::embedding_bag");
}

absl::Status EmbeddingBag(TranslateContext& ctx, bool wraps_padding) {
  for (int i = 1; i < ctx.num_outputs(); ++i) {
    if (ctx.OutputUsed(i)) {
      return ctx.Unsupported(absl::StrCat("reading output ", i,
                                          " (offset2bag, bag_size, max_indices: backward "
                                          "bookkeeping); only the pooled output is translated"));
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t mode, ctx.Int("mode"));
  if (mode != kSum && mode != kMean && mode != kMax) {
    return ctx.Invalid(absl::StrCat("mode must be 0 (sum), 1 (mean) or 2 (max), got ", mode));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t padding_row, PaddingRow(ctx, wraps_padding));
  bool include_last_offset = false;
  if (ctx.Has("include_last_offset")) {
    PT2ONNX_ASSIGN_OR_RETURN(include_last_offset, ctx.Bool("include_last_offset"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t index_rank, ctx.InputRank("indices"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t weight_rank, ctx.InputRank("weight"));
  if (index_rank != 1 || weight_rank != 2) {
    return ctx.Invalid(
        "indices must be 1-D and weight 2-D (F.embedding_bag flattens 2-D inputs first)");
  }
  std::optional<std::string> per_sample_weights;
  if (ctx.Has("per_sample_weights")) {
    PT2ONNX_ASSIGN_OR_RETURN(per_sample_weights, ctx.OptionalInput("per_sample_weights"));
  }
  if (per_sample_weights && mode != kSum) return ctx.Invalid("per_sample_weights need mode 'sum'");

  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string weight, ctx.InputAs("weight", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string indices, ctx.InputAs("indices", DataType::kInt64));
  PT2ONNX_ASSIGN_OR_RETURN(std::string offsets, ctx.InputAs("offsets", DataType::kInt64));
  auto i64 = [&](int64_t v) { return ctx.ConstantInt64(v); };

  std::string count = ShapeSlice(ctx, indices, 0, 1);  // [n]
  std::string bags = ShapeSlice(ctx, offsets, 0, 1);   // [number of bags]
  if (include_last_offset) bags = ctx.Op("Sub", {bags, ctx.ConstantInt64s({1})});
  // starts[p] = how many offsets equal p, over p in [0, n] (an offset of n
  // starts an empty trailing bag).
  std::string marks = ctx.Op("Expand", {i64(0), ctx.Op("Add", {count, ctx.ConstantInt64s({1})})});
  std::string ones = ctx.Op("Expand", {i64(1), ctx.Op("Shape", {offsets})});
  marks = ctx.Op("ScatterElements", {marks, offsets, ones},
                 {Attribute::Int("axis", 0), Attribute::String("reduction", "add")});
  std::string started = ctx.Op("CumSum", {marks, i64(0)});
  std::string bag = ctx.Op("Sub",
                           {ctx.Op("Slice", {started, ctx.ConstantInt64s({0}), count}), i64(1)});
  // A position counts if it is in a bag and does not hold padding_idx.
  std::string bag_count = Squeeze(ctx, bags, {0});
  std::string valid = ctx.Op("And",
                             {ctx.Op("GreaterOrEqual", {bag, i64(0)}),
                              ctx.Op("Less", {bag, bag_count})});
  valid = ctx.Op("And", {valid, ctx.Op("Not", {ctx.Op("Equal", {indices, i64(padding_row)})})});
  std::string target = Unsqueeze(ctx, ctx.Op("Where", {valid, bag, i64(0)}), {1});
  std::string valid_rows = Unsqueeze(ctx, valid, {1});

  std::string rows = ctx.Op("Gather", {weight, indices}, {Attribute::Int("axis", 0)});
  if (per_sample_weights) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string psw, ctx.InputAs("per_sample_weights", dtype));
    rows = ctx.Op("Mul", {rows, Unsqueeze(ctx, psw, {1})});
  }
  std::string out_shape = ctx.Op("Concat", {bags, ShapeSlice(ctx, weight, 1, 2)},
                                 {Attribute::Int("axis", 0)});
  std::string zero = ctx.ConstantScalar(dtype, 0);
  std::string members = ctx.Op("ScatterElements",
                               {ctx.Op("Expand", {zero, bags}), Squeeze(ctx, target, {1}),
                                                   ctx.CastTo(valid, DataType::kBool, dtype)},
                               {Attribute::Int("axis", 0), Attribute::String("reduction", "add")});
  if (mode == kMax) {
    std::string lowest = ctx.ConstantScalar(dtype, -std::numeric_limits<double>::infinity());
    std::string contrib = ctx.Op("Where", {valid_rows, rows, lowest});
    std::string maxima = ctx.Op("ScatterND",
                                {ctx.Op("Expand", {lowest, out_shape}), target, contrib},
                                {Attribute::String("reduction", "max")});
    std::string empty = Unsqueeze(ctx, ctx.Op("Equal", {members, zero}), {1});
    return ctx.SetOutput(0, ctx.Op("Where", {empty, zero, maxima}));
  }
  std::string contrib = ctx.Op("Where", {valid_rows, rows, zero});
  std::string sums = ctx.Op("ScatterND", {ctx.Op("Expand", {zero, out_shape}), target, contrib},
                            {Attribute::String("reduction", "add")});
  if (mode == kSum) return ctx.SetOutput(0, sums);
  std::string divisor = ctx.Op("Max",
                               {members, ctx.ConstantScalar(dtype, 1)});  // empty bags: 0 / 1
  return ctx.SetOutput(0, ctx.Op("Div", {sums, Unsqueeze(ctx, divisor, {1})}));
}

// aten::_embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)
// aten::_embedding_bag_forward_only(<the same arguments>) -> (Tensor, Tensor, Tensor, Tensor)
absl::Status AtenEmbeddingBagInternal(TranslateContext& ctx) { return EmbeddingBag(ctx, false); }

// aten::embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq, int mode, bool sparse, Tensor? per_sample_weights, bool include_last_offset, int? padding_idx) -> (Tensor, Tensor, Tensor, Tensor)
// aten::embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False) -> (Tensor, Tensor, Tensor, Tensor)
absl::Status AtenEmbeddingBag(TranslateContext& ctx) { return EmbeddingBag(ctx, true); }

}  // namespace

void RegisterEmbeddingBagOps(OpRegistry& r) {
  r.Add("aten::_embedding_bag.default", &AtenEmbeddingBagInternal);
  r.Add("aten::_embedding_bag_forward_only.default", &AtenEmbeddingBagInternal);
  r.Add("aten::embedding_bag.default", &AtenEmbeddingBag);
  r.Add("aten::embedding_bag.padding_idx", &AtenEmbeddingBag);
}

}  // namespace pt2onnx::ops
