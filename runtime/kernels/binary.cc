// File: runtime/kernels/binary.cc
// -----------------------------------------------------------------------------
// Broadcasting binary ops: arithmetic, comparison, logic, PRelu, variadic
// Max/Min and the ternary Where. float32 same-shape / scalar cases take a flat
// loop the compiler vectorises; everything else walks the broadcast index.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kPow, kMod, kFmod, kMax, kMin, kPRelu,
                      kEqual, kLess, kLessEq, kGreater, kGreaterEq, kAnd, kOr, kXor };

bool IsComparison(BinaryOp op) { return op >= BinaryOp::kEqual && op <= BinaryOp::kGreaterEq; }
bool IsLogical(BinaryOp op) { return op >= BinaryOp::kAnd; }

template <typename T>
T PythonMod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  } else if constexpr (std::is_signed_v<T>) {
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}

// ONNX integer arithmetic wraps (two's complement), as ONNX Runtime's does.
// Signed overflow is undefined in C++, so it is done on an unsigned type at
// least as wide as unsigned int (narrower ones would promote to int).
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) + static_cast<WrapType<T>>(b));
  } else {
    return static_cast<T>(a + b);
  }
}

template <typename T>
T WrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) - static_cast<WrapType<T>>(b));
  } else {
    return static_cast<T>(a - b);
  }
}

template <typename T>
T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) * static_cast<WrapType<T>>(b));
  } else {
    return static_cast<T>(a * b);
  }
}

template <typename T>
T IntPow(T base, T exp) {
  if (exp < 0) return base == 1 ? 1 : (base == static_cast<T>(-1) ? ((exp % 2) ? base : 1) : 0);
  T result = 1;
  while (exp > 0) {
    if (exp & 1) result = WrapMul(result, base);
    base = WrapMul(base, base);
    exp = static_cast<T>(exp >> 1);
  }
  return result;
}

template <typename T>
T Arith(BinaryOp op, T a, T b, bool* div_by_zero) {
  switch (op) {
    case BinaryOp::kAdd: return WrapAdd(a, b);
    case BinaryOp::kSub: return WrapSub(a, b);
    case BinaryOp::kMul: return WrapMul(a, b);
    case BinaryOp::kDiv:
      if constexpr (std::is_integral_v<T>) {
        if (b == 0) { *div_by_zero = true; return 0; }
        if constexpr (std::is_signed_v<T>) if (b == -1) return WrapSub(T{0}, a);
      }
      return static_cast<T>(a / b);
    case BinaryOp::kPow:
      if constexpr (std::is_integral_v<T>) return IntPow(a, b);
      else return static_cast<T>(std::pow(a, b));
    case BinaryOp::kMod:
    case BinaryOp::kFmod:
      if constexpr (std::is_integral_v<T>) {
        if (b == 0) { *div_by_zero = true; return 0; }
        if constexpr (std::is_signed_v<T>) if (b == -1) return 0;
        if (op == BinaryOp::kFmod) return static_cast<T>(a % b);
        return PythonMod(a, b);
      } else {
        return op == BinaryOp::kFmod ? static_cast<T>(std::fmod(a, b)) : PythonMod(a, b);
      }
    case BinaryOp::kMax:
      if constexpr (std::is_floating_point_v<T>) if (std::isnan(a) || std::isnan(b)) return a + b;
      return a > b ? a : b;
    case BinaryOp::kMin:
      if constexpr (std::is_floating_point_v<T>) if (std::isnan(a) || std::isnan(b)) return a + b;
      return a < b ? a : b;
    case BinaryOp::kPRelu: return a < 0 ? static_cast<T>(a * b) : a;
    default: return 0;
  }
}

template <typename T>
bool Compare(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::kEqual: return a == b;
    case BinaryOp::kLess: return a < b;
    case BinaryOp::kLessEq: return a <= b;
    case BinaryOp::kGreater: return a > b;
    case BinaryOp::kGreaterEq: return a >= b;
    case BinaryOp::kAnd: return a && b;
    case BinaryOp::kOr: return a || b;
    case BinaryOp::kXor: return static_cast<bool>(a) != static_cast<bool>(b);
    default: return false;
  }
}

// Whether `small` broadcasts to `out` as a block repeated along the leading
// dims (its dims, leading 1s dropped, are out's trailing dims): a bias [N]
// or a position table [T, N] added to [B, T, N].
bool RepeatsAsSuffix(const Dims& small, const Dims& out) {
  size_t first = 0;
  while (first < small.size() && small[first] == 1) ++first;
  const size_t len = small.size() - first;
  if (len > out.size()) return false;
  return std::equal(small.begin() + first, small.end(), out.end() - len);
}

