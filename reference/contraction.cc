#include "reference/contraction.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "reference/ref_tensor.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

int64_t WrapMulAdd(int64_t acc, int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

}  // namespace

absl::StatusOr<Tensor> Contract(const std::vector<Tensor>& operands,
                                const std::vector<std::vector<int>>& labels,
                                const std::vector<int>& out_labels, DataType out_dtype) {
  if (operands.size() != labels.size() || operands.empty()) {
    return absl::InvalidArgumentError("contraction: one label list per operand");
  }
  // Sizes per label; size-1 dims broadcast.
  std::map<int, int64_t> size;
  for (size_t k = 0; k < operands.size(); ++k) {
    if (static_cast<int64_t>(labels[k].size()) != operands[k].rank()) {
      return absl::InvalidArgumentError(absl::StrCat("contraction: operand ", k, " has ", operands[k].rank(),
                                                     " dims but ", labels[k].size(), " labels"));
    }
    for (size_t d = 0; d < labels[k].size(); ++d) {
      const int64_t s = operands[k].dims()[d];
      auto [it, fresh] = size.emplace(labels[k][d], s);
      if (fresh || it->second == s || s == 1) continue;
      if (it->second != 1) {
        return absl::InvalidArgumentError(absl::StrCat("contraction: a subscript has sizes ", it->second, " and ", s,
                                                       " that do not broadcast"));
      }
      it->second = s;
    }
  }
  // Loop order: the output labels, then the summed ones.
  std::vector<int> order;
  for (int l : out_labels) {
    if (std::find(order.begin(), order.end(), l) != order.end()) {
      return absl::InvalidArgumentError("contraction: an output subscript appears twice");
    }
    if (!size.count(l)) return absl::InvalidArgumentError("contraction: an output subscript names no input dim");
    order.push_back(l);
  }
  for (const auto& [l, s] : size) {
    if (std::find(order.begin(), order.end(), l) == order.end()) order.push_back(l);
  }
  Dims out_dims;
  for (int l : out_labels) out_dims.push_back(size[l]);
  std::vector<int64_t> loop_size;
  for (int l : order) loop_size.push_back(size[l]);
  int64_t total = 1;
  for (int l : order) {
    std::optional<int64_t> t = CheckedMul(total, size[l]);
    if (!t) return absl::InvalidArgumentError("contraction: the iteration count overflows int64");
    total = *t;
  }
  // Per operand, the element step of one step of each loop label.
  std::vector<std::vector<int64_t>> step(operands.size(), std::vector<int64_t>(order.size(), 0));
  for (size_t k = 0; k < operands.size(); ++k) {
    const std::vector<int64_t> strides = RowMajorStrides(operands[k].dims());
    for (size_t d = 0; d < labels[k].size(); ++d) {
      if (operands[k].dims()[d] == 1) continue;
      const size_t pos = std::find(order.begin(), order.end(), labels[k][d]) - order.begin();
      step[k][pos] += strides[d];
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(out_dtype, out_dims));
  const bool is_float = IsFloatLike(out_dtype);
  std::vector<std::vector<double>> fv;
  std::vector<std::vector<int64_t>> iv;
  for (const Tensor& t : operands) {
    if (is_float) fv.push_back(ToDoubles(t));
    else iv.push_back(ToInts(t));
  }
  std::vector<double> facc(out.numel(), 0.0);
  std::vector<int64_t> iacc(out.numel(), 0);
  if (total > 0) {
    int64_t inner = 1;
    for (size_t p = out_labels.size(); p < order.size(); ++p) inner *= loop_size[p];
    std::vector<int64_t> counter(order.size(), 0), offset(operands.size(), 0);
    for (int64_t it = 0; it < total; ++it) {
      const int64_t o = it / inner;
      if (is_float) {
        double prod = 1;
        for (size_t k = 0; k < operands.size(); ++k) prod *= fv[k][offset[k]];
        facc[o] += prod;
      } else {
        int64_t prod = 1;
        for (size_t k = 0; k < operands.size(); ++k) prod = WrapMulAdd(0, prod, iv[k][offset[k]]);
        iacc[o] = WrapMulAdd(iacc[o], prod, 1);
      }
      for (size_t p = order.size(); p-- > 0;) {  // odometer, last label fastest
        for (size_t k = 0; k < operands.size(); ++k) offset[k] += step[k][p];
        if (++counter[p] < loop_size[p]) break;
        for (size_t k = 0; k < operands.size(); ++k) offset[k] -= step[k][p] * counter[p];
        counter[p] = 0;
      }
    }
  }
  if (is_float) return FromDoubles(out_dtype, out_dims, facc);
  return FromInts(out_dtype, out_dims, iacc);
}

}  // namespace pt2onnx::reference
