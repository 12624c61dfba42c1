// File: ops/resize.cc
// -----------------------------------------------------------------------------
// resize_ and resize_as_ (and resize_as): the tensor takes new sizes over its
// storage (aten/src/ATen/native/Resize.cpp). With contiguous strides, the
// result reads the first numel(new) elements of the row-major storage, so a
// shrink or an equal element count is Reshape(Slice(flat)). Growing leaves
// uninitialized memory in the new elements, which no model can reproduce:
// refused. A non-contiguous input keeps its old storage order, so it is
// accepted only when the sizes do not change (then nothing happens).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// torch.contiguous_format's serialized code (torch/_export/serde/schema.py).
constexpr int64_t kContiguousFormat = 1;

absl::StatusOr<std::vector<int64_t>> StaticSizes(const TranslateContext& ctx, const pt2::TensorMeta& meta,
                                                 const char* what) {
  std::vector<int64_t> sizes;
  for (const pt2::SymInt& s : meta.sizes) {
    if (s.is_symbolic) return ctx.Unsupported(absl::StrCat("resize with a symbolic size of ", what));
    sizes.push_back(s.value);
  }
  return sizes;
}

bool RowMajor(const pt2::TensorMeta& meta, const std::vector<int64_t>& sizes) {
  if (meta.strides.size() != sizes.size()) return false;
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;  // any stride works for a size-1 dim
    if (meta.strides[i].is_symbolic || meta.strides[i].value != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

int64_t Product(const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// The result, also rebinding self for the in-place overloads.
absl::Status SetResult(TranslateContext& ctx, const std::string& value) {
  if (ctx.key() == "aten::resize_as.default") return ctx.SetOutput(0, value);
  return ctx.SetInPlaceResult("self", value);
}

absl::Status Resize(TranslateContext& ctx, const std::vector<int64_t>& size) {
  if (ctx.Has("memory_format")) {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument format, ctx.Arg("memory_format"));
    if (format.kind == pt2::Argument::Kind::kMemoryFormat && format.i != kContiguousFormat) {
      return ctx.Unsupported("resize_ to a memory format other than contiguous_format");
    }
  }
  for (int64_t s : size) {
    if (s < 0) return ctx.Invalid(absl::StrCat("resize_ to a negative size [", absl::StrJoin(size, ", "), "]"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> old_sizes, StaticSizes(ctx, *meta, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  if (size == old_sizes) return SetResult(ctx, self);
  const int64_t old_numel = Product(old_sizes);
  const int64_t numel = Product(size);
  if (numel > old_numel) {
    return ctx.Unsupported(absl::StrCat("resize_ from ", old_numel, " to ", numel,
                                        " elements: torch leaves the new elements uninitialized"));
  }
  if (!RowMajor(*meta, old_sizes)) {
    return ctx.Unsupported("resize_ of a non-contiguous tensor (the result follows its storage order); "
                           "call .contiguous() first");
  }
  std::string flat = Reshape(ctx, self, {-1});
  if (numel < old_numel) {
    flat = ctx.Op("Slice", {flat, ctx.ConstantInt64s({0}), ctx.ConstantInt64s({numel}), ctx.ConstantInt64s({0})});
  }
  return SetResult(ctx, Reshape(ctx, flat, size));
}

// aten::resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)
absl::Status AtenResize(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.Ints("size"));
  return Resize(ctx, size);
}

// aten::resize_as_(Tensor(a!) self, Tensor the_template, *, MemoryFormat? memory_format=None) -> Tensor(a!)
// (resize_as, its functional form, returns the same values)
absl::Status AtenResizeAs(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("the_template"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> size, StaticSizes(ctx, *meta, "the template"));
  return Resize(ctx, size);
}

}  // namespace

void RegisterResizeOps(OpRegistry& r) {
  r.Add("aten::resize_.default", &AtenResize);
  r.Add("aten::resize_as_.default", &AtenResizeAs);
  r.Add("aten::resize_as.default", &AtenResizeAs);
}

}  // namespace pt2onnx::ops