// y[r * m + j] = f(full[r * m + j], block[j]) (or f(block[j], full[...]) when
// the block is the left operand): loops over contiguous rows the compiler
// vectorises, for the float Add/Sub/Mul/Div of a bias, scale or mask.
template <typename T, typename F>
void RepeatBlock(const T* full, const T* block, int64_t n, int64_t m, bool block_left, T* y, F f) {
  if (m == 1) {
    const T v = block[0];
    if (block_left) {
      for (int64_t i = 0; i < n; ++i) y[i] = f(v, full[i]);
    } else {
      for (int64_t i = 0; i < n; ++i) y[i] = f(full[i], v);
    }
    return;
  }
  for (int64_t r = 0; r < n; r += m) {
    const T* x = full + r;
    T* yr = y + r;
    if (block_left) {
      for (int64_t j = 0; j < m; ++j) yr[j] = f(block[j], x[j]);
    } else {
      for (int64_t j = 0; j < m; ++j) yr[j] = f(x[j], block[j]);
    }
  }
}

// The float fast path: false when the shapes are not (full, full) or
// (full, repeated block); the results equal Arith's (IEEE + - * /).
template <typename T>
bool FloatArithFast(BinaryOp op, const Tensor& a, const Tensor& b, const Dims& dims, T* po, int64_t n) {
  const bool a_full = a.numel() == n, b_full = b.numel() == n;
  const Tensor* block = nullptr;
  bool block_left = false;
  if (a_full && (b_full || RepeatsAsSuffix(b.dims(), dims))) {
    block = &b;
  } else if (b_full && RepeatsAsSuffix(a.dims(), dims)) {
    block = &a;
    block_left = true;
  } else {
    return false;
  }
  const int64_t m = block->numel();
  if (m == 0 || n % m != 0) return false;
  const T* full = (block_left ? b : a).template data<T>();
  const T* pb = block->template data<T>();
  switch (op) {
    case BinaryOp::kAdd: RepeatBlock(full, pb, n, m, block_left, po, [](T x, T y) { return x + y; }); return true;
    case BinaryOp::kSub: RepeatBlock(full, pb, n, m, block_left, po, [](T x, T y) { return x - y; }); return true;
    case BinaryOp::kMul: RepeatBlock(full, pb, n, m, block_left, po, [](T x, T y) { return x * y; }); return true;
    case BinaryOp::kDiv: RepeatBlock(full, pb, n, m, block_left, po, [](T x, T y) { return x / y; }); return true;
    default: return false;
  }
}

