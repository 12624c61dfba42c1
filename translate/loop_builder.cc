#include "translate/loop_builder.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "translate/graph_builder.h"
#include "translate/op_helpers.h"

namespace pt2onnx::translate {
namespace {

ir::ValueInfo Info(std::string name, DataType dtype, std::optional<std::vector<ir::Dim>> dims) {
  ir::ValueInfo info;
  info.name = std::move(name);
  info.dtype = dtype;
  info.shape = std::move(dims);
  return info;
}

// `dims` as sizes when every one is static.
std::optional<std::vector<int64_t>> StaticDims(const std::optional<std::vector<ir::Dim>>& dims) {
  if (!dims) return std::nullopt;
  std::vector<int64_t> sizes;
  for (const ir::Dim& dim : *dims) {
    if (!dim.is_static()) return std::nullopt;
    sizes.push_back(dim.value);
  }
  return sizes;
}

}  // namespace

std::vector<std::string> LoopWhilePending(TranslateContext& ctx, absl::string_view name, const std::string& trips,
                                          const std::vector<std::string>& init,
                                          const std::vector<LoopValueType>& types, const LoopTripFn& step) {
  GraphBuilder& builder = ctx.builder();
  std::string trip = builder.FreshName();
  std::string keep = builder.FreshName();
  std::vector<std::string> carried;
  for (size_t i = 0; i < init.size(); ++i) carried.push_back(builder.FreshName());
  const size_t first = builder.graph().nodes.size();
  LoopTrip next = step(trip, carried);
  std::string keep_next;
  if (next.pending.empty()) {
    keep_next = ctx.Op("Identity", {keep});
  } else {
    // ReduceMax over the flattened flags and one 0, so an empty input stops.
    std::string pending_int = ctx.CastTo(next.pending, DataType::kBool, DataType::kInt64);
    std::string padded = ctx.Op("Concat", {Reshape(ctx, pending_int, {-1}), ctx.ConstantInt64s({0})},
                                {ir::Attribute::Int("axis", 0)});
    std::string any = ctx.Op("ReduceMax", {padded}, {ir::Attribute::Int("keepdims", 0)});
    keep_next = ctx.Op("And", {keep, ctx.CastTo(any, DataType::kInt64, DataType::kBool)});
  }

  ir::Graph body;
  body.name = absl::StrCat(name, "_", keep_next);
  builder.MoveNodesInto(first, body);
  const std::vector<ir::Dim> scalar;
  body.inputs = {Info(trip, DataType::kInt64, scalar), Info(keep, DataType::kBool, scalar)};
  body.outputs = {Info(keep_next, DataType::kBool, scalar)};
  for (size_t i = 0; i < init.size(); ++i) {
    body.inputs.push_back(Info(carried[i], types[i].dtype, types[i].dims));
    body.outputs.push_back(Info(next.values[i], types[i].dtype, types[i].dims));
  }
  std::vector<std::string> inputs = {trips, ctx.ConstantScalar(DataType::kBool, 1)};
  inputs.insert(inputs.end(), init.begin(), init.end());
  std::vector<std::string> results = ctx.AddNode(
      "Loop", inputs, {ir::Attribute::GraphValue("body", std::move(body))}, static_cast<int>(init.size()));
  for (size_t i = 0; i < results.size(); ++i) {
    if (std::optional<std::vector<int64_t>> sizes = StaticDims(types[i].dims)) {
      results[i] = Reshape(ctx, results[i], *sizes);
    }
  }
  return results;
}

std::optional<std::vector<ir::Dim>> LoopResultDims(const TranslateContext& ctx) {
  const pt2::TensorMeta* meta = ctx.OutputMeta(0);
  if (meta == nullptr) return std::nullopt;
  std::vector<ir::Dim> dims;
  for (const pt2::SymInt& size : meta->sizes) dims.push_back(size.is_symbolic ? ir::Dim{} : ir::Dim::Static(size.value));
  return dims;
}

}  // namespace pt2onnx::translate
