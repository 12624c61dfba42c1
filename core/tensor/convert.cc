#include "core/tensor/convert.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/ir/half.h"

namespace pt2onnx {
namespace {

template <typename F>
bool VisitStorage(DataType dtype, F&& f) {
  switch (dtype) {
    case DataType::kFloat: f(float{}); return true;
    case DataType::kDouble: f(double{}); return true;
    case DataType::kInt64: f(int64_t{}); return true;
    case DataType::kInt32: f(int32_t{}); return true;
    case DataType::kInt16: f(int16_t{}); return true;
    case DataType::kInt8: f(int8_t{}); return true;
    case DataType::kUint8: f(uint8_t{}); return true;
    case DataType::kUint16: f(uint16_t{}); return true;
    case DataType::kUint32: f(uint32_t{}); return true;
    case DataType::kUint64: f(uint64_t{}); return true;
    case DataType::kBool: f(bool{}); return true;
    default: return false;
  }
}

// Float to integer as x86's truncating conversions (and so ONNX Runtime's
// static_cast) behave, without C++'s undefined behaviour out of range: NaN
// and out-of-range values give the "integer indefinite" (the minimum of the
// 32- or 64-bit signed type converted through); 8/16-bit types take the low
// bits of the 32-bit result, the unsigned 32/64-bit ones those of the 64-bit one.
template <typename I, typename S>
I TruncateOrIndefinite(S v) {
  constexpr S kLimit = S(std::numeric_limits<I>::max()) + S(1);  // 2^31 or 2^63, exact
  if (v >= -kLimit && v < kLimit) return static_cast<I>(v);
  return std::numeric_limits<I>::min();
}

template <typename D, typename S>
D FloatToInteger(S v) {
  if constexpr (std::is_same_v<D, int32_t>) return TruncateOrIndefinite<int32_t>(v);
  if constexpr (std::is_same_v<D, int64_t>) return TruncateOrIndefinite<int64_t>(v);
  if constexpr (sizeof(D) < 4) return static_cast<D>(TruncateOrIndefinite<int32_t>(v));
  if constexpr (std::is_same_v<D, uint64_t>) {
    if (v >= S(0) && v < S(18446744073709551616.0)) return static_cast<uint64_t>(v);
  }
  return static_cast<D>(TruncateOrIndefinite<int64_t>(v));
}

}  // namespace

absl::Status CastInto(const Tensor& src, Tensor& dst) {
  const int64_t n = src.numel();
  if (src.dtype() == dst.dtype()) {
    if (src.byte_size() > 0) std::memcpy(dst.raw(), src.raw(), src.byte_size());
    return absl::OkStatus();
  }
  // Half types go through float32 on either side.
  if (IsHalfFloat(src.dtype())) {
    auto f = Tensor::Allocate(DataType::kFloat, src.dims(), nullptr);
    if (!f.ok()) return f.status();
    const uint16_t* ps = src.data<uint16_t>();
    float* pf = f->data<float>();
    for (int64_t i = 0; i < n; ++i) {
      pf[i] = src.dtype() == DataType::kFloat16 ? ir::HalfToFloat(ps[i]) : ir::BFloat16ToFloat(ps[i]);
    }
    return CastInto(*f, dst);
  }
  if (IsHalfFloat(dst.dtype())) {
    Tensor f32 = src;
    if (src.dtype() != DataType::kFloat) {
      auto f = Tensor::Allocate(DataType::kFloat, src.dims(), nullptr);
      if (!f.ok()) return f.status();
      absl::Status s = CastInto(src, *f);
      if (!s.ok()) return s;
      f32 = *f;
    }
    const float* pf = f32.data<float>();
    uint16_t* pd = dst.data<uint16_t>();
    for (int64_t i = 0; i < n; ++i) {
      pd[i] = dst.dtype() == DataType::kFloat16 ? ir::FloatToHalf(pf[i]) : ir::FloatToBFloat16(pf[i]);
    }
    return absl::OkStatus();
  }
  bool ok = true;
  bool visited = VisitStorage(src.dtype(), [&](auto stag) {
    using S = decltype(stag);
    ok = VisitStorage(dst.dtype(), [&](auto dtag) {
      using D = decltype(dtag);
      const S* ps = src.data<S>();
      D* pd = dst.data<D>();
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_same_v<D, bool>) {
          pd[i] = ps[i] != S(0);
        } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
          pd[i] = FloatToInteger<D>(ps[i]);
        } else {
          pd[i] = static_cast<D>(ps[i]);
        }
      }
    });
  });
  if (!visited || !ok) {
    return absl::UnimplementedError(absl::StrCat("cannot cast ", DataTypeName(src.dtype()), " to ",
                                                 DataTypeName(dst.dtype())));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> CastTo(const Tensor& src, DataType dtype, BufferPool* pool) {
  auto out = Tensor::Allocate(dtype, src.dims(), pool);
  if (!out.ok()) return out.status();
  absl::Status s = CastInto(src, *out);
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<Tensor> FromIrTensor(const ir::Tensor& tensor) {
  auto out = Tensor::Allocate(tensor.dtype(), tensor.dims(), nullptr);
  if (!out.ok()) return out.status();
  auto bytes = tensor.ReadBytes();
  if (!bytes.ok()) return bytes.status();
  if (bytes->size() != out->byte_size()) {
    return absl::InvalidArgumentError(absl::StrCat("constant holds ", bytes->size(), " bytes, ",
                                                   DimsString(tensor.dims()), " needs ", out->byte_size()));
  }
  if (!bytes->empty()) std::memcpy(out->raw(), bytes->data(), bytes->size());
  return out;
}

absl::StatusOr<Tensor> ConstantNodeValue(const ir::Node& node) {
  for (const ir::Attribute& a : node.attributes) {
    if (a.name == "value") return FromIrTensor(a.t());
    if (a.name == "value_float" || a.name == "value_int") {
      bool is_float = a.name == "value_float";
      auto t = Tensor::Allocate(is_float ? DataType::kFloat : DataType::kInt64, {}, nullptr);
      if (!t.ok()) return t.status();
      if (is_float) t->data<float>()[0] = a.f(); else t->data<int64_t>()[0] = a.i();
      return t;
    }
    if (a.name == "value_floats" || a.name == "value_ints") {
      bool is_float = a.name == "value_floats";
      int64_t n = static_cast<int64_t>(is_float ? a.floats().size() : a.ints().size());
      auto t = Tensor::Allocate(is_float ? DataType::kFloat : DataType::kInt64, {n}, nullptr);
      if (!t.ok()) return t.status();
      if (n > 0) {
        if (is_float) std::memcpy(t->raw(), a.floats().data(), n * 4);
        else std::memcpy(t->raw(), a.ints().data(), n * 8);
      }
      return t;
    }
  }
  return absl::UnimplementedError("Constant: no supported value attribute (value, value_float(s), value_int(s))");
}

}  // namespace pt2onnx
