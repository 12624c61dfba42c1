// File: ops/pooling.cc
// -----------------------------------------------------------------------------
// Pooling: max/avg pools (1-3d, with indices) and adaptive pools. (Resampling
// lives in resample.cc, padding in padding.cc.)
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
#include "ops/families.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/shape_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// ---- shared helpers ----------------------------------------------------------

std::optional<std::vector<int64_t>> StaticTrailingDims(const TranslateContext& ctx,
                                                       absl::string_view arg, int64_t n) {
  return StaticDims(ctx, arg, -n, n);
}

// The input with a batch dim when torch got it unbatched (rank n + 1).
struct Batched {
  std::string value;
  bool unbatched = false;
  int64_t rank = 0;  // of `value`
};
absl::StatusOr<Batched> BatchedInput(TranslateContext& ctx, absl::string_view arg, int64_t n) {
  Batched b;
  PT2ONNX_ASSIGN_OR_RETURN(b.value, ctx.Input(arg));
  PT2ONNX_ASSIGN_OR_RETURN(b.rank, ctx.InputRank(arg));
  if (b.rank == n + 1) {
    b.unbatched = true;
    b.value = Unsqueeze(ctx, b.value, {0});
    b.rank += 1;
  } else if (b.rank != n + 2) {
    return ctx.Invalid(absl::StrCat(arg, " has rank ", b.rank, ", expected ", n + 1, " or ",
                                    n + 2));
  }
  return b;
}

std::string Unbatch(TranslateContext& ctx, const Batched& b, const std::string& value) {
  return b.unbatched ? Squeeze(ctx, value, {0}) : value;
}

// ---- max / avg pool ------------------------------------------------------------

struct PoolAttrs {
  std::vector<int64_t> kernel, strides, pads, dilations;
  bool ceil_mode = false;
};

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

std::vector<ir::Attribute> PoolAttributes(const PoolAttrs& a, bool dilations) {
  std::vector<ir::Attribute> attrs = {
      ir::Attribute::Ints("kernel_shape", a.kernel),
      ir::Attribute::Ints("strides", a.strides),
      ir::Attribute::Ints("pads", a.pads),
      ir::Attribute::Int("ceil_mode", a.ceil_mode ? 1 : 0),
  };
  if (dilations) attrs.push_back(ir::Attribute::Ints("dilations", a.dilations));
  return attrs;
}

// ONNX flattened (N, C, spatial) indices -> torch's per-plane indices.
std::string PlaneIndices(TranslateContext& ctx, const Batched& x, const std::string& indices,
                         int64_t n) {
  std::string plane;
  if (std::optional<std::vector<int64_t>> dims = StaticTrailingDims(ctx, "self", n)) {
    int64_t size = 1;
    for (int64_t d : *dims) size *= d;
    plane = ctx.ConstantInt64(size);
  } else {
    plane = ctx.Op("ReduceProd", {ShapeSlice(ctx, x.value, 2, x.rank)},
                   {ir::Attribute::Int("keepdims", 0)});
  }
  return ctx.Op("Mod", {indices, plane});
}

