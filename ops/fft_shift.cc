// File: ops/fft_shift.cc
// -----------------------------------------------------------------------------
// fft_fftshift / fft_ifftshift: real rolls of the given dims (all dims when
// dim is None) by n // 2 (fftshift) or -(n // 2) (ifftshift), n the dim's
// size (torch/fft: roll with those shifts). A roll by s is the concatenation
// x[n - s:] ++ x[:n - s]; the split point is computed from the run-time size,
// so symbolic dims work.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

absl::Status FftShift(TranslateContext& ctx, bool inverse) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> dims, ctx.OptionalInts("dim"));
  std::vector<int64_t> axes;
  if (dims) {
    PT2ONNX_ASSIGN_OR_RETURN(axes, CheckedAxes(ctx, "dim", *dims, std::max<int64_t>(rank, 1)));
  } else {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  if (rank == 0) return ctx.SetOutput(0, ctx.Op("Identity", {x}));
  std::string two = ctx.ConstantInt64s({2});
  std::string one = ctx.ConstantInt64s({1});
  std::string zero = ctx.ConstantInt64s({0});
  std::string end = ctx.ConstantInt64s({std::numeric_limits<int64_t>::max()});
  for (int64_t axis : axes) {
    std::string n = ShapeSlice(ctx, x, axis, axis + 1);
    // fftshift starts the result at n - n // 2 = (n + 1) // 2, ifftshift at n // 2.
    std::string split = inverse ? ctx.Op("Div", {n, two})
                                : ctx.Op("Div", {ctx.Op("Add", {n, one}), two});
    std::string ax = ctx.ConstantInt64s({axis});
    std::string tail = ctx.Op("Slice", {x, split, end, ax});
    std::string head = ctx.Op("Slice", {x, zero, split, ax});
    x = ctx.Op("Concat", {tail, head}, {Attribute::Int("axis", axis)});
  }
  return ctx.SetOutput(0, x);
}

// aten::fft_fftshift(Tensor self, int[1]? dim=None) -> Tensor
absl::Status AtenFftFftshift(TranslateContext& ctx) { return FftShift(ctx, false); }

// aten::fft_ifftshift(Tensor self, int[1]? dim=None) -> Tensor
absl::Status AtenFftIfftshift(TranslateContext& ctx) { return FftShift(ctx, true); }

}  // namespace

void RegisterFftShiftOps(OpRegistry& r) {
  r.Add("aten::fft_fftshift.default", &AtenFftFftshift);
  r.Add("aten::fft_ifftshift.default", &AtenFftIfftshift);
}

}  // namespace pt2onnx::ops
