// File: ops/pooling.cc
// -----------------------------------------------------------------------------
// Pooling: max/avg pools (1-3d, with indices). (Adaptive pools live in
// adaptive_pooling.cc, resampling in resample.cc, padding in padding.cc.)
//
// Pools: torch gives one symmetric padding per spatial dim (ONNX pads
// [p..., p...]), an empty stride meaning "= kernel", and accepts unbatched
// inputs (C, spatial...), which get a batch dim added around the ONNX node.
//
// ceil_mode: torch drops a last window that would start in the right padding
// (pooling_output_shape in Pool.h). ONNX Runtime does the same, but ONNX shape
// inference only learned that rule at opset 22, so where the shapes differ
// and the input size is static the window count is made explicit instead:
// floor mode plus extra end padding, which is exact wherever padded cells do
// not count (MaxPool, AveragePool without count_include_pad).
//
// Indices: ONNX MaxPool's second output indexes the flattened (N, C, spatial)
// tensor, torch's the flattened spatial plane only; index mod plane-size
// converts one to the other.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/checked_math.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/pool_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/shape_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// ---- max / avg pool ------------------------------------------------------------

absl::StatusOr<PoolAttrs> ReadPoolAttrs(const TranslateContext& ctx, int64_t n, bool dilation) {
  PoolAttrs a;
  PT2ONNX_ASSIGN_OR_RETURN(a.kernel, SpatialInts(ctx, "kernel_size", n, {}));
  if (static_cast<int64_t>(a.kernel.size()) != n) return ctx.Invalid("kernel_size is empty");
  PT2ONNX_ASSIGN_OR_RETURN(a.strides, SpatialInts(ctx, "stride", n, a.kernel));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding,
                           SpatialInts(ctx, "padding", n, std::vector<int64_t>(n, 0)));
  a.pads = padding;
  a.pads.insert(a.pads.end(), padding.begin(), padding.end());
  a.dilations.assign(n, 1);
  if (dilation) {
    PT2ONNX_ASSIGN_OR_RETURN(a.dilations, SpatialInts(ctx, "dilation", n, a.dilations));
  }
  PT2ONNX_ASSIGN_OR_RETURN(a.ceil_mode, ctx.Bool("ceil_mode"));
  // torch's limits (pool_output_sizes / pooling_shape_check), bounded above
  // so that the window arithmetic below cannot overflow.
  constexpr int64_t kMax = int64_t{1} << 31;
  PT2ONNX_RETURN_IF_ERROR(CheckIntsInRange(ctx, "kernel_size", a.kernel, 1, kMax));
  PT2ONNX_RETURN_IF_ERROR(CheckIntsInRange(ctx, "stride", a.strides, 1, kMax));
  PT2ONNX_RETURN_IF_ERROR(CheckIntsInRange(ctx, "dilation", a.dilations, 1, kMax));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t window = a.dilations[i] * (a.kernel[i] - 1) + 1;
    if (a.pads[i] < 0 || a.pads[i] > window / 2) {
      return ctx.Invalid(absl::StrCat("padding ", a.pads[i], " should be in [0, ", window / 2,
                                      "], at most half of the effective kernel size (as torch)"));
    }
  }
  return a;
}

// Resolves ceil_mode (see the file comment). With static sizes: floor mode
// when both modes agree; otherwise, if `extra_pad_ok` and the pads stay
// below the kernel (ONNX Runtime's limit), floor mode with extra end padding
// giving torch's window count. Otherwise ceil_mode stays set, refused below
// opset 22 where ONNX shape inference would count other windows.
absl::Status ResolveCeilMode(const TranslateContext& ctx, int64_t n, bool extra_pad_ok,
                             PoolAttrs& a) {
  if (!a.ceil_mode) return absl::OkStatus();
  std::optional<std::vector<int64_t>> dims = StaticTrailingDims(ctx, "self", n);
  if (!dims) return absl::OkStatus();
  std::vector<int64_t> extra(n, 0), torch_out(n, 0);
  bool differs = false;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t size = (*dims)[i], p = a.pads[i], s = a.strides[i];
    // Checked by ReadPoolAttrs: kernel, stride, dilation in [1, 2^31], 0 <= p <= window / 2.
    const int64_t window = a.dilations[i] * (a.kernel[i] - 1) + 1;
    std::optional<int64_t> padded = CheckedAdd(size, 2 * p);
    if (!padded.has_value()) return absl::OkStatus();  // leave ceil_mode set; nothing folded
    const int64_t span = *padded - window;
    if (span < 0 || s <= 0) return absl::OkStatus();  // torch rejects these; let ONNX report them
    const int64_t floor_out = span / s + 1;
    // ceil(span / s) + 1, without span + s - 1
    int64_t ceil_out = span / s + (span % s != 0 ? 1 : 0) + 1;
    // torch: the last window must start inside the input or the left padding.
    // (ceil_out - 1) * s <= span + s - 1 < padded + s: may exceed int64.
    std::optional<int64_t> last_start = CheckedMul(ceil_out - 1, s);
    if (!last_start.has_value()) return absl::OkStatus();
    if (*last_start >= size + p) --ceil_out;
    torch_out[i] = ceil_out;
    if (ceil_out != floor_out) {
      differs = true;
      extra[i] = (ceil_out - 1) * s + window - *padded;
    }
  }
  if (!differs) {
    a.ceil_mode = false;
    return absl::OkStatus();
  }
  // ONNX Runtime wants every pad smaller than the kernel.
  bool pads_fit = extra_pad_ok;
  for (int64_t i = 0; i < n && pads_fit; ++i) pads_fit = a.pads[n + i] + extra[i] < a.kernel[i];
  if (pads_fit) {
    for (int64_t i = 0; i < n; ++i) a.pads[n + i] += extra[i];
    a.ceil_mode = false;
    return absl::OkStatus();
  }
  // ceil_mode stays on the node. ONNX Runtime drops a last window that
  // starts in the right padding, as torch; ONNX shape inference does so
  // only from opset 22, and must agree with the program's sizes.
  if (ctx.opset() < 22) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t span = (*dims)[i] + 2 * a.pads[i] - a.dilations[i] * (a.kernel[i] - 1) - 1;
      const int64_t onnx_out = (span + a.strides[i] - 1) / a.strides[i] + 1;
      if (onnx_out != torch_out[i]) {
        return ctx.Unsupported(
            "ceil_mode=True with a last window that starts in the padding and cannot be "
            "expressed by extra end padding; ONNX shape inference drops such windows from "
            "opset 22 on: convert with --opset 22 or later");
      }
    }
  }
  return absl::OkStatus();
}

