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
  // Row by row, the columns j with j - i <= offset (lower) or >= offset
  // (upper), in 128 bits as `offset` may be anywhere in int64; rows without
  // one are skipped, and more than kMaxCells cells are refused.
  constexpr int64_t kMaxCells = int64_t{1} << 24;
  std::vector<std::pair<int64_t, int64_t>> cells;
  const __int128 first_row = lower ? std::max<__int128>(0, -static_cast<__int128>(offset)) : 0;
  const __int128 end_row = lower ? rows : std::min<__int128>(rows, static_cast<__int128>(cols) - offset);
  for (__int128 i = first_row; cols > 0 && i < end_row; ++i) {
    const __int128 bound = i + offset;  // the diagonal's column in row i
    const int64_t from = lower ? 0 : static_cast<int64_t>(std::max<__int128>(bound, 0));
    const int64_t to = lower ? static_cast<int64_t>(std::min<__int128>(bound + 1, cols)) : cols;
    for (int64_t j = from; j < to; ++j) {
      if (static_cast<int64_t>(cells.size()) == kMaxCells) {
        return call.Unsupported(absl::StrCat("triangle indices of a ", rows, " x ", cols, " matrix (more than ",
                                             kMaxCells, ")"));
      }
      cells.emplace_back(static_cast<int64_t>(i), j);
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
