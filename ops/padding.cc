// File: ops/padding.cc
// -----------------------------------------------------------------------------
// Padding: constant_pad_nd, pad, and the reflection_pad* / replication_pad*
// family, each as one ONNX Pad node (replicate padding that crops: gathers). Resampling (upsample_*) is in
// resample.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
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
#include "ops/shape_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// ---- padding -----------------------------------------------------------------------

// torch pad lists run last dim first, (begin, end) per dim:
// [w_begin, w_end, h_begin, h_end, ...]. ONNX Pad (opset 18+ takes `axes`)
// gets axes [r-1, r-2, ...] and pads [w_begin, h_begin, ..., w_end, h_end, ...].
absl::Status EmitPad(TranslateContext& ctx, absl::string_view pad_arg, const std::string& mode,
                     std::optional<double> value) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg(pad_arg));
  int64_t count = static_cast<int64_t>(
      arg.kind == pt2::Argument::Kind::kSymInts ? arg.syms.size() : arg.ints.size());
  if (count % 2 != 0 || count / 2 > rank) {
    return ctx.Invalid(absl::StrCat(pad_arg, " has ", count, " entries for a rank-", rank,
                                    " input"));
  }
  const int64_t k = count / 2;
  std::vector<int64_t> axes, order;
  for (int64_t i = 0; i < k; ++i) axes.push_back(rank - 1 - i);
  for (int64_t i = 0; i < k; ++i) order.push_back(2 * i);
  for (int64_t i = 0; i < k; ++i) order.push_back(2 * i + 1);
  std::string pads;
  if (ctx.IsStaticInts(pad_arg)) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> p, ctx.Ints(pad_arg));
    std::vector<int64_t> reordered;
    for (int64_t i : order) reordered.push_back(p[i]);
    pads = ctx.ConstantInt64s(reordered);
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(std::string p, ctx.IntsAsTensor(pad_arg));
    pads = ctx.Op("Gather", {p, ctx.ConstantInt64s(order)}, {ir::Attribute::Int("axis", 0)});
  }
  std::string constant = value ? ctx.ConstantScalar(dtype, *value) : "";
  return ctx.SetOutput(0, ctx.Op("Pad", {x, pads, constant, ctx.ConstantInt64s(axes)},
                                 {ir::Attribute::String("mode", mode)}));
}

// Replicate padding with a negative (cropping) amount, static pads only.
// torch reads output j of a padded dim from input clamp(j - begin, 0, W - 1)
// (aten/src/ATen/native/ReplicationPadding.cpp), so a crop that removes the
// whole dim still repeats its original edge; ONNX Pad crops first and has no
// edge left to repeat (ONNX Runtime gives other numbers). One Gather per dim
// with those indices reproduces torch for any signs.
absl::Status EmitReplicateByGather(TranslateContext& ctx, const std::vector<int64_t>& pads) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  for (size_t i = 0; 2 * i + 1 < pads.size(); ++i) {
    const int64_t begin = pads[2 * i], end = pads[2 * i + 1];
    if (begin == 0 && end == 0) continue;
    // Bounded before any sum: the amounts come from the file.
    const auto out_of_range = [](int64_t p) { return p < -kMaxFoldedElements || p > kMaxFoldedElements; };
    if (out_of_range(begin) || out_of_range(end)) {
      return ctx.Invalid(absl::StrCat("replicate padding by (", begin, ", ", end, ") is out of range"));
    }
    const int64_t axis = rank - 1 - static_cast<int64_t>(i);
    const pt2::SymInt& dim = meta->sizes[axis];
    if (!dim.is_symbolic) {  // the indices as a constant, so the shape stays static
      if (dim.value <= 0 || dim.value > kMaxFoldedElements) {
        return ctx.Invalid(absl::StrCat("replicate padding of a dim of ", dim.value));
      }
      const int64_t length = dim.value + begin + end;
      if (length < 0 || length > kMaxFoldedElements) {
        return ctx.Invalid(absl::StrCat("replicate padding of a dim of ", dim.value, " by (", begin, ", ", end, ")"));
      }
      std::vector<int64_t> source(length);
      for (int64_t j = 0; j < length; ++j) source[j] = std::clamp<int64_t>(j - begin, 0, dim.value - 1);
      x = ctx.Op("Gather", {x, ctx.ConstantInt64s(source)}, {ir::Attribute::Int("axis", axis)});
      continue;
    }
    std::string width = Squeeze(ctx, ShapeSlice(ctx, x, axis, axis + 1), {0});
    std::string length = ctx.Op("Add", {width, ctx.ConstantInt64(begin + end)});
    std::string positions = ctx.Op("Range", {ctx.ConstantInt64(0), length, ctx.ConstantInt64(1)});
    std::string shifted = ctx.Op("Sub", {positions, ctx.ConstantInt64(begin)});
    std::string last = ctx.Op("Sub", {width, ctx.ConstantInt64(1)});
    std::string source = ctx.Op("Max", {ctx.Op("Min", {shifted, last}), ctx.ConstantInt64(0)});
    x = ctx.Op("Gather", {x, source}, {ir::Attribute::Int("axis", axis)});
  }
  return ctx.SetOutput(0, x);
}