// MaxPool for max_pool{1,2,3}d and their _with_indices forms.
absl::Status MaxPoolNd(TranslateContext& ctx, int64_t n, bool with_indices) {
  PT2ONNX_ASSIGN_OR_RETURN(Batched x, BatchedInput(ctx, "self", n));
  PT2ONNX_ASSIGN_OR_RETURN(PoolAttrs a, ReadPoolAttrs(ctx, n, /*dilation=*/true));
  PT2ONNX_RETURN_IF_ERROR(ResolveCeilMode(ctx, n, /*extra_pad_ok=*/true, a));
  const bool indices_used = with_indices && ctx.OutputUsed(1);
  // ONNX MaxPool holds floating types, int8 and uint8. int16/int32 values are
  // exact in double, and a maximum is exact; int64 values past 2^53 are not.
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  DataType pooled = dtype;
  if (dtype == DataType::kInt16 || dtype == DataType::kInt32) pooled = DataType::kDouble;
  if (dtype == DataType::kInt64 || dtype == DataType::kBool) {
    return ctx.Unsupported(absl::StrCat("max pooling of ", DataTypeName(dtype),
                                        " values: ONNX MaxPool holds floating types, int8 and uint8 "
                                        "only; cast the input before export"));
  }
  std::vector<std::string> outs = ctx.AddNode("MaxPool", {ctx.CastTo(x.value, dtype, pooled)},
                                              PoolAttributes(a, true), indices_used ? 2 : 1);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, Unbatch(ctx, x, ctx.CastTo(outs[0], pooled, dtype))));
  if (!indices_used) return absl::OkStatus();
  return ctx.SetOutput(1, Unbatch(ctx, x, PlaneIndices(ctx, x, outs[1], n)));
}

// aten::max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0],
//                  int[1] dilation=[1], bool ceil_mode=False) -> Tensor
absl::Status AtenMaxPool1d(TranslateContext& ctx) { return MaxPoolNd(ctx, 1, false); }
// aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//                  int[2] dilation=1, bool ceil_mode=False) -> Tensor
absl::Status AtenMaxPool2d(TranslateContext& ctx) { return MaxPoolNd(ctx, 2, false); }
// aten::max_pool3d(Tensor self, int[3] kernel_size, ...) -> Tensor
absl::Status AtenMaxPool3d(TranslateContext& ctx) { return MaxPoolNd(ctx, 3, false); }
// aten::max_pool1d_with_indices(Tensor self, int[1] kernel_size, ...) -> (Tensor, Tensor)
absl::Status AtenMaxPool1dWithIndices(TranslateContext& ctx) { return MaxPoolNd(ctx, 1, true); }
// aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[],
//                               int[2] padding=0, int[2] dilation=1, bool ceil_mode=False)
//                               -> (Tensor, Tensor)
absl::Status AtenMaxPool2dWithIndices(TranslateContext& ctx) { return MaxPoolNd(ctx, 2, true); }
// aten::max_pool3d_with_indices(Tensor self, int[3] kernel_size, ...) -> (Tensor, Tensor)
absl::Status AtenMaxPool3dWithIndices(TranslateContext& ctx) { return MaxPoolNd(ctx, 3, true); }

