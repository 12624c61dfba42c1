// File: ops/pooling.cc
// -----------------------------------------------------------------------------
// Pooling, resampling and padding: max/avg pools (1-3d, with indices),
// adaptive pools, upsample_* (Resize) and the pad family (Pad).
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

#include <cmath>
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
#include "ops/op_helpers.h"
#include "ops/registry.h"
#include "ops/translate_context.h"

namespace pt2onnx::ops {
namespace {

// ---- shared helpers ----------------------------------------------------------

// Static sizes of dims [begin, begin + n) of tensor argument `arg`, or
// nullopt when any is symbolic. A negative `begin` counts from the back.
std::optional<std::vector<int64_t>> StaticDims(const TranslateContext& ctx, absl::string_view arg,
                                               int64_t begin, int64_t n) {
  absl::StatusOr<const pt2::TensorMeta*> meta = ctx.InputMeta(arg);
  if (!meta.ok() || *meta == nullptr) return std::nullopt;
  const std::vector<pt2::SymInt>& sizes = (*meta)->sizes;
  const int64_t rank = static_cast<int64_t>(sizes.size());
  if (begin < 0) begin += rank;
  if (begin < 0 || begin + n > rank) return std::nullopt;
  std::vector<int64_t> dims;
  for (int64_t i = begin; i < begin + n; ++i) {
    if (sizes[i].is_symbolic) return std::nullopt;
    dims.push_back(sizes[i].value);
  }
  return dims;
}

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
  // torch's pool shape checks (aten/src/ATen/native/Pool.h): positive kernel,
  // stride and dilation, padding in [0, kernel / 2].
  for (int64_t i = 0; i < n; ++i) {
    if (a.kernel[i] <= 0 || a.strides[i] <= 0 || a.dilations[i] <= 0) {
      return ctx.Invalid(absl::StrCat("kernel_size, stride and dilation must be positive, got ",
                                      a.kernel[i], ", ", a.strides[i], ", ", a.dilations[i]));
    }
    if (padding[i] < 0 || padding[i] > a.kernel[i] / 2) {
      return ctx.Invalid(absl::StrCat("padding ", padding[i],
                                      " must be in [0, kernel_size / 2] (kernel_size ",
                                      a.kernel[i], ")"));
    }
    if (!CheckedProduct({a.dilations[i], a.kernel[i]}).has_value()) {
      return ctx.Invalid("dilation * kernel_size overflows int64");
    }
  }
  return a;
}

// Resolves ceil_mode (see the file comment). With static sizes: floor mode
// when both modes agree; otherwise, if `extra_pad_ok`, floor mode with extra
// end padding giving torch's window count. Otherwise ceil_mode stays set.
void ResolveCeilMode(const TranslateContext& ctx, int64_t n, bool extra_pad_ok, PoolAttrs& a) {
  if (!a.ceil_mode) return;
  std::optional<std::vector<int64_t>> dims = StaticTrailingDims(ctx, "self", n);
  if (!dims) return;
  std::vector<int64_t> extra(n, 0);
  bool differs = false;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t size = (*dims)[i], p = a.pads[i], s = a.strides[i];
    // Checked by ReadPoolAttrs: 0 <= p <= kernel / 2, kernel * dilation fits.
    const int64_t window = a.dilations[i] * (a.kernel[i] - 1) + 1;
    std::optional<int64_t> padded = CheckedAdd(size, 2 * p);
    if (!padded.has_value()) return;  // leave ceil_mode set; nothing folded
    const int64_t span = *padded - window;
    if (span < 0 || s <= 0) return;  // torch rejects these; let ONNX report them
    const int64_t floor_out = span / s + 1;
    // ceil(span / s) + 1, without span + s - 1
    int64_t ceil_out = span / s + (span % s != 0 ? 1 : 0) + 1;
    // torch: the last window must start inside the input or the left padding.
    // (ceil_out - 1) * s <= span + s - 1 < padded + s: may exceed int64.
    std::optional<int64_t> last_start = CheckedMul(ceil_out - 1, s);
    if (!last_start.has_value()) return;
    if (*last_start >= size + p) --ceil_out;
    if (ceil_out != floor_out) {
      differs = true;
      extra[i] = (ceil_out - 1) * s + window - *padded;
    }
  }
  if (!differs) {
    a.ceil_mode = false;
    return;
  }
  if (!extra_pad_ok) return;
  for (int64_t i = 0; i < n; ++i) a.pads[n + i] += extra[i];
  a.ceil_mode = false;
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
  ResolveCeilMode(ctx, n, /*extra_pad_ok=*/true, a);
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
  ResolveCeilMode(ctx, n, /*extra_pad_ok=*/!count_include_pad, a);
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
    int64_t cells = 1;
    for (int64_t k : a.kernel) cells *= k;
    PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
    out = ctx.Op("Mul", {ctx.Op("AveragePool", {x.value}, attrs),
                         ctx.ConstantScalar(dtype, static_cast<double>(cells) / *divisor)});
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

// Adaptive pooling maps onto plain pooling when every output size divides
// its input size: torch's windows [floor(i*in/out), ceil((i+1)*in/out)) are
// then the fixed kernel in/out at stride in/out. Output size 1 everywhere is
// a global pool and works with symbolic sizes.
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
  PoolAttrs a;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t in = (*in_size)[i], out = out_size[i];
    if (out <= 0 || in % out != 0) {
      return ctx.Unsupported(absl::StrCat(
          "adaptive pooling from size ", in, " to ", out,
          " (not a divisor) has uneven windows; resize the input to a multiple of the output "
          "size or use a fixed-kernel pool"));
    }
    a.kernel.push_back(in / out);
    a.strides.push_back(in / out);
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

// ---- upsample (Resize) -------------------------------------------------------------

struct ResizeMode {
  const char* mode;           // nearest / linear / cubic
  bool nearest_exact = false;  // nearest: torch's "nearest-exact"
  bool antialias = false;
};

// Coordinate mapping: torch's align_corners=True is ONNX's "align_corners";
// otherwise linear/cubic use the half-pixel mapping (torch's
// area_pixel_compute_source_index), legacy nearest uses floor(dst * in/out)
// ("asymmetric" + floor) and nearest-exact floor((dst + 0.5) * in/out)
// ("half_pixel" + round_prefer_ceil).
std::vector<ir::Attribute> ResizeAttributes(const ResizeMode& m, bool align_corners) {
  std::vector<ir::Attribute> attrs = {ir::Attribute::String("mode", m.mode)};
  if (std::string(m.mode) == "nearest") {
    attrs.push_back(ir::Attribute::String("coordinate_transformation_mode",
                                          m.nearest_exact ? "half_pixel" : "asymmetric"));
    attrs.push_back(
        ir::Attribute::String("nearest_mode", m.nearest_exact ? "round_prefer_ceil" : "floor"));
    return attrs;
  }
  attrs.push_back(ir::Attribute::String("coordinate_transformation_mode",
                                        align_corners ? "align_corners" : "half_pixel"));
  if (std::string(m.mode) == "cubic") {
    // torch's bicubic uses A = -0.75 (OpenCV's); its anti-aliased kernel
    // A = -0.5 (PIL's), see UpSampleKernel.cpp.
    attrs.push_back(ir::Attribute::Float("cubic_coeff_a", m.antialias ? -0.5f : -0.75f));
  }
  if (m.antialias) {
    // torch's anti-aliased kernels drop out-of-image taps and renormalise.
    attrs.push_back(ir::Attribute::Int("antialias", 1));
    attrs.push_back(ir::Attribute::Int("exclude_outside", 1));
  }
  return attrs;
}

// Resize to explicit sizes (`output_size` argument) or by scale factors.
// Scales, when torch has them, are what its kernels map coordinates with, so
// they are preferred over the sizes they imply.
absl::Status EmitResize(TranslateContext& ctx, int64_t n, const ResizeMode& m, bool align_corners,
                        std::optional<std::vector<double>> scales) {
  const char* input_arg = ctx.Has("self") ? "self" : "input";  // .vec overloads say "input"
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input(input_arg));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank(input_arg));
  if (rank != n + 2) {
    return ctx.Invalid(absl::StrCat("input has rank ", rank, ", expected ", n + 2));
  }
  std::vector<ir::Attribute> attrs = ResizeAttributes(m, align_corners);
  if (scales) {
    if (static_cast<int64_t>(scales->size()) != n) {
      return ctx.Invalid(absl::StrCat("expected ", n, " scale factors, got ", scales->size()));
    }
    std::vector<float> values = {1.0f, 1.0f};
    for (double s : *scales) values.push_back(static_cast<float>(s));
    ir::Tensor t = ir::Tensor::Owned(
        DataType::kFloat, {static_cast<int64_t>(values.size())},
        std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
    return ctx.SetOutput(0, ctx.Op("Resize", {x, "", ctx.Constant(t)}, attrs));
  }
  std::string sizes;
  std::optional<std::vector<int64_t>> lead = StaticDims(ctx, input_arg, 0, 2);
  if (lead && ctx.IsStaticInts("output_size")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> out_size, ctx.Ints("output_size"));
    lead->insert(lead->end(), out_size.begin(), out_size.end());
    sizes = ctx.ConstantInt64s(*lead);
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(std::string out_size, ctx.IntsAsTensor("output_size"));
    sizes = ctx.Op("Concat", {ShapeSlice(ctx, x, 0, 2), out_size}, {ir::Attribute::Int("axis", 0)});
  }
  return ctx.SetOutput(0, ctx.Op("Resize", {x, "", "", sizes}, attrs));
}

