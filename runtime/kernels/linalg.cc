// File: runtime/kernels/linalg.cc
// -----------------------------------------------------------------------------
// MatMul (numpy batching and broadcasting, 1-D operands promoted), Gemm and
// Einsum. float32 MatMul/Gemm go through XNNPACK (xnn_kernels.cc)
// when it is linked; these portable loops serve the other dtypes and shapes,
// float16/bfloat16 MatMul with float32 accumulation (kernel.h's policy).
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/linalg.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {

template <typename T>
void MatMulBlock(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m * n; ++i) c[i] = T(0);
  for (int64_t i = 0; i < m; ++i) {
    T* crow = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      const T av = a[i * k + p];
      const T* brow = b + p * n;
      for (int64_t j = 0; j < n; ++j) crow[j] = static_cast<T>(crow[j] + av * brow[j]);
    }
  }
}

absl::StatusOr<MatMulShape> PlanMatMul(const Dims& a, const Dims& b) {
  if (a.empty() || b.empty()) return absl::InvalidArgumentError("MatMul: scalar operand");
  MatMulShape s;
  Dims ad = a, bd = b;
  const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
  if (a_vec) ad.insert(ad.begin(), 1);
  if (b_vec) bd.push_back(1);
  s.m = ad[ad.size() - 2];
  s.k = ad.back();
  s.n = bd.back();
  if (bd[bd.size() - 2] != s.k) {
    return absl::InvalidArgumentError(
        absl::StrCat("MatMul: inner dims differ: ", DimsString(a), " x ", DimsString(b)));
  }
  Dims abatch(ad.begin(), ad.end() - 2), bbatch(bd.begin(), bd.end() - 2);
  PT2ONNX_ASSIGN_OR_RETURN(auto batch, BroadcastDims(abatch, bbatch));
  s.batch = batch;
  s.a_batch_strides = BroadcastStrides(abatch, batch);
  s.b_batch_strides = BroadcastStrides(bbatch, batch);
  s.out = batch;
  if (!a_vec) s.out.push_back(s.m);
  if (!b_vec) s.out.push_back(s.n);
  return s;
}

