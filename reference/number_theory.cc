// Reference kernels: gcd and lcm of integer tensors, as ATen's calc_gcd /
// calc_lcm (aten/src/ATen/native/Math.h): Euclid on |a| and |b|; lcm =
// |a / g * b| (0 when g is 0), the product taken in C++'s int for 8- and
// 16-bit dtypes (abs before the result wraps) and at the dtype's width for
// 32- and 64-bit ones (it wraps first).
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

uint64_t Magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

uint64_t Gcd(int64_t a, int64_t b) {
  uint64_t x = Magnitude(a), y = Magnitude(b);
  while (x != 0) {
    const uint64_t c = x;
    x = y % x;
    y = c;
  }
  return y;
}

bool IsUnsignedInteger(DataType dtype) {
  return dtype == DataType::kUint8 || dtype == DataType::kUint16 || dtype == DataType::kUint32 ||
         dtype == DataType::kUint64;
}

absl::Status NumberTheory(RefCall& call, bool lcm, bool in_place) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, TensorOrScalar(call, "self"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor other, TensorOrScalar(call, "other"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, call.ResultType({"self", "other"}));
  if (!IsInteger(dtype)) return call.Invalid(absl::StrCat(lcm ? "lcm" : "gcd", " of ", DataTypeName(dtype)));
  const int width = 8 * ElementSize(dtype);
  const bool is_unsigned = IsUnsignedInteger(dtype);
  auto f = [lcm, width, is_unsigned](int64_t a, int64_t b) -> absl::StatusOr<int64_t> {
    const uint64_t g = Gcd(a, b);
    if (!lcm) return static_cast<int64_t>(g);
    if (g == 0) return 0;
    const int64_t quotient = a / static_cast<int64_t>(g);
    if (width < 32) {  // in C++'s int: exact, abs, then wrapped when stored
      const int64_t p = quotient * b;
      return p < 0 ? -p : p;
    }
    const uint64_t wrapped = static_cast<uint64_t>(quotient) * static_cast<uint64_t>(b);
    if (is_unsigned) return static_cast<int64_t>(wrapped);
    if (width == 32) {
      const int32_t p = static_cast<int32_t>(static_cast<uint32_t>(wrapped));
      return p < 0 ? -static_cast<int64_t>(p) : p;
    }
    const int64_t p = static_cast<int64_t>(wrapped);
    return p < 0 ? static_cast<int64_t>(0 - wrapped) : p;
  };
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, BinaryMap(self, other, dtype, dtype, [](double, double) { return 0.0; }, f));
  if (!in_place) return call.SetTensor(std::move(out));
  PT2ONNX_RETURN_IF_ERROR(WriteInPlace(self, out));
  return call.SetTensor(self);
}

// aten::gcd(Tensor self, Tensor other) -> Tensor (gcd_ in place); lcm alike.
absl::Status GcdOp(RefCall& call) { return NumberTheory(call, false, false); }
absl::Status GcdInPlace(RefCall& call) { return NumberTheory(call, false, true); }
absl::Status LcmOp(RefCall& call) { return NumberTheory(call, true, false); }
absl::Status LcmInPlace(RefCall& call) { return NumberTheory(call, true, true); }

}  // namespace

void RegisterNumberTheoryRef(RefRegistry& r) {
  r.Add("aten::gcd.default", GcdOp);
  r.Add("aten::gcd_.default", GcdInPlace);
  r.Add("aten::lcm.default", LcmOp);
  r.Add("aten::lcm_.default", LcmInPlace);
}

}  // namespace pt2onnx::reference
