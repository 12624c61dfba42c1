// File: runtime/kernels/reduce.cc
// -----------------------------------------------------------------------------
// Reductions over axes (opset 18+: axes is an optional input), ArgMax /
// ArgMin, Softmax / LogSoftmax. Floating sums accumulate in double.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

enum class ReduceOp { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSumExp };

// Reduced dims as [outer, len, inner] blocks are not enough for several
// axes; instead each input element adds into the output element it maps to.
struct ReducePlan {
  Dims out_dims;        // keepdims form
  Dims final_dims;      // what the output gets
  std::vector<int64_t> out_strides;  // per input dim, 0 on reduced dims
  int64_t group = 1;    // elements folded into each output
};

absl::StatusOr<ReducePlan> PlanReduce(const Dims& dims, std::vector<int64_t> axes, bool keepdims, bool noop_empty) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<bool> reduced(rank, false);
  if (axes.empty() && !noop_empty) {
    for (int64_t d = 0; d < rank; ++d) reduced[d] = true;
  }
  for (int64_t a : axes) {
    PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(a, rank, "reduction axis"));
    reduced[axis] = true;
  }
  ReducePlan plan;
  for (int64_t d = 0; d < rank; ++d) {
    plan.out_dims.push_back(reduced[d] ? 1 : dims[d]);
    if (reduced[d]) plan.group *= dims[d];
    if (!reduced[d] || keepdims) plan.final_dims.push_back(reduced[d] ? 1 : dims[d]);
  }
  std::vector<int64_t> s = ContiguousStrides(plan.out_dims);
  plan.out_strides.resize(rank);
  for (int64_t d = 0; d < rank; ++d) plan.out_strides[d] = reduced[d] ? 0 : s[d];
  return plan;
}

