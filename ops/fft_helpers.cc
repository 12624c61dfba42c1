// File: ops/fft_helpers.cc
// -----------------------------------------------------------------------------
// See fft_helpers.h. The reader and writer lists name every FX target that
// reads or writes the complex layout: a complex value anywhere else is
// refused with the op named, never misread as real.
#include "ops/fft_helpers.h"

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
#include "translate/translate_context.h"

namespace pt2onnx::ops::fft_internal {
namespace {

using ir::Attribute;

constexpr absl::string_view kComplexReaders[] = {
    "torch.ops.aten._fft_c2c.default", "torch.ops.aten._fft_c2r.default",
    "torch.ops.aten.fft_fft.default",  "torch.ops.aten.fft_ifft.default",
    "torch.ops.aten.fft_irfft.default", "torch.ops.aten.view_as_real.default",
    // fft_nd.cc
    "torch.ops.aten.fft_fft2.default", "torch.ops.aten.fft_fftn.default",
    "torch.ops.aten.fft_ifft2.default", "torch.ops.aten.fft_ifftn.default",
    "torch.ops.aten.fft_irfft2.default", "torch.ops.aten.fft_irfftn.default",
    "torch.ops.aten.fft_hfft.default", "torch.ops.aten.fft_hfft2.default",
    "torch.ops.aten.fft_hfftn.default", "torch.ops.aten.real.default",
    // complex_views.cc
    "torch.ops.aten.view_as_real_copy.default", "torch.ops.aten.resolve_conj.default",
    "torch.ops.aten.resolve_neg.default", "torch.ops.aten.conj.default", "torch.ops.aten._conj.default"};
// Real -> complex conversions go through BindRealAsComplex (conversion.cc).
constexpr absl::string_view kComplexWriters[] = {
    "torch.ops.aten._fft_r2c.default", "torch.ops.aten._fft_c2c.default",
    "torch.ops.aten.fft_rfft.default", "torch.ops.aten.fft_fft.default",
    "torch.ops.aten.fft_ifft.default", "torch.ops.aten._to_copy.default",
    // fft_nd.cc, stft.cc
    "torch.ops.aten.fft_fft2.default", "torch.ops.aten.fft_fftn.default",
    "torch.ops.aten.fft_ifft2.default", "torch.ops.aten.fft_ifftn.default",
    "torch.ops.aten.fft_rfft2.default", "torch.ops.aten.fft_rfftn.default",
    "torch.ops.aten.fft_ihfft.default", "torch.ops.aten.fft_ihfft2.default",
    "torch.ops.aten.fft_ihfftn.default", "torch.ops.aten.stft.default",
    "torch.ops.aten.to.dtype",         "torch.ops.aten.to.dtype_layout",
    "torch.ops.aten.to.device",        "torch.ops.aten.type_as.default",
    // complex_views.cc
    "torch.ops.aten.polar.default", "torch.ops.aten.complex.default", "torch.ops.aten.view_as_complex.default",
    "torch.ops.aten.view_as_complex_copy.default", "torch.ops.aten.resolve_conj.default",
    "torch.ops.aten.resolve_neg.default", "torch.ops.aten.conj.default", "torch.ops.aten._conj.default"};

bool ArgumentNames(const pt2::Argument& arg, const std::string& name) {
  if (arg.kind == pt2::Argument::Kind::kTensor) return arg.name == name;
  if (arg.kind == pt2::Argument::Kind::kOptionalTensor) return arg.b && arg.name == name;
  for (const std::string& n : arg.names) {
    if (n == name) return true;
  }
  for (const auto& n : arg.optional_names) {
    if (n && *n == name) return true;
  }
  return false;
}

std::string OutputName(const pt2::Node& node) {
  return node.outputs.empty() ? "" : node.outputs[0].name;
}

}  // namespace

// The complex result of this node may only reach complex-aware readers; a
// program output is one (written as its view_as_real, translator.cc).
absl::Status CheckComplexReaders(const TranslateContext& ctx) {
  const std::string name = OutputName(ctx.node());
  const pt2::Graph& graph = ctx.fx_graph();
  for (const pt2::Node& reader : graph.nodes) {
    bool reads = false;
    for (const pt2::NamedArgument& in : reader.inputs) reads = reads || ArgumentNames(in.arg, name);
    if (!reads) continue;
    bool aware = false;
    for (absl::string_view target : kComplexReaders) aware = aware || reader.target == target;
    if (!aware) {
      return ctx.Unsupported(absl::StrCat(
          "its complex result is read by ", reader.target,
          "; complex tensors are translated only into FFT ops and view_as_real (e.g. write "
          "torch.view_as_real(x) and real arithmetic)"));
    }
  }
  return absl::OkStatus();
}

// The real dtype of a complex one (complex64 -> float32).
absl::StatusOr<DataType> PartDtype(const TranslateContext& ctx, DataType complex) {
  if (complex == DataType::kComplex64) return DataType::kFloat;
  if (complex == DataType::kComplex128) return DataType::kDouble;
  return ctx.Invalid(absl::StrCat("expected a complex64 or complex128 tensor, got ",
                                  DataTypeName(complex)));
}

// A complex operand in the (..., 2) layout: it must come from an op that
// writes the layout (a complex program input is refused).
absl::StatusOr<std::string> ComplexOperand(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("self"));
  std::string producer = "a program input";
  for (const pt2::Node& writer : ctx.fx_graph().nodes) {
    if (arg.kind != pt2::Argument::Kind::kTensor || OutputName(writer) != arg.name) continue;
    for (absl::string_view target : kComplexWriters) {
      if (writer.target == target) return ctx.Input("self");
    }
    producer = writer.target;
  }
  return ctx.Unsupported(absl::StrCat(
      "a complex operand from ", producer,
      "; only complex values made by FFT ops or converted from real ones are translated"));
}

