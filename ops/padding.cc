// File: ops/padding.cc
// -----------------------------------------------------------------------------
// Padding: constant_pad_nd, pad, and the reflection_pad* / replication_pad*
// family, each as one ONNX Pad node. Resampling (upsample_*) is in
// resample.cc.
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
  if (mode == "replicate") return EmitPad(ctx, "pad", "edge", std::nullopt);
  if (mode == "circular") {
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
absl::Status AtenReplicationPad(TranslateContext& ctx) {
  return EmitPad(ctx, "padding", "edge", std::nullopt);
}

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
