// File: ops/fft.cc
// -----------------------------------------------------------------------------
// Discrete Fourier transforms (_fft_r2c, _fft_c2c, _fft_c2r, and torch.fft's
// 1-D fft, ifft, rfft, irfft of programs not decomposed) as ONNX DFT, and
// view_as_real.
//
// ONNX has no complex arithmetic, so a complex tensor is carried as a real
// one with a trailing dim of 2 (real, imaginary), as DFT reads and writes
// it. Only these translations understand that layout: a complex result must
// be read by nothing but FFT ops and view_as_real (which is then the
// identity), and must not be a program output; complex operands must
// come from an FFT op (a complex program input is refused). Anything else
// (e.g. abs or mul of a complex tensor) is refused with the reader named.
//
// Scaling: torch's `normalization` is 0 (none), 1 (1/sqrt(n)) or 2 (1/n),
// n the product of the transformed sizes, whatever the direction; ONNX's
// inverse DFT divides by each size itself, which is undone.
//
// c2r: after the inverse transforms over the other dims, the half spectrum
// H (cut or zero-padded to n/2 + 1 entries, n = last_dim_size) along the
// last dim is completed by Hermitian symmetry, full[k] = conj(H[n - k])
// for k > n/2, and inverse-transformed; the real part is the result (the
// imaginary parts of H[0] and H[n/2] only reach the dropped imaginary part,
// as in torch).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/complex_layout.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

constexpr absl::string_view kComplexReaders[] = {
    "torch.ops.aten._fft_c2c.default", "torch.ops.aten._fft_c2r.default",
    "torch.ops.aten.fft_fft.default",  "torch.ops.aten.fft_ifft.default",
    "torch.ops.aten.fft_irfft.default", "torch.ops.aten.view_as_real.default",
    // complex_views.cc
    "torch.ops.aten.view_as_real_copy.default", "torch.ops.aten.resolve_conj.default",
    "torch.ops.aten.resolve_neg.default", "torch.ops.aten.conj.default", "torch.ops.aten._conj.default"};
