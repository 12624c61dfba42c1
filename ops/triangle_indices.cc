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
  // Each row's first and one-past-last column.
  auto span = [&](int64_t i) {
    const int64_t begin = lower ? 0 : std::clamp<int64_t>(i + offset, 0, cols);
    const int64_t end = lower ? std::clamp<int64_t>(i + offset + 1, 0, cols) : cols;
    return std::pair<int64_t, int64_t>(begin, std::max(begin, end));
  };
  int64_t count = 0;
  for (int64_t i = 0; i < rows; ++i) {
    count += span(i).second - span(i).first;
    if (count > kMaxIndices) {
      return ctx.Unsupported(absl::StrCat(ctx.key(), " of a ", rows, " x ", cols, " matrix: more than ",
                                          kMaxIndices, " indices would be written into the model as a constant"));
    }
  }
  std::string row_bytes, col_bytes;
  for (int64_t i = 0; i < rows; ++i) {
    auto [begin, end] = span(i);
    for (int64_t j = begin; j < end; ++j) {
      if (dtype == DataType::kInt64) {
        AppendAs<int64_t>(row_bytes, i);
        AppendAs<int64_t>(col_bytes, j);
      } else {
        AppendAs<int32_t>(row_bytes, i);
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
