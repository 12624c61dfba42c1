// File: ops/triangle_indices.cc
// -----------------------------------------------------------------------------
// tril_indices / triu_indices: the [2, N] row and column indices of a
// row x col matrix's lower (upper) triangle, shifted by `offset`, in
// row-major order as ATen's CPU kernels list them
// (aten/src/ATen/native/TensorFactories.cpp). The sizes are plain ints in
// the schema, so the result is a constant.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/tensor.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"

namespace pt2onnx::ops {
namespace {

// A constant larger than this is refused rather than written into the model.
constexpr int64_t kMaxIndices = int64_t{1} << 24;

template <typename T>
void AppendAs(std::string& bytes, int64_t v) {
  const T value = static_cast<T>(v);
  bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
}

absl::Status TriangleIndices(TranslateContext& ctx, bool lower) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rows, ctx.Int("row"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t cols, ctx.Int("col"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t offset, ctx.Int("offset"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> requested, ctx.OptionalDtype("dtype"));
  const DataType dtype = requested.value_or(DataType::kInt64);
  if (rows < 0 || cols < 0) return ctx.Invalid(absl::StrCat("negative size ", rows, " x ", cols));
  if (dtype != DataType::kInt64 && dtype != DataType::kInt32) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " with dtype ", DataTypeName(dtype), " (int32 or int64)"));
  }
  // Row i's first and one-past-last column; in 128 bits, as `offset` may be
  // anywhere in int64.
  auto span = [&](int64_t i) {
    const __int128 shifted = static_cast<__int128>(i) + offset;
    const int64_t begin = lower ? 0 : static_cast<int64_t>(std::clamp<__int128>(shifted, 0, cols));
    const int64_t end = lower ? static_cast<int64_t>(std::clamp<__int128>(shifted + 1, 0, cols)) : cols;
    return std::pair<int64_t, int64_t>(begin, std::max(begin, end));
  };
  // Only the rows that hold an index are visited (each holds at least one,
  // so a huge size stops at kMaxIndices): the lower triangle's from row
  // -offset on, the upper one's below row cols - offset.
  __int128 first_row = 0, end_row = 0;
  if (cols > 0) {
    first_row = lower ? std::max<__int128>(0, -static_cast<__int128>(offset)) : 0;
    end_row = lower ? rows : std::min<__int128>(rows, static_cast<__int128>(cols) - offset);
  }
  int64_t count = 0;
  for (__int128 i = first_row; i < end_row; ++i) {
    auto [begin, end] = span(static_cast<int64_t>(i));
    count += end - begin;
    if (count > kMaxIndices) {
      return ctx.Unsupported(absl::StrCat(ctx.key(), " of a ", rows, " x ", cols, " matrix: more than ",
                                          kMaxIndices, " indices would be written into the model as a constant"));
    }
  }
  std::string row_bytes, col_bytes;
  for (__int128 i = first_row; i < end_row; ++i) {
    auto [begin, end] = span(static_cast<int64_t>(i));
    for (int64_t j = begin; j < end; ++j) {
      if (dtype == DataType::kInt64) {
        AppendAs<int64_t>(row_bytes, static_cast<int64_t>(i));
        AppendAs<int64_t>(col_bytes, j);
      } else {
        AppendAs<int32_t>(row_bytes, static_cast<int64_t>(i));
        AppendAs<int32_t>(col_bytes, j);
      }
    }
  }
  return BindResult(ctx, ctx.Constant(ir::Tensor::Owned(dtype, {2, count}, row_bytes + col_bytes)));
}

// aten::tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=long, ...) -> Tensor
absl::Status AtenTrilIndices(TranslateContext& ctx) { return TriangleIndices(ctx, true); }
// aten::triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=long, ...) -> Tensor
absl::Status AtenTriuIndices(TranslateContext& ctx) { return TriangleIndices(ctx, false); }

}  // namespace

void RegisterTriangleIndicesOps(OpRegistry& r) {
  r.Add("aten::tril_indices.default", &AtenTrilIndices);
  r.Add("aten::triu_indices.default", &AtenTriuIndices);
}

}  // namespace pt2onnx::ops
