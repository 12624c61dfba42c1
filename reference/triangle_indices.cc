// Reference kernels: tril_indices / triu_indices, the [2, N] row and column
// indices of a row x col matrix's lower (upper) triangle shifted by
// `offset`, row-major as ATen's CPU kernels (TensorFactories.cpp) list them.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

absl::Status TriangleIndices(RefCall& call, bool lower) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rows, call.Int("row"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t cols, call.Int("col"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t offset, call.Int("offset"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<DataType> requested, call.Dtype("dtype"));
  const DataType dtype = requested.value_or(DataType::kInt64);
  if (rows < 0 || cols < 0) return call.Invalid(absl::StrCat("negative size ", rows, " x ", cols));
  if (dtype != DataType::kInt64 && dtype != DataType::kInt32) {
    return call.Unsupported(absl::StrCat("triangle indices as ", DataTypeName(dtype)));
  }
  std::vector<std::pair<int64_t, int64_t>> cells;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      if (lower ? j - i <= offset : j - i >= offset) cells.emplace_back(i, j);
    }
  }
  const int64_t n = static_cast<int64_t>(cells.size());
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(dtype, {2, n}, nullptr));
  for (int64_t k = 0; k < n; ++k) {
    if (dtype == DataType::kInt64) {
      out.data<int64_t>()[k] = cells[k].first;
      out.data<int64_t>()[n + k] = cells[k].second;
    } else {
      out.data<int32_t>()[k] = static_cast<int32_t>(cells[k].first);
      out.data<int32_t>()[n + k] = static_cast<int32_t>(cells[k].second);
    }
  }
  return call.SetTensor(std::move(out));
}

// aten::tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=long, ...) -> Tensor
absl::Status TrilIndices(RefCall& call) { return TriangleIndices(call, true); }
// aten::triu_indices(int row, int col, int offset=0, *, ScalarType? dtype=long, ...) -> Tensor
absl::Status TriuIndices(RefCall& call) { return TriangleIndices(call, false); }

}  // namespace

void RegisterTriangleIndicesRef(RefRegistry& r) {
  r.Add("aten::tril_indices.default", TrilIndices);
  r.Add("aten::triu_indices.default", TriuIndices);
}

}  // namespace pt2onnx::reference