absl::Status RunBinary(BinaryOp op, const char* name, const Tensor& a, const Tensor& b, Tensor* out_slot,
                       KernelContext& ctx, size_t out_index) {
  if (a.dtype() != b.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": input dtypes differ (", DataTypeName(a.dtype()),
                                                   " vs ", DataTypeName(b.dtype()), ")"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(auto dims, BroadcastDims(a.dims(), b.dims()));
  const bool to_bool = IsComparison(op) || IsLogical(op);
  DataType out_dtype = to_bool ? DataType::kBool : a.dtype();
  Tensor* out = out_slot;
  if (out == nullptr) {
    PT2ONNX_ASSIGN_OR_RETURN(auto allocated, ctx.AllocateOutput(out_index, out_dtype, dims));
    out = allocated;
  }
  unsigned set = IsLogical(op) ? kBools : (IsComparison(op) ? kAll : kFloats | kInts);
  bool div_by_zero = false;
  PT2ONNX_RETURN_IF_ERROR(VisitDtype(a.dtype(), set, name, [&](auto tag) {
    using T = decltype(tag);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    if (to_bool) {
      bool* po = out->data<bool>();
      std::vector<int64_t> strides[2] = {BroadcastStrides(a.dims(), dims), BroadcastStrides(b.dims(), dims)};
      ForEachBroadcast(dims, strides, [&](int64_t i, const int64_t* o) { po[i] = Compare(op, pa[o[0]], pb[o[1]]); });
      return;
    }
    if constexpr (!std::is_same_v<T, bool>) {
      T* po = out->data<T>();
      const int64_t n = out->numel();
      if constexpr (std::is_floating_point_v<T>) {
        if (FloatArithFast(op, a, b, dims, po, n)) return;
      }
      if (op == BinaryOp::kAdd && a.numel() == n && b.numel() == n) {
        for (int64_t i = 0; i < n; ++i) po[i] = WrapAdd(pa[i], pb[i]);
      } else if (op == BinaryOp::kMul && a.numel() == n && b.numel() == n) {
        for (int64_t i = 0; i < n; ++i) po[i] = WrapMul(pa[i], pb[i]);
      } else if (a.numel() == n && b.numel() == n) {
        for (int64_t i = 0; i < n; ++i) po[i] = Arith(op, pa[i], pb[i], &div_by_zero);
      } else if (a.numel() == n && b.numel() == 1) {
        const T s = pb[0];
        for (int64_t i = 0; i < n; ++i) po[i] = Arith(op, pa[i], s, &div_by_zero);
      } else {
        std::vector<int64_t> strides[2] = {BroadcastStrides(a.dims(), dims), BroadcastStrides(b.dims(), dims)};
        ForEachBroadcast(dims, strides, [&](int64_t i, const int64_t* o) {
          po[i] = Arith(op, pa[o[0]], pb[o[1]], &div_by_zero);
        });
      }
    }
  }));
  if (div_by_zero) return absl::InvalidArgumentError(absl::StrCat(name, ": integer division by zero"));
  return absl::OkStatus();
}

template <BinaryOp kOp>
struct NameOf;
#define PT2ONNX_BINARY_NAME(op, text) template <> struct NameOf<BinaryOp::op> { static constexpr const char* kName = text; };
PT2ONNX_BINARY_NAME(kAdd, "Add") PT2ONNX_BINARY_NAME(kSub, "Sub") PT2ONNX_BINARY_NAME(kMul, "Mul")
PT2ONNX_BINARY_NAME(kDiv, "Div") PT2ONNX_BINARY_NAME(kPow, "Pow") PT2ONNX_BINARY_NAME(kMod, "Mod")
PT2ONNX_BINARY_NAME(kMax, "Max") PT2ONNX_BINARY_NAME(kMin, "Min") PT2ONNX_BINARY_NAME(kPRelu, "PRelu")
PT2ONNX_BINARY_NAME(kEqual, "Equal") PT2ONNX_BINARY_NAME(kLess, "Less") PT2ONNX_BINARY_NAME(kLessEq, "LessOrEqual")
PT2ONNX_BINARY_NAME(kGreater, "Greater") PT2ONNX_BINARY_NAME(kGreaterEq, "GreaterOrEqual")
PT2ONNX_BINARY_NAME(kAnd, "And") PT2ONNX_BINARY_NAME(kOr, "Or") PT2ONNX_BINARY_NAME(kXor, "Xor")
#undef PT2ONNX_BINARY_NAME

// Two-input ops; Max/Min fold any number of inputs left to right.
template <BinaryOp kOp>
class BinaryKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    op_ = kOp;
    if (kOp == BinaryOp::kMod && AttrInt(info.node, "fmod", 0) != 0) op_ = BinaryOp::kFmod;
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    const char* name = NameOf<kOp>::kName;
    if (ctx.num_inputs() == 1) {  // Max/Min of one tensor
      PT2ONNX_ASSIGN_OR_RETURN(auto in, ctx.RequiredInput(0));
      ctx.SetOutput(0, *in);
      return absl::OkStatus();
    }
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* a, ctx.RequiredInput(0));
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* b, ctx.RequiredInput(1));
    absl::Status status = RunBinary(op_, name, *a, *b, nullptr, ctx, 0);
    for (size_t i = 2; status.ok() && i < ctx.num_inputs(); ++i) {
      PT2ONNX_ASSIGN_OR_RETURN(auto next, ctx.RequiredInput(i));
      Tensor acc = ctx.outputs()[0];
      status = RunBinary(op_, name, acc, *next, nullptr, ctx, 0);
    }
    return status;
  }

 private:
  BinaryOp op_ = kOp;
};