template <ReduceOp kOp>
class ReduceKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    keepdims_ = AttrInt(info.node, "keepdims", 1) != 0;
    noop_empty_ = AttrInt(info.node, "noop_with_empty_axes", 0) != 0;
    attr_axes_ = AttrInts(info.node, "axes");  // older opsets' attribute form
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto in, ctx.RequiredInput(0));
    const Tensor& x = *in;
    std::vector<int64_t> axes = attr_axes_;
    if (ctx.input(1) != nullptr) {
      PT2ONNX_ASSIGN_OR_RETURN(auto read, ReadInts(*ctx.input(1), "axes"));
      axes = read;
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto plan, PlanReduce(x.dims(), axes, keepdims_, noop_empty_));
    if ((kOp == ReduceOp::kMax || kOp == ReduceOp::kMin) && plan.group == 0 && x.numel() == 0) {
      bool any_output = true;
      for (int64_t d : plan.out_dims) any_output &= d > 0;
      if (any_output) return absl::InvalidArgumentError("ReduceMax/ReduceMin over an empty axis");
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), plan.final_dims));
    if (x.dtype() == DataType::kBool && (kOp == ReduceOp::kMax || kOp == ReduceOp::kMin)) {
      // Opset 20 compares bools with False < True: any / all.
      const bool init = kOp == ReduceOp::kMin;
      bool* po = (out)->data<bool>();
      std::fill(po, po + (out)->numel(), init);
      const bool* px = x.data<bool>();
      std::vector<int64_t> strides[1] = {plan.out_strides};
      ForEachBroadcast(x.dims(), strides, [&](int64_t i, const int64_t* o) {
        if (px[i] != init) po[o[0]] = !init;
      });
      return absl::OkStatus();
    }
    const unsigned set = (kOp == ReduceOp::kSum || kOp == ReduceOp::kMax || kOp == ReduceOp::kMin ||
                          kOp == ReduceOp::kProd || kOp == ReduceOp::kL1 || kOp == ReduceOp::kMean)
                             ? (kFloats | kInts) : kFloats;
    return VisitDtype(x.dtype(), set, "Reduce", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        using Acc = std::conditional_t<std::is_floating_point_v<T>, double, T>;
        const int64_t n_out = (out)->numel();
        std::vector<Acc> acc(n_out);
        Acc init = 0;
        if (kOp == ReduceOp::kProd) init = 1;
        if (kOp == ReduceOp::kMax) init = std::numeric_limits<T>::lowest();
        if (kOp == ReduceOp::kMin) init = std::numeric_limits<T>::max();
        if constexpr (std::is_floating_point_v<T>) {
          if (kOp == ReduceOp::kMax) init = -std::numeric_limits<double>::infinity();
          if (kOp == ReduceOp::kMin) init = std::numeric_limits<double>::infinity();
        }
        std::fill(acc.begin(), acc.end(), init);
        // LogSumExp subtracts the max first (stable), so it needs two passes.
        std::vector<Acc> maxima;
        const T* px = x.data<T>();
        std::vector<int64_t> strides[1] = {plan.out_strides};
        if (kOp == ReduceOp::kLogSumExp) {
          maxima.assign(n_out, -std::numeric_limits<Acc>::infinity());
          ForEachBroadcast(x.dims(), strides, [&](int64_t i, const int64_t* o) {
            maxima[o[0]] = std::max<Acc>(maxima[o[0]], px[i]);
          });
        }
        ForEachBroadcast(x.dims(), strides, [&](int64_t i, const int64_t* o) {
          Acc v = static_cast<Acc>(px[i]);
          Acc& a = acc[o[0]];
          switch (kOp) {
            case ReduceOp::kSum: case ReduceOp::kMean: a += v; break;
            case ReduceOp::kProd: a *= v; break;
            case ReduceOp::kMax:
              if constexpr (std::is_floating_point_v<T>) { if (std::isnan(v) || v > a) a = v; } else { if (v > a) a = v; }
              break;
            case ReduceOp::kMin:
              if constexpr (std::is_floating_point_v<T>) { if (std::isnan(v) || v < a) a = v; } else { if (v < a) a = v; }
              break;
            case ReduceOp::kL1: a += v < 0 ? Acc(0) - v : v; break;
            case ReduceOp::kL2: a += v * v; break;
            case ReduceOp::kLogSumExp:
              if constexpr (std::is_floating_point_v<T>) a += std::isinf(maxima[o[0]]) ? std::exp(v) : std::exp(v - maxima[o[0]]);
              break;
          }
        });
        T* po = (out)->data<T>();
        for (int64_t i = 0; i < n_out; ++i) {
          Acc a = acc[i];
          if constexpr (std::is_floating_point_v<T>) {
            if (kOp == ReduceOp::kMean) a = a / static_cast<double>(plan.group);
            if (kOp == ReduceOp::kL2) a = std::sqrt(a);
            if (kOp == ReduceOp::kLogSumExp) a = std::log(a) + (std::isinf(maxima[i]) ? 0 : maxima[i]);
          } else if (kOp == ReduceOp::kMean) {
            a = plan.group > 0 ? static_cast<Acc>(a / plan.group) : 0;
          }
          po[i] = static_cast<T>(a);
        }
      }
    });
  }

 private:
  bool keepdims_ = true, noop_empty_ = false;
  std::vector<int64_t> attr_axes_;
};

template <bool kMax>
class ArgKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    axis_ = AttrInt(info.node, "axis", 0);
    keepdims_ = AttrInt(info.node, "keepdims", 1) != 0;
    last_ = AttrInt(info.node, "select_last_index", 0) != 0;
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto in, ctx.RequiredInput(0));
    const Tensor& x = *in;
    PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_, x.rank(), "ArgMax/ArgMin axis"));
    const int64_t len = x.dim(axis);
    if (len == 0) return absl::InvalidArgumentError("ArgMax/ArgMin over an empty axis");
    Dims dims;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < x.rank(); ++d) {
      if (d < axis) outer *= x.dim(d);
      if (d > axis) inner *= x.dim(d);
      if (d != axis) dims.push_back(x.dim(d));
      else if (keepdims_) dims.push_back(1);
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kInt64, dims));
    int64_t* po = (out)->data<int64_t>();
    return VisitDtype(x.dtype(), kFloats | kInts | kBools, "ArgMax/ArgMin", [&](auto tag) {
      using T = decltype(tag);
      const T* px = x.data<T>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          int64_t best = 0;
          T best_v = px[o * len * inner + i];
          for (int64_t j = 1; j < len; ++j) {
            T v = px[(o * len + j) * inner + i];
            bool better = kMax ? (last_ ? v >= best_v : v > best_v) : (last_ ? v <= best_v : v < best_v);
            if constexpr (std::is_floating_point_v<T>) {
              if (std::isnan(best_v) && !last_) better = false;      // first NaN wins (torch)
              else if (std::isnan(v)) better = true;
            }
            if (better) { best = j; best_v = v; }
          }
          po[o * inner + i] = best;
        }
      }
    });
  }

 private:
  int64_t axis_ = 0;
  bool keepdims_ = true, last_ = false;
};