// MaxPool for max_pool{1,2,3}d and their _with_indices forms.
absl::Status MaxPoolNd(TranslateContext& ctx, int64_t n, bool with_indices) {
  PT2ONNX_ASSIGN_OR_RETURN(Batched x, BatchedInput(ctx, "self", n));
  PT2ONNX_ASSIGN_OR_RETURN(PoolAttrs a, ReadPoolAttrs(ctx, n, /*dilation=*/true));
  PT2ONNX_RETURN_IF_ERROR(ResolveCeilMode(ctx, n, /*extra_pad_ok=*/true, a));
  const bool indices_used = with_indices && ctx.OutputUsed(1);
  std::vector<std::string> outs =
      ctx.AddNode("MaxPool", {x.value}, PoolAttributes(a, true), indices_used ? 2 : 1);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, Unbatch(ctx, x, outs[0])));
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
  PT2ONNX_ASSIGN_OR_RETURN(bool count_include_pad, ctx.Bool("count_include_pad"));
  std::optional<int64_t> divisor;
  if (ctx.Has("divisor_override")) {
    PT2ONNX_ASSIGN_OR_RETURN(divisor, ctx.OptionalInt("divisor_override"));
  }
  // Extra end padding is exact only when padded cells are not counted.
  PT2ONNX_RETURN_IF_ERROR(ResolveCeilMode(ctx, n, /*extra_pad_ok=*/!count_include_pad, a));
  // AveragePool before opset 19 also counts a ceil_mode window's overhang
  // past the padding; torch counts only input and padding cells.
  if (a.ceil_mode && count_include_pad && ctx.opset() < 19) {
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
    // sum / divisor == mean * (cells per window) / divisor, exact when every
    // window counts the full kernel: padding counted (or none) and no
    // clipped last window.
    bool zero_pads = true;
    for (int64_t p : a.pads) zero_pads = zero_pads && p == 0;
    if (a.ceil_mode || !(count_include_pad || zero_pads) || *divisor == 0) {
      return ctx.Unsupported(
          "divisor_override with ceil_mode windows or uncounted padding is not supported");
    }
    attrs.back() = ir::Attribute::Int("count_include_pad", 1);
    double cells = 1;  // kernel entries are < 2^31: their product may not fit int64
    for (int64_t k : a.kernel) cells *= static_cast<double>(k);
    PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
    out = ctx.Op("Mul", {ctx.Op("AveragePool", {x.value}, attrs),
                         ctx.ConstantScalar(dtype, cells / static_cast<double>(*divisor))});
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

// ---- adaptive pools ----------------------------------------------------------------

// Uneven adaptive pooling, one spatial dim (`axis` of the batched input
// `x`, static size `in`) at a time: max and mean over a rectangular window
// are the max / mean over each of its dims in turn. Output k covers
// [s_k, e_k) = [floor(k*in/out), ceil((k+1)*in/out)), at most in/out + 2
// cells: a [out, K] index min(s_k + j, e_k - 1) gathers every window (cells
// past e_k repeat its last one; for the mean they are masked out and the sum
// divided by e_k - s_k). The indices are computed at run time from Range.
absl::StatusOr<std::string> AdaptivePoolAlongAxis(TranslateContext& ctx, const std::string& x,
                                                  int64_t rank, int64_t axis, int64_t in,
                                                  int64_t out, bool is_max) {
  constexpr int64_t kMaxSize = int64_t{1} << 31;  // keeps k * in within int64
  if (in <= 0 || out <= 0 || in >= kMaxSize || out >= kMaxSize) {
    return ctx.Invalid(absl::StrCat("adaptive pooling from size ", in, " to ", out));
  }
  const int64_t window = std::min(in, in / out + 2);
  auto i64 = [&](int64_t v) { return ctx.ConstantInt64(v); };
  std::string k = ctx.Op("Range", {i64(0), i64(out), i64(1)});
  std::string start = ctx.Op("Div", {ctx.Op("Mul", {k, i64(in)}), i64(out)});
  std::string end = ctx.Op(
      "Div", {ctx.Op("Add", {ctx.Op("Mul", {ctx.Op("Add", {k, i64(1)}), i64(in)}), i64(out - 1)}),
              i64(out)});
  std::string end_col = Unsqueeze(ctx, end, {1});
  std::string pos = ctx.Op("Add", {Unsqueeze(ctx, start, {1}),
                                   Unsqueeze(ctx, ctx.Op("Range", {i64(0), i64(window), i64(1)}), {0})});
  std::string index = ctx.Op("Min", {pos, ctx.Op("Sub", {end_col, i64(1)})});
  std::string windows = ctx.Op("Gather", {x, index}, {ir::Attribute::Int("axis", axis)});
  std::string window_axis = ctx.ConstantInt64s({axis + 1});
  const std::vector<ir::Attribute> drop = {ir::Attribute::Int("keepdims", 0)};
  if (is_max) return ctx.Op("ReduceMax", {windows, window_axis}, drop);
  // [out, K] and [out] broadcast against [..., out, K, trailing dims...].
  std::vector<int64_t> trailing;
  for (int64_t d = axis + 1; d < rank; ++d) trailing.push_back(d - axis + 1);
  std::string valid = ctx.Op("Less", {pos, end_col});
  if (!trailing.empty()) valid = Unsqueeze(ctx, valid, trailing);
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  std::string sum = ctx.Op(
      "ReduceSum",
      {ctx.Op("Where", {valid, windows, ctx.ConstantScalar(dtype, 0.0)}), window_axis}, drop);
  std::string count = ctx.CastTo(ctx.Op("Sub", {end, start}), DataType::kInt64, dtype);
  std::vector<int64_t> count_trailing;
  for (int64_t d = axis + 1; d < rank; ++d) count_trailing.push_back(d - axis);
  if (!count_trailing.empty()) count = Unsqueeze(ctx, count, count_trailing);
  return ctx.Op("Div", {sum, count});
}

// Adaptive pooling maps onto plain pooling when every output size divides
// its input size: torch's windows [floor(i*in/out), ceil((i+1)*in/out)) are
// then the fixed kernel in/out at stride in/out. Output size 1 everywhere is
// a global pool and works with symbolic sizes. Otherwise (static sizes) the
// windows are gathered dim by dim (AdaptivePoolAlongAxis).
absl::Status AdaptivePoolNd(TranslateContext& ctx, int64_t n, bool is_max) {
  PT2ONNX_ASSIGN_OR_RETURN(Batched x, BatchedInput(ctx, "self", n));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> out_size, SpatialInts(ctx, "output_size", n, {}));
  if (static_cast<int64_t>(out_size.size()) != n) return ctx.Invalid("output_size is empty");
  const bool indices_used = is_max && ctx.OutputUsed(1);
  std::optional<std::vector<int64_t>> in_size = StaticTrailingDims(ctx, "self", n);

  bool global = true;
  for (int64_t o : out_size) global = global && o == 1;
  if (global && !indices_used) {
    std::string out = ctx.Op(is_max ? "GlobalMaxPool" : "GlobalAveragePool", {x.value});
    return ctx.SetOutput(0, Unbatch(ctx, x, out));
  }
  if (!in_size) {
    return ctx.Unsupported("adaptive pooling to a size other than 1 needs static input sizes");
  }
  bool even = true;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t in = (*in_size)[i], out = out_size[i];
    if (in <= 0 || out <= 0) {
      return ctx.Invalid(absl::StrCat("adaptive pooling from size ", in, " to ", out));
    }
    even = even && in % out == 0;
  }
  if (!even) {
    if (indices_used) {
      return ctx.Unsupported(
          "adaptive max pooling with indices to an output size that does not divide the input "
          "size; use the values only, or resize the input to a multiple of the output size");
    }
    std::string y = x.value;
    for (int64_t i = 0; i < n; ++i) {
      PT2ONNX_ASSIGN_OR_RETURN(y, AdaptivePoolAlongAxis(ctx, y, x.rank, 2 + i, (*in_size)[i],
                                                        out_size[i], is_max));
    }
    return ctx.SetOutput(0, Unbatch(ctx, x, y));
  }
  PoolAttrs a;
  for (int64_t i = 0; i < n; ++i) {
    a.kernel.push_back((*in_size)[i] / out_size[i]);
    a.strides.push_back((*in_size)[i] / out_size[i]);
  }
  a.pads.assign(2 * n, 0);
  a.dilations.assign(n, 1);
  std::vector<std::string> outs = ctx.AddNode(is_max ? "MaxPool" : "AveragePool", {x.value},
                                              PoolAttributes(a, false), indices_used ? 2 : 1);
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, Unbatch(ctx, x, outs[0])));
  if (!indices_used) return absl::OkStatus();
  return ctx.SetOutput(1, Unbatch(ctx, x, PlaneIndices(ctx, x, outs[1], n)));
}