// Real -> complex conversions go through BindRealAsComplex (conversion.cc).
constexpr absl::string_view kComplexWriters[] = {
    "torch.ops.aten._fft_r2c.default", "torch.ops.aten._fft_c2c.default",
    "torch.ops.aten.fft_rfft.default", "torch.ops.aten.fft_fft.default",
    "torch.ops.aten.fft_ifft.default", "torch.ops.aten._to_copy.default",
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

// The complex result of this node may only reach complex-aware readers.
absl::Status CheckComplexReaders(const TranslateContext& ctx) {
  const std::string name = OutputName(ctx.node());
  const pt2::Graph& graph = ctx.fx_graph();
  for (const pt2::Argument& out : graph.outputs) {
    if (ArgumentNames(out, name)) {
      return ctx.Unsupported(
          "a complex program output (ONNX has no complex arithmetic here; return "
          "torch.view_as_real(x) instead)");
    }
  }
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

// aten::_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor
absl::Status AtenFftR2c(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, PartDtype(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, TransformAxes(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, ctx.Int("normalization"));
  PT2ONNX_ASSIGN_OR_RETURN(bool onesided, ctx.Bool("onesided"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  std::string n = SizeProduct(ctx, x, axes, dtype);
  // The last dim is transformed first (onesided applies to it), then the others.
  std::string y = Dft(ctx, Unsqueeze(ctx, x, {rank}), axes.back(), false, onesided);
  for (size_t i = 0; i + 1 < axes.size(); ++i) y = Dft(ctx, y, axes[i], false, false);
  PT2ONNX_ASSIGN_OR_RETURN(y, Normalize(ctx, y, normalization, n, "", dtype));
  return ctx.SetOutput(0, y);
}

// aten::_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor
absl::Status AtenFftC2c(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, PartDtype(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, TransformAxes(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, ctx.Int("normalization"));
  PT2ONNX_ASSIGN_OR_RETURN(bool forward, ctx.Bool("forward"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ComplexOperand(ctx));
  std::string n = SizeProduct(ctx, x, axes, dtype);
  std::string y = x;
  for (int64_t axis : axes) y = Dft(ctx, y, axis, !forward, false);
  PT2ONNX_ASSIGN_OR_RETURN(y, Normalize(ctx, y, normalization, n, forward ? "" : n, dtype));
  return ctx.SetOutput(0, y);
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

// aten::_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor
absl::Status AtenFftC2r(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_RETURN_IF_ERROR(CheckRealResult(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> axes, TransformAxes(ctx, rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, ctx.Int("normalization"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string h, ComplexOperand(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string last_size, ctx.SymIntAsTensor("last_dim_size"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, C2r(ctx, h, axes, Reshape(ctx, last_size, {1}),
                                              normalization, rank, dtype));
  return ctx.SetOutput(0, y);
}

// ---- torch.fft's 1-D functions (programs not decomposed) ---------------------

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

// fft_fft / fft_ifft / fft_rfft: one transform along dim of a real or
// complex input cut or zero-padded to n.
absl::Status OneDimensional(TranslateContext& ctx, bool inverse, bool onesided) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, PartDtype(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(dim, rank, "dim of torch.fft"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, NormMode(ctx, inverse));
  PT2ONNX_ASSIGN_OR_RETURN(DataType in_dtype, ctx.InputDtype("self"));
  std::string x;
  if (IsComplex(in_dtype)) {
    if (onesided) return ctx.Invalid("rfft needs a real input");
    PT2ONNX_ASSIGN_OR_RETURN(x, ComplexOperand(ctx));
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(x, ctx.InputAs("self", dtype));
    x = Unsqueeze(ctx, x, {rank});
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> n, SignalLength(ctx));
  if (n) x = FitLength(ctx, x, axis, *n, dtype);
  std::string size = SizeAs(ctx, x, axis, dtype);
  std::string y = Dft(ctx, x, axis, inverse, onesided);
  PT2ONNX_ASSIGN_OR_RETURN(y, Normalize(ctx, y, normalization, size, inverse ? size : "", dtype));
  return ctx.SetOutput(0, y);
}

// aten::fft_fft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status AtenFftFft(TranslateContext& ctx) { return OneDimensional(ctx, false, false); }
// aten::fft_ifft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status AtenFftIfft(TranslateContext& ctx) { return OneDimensional(ctx, true, false); }
// aten::fft_rfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
absl::Status AtenFftRfft(TranslateContext& ctx) { return OneDimensional(ctx, false, true); }

// aten::fft_irfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor
// n defaults to 2 * (m - 1) for m half-spectrum entries.
absl::Status AtenFftIrfft(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_RETURN_IF_ERROR(CheckRealResult(ctx, dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, ctx.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(dim, rank, "dim of torch.fft.irfft"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t normalization, NormMode(ctx, true));
  PT2ONNX_ASSIGN_OR_RETURN(DataType in_dtype, ctx.InputDtype("self"));
  if (!IsComplex(in_dtype)) {
    return ctx.Unsupported("irfft of a real tensor (a complex one is translated)");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string h, ComplexOperand(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> n, SignalLength(ctx));
  if (!n) {
    std::string m = ShapeSlice(ctx, h, axis, axis + 1);
    n = ctx.Op("Mul", {ctx.Op("Sub", {m, ctx.ConstantInt64s({1})}), ctx.ConstantInt64s({2})});
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, C2r(ctx, h, {axis}, *n, normalization, rank, dtype));
  return ctx.SetOutput(0, y);
}

// aten::view_as_real(Tensor(a) self) -> Tensor(a)
// The (..., 2) layout already is torch's view_as_real.
absl::Status AtenViewAsReal(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ComplexOperand(ctx));
  return ctx.SetOutput(0, ctx.Op("Identity", {x}));
}

}  // namespace

absl::Status CheckComplexLayoutReaders(const TranslateContext& ctx) { return CheckComplexReaders(ctx); }

absl::StatusOr<std::string> ComplexLayoutOperand(TranslateContext& ctx) { return ComplexOperand(ctx); }

absl::Status BindRealAsComplex(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckComplexReaders(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType part, PartDtype(ctx, ctx.OutputDtype(0)));
  PT2ONNX_ASSIGN_OR_RETURN(DataType from, ctx.InputDtype("self"));
  if (IsComplex(from)) return ctx.Unsupported("a conversion between complex dtypes");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", part));
  std::string real = Unsqueeze(ctx, x, {rank});
  std::string imaginary = ctx.Op("Expand", {ctx.ConstantScalar(part, 0), ctx.Op("Shape", {real})});
  return ctx.SetOutput(0, ctx.Op("Concat", {real, imaginary}, {Attribute::Int("axis", rank)}));
}

void RegisterFftOps(OpRegistry& r) {
  r.Add("aten::_fft_c2c.default", &AtenFftC2c);
  r.Add("aten::_fft_c2r.default", &AtenFftC2r);
  r.Add("aten::_fft_r2c.default", &AtenFftR2c);
  r.Add("aten::fft_fft.default", &AtenFftFft);
  r.Add("aten::fft_ifft.default", &AtenFftIfft);
  r.Add("aten::fft_irfft.default", &AtenFftIrfft);
  r.Add("aten::fft_rfft.default", &AtenFftRfft);
  r.Add("aten::view_as_real.default", &AtenViewAsReal);
}

}  // namespace pt2onnx::ops