// Where(condition, x, y).
class WhereKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo&) { return absl::OkStatus(); }
  absl::Status Run(KernelContext& ctx) override {
    auto c = ctx.RequiredInput(0);
    auto x = ctx.RequiredInput(1);
    auto y = ctx.RequiredInput(2);
    if (!c.ok() || !x.ok() || !y.ok()) return absl::InvalidArgumentError("Where needs 3 inputs");
    if ((*c)->dtype() != DataType::kBool) return absl::InvalidArgumentError("Where: condition must be bool");
    if ((*x)->dtype() != (*y)->dtype()) return absl::InvalidArgumentError("Where: x and y dtypes differ");
    PT2ONNX_ASSIGN_OR_RETURN(auto xy, BroadcastDims((*x)->dims(), (*y)->dims()));
    PT2ONNX_ASSIGN_OR_RETURN(auto dims, BroadcastDims((*c)->dims(), xy));
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, (*x)->dtype(), dims));
    std::vector<int64_t> strides[3] = {BroadcastStrides((*c)->dims(), dims), BroadcastStrides((*x)->dims(), dims),
                                       BroadcastStrides((*y)->dims(), dims)};
    const bool* pc = (*c)->data<bool>();
    const int size = ElementSize((*x)->dtype());
    // Whole elements of a fixed width (a per-element memcpy of a run-time size is not inlined).
    switch (size) {
      case 1: Select<uint8_t>(dims, strides, pc, **x, **y, *out); break;
      case 2: Select<uint16_t>(dims, strides, pc, **x, **y, *out); break;
      case 4: Select<uint32_t>(dims, strides, pc, **x, **y, *out); break;
      case 8: Select<uint64_t>(dims, strides, pc, **x, **y, *out); break;
      default: {
        const uint8_t* px = (*x)->raw();
        const uint8_t* py = (*y)->raw();
        uint8_t* po = (out)->raw();
        ForEachBroadcast(dims, strides, [&](int64_t i, const int64_t* o) {
          std::memcpy(po + i * size, pc[o[0]] ? px + o[1] * size : py + o[2] * size, size);
        });
      }
    }
    return absl::OkStatus();
  }

 private:
  template <typename T>
  static void Select(const Dims& dims, const std::vector<int64_t> (&strides)[3], const bool* pc, const Tensor& x,
                     const Tensor& y, Tensor& out) {
    const T* px = x.data<T>();
    const T* py = y.data<T>();
    T* po = out.data<T>();
    // Rows with both values loaded before the choice (a select, not a branch
    // the mask's pattern mispredicts); a scalar x or y (an attention mask's
    // fill value) is read once per row.
    ForEachBroadcastRow(dims, strides, [&](int64_t i, const int64_t* o, int64_t n, const int64_t* s) {
      const bool* c = pc + o[0];
      const T* a = px + o[1];
      const T* b = py + o[2];
      T* dst = po + i;
      if (s[0] == 1 && s[1] == 1 && s[2] == 0) {
        const T bv = *b;
        for (int64_t j = 0; j < n; ++j) dst[j] = c[j] ? a[j] : bv;
      } else if (s[0] == 1 && s[1] == 0 && s[2] == 1) {
        const T av = *a;
        for (int64_t j = 0; j < n; ++j) dst[j] = c[j] ? av : b[j];
      } else if (s[0] == 1 && s[1] == 1 && s[2] == 1) {
        for (int64_t j = 0; j < n; ++j) dst[j] = c[j] ? a[j] : b[j];
      } else {
        for (int64_t j = 0; j < n; ++j) {
          const T av = a[j * s[1]], bv = b[j * s[2]];
          dst[j] = c[j * s[0]] ? av : bv;
        }
      }
    });
  }
};

}  // namespace

extern const KernelRegistration kBinaryKernels[] = {
    {"Add", MakeKernel<BinaryKernel<BinaryOp::kAdd>>, HalfMode::kViaFloat32},
    {"Sub", MakeKernel<BinaryKernel<BinaryOp::kSub>>, HalfMode::kViaFloat32},
    {"Mul", MakeKernel<BinaryKernel<BinaryOp::kMul>>, HalfMode::kViaFloat32},
    {"Div", MakeKernel<BinaryKernel<BinaryOp::kDiv>>, HalfMode::kViaFloat32},
    {"Pow", MakeKernel<BinaryKernel<BinaryOp::kPow>>, HalfMode::kViaFloat32},
    {"Mod", MakeKernel<BinaryKernel<BinaryOp::kMod>>, HalfMode::kViaFloat32},
    {"Max", MakeKernel<BinaryKernel<BinaryOp::kMax>>, HalfMode::kViaFloat32},
    {"Min", MakeKernel<BinaryKernel<BinaryOp::kMin>>, HalfMode::kViaFloat32},
    {"PRelu", MakeKernel<BinaryKernel<BinaryOp::kPRelu>>, HalfMode::kViaFloat32},
    {"Equal", MakeKernel<BinaryKernel<BinaryOp::kEqual>>, HalfMode::kViaFloat32},
    {"Less", MakeKernel<BinaryKernel<BinaryOp::kLess>>, HalfMode::kViaFloat32},
    {"LessOrEqual", MakeKernel<BinaryKernel<BinaryOp::kLessEq>>, HalfMode::kViaFloat32},
    {"Greater", MakeKernel<BinaryKernel<BinaryOp::kGreater>>, HalfMode::kViaFloat32},
    {"GreaterOrEqual", MakeKernel<BinaryKernel<BinaryOp::kGreaterEq>>, HalfMode::kViaFloat32},
    {"And", MakeKernel<BinaryKernel<BinaryOp::kAnd>>, HalfMode::kNative},
    {"Or", MakeKernel<BinaryKernel<BinaryOp::kOr>>, HalfMode::kNative},
    {"Xor", MakeKernel<BinaryKernel<BinaryOp::kXor>>, HalfMode::kNative},
    {"Where", MakeKernel<WhereKernel>, HalfMode::kNative},
};
extern const size_t kNumBinaryKernels = sizeof(kBinaryKernels) / sizeof(kBinaryKernels[0]);

}  // namespace pt2onnx::runtime