// Replicate padding: one Pad(edge), or the gathers above when a static pad crops.
absl::Status EmitReplicate(TranslateContext& ctx, absl::string_view pad_arg) {
  if (ctx.IsStaticInts(pad_arg)) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ctx.Ints(pad_arg));
    PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
    const bool crops = std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; });
    if (crops && pads.size() % 2 == 0 && static_cast<int64_t>(pads.size()) / 2 <= rank) {
      return EmitReplicateByGather(ctx, pads);
    }
  }
  return EmitPad(ctx, pad_arg, "edge", std::nullopt);
}

// aten::constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor
absl::Status AtenConstantPadNd(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(ScalarValue value, ctx.Scalar("value"));
  return EmitPad(ctx, "pad", "constant", value.AsDouble());
}

// aten::pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor
absl::Status AtenPad(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string mode, ctx.String("mode"));
  if (mode == "constant") {
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> value, ctx.OptionalFloat("value"));
    return EmitPad(ctx, "pad", "constant", value.value_or(0.0));
  }
  if (mode == "reflect") return EmitPad(ctx, "pad", "reflect", std::nullopt);
  if (mode == "replicate") return EmitReplicate(ctx, "pad");
  if (mode == "circular") {
    // ONNX Runtime's Pad fails in 'wrap' mode on an empty input; then the
    // result is empty too, and known (at any opset) when its sizes are static.
    if (std::optional<std::string> empty = StaticEmptyOutput(ctx, 0)) return ctx.SetOutput(0, *empty);
    // Pad's "wrap" mode arrived in opset 19.
    if (ctx.opset() < 19) {
      return ctx.Unsupported(
          "mode='circular' needs ONNX Pad mode 'wrap' (opset 19 on): convert with --opset 19 or "
          "later");
    }
    return EmitPad(ctx, "pad", "wrap", std::nullopt);
  }
  return ctx.Unsupported(absl::StrCat("pad mode '", mode, "'"));
}

// aten::reflection_pad{1,2,3}d(Tensor self, SymInt[2|4|6] padding) -> Tensor
absl::Status AtenReflectionPad(TranslateContext& ctx) {
  return EmitPad(ctx, "padding", "reflect", std::nullopt);
}

// aten::replication_pad{1,2,3}d(Tensor self, SymInt[2|4|6] padding) -> Tensor
absl::Status AtenReplicationPad(TranslateContext& ctx) { return EmitReplicate(ctx, "padding"); }

}  // namespace

void RegisterPaddingOps(OpRegistry& r) {
  r.Add("aten::constant_pad_nd.default", &AtenConstantPadNd);
  r.Add("aten::pad.default", &AtenPad);
  r.Add("aten::reflection_pad1d.default", &AtenReflectionPad);
  r.Add("aten::reflection_pad2d.default", &AtenReflectionPad);
  r.Add("aten::reflection_pad3d.default", &AtenReflectionPad);
  r.Add("aten::replication_pad1d.default", &AtenReplicationPad);
  r.Add("aten::replication_pad2d.default", &AtenReplicationPad);
  r.Add("aten::replication_pad3d.default", &AtenReplicationPad);
}

}  // namespace pt2onnx::ops