namespace {

float HalfValue(DataType dtype, uint16_t bits) {
  return dtype == DataType::kBFloat16 ? BFloat16ToFloat(bits) : HalfToFloat(bits);
}

// C = A B for float16/bfloat16 operands, as the float32 MatMulBlock computes
// it on widened copies (the same products, summed in the same order, in
// float32), each output rounded once. B is widened one row at a time and C
// accumulates in a float32 block of m x n: a half weight of K x N never gets
// a float32 copy (4 bytes per value) of its own, which for an LLM's vocabulary
// projection would add half the model's size to the peak (kernel.h).
void MatMulHalfBlock(DataType dtype, const uint16_t* a, const uint16_t* b, uint16_t* c, int64_t m, int64_t k,
                     int64_t n, std::vector<float>& a_row, std::vector<float>& b_row, std::vector<float>& acc) {
  a_row.resize(static_cast<size_t>(m * k));
  for (int64_t i = 0; i < m * k; ++i) a_row[i] = HalfValue(dtype, a[i]);
  acc.assign(static_cast<size_t>(m * n), 0.0f);
  b_row.resize(static_cast<size_t>(n));
  for (int64_t p = 0; p < k; ++p) {
    const uint16_t* brow = b + p * n;
    for (int64_t j = 0; j < n; ++j) b_row[j] = HalfValue(dtype, brow[j]);
    for (int64_t i = 0; i < m; ++i) {
      const float av = a_row[i * k + p];
      float* crow = acc.data() + i * n;
      for (int64_t j = 0; j < n; ++j) crow[j] += av * b_row[j];
    }
  }
  for (int64_t i = 0; i < m * n; ++i) c[i] = dtype == DataType::kBFloat16 ? FloatToBFloat16(acc[i]) : FloatToHalf(acc[i]);
}

class MatMulKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    auto a = ctx.RequiredInput(0);
    auto b = ctx.RequiredInput(1);
    if (!a.ok() || !b.ok()) return absl::InvalidArgumentError("MatMul needs 2 inputs");
    if ((*a)->dtype() != (*b)->dtype()) return absl::InvalidArgumentError("MatMul: input dtypes differ");
    PT2ONNX_ASSIGN_OR_RETURN(auto plan, PlanMatMul((*a)->dims(), (*b)->dims()));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, (*a)->dtype(), plan.out));
    const DataType dtype = (*a)->dtype();
    if (dtype == DataType::kFloat16 || dtype == DataType::kBFloat16) {
      const int64_t m = plan.m, k = plan.k, n = plan.n;
      std::vector<int64_t> strides[2] = {plan.a_batch_strides, plan.b_batch_strides};
      const uint16_t* pa = (*a)->data<uint16_t>();
      const uint16_t* pb = (*b)->data<uint16_t>();
      uint16_t* pc = (out)->data<uint16_t>();
      std::vector<float> a_row, b_row, acc;
      ForEachBroadcast(plan.batch, strides, [&](int64_t i, const int64_t* o) {
        MatMulHalfBlock(dtype, pa + o[0] * m * k, pb + o[1] * k * n, pc + i * m * n, m, k, n, a_row, b_row, acc);
      });
      return absl::OkStatus();
    }
    return VisitDtype((*a)->dtype(), kFloats | kInts, "MatMul", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const int64_t m = plan.m, k = plan.k, n = plan.n;
        std::vector<int64_t> strides[2] = {plan.a_batch_strides, plan.b_batch_strides};
        const T* pa = (*a)->data<T>();
        const T* pb = (*b)->data<T>();
        T* pc = (out)->data<T>();
        ForEachBroadcast(plan.batch, strides, [&](int64_t i, const int64_t* o) {
          MatMulBlock(pa + o[0] * m * k, pb + o[1] * k * n, pc + i * m * n, m, k, n);
        });
      }
    });
  }
};

// Gemm: Y = alpha * op(A) op(B) + beta * C (C unidirectionally broadcast).
class GemmKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    trans_a_ = AttrInt(info.node, "transA", 0) != 0;
    trans_b_ = AttrInt(info.node, "transB", 0) != 0;
    alpha_ = AttrFloat(info.node, "alpha", 1.0f);
    beta_ = AttrFloat(info.node, "beta", 1.0f);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    auto a = ctx.RequiredInput(0);
    auto b = ctx.RequiredInput(1);
    if (!a.ok() || !b.ok()) return absl::InvalidArgumentError("Gemm needs A and B");
    const Tensor& ta = **a;
    const Tensor& tb = **b;
    if (ta.rank() != 2 || tb.rank() != 2 || ta.dtype() != tb.dtype()) {
      return absl::InvalidArgumentError("Gemm: A and B must be matrices of one dtype");
    }
    const int64_t m = trans_a_ ? ta.dim(1) : ta.dim(0), k = trans_a_ ? ta.dim(0) : ta.dim(1);
    const int64_t kb = trans_b_ ? tb.dim(1) : tb.dim(0), n = trans_b_ ? tb.dim(0) : tb.dim(1);
    if (k != kb) return absl::InvalidArgumentError("Gemm: inner dims differ");
    const Tensor* c = ctx.input(2);
    std::vector<int64_t> c_strides;
    if (c != nullptr) {
      auto bd = BroadcastDims(c->dims(), {m, n});
      if (!bd.ok() || *bd != Dims{m, n}) return absl::InvalidArgumentError("Gemm: C does not broadcast to [M, N]");
      c_strides = BroadcastStrides(c->dims(), {m, n});
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, ta.dtype(), {m, n}));
    return VisitDtype(ta.dtype(), kFloats | kInts, "Gemm", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* pa = ta.data<T>();
        const T* pb = tb.data<T>();
        T* py = (out)->data<T>();
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            T acc = 0;
            for (int64_t p = 0; p < k; ++p) {
              const T av = trans_a_ ? pa[p * m + i] : pa[i * k + p];
              const T bv = trans_b_ ? pb[j * k + p] : pb[p * n + j];
              acc = static_cast<T>(acc + av * bv);
            }
            T v = static_cast<T>(alpha_ * acc);
            if (c != nullptr) v = static_cast<T>(v + beta_ * c->data<T>()[i * c_strides[0] + j * c_strides[1]]);
            py[i * n + j] = v;
          }
        }
      }
    });
  }

 private:
  bool trans_a_ = false, trans_b_ = false;
  float alpha_ = 1, beta_ = 1;
};