// One DFT along `axis` of x (..., 1 or 2).
std::string Dft(TranslateContext& ctx, const std::string& x, int64_t axis, bool inverse,
                bool onesided) {
  std::vector<Attribute> attrs = {Attribute::Int("inverse", inverse ? 1 : 0),
                                  Attribute::Int("onesided", onesided ? 1 : 0)};
  if (ctx.opset() >= 20) return ctx.Op("DFT", {x, "", ctx.ConstantInt64(axis)}, attrs);
  attrs.push_back(Attribute::Int("axis", axis));
  return ctx.Op("DFT", {x}, attrs);
}

// Size of dim `axis` of x as a 0-d value of `dtype`.
std::string SizeAs(TranslateContext& ctx, const std::string& x, int64_t axis, DataType dtype) {
  return ctx.CastTo(Squeeze(ctx, ShapeSlice(ctx, x, axis, axis + 1), {0}), DataType::kInt64, dtype);
}

// x * scale, with torch's normalization of a transform over sizes whose
// product is `n`; `undo_onnx_inverse` multiplies by `inverse_n` too.
absl::StatusOr<std::string> Normalize(TranslateContext& ctx, const std::string& x,
                                      int64_t normalization, const std::string& n,
                                      const std::string& inverse_n, DataType dtype) {
  std::string scale = inverse_n.empty() ? ctx.ConstantScalar(dtype, 1) : inverse_n;
  switch (normalization) {
    case 0: break;
    case 1: scale = ctx.Op("Div", {scale, ctx.Op("Sqrt", {n})}); break;
    case 2: scale = ctx.Op("Div", {scale, n}); break;
    default: return ctx.Invalid(absl::StrCat("normalization must be 0, 1 or 2, got ",
                                             normalization));
  }
  if (normalization == 0 && inverse_n.empty()) return x;
  return ctx.Op("Mul", {x, scale});
}

absl::StatusOr<std::vector<int64_t>> TransformAxes(TranslateContext& ctx, int64_t rank) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.Ints("dim"));
  if (dims.empty()) return ctx.Invalid("dim must name at least one dim");
  return CheckedAxes(dims, rank, "dim of the FFT");
}

// Product of the sizes of `axes` of x, as a 0-d value of `dtype`.
std::string SizeProduct(TranslateContext& ctx, const std::string& x,
                        const std::vector<int64_t>& axes,
                        DataType dtype) {
  std::string n = ctx.ConstantScalar(dtype, 1);
  for (int64_t axis : axes) n = ctx.Op("Mul", {n, SizeAs(ctx, x, axis, dtype)});
  return n;
}

// x cut or zero-padded to `n` ([1] INT64) entries along `axis`.
std::string FitLength(TranslateContext& ctx, const std::string& x, int64_t axis,
                      const std::string& n, DataType dtype) {
  std::string axes = ctx.ConstantInt64s({axis});
  std::string cut = ctx.Op("Slice", {x, ctx.ConstantInt64s({0}), n, axes});
  std::string short_by = ctx.Op("Max", {ctx.Op("Sub", {n, ShapeSlice(ctx, cut, axis, axis + 1)}),
                                        ctx.ConstantInt64s({0})});
  std::string pads = ctx.Op("Concat", {ctx.ConstantInt64s({0}), short_by},
                            {Attribute::Int("axis", 0)});
  return ctx.Op("Pad", {cut, pads, ctx.ConstantScalar(dtype, 0), axes});
}