// AveragePool for avg_pool{1,2,3}d.
absl::Status AvgPoolNd(TranslateContext& ctx, int64_t n) {
  PT2ONNX_ASSIGN_OR_RETURN(Batched x, BatchedInput(ctx, "self", n));
  PT2ONNX_ASSIGN_OR_RETURN(PoolAttrs a, ReadPoolAttrs(ctx, n, /*dilation=*/false));
  PT2ONNX_ASSIGN_OR_RETURN(DataType self_dtype, ctx.InputDtype("self"));
  if (!IsFloatingPoint(self_dtype)) {
    // torch divides integer windows with truncation; AveragePool has no integer types.
    return ctx.Unsupported(absl::StrCat("average pooling of ", DataTypeName(self_dtype),
                                        " values: ONNX AveragePool holds floating types only; cast "
                                        "the input to a floating dtype before export"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(bool count_include_pad, ctx.Bool("count_include_pad"));
  std::optional<int64_t> divisor;
  if (ctx.Has("divisor_override")) {
    PT2ONNX_ASSIGN_OR_RETURN(divisor, ctx.OptionalInt("divisor_override"));
  }
  // Extra end padding is exact only when padded cells are not counted, or
  // when a divisor_override replaces the count.
  PT2ONNX_RETURN_IF_ERROR(ResolveCeilMode(ctx, n, /*extra_pad_ok=*/divisor.has_value() || !count_include_pad, a));
  // AveragePool before opset 19 also counts a ceil_mode window's overhang
  // past the padding; torch counts only input and padding cells.
  if (!divisor && a.ceil_mode && count_include_pad && ctx.opset() < 19) {
    return ctx.Unsupported(
        "ceil_mode=True with count_include_pad=True and a partial last window: ONNX AveragePool "
        "divides such windows as torch does only from opset 19 on: convert with --opset 19 or "
        "later");
  }
  std::vector<ir::Attribute> attrs = PoolAttributes(a, false);
  attrs.push_back(ir::Attribute::Int("count_include_pad", count_include_pad ? 1 : 0));
  std::string out;
  if (!divisor) {
    out = ctx.Op("AveragePool", {x.value}, attrs);
  } else {
    // torch divides each window's sum (padding adds zeros) by the divisor,
    // whatever count_include_pad says: sum == mean * (cells per window) with
    // padding counted, exact once every window lies inside the padded input
    // (a ceil_mode overhang folded into end padding above).
    if (*divisor == 0) return ctx.Invalid("divisor must be not zero");
    if (a.ceil_mode) {
      return ctx.Unsupported(
          "divisor_override with a ceil_mode window past the padding that ONNX cannot pad (dynamic "
          "spatial size, or an overhang as large as the kernel)");
    }
    // The padding is materialized (zeros) so that every window is a full
    // kernel of real cells (ONNX Runtime divides windows that reach into
    // asymmetric end pads by fewer cells).
    std::vector<int64_t> pads(2 * (n + 2), 0);
    for (int64_t i = 0; i < n; ++i) {
      pads[2 + i] = a.pads[i];
      pads[n + 4 + i] = a.pads[n + i];
    }
    std::string padded = ctx.Op("Pad", {x.value, ctx.ConstantInt64s(pads)});
    a.pads.assign(2 * n, 0);
    attrs = PoolAttributes(a, false);
    double cells = 1;  // kernel entries are < 2^31: their product may not fit int64
    for (int64_t k : a.kernel) cells *= static_cast<double>(k);
    PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
    // Scaling between Pad and AveragePool also keeps ONNX Runtime from fusing
    // the Pad back into the pool's (asymmetric) pads.
    std::string scaled = ctx.Op("Mul", {padded, ctx.ConstantScalar(dtype, cells / static_cast<double>(*divisor))});
    out = ctx.Op("AveragePool", {scaled}, attrs);
  }
  return ctx.SetOutput(0, Unbatch(ctx, x, out));
}

// aten::avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=[0],
//                  bool ceil_mode=False, bool count_include_pad=True) -> Tensor
absl::Status AtenAvgPool1d(TranslateContext& ctx) { return AvgPoolNd(ctx, 1); }
// aten::avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//                  bool ceil_mode=False, bool count_include_pad=True,
//                  int? divisor_override=None) -> Tensor
absl::Status AtenAvgPool2d(TranslateContext& ctx) { return AvgPoolNd(ctx, 2); }
// aten::avg_pool3d(Tensor self, int[3] kernel_size, ...) -> Tensor
absl::Status AtenAvgPool3d(TranslateContext& ctx) { return AvgPoolNd(ctx, 3); }

}  // namespace

void RegisterPoolingOps(OpRegistry& r) {
  r.Add("aten::max_pool1d.default", &AtenMaxPool1d);
  r.Add("aten::max_pool2d.default", &AtenMaxPool2d);
  r.Add("aten::max_pool3d.default", &AtenMaxPool3d);
  r.Add("aten::max_pool1d_with_indices.default", &AtenMaxPool1dWithIndices);
  r.Add("aten::max_pool2d_with_indices.default", &AtenMaxPool2dWithIndices);
  r.Add("aten::max_pool3d_with_indices.default", &AtenMaxPool3dWithIndices);
  r.Add("aten::avg_pool1d.default", &AtenAvgPool1d);
  r.Add("aten::avg_pool2d.default", &AtenAvgPool2d);
  r.Add("aten::avg_pool3d.default", &AtenAvgPool3d);
}

}  // namespace pt2onnx::ops