// Einsum: every letter is a loop; the output sums the rest. '...' stands for
// the operands' leading unlabelled dims, right-aligned and broadcast as numpy does.
class EinsumKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    std::string eq;
    for (char ch : AttrString(info.node, "equation", "")) if (ch != ' ') eq += ch;
    size_t arrow = eq.find("->");
    std::string lhs = eq.substr(0, arrow);
    size_t start = 0;
    while (true) {
      size_t comma = lhs.find(',', start);
      terms_.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (arrow != std::string::npos) {
      output_ = eq.substr(arrow + 2);
    } else {  // implicit: '...' first, then letters seen once, sorted
      std::map<char, int> count;
      bool any_ellipsis = false;
      for (const auto& t : terms_) {
        any_ellipsis |= t.find("...") != std::string::npos;
        for (char ch : t) if (IsLetter(ch)) ++count[ch];
      }
      if (any_ellipsis) output_ = "...";
      for (auto& [ch, c] : count) if (c == 1) output_ += ch;
    }
    for (const std::string* t : TermsAndOutput()) {
      const size_t dots = t->find("...");
      if (dots != std::string::npos && t->find("...", dots + 1) != std::string::npos) {
        return absl::InvalidArgumentError("Einsum: '...' appears twice in one term");
      }
      for (size_t i = 0; i < t->size(); ++i) {
        if (dots != std::string::npos && i >= dots && i < dots + 3) continue;
        if (!IsLetter((*t)[i])) return absl::InvalidArgumentError("Einsum: equation has a character that is not a letter");
      }
    }
    for (const auto& t : terms_) for (char ch : t) if (IsLetter(ch) && letters_.find(ch) == std::string::npos) letters_ += ch;
    for (char ch : output_) {
      if (IsLetter(ch) && letters_.find(ch) == std::string::npos) {
        return absl::InvalidArgumentError("Einsum: output letter not in inputs");
      }
    }
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    if (ctx.num_inputs() != terms_.size()) return absl::InvalidArgumentError("Einsum: input count differs from the equation");
    // '...' becomes placeholder labels (bytes 1..rank, never letters), right-aligned across operands.
    std::vector<std::string> terms(terms_.size());
    size_t ellipsis_rank = 0;
    for (size_t t = 0; t < terms_.size(); ++t) {
      const Tensor* x = ctx.input(t);
      const size_t dots = terms_[t].find("...");
      const size_t labelled = terms_[t].size() - (dots == std::string::npos ? 0 : 3);
      if (x == nullptr || x->rank() < static_cast<int64_t>(labelled) ||
          (dots == std::string::npos && x->rank() != static_cast<int64_t>(labelled))) {
        return absl::InvalidArgumentError("Einsum: operand rank differs from its term");
      }
      if (dots != std::string::npos) ellipsis_rank = std::max(ellipsis_rank, static_cast<size_t>(x->rank()) - labelled);
    }
    auto expand = [&](const std::string& term, size_t own_rank) {
      const size_t dots = term.find("...");
      if (dots == std::string::npos) return term;
      std::string labels;
      for (size_t i = ellipsis_rank - own_rank; i < ellipsis_rank; ++i) labels += static_cast<char>(1 + i);
      return term.substr(0, dots) + labels + term.substr(dots + 3);
    };
    std::string letters;
    for (size_t i = 0; i < ellipsis_rank; ++i) letters += static_cast<char>(1 + i);
    letters += letters_;
    std::map<char, int64_t> size;
    DataType dtype = DataType::kUndefined;
    for (size_t t = 0; t < terms_.size(); ++t) {
      const Tensor* x = ctx.input(t);
      const size_t labelled = terms_[t].size() - (terms_[t].find("...") == std::string::npos ? 0 : 3);
      terms[t] = expand(terms_[t], static_cast<size_t>(x->rank()) - labelled);
      dtype = x->dtype();
      for (size_t d = 0; d < terms[t].size(); ++d) {
        auto [it, inserted] = size.emplace(terms[t][d], x->dim(d));
        if (inserted || it->second == x->dim(d)) continue;
        if (terms[t][d] < ' ' && (x->dim(d) == 1 || it->second == 1)) {  // ellipsis dims broadcast
          if (it->second == 1) it->second = x->dim(d);
          continue;
        }
        return absl::InvalidArgumentError("Einsum: letter sizes differ");
      }
    }
    for (char ch : letters) size.emplace(ch, 1);
    const std::string output = expand(output_, ellipsis_rank);
    Dims out_dims, loop_dims;
    for (char ch : output) out_dims.push_back(size[ch]);
    for (char ch : letters) loop_dims.push_back(size[ch]);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, dtype, out_dims));
    // Strides of each operand and of the output over the loop letters (0 where a dim of 1 broadcasts).
    std::vector<std::vector<int64_t>> strides(terms.size() + 1, std::vector<int64_t>(letters.size(), 0));
    for (size_t t = 0; t <= terms.size(); ++t) {
      const std::string& term = t < terms.size() ? terms[t] : output;
      Dims dims = t < terms.size() ? ctx.input(t)->dims() : out_dims;
      std::vector<int64_t> own = ContiguousStrides(dims);
      for (size_t d = 0; d < term.size(); ++d) {
        if (dims[d] == 1 && size[term[d]] != 1) continue;
        strides[t][letters.find(term[d])] += own[d];
      }
    }
    return VisitDtype(dtype, kFloats | kInts, "Einsum", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        T* po = (out)->data<T>();
        for (int64_t i = 0; i < (out)->numel(); ++i) po[i] = 0;
        int64_t total = 1;
        for (int64_t d : loop_dims) total *= d;
        std::vector<int64_t> index(loop_dims.size(), 0);
        for (int64_t it = 0; it < total; ++it) {
          T prod = 1;
          for (size_t t = 0; t < terms.size(); ++t) {
            int64_t off = 0;
            for (size_t d = 0; d < index.size(); ++d) off += index[d] * strides[t][d];
            prod = static_cast<T>(prod * ctx.input(t)->data<T>()[off]);
          }
          int64_t off = 0;
          for (size_t d = 0; d < index.size(); ++d) off += index[d] * strides.back()[d];
          po[off] = static_cast<T>(po[off] + prod);
          for (size_t d = index.size(); d-- > 0;) {
            if (++index[d] < loop_dims[d]) break;
            index[d] = 0;
          }
        }
      }
    });
  }

 private:
  static bool IsLetter(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
  std::vector<const std::string*> TermsAndOutput() const {
    std::vector<const std::string*> all;
    for (const auto& t : terms_) all.push_back(&t);
    all.push_back(&output_);
    return all;
  }

  std::vector<std::string> terms_;
  std::string output_, letters_;
};

}  // namespace

extern const KernelRegistration kLinalgKernels[] = {
    // Half operands in the kernel itself, without a float32 copy of the weight.
    {"MatMul", MakeKernel<MatMulKernel>, HalfMode::kNative},
    {"Gemm", MakeKernel<GemmKernel>, HalfMode::kViaFloat32},
    {"Einsum", MakeKernel<EinsumKernel>, HalfMode::kViaFloat32},
};
extern const size_t kNumLinalgKernels = sizeof(kLinalgKernels) / sizeof(kLinalgKernels[0]);

}  // namespace pt2onnx::runtime
