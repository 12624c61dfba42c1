#include "ops/shape_helpers.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/checked_math.h"
#include "core/ir/graph.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"

namespace pt2onnx::ops {

std::optional<std::vector<int64_t>> StaticSizes(const pt2::TensorMeta* meta) {
  if (meta == nullptr) return std::nullopt;
  std::vector<int64_t> sizes;
  for (const pt2::SymInt& s : meta->sizes) {
    if (s.is_symbolic) return std::nullopt;
    sizes.push_back(s.value);
  }
  return sizes;
}

std::optional<std::string> StaticEmptyOutput(TranslateContext& ctx, int i) {
  std::optional<std::vector<int64_t>> dims = StaticSizes(ctx.OutputMeta(i));
  const DataType dtype = ctx.OutputDtype(i);
  if (!dims.has_value() || dtype == DataType::kUndefined) return std::nullopt;
  if (std::find(dims->begin(), dims->end(), 0) == dims->end()) return std::nullopt;
  return ctx.Constant(ir::Tensor::Owned(dtype, std::move(*dims), ""));
}

std::optional<std::vector<int64_t>> StaticDims(const TranslateContext& ctx, absl::string_view arg,
                                               int64_t begin, int64_t n) {
  absl::StatusOr<const pt2::TensorMeta*> meta = ctx.InputMeta(arg);
  if (!meta.ok() || *meta == nullptr) return std::nullopt;
  const std::vector<pt2::SymInt>& sizes = (*meta)->sizes;
  const int64_t rank = static_cast<int64_t>(sizes.size());
  if (begin < 0) begin += rank;
  if (begin < 0 || n < 0 || begin > rank - n) return std::nullopt;
  std::vector<int64_t> dims;
  for (int64_t i = begin; i < begin + n; ++i) {
    if (sizes[i].is_symbolic) return std::nullopt;
    dims.push_back(sizes[i].value);
  }
  return dims;
}

std::string ReshapeToStatic(TranslateContext& ctx, const std::string& x,
                            const std::vector<int64_t>& sizes) {
  bool has_zero = false;
  for (int64_t s : sizes) has_zero |= s == 0;
  return ctx.Op("Reshape", {x, ctx.ConstantInt64s(sizes)},
                {ir::Attribute::Int("allowzero", has_zero ? 1 : 0)});
}

SizeExpr InputSize(TranslateContext& ctx, const std::string& x, const pt2::TensorMeta& meta,
                   int64_t axis) {
  const pt2::SymInt& s = meta.sizes[axis];
  if (!s.is_symbolic) return SizeExpr{s.value, ""};
  return SizeExpr{std::nullopt, ShapeSlice(ctx, x, axis, axis + 1)};
}

std::string SizeTensor(TranslateContext& ctx, const SizeExpr& s) {
  return s.value.has_value() ? ctx.ConstantInt64s({*s.value}) : s.tensor;
}

SizeExpr MulSizes(TranslateContext& ctx, const SizeExpr& a, const SizeExpr& b) {
  if (a.value && b.value) {
    // A product beyond int64 (a hostile factor) is left to the model's Mul.
    if (std::optional<int64_t> product = CheckedMul(*a.value, *b.value)) return SizeExpr{*product, ""};
  }
  return SizeExpr{std::nullopt, ctx.Op("Mul", {SizeTensor(ctx, a), SizeTensor(ctx, b)})};
}

SizeExpr DivSize(TranslateContext& ctx, const SizeExpr& a, int64_t b) {
  if (a.value) return SizeExpr{*a.value / b, ""};
  return SizeExpr{std::nullopt, ctx.Op("Div", {a.tensor, ctx.ConstantInt64s({b})})};
}

std::string ShapeTensor(TranslateContext& ctx, const std::vector<SizeExpr>& sizes) {
  std::vector<std::string> pieces;
  std::vector<int64_t> run;
  bool all_static = true;
  for (const SizeExpr& s : sizes) {
    if (s.value.has_value()) {
      run.push_back(*s.value);
      continue;
    }
    all_static = false;
    if (!run.empty()) pieces.push_back(ctx.ConstantInt64s(run));
    run.clear();
    pieces.push_back(s.tensor);
  }
  if (all_static) return ctx.ConstantInt64s(run);
  if (!run.empty()) pieces.push_back(ctx.ConstantInt64s(run));
  if (pieces.size() == 1) return pieces[0];
  return ctx.Op("Concat", pieces, {ir::Attribute::Int("axis", 0)});
}

std::string ReshapeToOutput(TranslateContext& ctx, const std::string& x,
                            const std::vector<SizeExpr>& sizes) {
  if (auto out = StaticSizes(ctx.OutputMeta(0))) return ReshapeToStatic(ctx, x, *out);
  return ctx.Op("Reshape", {x, ShapeTensor(ctx, sizes)});
}

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(i);
  return v;
}

std::vector<int64_t> InversePermutation(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

std::string TransposeBy(TranslateContext& ctx, const std::string& x,
                        const std::vector<int64_t>& perm) {
  if (perm == Iota(static_cast<int64_t>(perm.size()))) return x;
  return ctx.Op("Transpose", {x}, {ir::Attribute::Ints("perm", perm)});
}

absl::Status SetTransposed(TranslateContext& ctx, const std::string& x,
                           const std::vector<int64_t>& perm) {
  if (perm == Iota(static_cast<int64_t>(perm.size()))) return ctx.SetOutput(0, x);
  return ctx.SetOutput(0, ctx.Op("Transpose", {x}, {ir::Attribute::Ints("perm", perm)}));
}

}  // namespace pt2onnx::ops
