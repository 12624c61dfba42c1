// File: ops/unpooling.cc
// -----------------------------------------------------------------------------
// max_unpool2d / max_unpool3d (max_unpool1d exports as max_unpool2d). torch's
// indices are flat offsets into one output plane (all spatial dims of one
// (N, C) pair), as max_pool*_with_indices returns them; ONNX MaxUnpool's are
// flat over the whole tensor, so the translation scatters plane by plane
// with ScatterElements instead. Checks follow
// aten/src/ATen/native/MaxUnpooling.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// Keeps a file-given output plane's element count far from int64 overflow.
constexpr int64_t kMaxOutputPlane = int64_t{1} << 40;

// Checks ranks, shapes and output_size, then scatters self into zeros of
// shape self.shape[:-k] + output_size at each plane's indices.
absl::Status Unpool(TranslateContext& ctx, int64_t k) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank != k + 1 && rank != k + 2) {
    return ctx.Invalid(absl::StrCat("self must have rank ", k + 1, " or ", k + 2, ", got ", rank));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType index_dtype, ctx.InputDtype("indices"));
  if (index_dtype != DataType::kInt64) return ctx.Invalid("indices must be int64");
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* self_meta, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* index_meta, ctx.InputMeta("indices"));
  if (self_meta->sizes.size() != index_meta->sizes.size()) {
    return ctx.Invalid("indices must have the shape of self");
  }
  for (size_t i = 0; i < self_meta->sizes.size(); ++i) {
    const auto& a = self_meta->sizes[i];
    const auto& b = index_meta->sizes[i];
    if (!a.is_symbolic && !b.is_symbolic && a.value != b.value) {
      return ctx.Invalid("indices must have the shape of self");
    }
  }
  if (k == 3) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, ctx.Ints("stride"));
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, ctx.Ints("padding"));
    if (stride.size() != 3 || padding.size() != 3) return ctx.Invalid("stride and padding need 3 entries");
    for (int64_t s : stride) {
      if (s <= 0) return ctx.Invalid(absl::StrCat("stride must be positive, got ", s));
    }
  }
  std::string output_size;
  if (ctx.IsStaticInts("output_size")) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ctx.Ints("output_size"));
    if (static_cast<int64_t>(sizes.size()) != k) {
      return ctx.Invalid(absl::StrCat("output_size needs ", k, " entries, got ", sizes.size()));
    }
    int64_t plane = 1;
    for (int64_t s : sizes) {
      if (s < 0) return ctx.Invalid(absl::StrCat("output_size entry ", s, " is negative"));
      std::optional<int64_t> grown = CheckedMul(plane, s);
      if (!grown || *grown > kMaxOutputPlane) return ctx.Invalid("output_size's plane is too large");
      plane = *grown;
    }
    output_size = ctx.ConstantInt64s(sizes);
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(output_size, ctx.IntsAsTensor("output_size"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string indices, ctx.Input("indices"));
  DataType dtype = self_meta->dtype;
  const Attribute keep_zeros = Attribute::Int("allowzero", 1);
  const Attribute concat0 = Attribute::Int("axis", 0);
  std::string lead = ctx.Op("Shape", {self}, {Attribute::Int("end", -k)});
  std::string in_plane = ctx.Op("ReduceProd", {ctx.Op("Shape", {self}, {Attribute::Int("start", -k)})},
                                {Attribute::Int("keepdims", 1)});
  std::string out_plane = ctx.Op("ReduceProd", {output_size}, {Attribute::Int("keepdims", 1)});
  std::string flat_in = ctx.Op("Concat", {lead, in_plane}, {concat0});
  std::string values = ctx.Op("Reshape", {self, flat_in}, {keep_zeros});
  std::string positions = ctx.Op("Reshape", {indices, flat_in}, {keep_zeros});
  // torch refuses negative indices; ScatterElements would count them from
  // the end, so they become out_plane, which it refuses too.
  positions = ctx.Op("Where", {ctx.Op("Less", {positions, ctx.ConstantInt64(0)}), out_plane, positions});
  std::string zeros = ctx.Op("Expand", {ctx.ConstantScalar(dtype, 0),
                                        ctx.Op("Concat", {lead, out_plane}, {concat0})});
  std::string scattered = ctx.Op("ScatterElements", {zeros, positions, values},
                                 {Attribute::Int("axis", rank - k)});
  std::string out_shape = ctx.Op("Concat", {lead, output_size}, {concat0});
  return ctx.SetOutput(0, ctx.Op("Reshape", {scattered, out_shape}, {keep_zeros}));
}

// aten::max_unpool2d(Tensor self, Tensor indices, SymInt[2] output_size) -> Tensor
absl::Status AtenMaxUnpool2d(TranslateContext& ctx) { return Unpool(ctx, 2); }

// aten::max_unpool3d(Tensor self, Tensor indices, SymInt[3] output_size, int[3] stride, int[3] padding) -> Tensor
// stride and padding are only checked: the indices alone place each value.
absl::Status AtenMaxUnpool3d(TranslateContext& ctx) { return Unpool(ctx, 3); }

}  // namespace

void RegisterUnpoolingOps(OpRegistry& r) {
  r.Add("aten::max_unpool2d.default", &AtenMaxUnpool2d);
  r.Add("aten::max_unpool3d.default", &AtenMaxUnpool3d);
}

}  // namespace pt2onnx::ops