template <bool kLog>
class SoftmaxKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    axis_ = AttrInt(info.node, "axis", -1);
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(auto in, ctx.RequiredInput(0));
    const Tensor& x = *in;
    PT2ONNX_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(axis_, x.rank(), "Softmax axis"));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, x.dtype(), x.dims()));
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.dim(d);
    for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
    const int64_t len = x.dim(axis);
    return VisitDtype(x.dtype(), kFloats, kLog ? "LogSoftmax" : "Softmax", [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        const T* px = x.data<T>();
        T* po = (out)->data<T>();
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t i = 0; i < inner; ++i) {
            const int64_t base = o * len * inner + i;
            T m = -std::numeric_limits<T>::infinity();
            for (int64_t j = 0; j < len; ++j) m = std::max(m, px[base + j * inner]);
            if (std::isinf(m) && m < 0) m = 0;
            double sum = 0;
            for (int64_t j = 0; j < len; ++j) {
              T e = std::exp(px[base + j * inner] - m);
              if (!kLog) po[base + j * inner] = e;
              sum += e;
            }
            if (kLog) {
              const T log_sum = static_cast<T>(std::log(sum));
              for (int64_t j = 0; j < len; ++j) po[base + j * inner] = px[base + j * inner] - m - log_sum;
            } else {
              const T inv = static_cast<T>(1.0 / sum);
              for (int64_t j = 0; j < len; ++j) po[base + j * inner] *= inv;
            }
          }
        }
      }
    });
  }

 private:
  int64_t axis_ = -1;
};

}  // namespace

extern const KernelRegistration kReduceKernels[] = {
    {"ReduceSum", MakeKernel<ReduceKernel<ReduceOp::kSum>>, HalfMode::kViaFloat32},
    {"ReduceMean", MakeKernel<ReduceKernel<ReduceOp::kMean>>, HalfMode::kViaFloat32},
    {"ReduceMax", MakeKernel<ReduceKernel<ReduceOp::kMax>>, HalfMode::kViaFloat32},
    {"ReduceMin", MakeKernel<ReduceKernel<ReduceOp::kMin>>, HalfMode::kViaFloat32},
    {"ReduceProd", MakeKernel<ReduceKernel<ReduceOp::kProd>>, HalfMode::kViaFloat32},
    {"ReduceL1", MakeKernel<ReduceKernel<ReduceOp::kL1>>, HalfMode::kViaFloat32},
    {"ReduceL2", MakeKernel<ReduceKernel<ReduceOp::kL2>>, HalfMode::kViaFloat32},
    {"ReduceLogSumExp", MakeKernel<ReduceKernel<ReduceOp::kLogSumExp>>, HalfMode::kViaFloat32},
    {"ArgMax", MakeKernel<ArgKernel<true>>, HalfMode::kViaFloat32},
    {"ArgMin", MakeKernel<ArgKernel<false>>, HalfMode::kViaFloat32},
    {"Softmax", MakeKernel<SoftmaxKernel<false>>, HalfMode::kViaFloat32},
    {"LogSoftmax", MakeKernel<SoftmaxKernel<true>>, HalfMode::kViaFloat32},
};
extern const size_t kNumReduceKernels = sizeof(kReduceKernels) / sizeof(kReduceKernels[0]);

}  // namespace pt2onnx::runtime
