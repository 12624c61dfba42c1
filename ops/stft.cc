// File: ops/stft.cc
// -----------------------------------------------------------------------------
// aten::stft as frames gathered from the signal, windowed, and one ONNX DFT
// along each frame (ONNX STFT would do the same, but pt2onnx's executor has
// no kernel for it, and the gather keeps dynamic lengths working).
//
// torch's rules (aten/src/ATen/native/SpectralOps.cpp, stft): hop_length
// defaults to n_fft / 4, win_length to n_fft; the window (ones when absent)
// of win_length entries is zero-padded to n_fft, centred (left pad
// (n_fft - win_length) / 2); frame t covers samples [t * hop, t * hop +
// n_fft), 1 + (length - n_fft) / hop frames; onesided (the default for a
// real signal and window) keeps n_fft / 2 + 1 bins; normalized scales by
// 1 / sqrt(n_fft). The result is [batch?, bins, frames], complex, or its
// view_as_real with return_complex=False; the complex layout of
// ops/complex_layout.h is that same [..., 2] tensor. Centre padding
// (torch.stft(center=True)) reaches the exported program as a separate pad.
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
#include "ops/fft_helpers.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// The window zero-padded, centred, to n_fft entries ([n_fft] of `part`).
absl::StatusOr<std::string> PaddedWindow(TranslateContext& ctx, int64_t n_fft, int64_t win_length,
                                         DataType part) {
  std::string window;
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> given, ctx.OptionalInput("window"));
  if (given) {
    PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("window"));
    if (IsComplex(dtype)) return ctx.Unsupported("a complex window (a real one is translated)");
    PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("window"));
    if (rank != 1) return ctx.Invalid(absl::StrCat("expected a 1-D window, got ", rank, "-D"));
    PT2ONNX_ASSIGN_OR_RETURN(window, ctx.InputAs("window", part));
  } else {
    window = ctx.Op("Expand", {ctx.ConstantScalar(part, 1), ctx.ConstantInt64s({win_length})});
  }
  const int64_t left = (n_fft - win_length) / 2;
  if (left == 0 && win_length == n_fft) return window;
  return ctx.Op("Pad", {window, ctx.ConstantInt64s({left, n_fft - win_length - left}),
                        ctx.ConstantScalar(part, 0)});
}

// aten::stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None,
//            Tensor? window=None, bool normalized=False, bool? onesided=None,
//            bool? return_complex=None, bool? align_to_window=None) -> Tensor
absl::Status AtenStft(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType in_dtype, ctx.InputDtype("self"));
  if (IsComplex(in_dtype)) return ctx.Unsupported("stft of a complex signal (a real one is translated)");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank != 1 && rank != 2) return ctx.Invalid(absl::StrCat("expected a 1-D or 2-D signal, got ", rank, "-D"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n_fft, ctx.Int("n_fft"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> hop_arg, ctx.OptionalInt("hop_length"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> win_arg, ctx.OptionalInt("win_length"));
  const int64_t hop = hop_arg.value_or(n_fft / 4);
  const int64_t win_length = win_arg.value_or(n_fft);
  if (n_fft <= 0 || hop <= 0 || win_length <= 0 || win_length > n_fft) {
    return ctx.Invalid(absl::StrCat("expected 0 < n_fft, 0 < hop_length and 0 < win_length <= n_fft, got n_fft=",
                                    n_fft, ", hop_length=", hop, ", win_length=", win_length));
  }
  PT2ONNX_ASSIGN_OR_RETURN(bool normalized, ctx.Bool("normalized"));
  bool onesided = true;
  if (ctx.Has("onesided")) {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("onesided"));
    if (arg.kind != pt2::Argument::Kind::kNone) {
      PT2ONNX_ASSIGN_OR_RETURN(onesided, ctx.Bool("onesided"));
    }
  }
  if (ctx.Has("align_to_window")) {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument arg, ctx.Arg("align_to_window"));
    if (arg.kind != pt2::Argument::Kind::kNone) {
      PT2ONNX_ASSIGN_OR_RETURN(bool align, ctx.Bool("align_to_window"));
      if (align) return ctx.Unsupported("align_to_window=True (frames aligned to the window's start)");
    }
  }
  const DataType out_dtype = ctx.OutputDtype(0);
  const bool complex_result = IsComplex(out_dtype);
  if (complex_result) PT2ONNX_RETURN_IF_ERROR(fft_internal::CheckComplexReaders(ctx));
  DataType part = out_dtype;
  if (complex_result) {
    PT2ONNX_ASSIGN_OR_RETURN(part, fft_internal::PartDtype(ctx, out_dtype));
  }
  PT2ONNX_RETURN_IF_ERROR(fft_internal::CheckRealResult(ctx, part));

  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", part));
  const int64_t time = rank - 1;
  auto i64 = [&](int64_t v) { return ctx.ConstantInt64(v); };
  // frames = 1 + (length - n_fft) / hop, as a 0-d INT64.
  std::string length = Squeeze(ctx, ShapeSlice(ctx, x, time, time + 1), {0});
  std::string frames = ctx.Op("Add", {ctx.Op("Div", {ctx.Op("Sub", {length, i64(n_fft)}), i64(hop)}), i64(1)});
  std::string starts = ctx.Op("Mul", {ctx.Op("Range", {i64(0), frames, i64(1)}), i64(hop)});
  std::vector<int64_t> offsets(n_fft);
  for (int64_t k = 0; k < n_fft; ++k) offsets[k] = k;
  std::string index = ctx.Op("Add", {Unsqueeze(ctx, starts, {1}), ctx.ConstantInt64s(offsets)});
  // [batch?, frames, n_fft], windowed.
  std::string framed = ctx.Op("Gather", {x, index}, {Attribute::Int("axis", time)});
  PT2ONNX_ASSIGN_OR_RETURN(std::string window, PaddedWindow(ctx, n_fft, win_length, part));
  framed = ctx.Op("Mul", {framed, window});
  std::string y = fft_internal::Dft(ctx, Unsqueeze(ctx, framed, {rank + 1}), rank, false, onesided);
  if (normalized) {
    y = ctx.Op("Mul", {y, ctx.ConstantScalar(part, 1.0 / std::sqrt(static_cast<double>(n_fft)))});
  }
  // [batch?, frames, bins, 2] -> [batch?, bins, frames, 2].
  std::vector<int64_t> perm = rank == 1 ? std::vector<int64_t>{1, 0, 2} : std::vector<int64_t>{0, 2, 1, 3};
  return ctx.SetOutput(0, ctx.Op("Transpose", {y}, {Attribute::Ints("perm", perm)}));
}

}  // namespace

void RegisterStftOps(OpRegistry& r) { r.Add("aten::stft.default", &AtenStft); }

}  // namespace pt2onnx::ops