// The .default overloads: output_size plus optional per-dim scales
// (scales_d/scales_h/scales_w, or `scales` for 1-d). Scales are used only
// when all are present.
absl::Status UpsampleDefault(TranslateContext& ctx, int64_t n, const ResizeMode& m,
                             bool has_align_corners) {
  bool align_corners = false;
  if (has_align_corners) {
    PT2ONNX_ASSIGN_OR_RETURN(align_corners, ctx.Bool("align_corners"));
  }
  std::vector<const char*> names;
  if (n == 1) names = {"scales"};
  if (n == 2) names = {"scales_h", "scales_w"};
  if (n == 3) names = {"scales_d", "scales_h", "scales_w"};
  std::vector<double> scales;
  for (const char* name : names) {
    if (!ctx.Has(name)) break;
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> s, ctx.OptionalFloat(name));
    if (!s) break;
    scales.push_back(*s);
  }
  // With align_corners torch ignores the scales (it maps by the sizes).
  bool use_scales = scales.size() == names.size() && !align_corners;
  if (use_scales) {
    // Resize derives its output size from scales: use them only when that
    // size is torch's output_size.
    const char* input_arg = ctx.Has("self") ? "self" : "input";
    std::optional<std::vector<int64_t>> in = StaticTrailingDims(ctx, input_arg, n);
    if (!in || !ctx.IsStaticInts("output_size")) {
      use_scales = false;
    } else {
      PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> out, ctx.Ints("output_size"));
      for (int64_t i = 0; i < n && use_scales; ++i) {
        use_scales = static_cast<int64_t>(out.size()) == n &&
                     static_cast<int64_t>(std::floor((*in)[i] * scales[i])) == out[i];
      }
    }
  }
  return EmitResize(ctx, n, m, align_corners,
                    use_scales ? std::optional<std::vector<double>>(scales) : std::nullopt);
}