// The c2r transform of the complex `h` (rank `rank` in torch's terms) over
// `axes`, the last one producing `n` ([1] INT64) real values.
absl::StatusOr<std::string> C2r(TranslateContext& ctx, std::string h,
                                const std::vector<int64_t>& axes, const std::string& n,
                                int64_t normalization, int64_t rank, DataType dtype) {
  const int64_t last = axes.back();
  auto i64 = [&](int64_t v) { return ctx.ConstantInt64s({v}); };
  std::string half = ctx.Op("Add", {ctx.Op("Div", {n, i64(2)}), i64(1)});
  // The other dims first: then every line along the last dim is the half
  // spectrum of a real signal (1-D Hermitian symmetry holds only there).
  for (size_t i = 0; i + 1 < axes.size(); ++i) h = Dft(ctx, h, axes[i], true, false);
  // H cut or zero-padded to n / 2 + 1 entries along the last dim.
  std::string padded = FitLength(ctx, h, last, half, dtype);
  // full[k] = conj(H[n - k]) for k in (n / 2, n): H[n - n/2 - 1], ..., H[1].
  std::string back_start = ctx.Op("Sub", {n, half});
  std::string mirrored = ctx.Op("Slice", {padded, back_start, i64(0), i64(last), i64(-1)});
  std::string conj_sign = ctx.Op("Concat", {Reshape(ctx, ctx.ConstantScalar(dtype, 1), {1}),
                                             Reshape(ctx, ctx.ConstantScalar(dtype, -1), {1})},
                                 {Attribute::Int("axis", 0)});
  std::string conj = ctx.Op("Mul", {mirrored, conj_sign});
  std::string full = ctx.Op("Concat", {padded, conj}, {Attribute::Int("axis", last)});

  std::string y = Dft(ctx, full, last, true, false);
  std::string size = SizeProduct(ctx, y, axes, dtype);
  PT2ONNX_ASSIGN_OR_RETURN(y, Normalize(ctx, y, normalization, size, size, dtype));
  return ctx.Op("Gather", {y, ctx.ConstantInt64(0)}, {Attribute::Int("axis", rank)});
}

absl::Status CheckRealResult(const TranslateContext& ctx, DataType dtype) {
  if (dtype != DataType::kFloat && dtype != DataType::kDouble) {
    return ctx.Invalid(absl::StrCat("expected a float32 or float64 result, got ",
                                    DataTypeName(dtype)));
  }
  return absl::OkStatus();
}

// torch.fft's `norm` as a _fft_* normalization: it names the scale of the
// forward transform ("backward", the default: none; "ortho": 1/sqrt(n);
// "forward": 1/n), the inverse taking the complementary one.
absl::StatusOr<int64_t> NormMode(const TranslateContext& ctx, bool inverse) {
  std::string norm = "backward";
  if (ctx.Has("norm")) {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("norm"));
    if (arg.kind != pt2::Argument::Kind::kNone) {
      PT2ONNX_ASSIGN_OR_RETURN(norm, ctx.String("norm"));
    }
  }
  if (norm == "ortho") return 1;
  if (norm == "backward") return inverse ? 2 : 0;
  if (norm == "forward") return inverse ? 0 : 2;
  return ctx.Invalid(
      absl::StrCat("norm must be 'backward', 'ortho' or 'forward', got '", norm, "'"));
}

// The signal length `n` as a [1] INT64 value; nullopt for None.
absl::StatusOr<std::optional<std::string>> SignalLength(TranslateContext& ctx) {
  if (!ctx.Has("n")) return std::optional<std::string>();
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("n"));
  if (arg.kind == pt2::Argument::Kind::kNone) return std::optional<std::string>();
  PT2ONNX_ASSIGN_OR_RETURN(std::string n, ctx.SymIntAsTensor("n"));
  return std::optional<std::string>(Reshape(ctx, n, {1}));
}


absl::StatusOr<std::string> PromotedOperand(TranslateContext& ctx, int64_t rank, DataType part) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType in_dtype, ctx.InputDtype("self"));
  if (IsComplex(in_dtype)) return ComplexOperand(ctx);
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", part));
  std::string real = Unsqueeze(ctx, x, {rank});
  std::string imaginary = ctx.Op("Expand", {ctx.ConstantScalar(part, 0), ctx.Op("Shape", {real})});
  return ctx.Op("Concat", {real, imaginary}, {Attribute::Int("axis", rank)});
}

std::string Conj(TranslateContext& ctx, const std::string& x, DataType dtype) {
  std::string sign = ctx.Op("Concat", {Reshape(ctx, ctx.ConstantScalar(dtype, 1), {1}),
                                       Reshape(ctx, ctx.ConstantScalar(dtype, -1), {1})},
                            {Attribute::Int("axis", 0)});
  return ctx.Op("Mul", {x, sign});
}

}  // namespace pt2onnx::ops::fft_internal