// aten::adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor
absl::Status AtenAdaptiveAvgPool1d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 1, false); }
// aten::adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor
// aten::_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor
absl::Status AtenAdaptiveAvgPool2d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 2, false); }
// aten::adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor
// aten::_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor
absl::Status AtenAdaptiveAvgPool3d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 3, false); }
// aten::adaptive_max_pool1d(Tensor self, int[1] output_size) -> (Tensor, Tensor)
absl::Status AtenAdaptiveMaxPool1d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 1, true); }
// aten::adaptive_max_pool2d(Tensor self, int[2] output_size) -> (Tensor, Tensor)
absl::Status AtenAdaptiveMaxPool2d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 2, true); }
// aten::adaptive_max_pool3d(Tensor self, int[3] output_size) -> (Tensor, Tensor)
absl::Status AtenAdaptiveMaxPool3d(TranslateContext& ctx) { return AdaptivePoolNd(ctx, 3, true); }

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
  r.Add("aten::adaptive_avg_pool1d.default", &AtenAdaptiveAvgPool1d);
  r.Add("aten::adaptive_avg_pool2d.default", &AtenAdaptiveAvgPool2d);
  r.Add("aten::_adaptive_avg_pool2d.default", &AtenAdaptiveAvgPool2d);
  r.Add("aten::adaptive_avg_pool3d.default", &AtenAdaptiveAvgPool3d);
  r.Add("aten::_adaptive_avg_pool3d.default", &AtenAdaptiveAvgPool3d);
  r.Add("aten::adaptive_max_pool1d.default", &AtenAdaptiveMaxPool1d);
  r.Add("aten::adaptive_max_pool2d.default", &AtenAdaptiveMaxPool2d);
  r.Add("aten::adaptive_max_pool3d.default", &AtenAdaptiveMaxPool3d);
}

}  // namespace pt2onnx::ops