// The .vec overloads: SymInt[]? output_size, float[]? scale_factors.
absl::Status UpsampleVec(TranslateContext& ctx, int64_t n, const ResizeMode& m,
                         bool has_align_corners) {
  bool align_corners = false;
  if (has_align_corners) {
    PT2ONNX_ASSIGN_OR_RETURN(align_corners, ctx.Bool("align_corners"));
  }
  if (ctx.Has("scale_factors")) {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("scale_factors"));
    // align_corners maps by the sizes, which floor(in * scale) gives in both.
    if (arg.kind == pt2::Argument::Kind::kFloats) {
      return EmitResize(ctx, n, m, align_corners, arg.floats);
    }
  }
  if (!ctx.Has("output_size")) return ctx.Invalid("neither output_size nor scale_factors given");
  return EmitResize(ctx, n, m, align_corners, std::nullopt);
}

constexpr ResizeMode kNearest = {"nearest"};
constexpr ResizeMode kNearestExact = {"nearest", true};
constexpr ResizeMode kLinear = {"linear"};
constexpr ResizeMode kCubic = {"cubic"};
constexpr ResizeMode kLinearAa = {"linear", false, true};
constexpr ResizeMode kCubicAa = {"cubic", false, true};

// aten::upsample_nearest{1,2,3}d(Tensor self, SymInt[n] output_size, float? scales...=None)
absl::Status AtenUpsampleNearest1d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 1, kNearest, false);
}
absl::Status AtenUpsampleNearest2d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kNearest, false);
}
absl::Status AtenUpsampleNearest3d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 3, kNearest, false);
}
// aten::upsample_nearest{1,2,3}d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors)
absl::Status AtenUpsampleNearest1dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 1, kNearest, false);
}
absl::Status AtenUpsampleNearest2dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kNearest, false);
}
absl::Status AtenUpsampleNearest3dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 3, kNearest, false);
}
// aten::_upsample_nearest_exact{1,2,3}d(Tensor self, SymInt[n] output_size, float? scales...=None)
absl::Status AtenUpsampleNearestExact1d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 1, kNearestExact, false);
}
absl::Status AtenUpsampleNearestExact2d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kNearestExact, false);
}
absl::Status AtenUpsampleNearestExact3d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 3, kNearestExact, false);
}
// aten::_upsample_nearest_exact{1,2,3}d.vec(Tensor input, SymInt[]? output_size,
//                                           float[]? scale_factors)
absl::Status AtenUpsampleNearestExact1dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 1, kNearestExact, false);
}
absl::Status AtenUpsampleNearestExact2dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kNearestExact, false);
}
absl::Status AtenUpsampleNearestExact3dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 3, kNearestExact, false);
}
// aten::upsample_linear1d / upsample_bilinear2d / upsample_trilinear3d
//   (Tensor self, SymInt[n] output_size, bool align_corners, float? scales...=None) -> Tensor
absl::Status AtenUpsampleLinear1d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 1, kLinear, true);
}
absl::Status AtenUpsampleBilinear2d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kLinear, true);
}
absl::Status AtenUpsampleTrilinear3d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 3, kLinear, true);
}
// ... .vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors)
absl::Status AtenUpsampleLinear1dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 1, kLinear, true);
}
absl::Status AtenUpsampleBilinear2dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kLinear, true);
}
absl::Status AtenUpsampleTrilinear3dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 3, kLinear, true);
}
// aten::upsample_bicubic2d(Tensor self, SymInt[2] output_size, bool align_corners,
//                          float? scales_h=None, float? scales_w=None) -> Tensor
absl::Status AtenUpsampleBicubic2d(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kCubic, true);
}
absl::Status AtenUpsampleBicubic2dVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kCubic, true);
}
// aten::_upsample_bilinear2d_aa / _upsample_bicubic2d_aa (+ .vec): antialiased.
absl::Status AtenUpsampleBilinear2dAa(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kLinearAa, true);
}
absl::Status AtenUpsampleBilinear2dAaVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kLinearAa, true);
}
absl::Status AtenUpsampleBicubic2dAa(TranslateContext& ctx) {
  return UpsampleDefault(ctx, 2, kCubicAa, true);
}
absl::Status AtenUpsampleBicubic2dAaVec(TranslateContext& ctx) {
  return UpsampleVec(ctx, 2, kCubicAa, true);
}

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
      return ctx.Unsupported("mode='circular' needs ONNX Pad 'wrap' (opset 19+); export with "
                             "opset >= 19");
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
  r.Add("aten::upsample_nearest1d.default", &AtenUpsampleNearest1d);
  r.Add("aten::upsample_nearest2d.default", &AtenUpsampleNearest2d);
  r.Add("aten::upsample_nearest3d.default", &AtenUpsampleNearest3d);
  r.Add("aten::upsample_nearest1d.vec", &AtenUpsampleNearest1dVec);
  r.Add("aten::upsample_nearest2d.vec", &AtenUpsampleNearest2dVec);
  r.Add("aten::upsample_nearest3d.vec", &AtenUpsampleNearest3dVec);
  r.Add("aten::_upsample_nearest_exact1d.default", &AtenUpsampleNearestExact1d);
  r.Add("aten::_upsample_nearest_exact2d.default", &AtenUpsampleNearestExact2d);
  r.Add("aten::_upsample_nearest_exact3d.default", &AtenUpsampleNearestExact3d);
  r.Add("aten::_upsample_nearest_exact1d.vec", &AtenUpsampleNearestExact1dVec);
  r.Add("aten::_upsample_nearest_exact2d.vec", &AtenUpsampleNearestExact2dVec);
  r.Add("aten::_upsample_nearest_exact3d.vec", &AtenUpsampleNearestExact3dVec);
  r.Add("aten::upsample_linear1d.default", &AtenUpsampleLinear1d);
  r.Add("aten::upsample_bilinear2d.default", &AtenUpsampleBilinear2d);
  r.Add("aten::upsample_trilinear3d.default", &AtenUpsampleTrilinear3d);
  r.Add("aten::upsample_linear1d.vec", &AtenUpsampleLinear1dVec);
  r.Add("aten::upsample_bilinear2d.vec", &AtenUpsampleBilinear2dVec);
  r.Add("aten::upsample_trilinear3d.vec", &AtenUpsampleTrilinear3dVec);
  r.Add("aten::upsample_bicubic2d.default", &AtenUpsampleBicubic2d);
  r.Add("aten::upsample_bicubic2d.vec", &AtenUpsampleBicubic2dVec);
  r.Add("aten::_upsample_bilinear2d_aa.default", &AtenUpsampleBilinear2dAa);
  r.Add("aten::_upsample_bilinear2d_aa.vec", &AtenUpsampleBilinear2dAaVec);
  r.Add("aten::_upsample_bicubic2d_aa.default", &AtenUpsampleBicubic2dAa);
  r.Add("aten::_upsample_bicubic2d_aa.vec", &AtenUpsampleBicubic2dAaVec);
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
