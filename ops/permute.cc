// File: ops/permute.cc
// -----------------------------------------------------------------------------
// Axis permutations: permute, transpose/swapaxes/swapdims, t, numpy_T,
// mT/mH/adjoint and movedim/moveaxis, with their `*_copy` twins. ONNX has no
// views, so each is one Transpose (none for the identity permutation). Valid
// for opsets 18..23.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/shape_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// ---- permutations ----

// aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)
absl::Status AtenPermuteDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.Ints("dims"));
  if (static_cast<int64_t>(dims.size()) != rank) {
    return ctx.Invalid(absl::StrCat("permute dims [", absl::StrJoin(dims, ", "),
                                    "] do not match rank ", rank));
  }
  PT2ONNX_ASSIGN_OR_RETURN(dims, CheckedAxes(ctx, "dims", dims, rank));
  if (rank == 0) return ctx.SetOutput(0, x);
  return SetTransposed(ctx, x, dims);
}

// Swaps two axes (transpose.int, swapaxes, swapdims).
absl::Status SwapAxes(TranslateContext& ctx, absl::string_view arg0, absl::string_view arg1) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d0, AxisArg(ctx, arg0, rank));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t d1, AxisArg(ctx, arg1, rank));
  if (rank < 2) return ctx.SetOutput(0, x);
  std::vector<int64_t> perm = Iota(rank);
  std::swap(perm[d0], perm[d1]);
  return SetTransposed(ctx, x, perm);
}

// aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
absl::Status AtenTransposeInt(TranslateContext& ctx) { return SwapAxes(ctx, "dim0", "dim1"); }
// aten::swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)
absl::Status AtenSwapaxesDefault(TranslateContext& ctx) { return SwapAxes(ctx, "axis0", "axis1"); }
// aten::swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
absl::Status AtenSwapdimsDefault(TranslateContext& ctx) { return SwapAxes(ctx, "dim0", "dim1"); }

// aten::t(Tensor(a) self) -> Tensor(a)
absl::Status AtenTDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank < 2) return ctx.SetOutput(0, x);
  return SetTransposed(ctx, x, {1, 0});
}

// aten::numpy_T(Tensor(a) self) -> Tensor(a)
absl::Status AtenNumpyTDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  std::vector<int64_t> perm;
  for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  return SetTransposed(ctx, x, perm);
}

// aten::mT(Tensor(a) self) -> Tensor(a)
// (mH and adjoint are the same for the real dtypes ONNX models carry)
absl::Status AtenMTDefault(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank < 2) return ctx.Invalid(absl::StrCat("mT needs rank >= 2, got ", rank));
  std::vector<int64_t> perm = Iota(rank);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return SetTransposed(ctx, x, perm);
}

// aten::movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)
// (also movedim.int / moveaxis: the int overloads read as 1-element lists)
absl::Status AtenMovedimIntlist(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> source, ctx.Ints("source"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> destination, ctx.Ints("destination"));
  if (source.size() != destination.size()) {
    return ctx.Invalid("movedim source and destination differ in length");
  }
  PT2ONNX_ASSIGN_OR_RETURN(source, CheckedAxes(ctx, "source", source, rank));
  PT2ONNX_ASSIGN_OR_RETURN(destination, CheckedAxes(ctx, "destination", destination, rank));
  if (rank == 0) return ctx.SetOutput(0, x);
  // perm[destination[i]] = source[i]; the remaining axes keep their order.
  std::vector<int64_t> perm(rank, -1);
  std::vector<bool> moved(rank, false);
  for (size_t i = 0; i < source.size(); ++i) {
    int64_t s = source[i], d = destination[i];
    perm[d] = s;
    moved[s] = true;
  }
  int64_t next = 0;
  for (int64_t& p : perm) {
    if (p != -1) continue;
    while (moved[next]) ++next;
    p = next++;
  }
  return SetTransposed(ctx, x, perm);
}

}  // namespace

void RegisterPermuteOps(OpRegistry& r) {
  r.Add("aten::permute.default", &AtenPermuteDefault);
  r.Add("aten::permute_copy.default", &AtenPermuteDefault);
  r.Add("aten::transpose.int", &AtenTransposeInt);
  r.Add("aten::transpose_copy.int", &AtenTransposeInt);
  r.Add("aten::swapaxes.default", &AtenSwapaxesDefault);
  r.Add("aten::swapdims.default", &AtenSwapdimsDefault);
  r.Add("aten::t.default", &AtenTDefault);
  r.Add("aten::t_copy.default", &AtenTDefault);
  r.Add("aten::numpy_T.default", &AtenNumpyTDefault);
  r.Add("aten::mT.default", &AtenMTDefault);
  r.Add("aten::mH.default", &AtenMTDefault);
  r.Add("aten::adjoint.default", &AtenMTDefault);
  r.Add("aten::movedim.int", &AtenMovedimIntlist);
  r.Add("aten::movedim.intlist", &AtenMovedimIntlist);
  r.Add("aten::moveaxis.int", &AtenMovedimIntlist);
  r.Add("aten::moveaxis.intlist", &AtenMovedimIntlist);
}

}  // namespace pt2onnx::ops
