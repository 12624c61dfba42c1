// File: reference/orthogonal_polynomials.cc
// -----------------------------------------------------------------------------
// Reference kernels for ops/orthogonal_polynomials.cc: Chebyshev T, U, V, W
// (plain and shifted), Hermite H / He, Laguerre L and Legendre P of a tensor
// degree. Each evaluates torch's definition element by element in the
// result's precision (float for float32 and narrower, else double): the
// degree truncated to an integer (non-finite or out-of-range degrees count as
// negative, as torch's int64 cast leaves them on x86), the special values
// torch returns, its closed trigonometric form on (-1, 1) past a degree, and
// otherwise the three-term recurrence run to n.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

enum class Kind { kT, kU, kV, kW, kHermiteH, kHermiteE, kLaguerre, kLegendre };

// torch's static_cast<int64_t>(n): truncation; NaN, inf and values out of
// range give INT64_MIN on x86 (a negative degree).
int64_t Degree(double n) {
  if (!(std::fabs(n) < 9223372036854775808.0)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(n);
}

// Chebyshev polynomials of kind `kind` at t (t = 2x - 1 for the shifted ones).
// `plus` / `minus` say whether t sits at the upper / lower end point, which
// the shifted forms test on x itself; `limit` is the degree past which torch
// switches to the trigonometric form.
template <typename T>
T Chebyshev(Kind kind, T t, int64_t n, bool plus, bool minus, int64_t limit) {
  if (n < 0) return T(0);
  const T sign = n % 2 == 0 ? T(1) : T(-1);
  const T n1 = static_cast<T>(n + 1);
  const T n2 = static_cast<T>(2 * n + 1);
  if (plus || minus) {
    switch (kind) {
      case Kind::kT: return plus ? T(1) : sign;
      case Kind::kU: return plus ? n1 : sign * n1;
      case Kind::kV: return plus ? T(1) : sign * n2;
      default: return plus ? n2 : sign;
    }
  }
  if (n > limit && std::fabs(t) < T(1)) {
    const T angle = std::acos(t);
    const T nf = static_cast<T>(n);
    switch (kind) {
      case Kind::kT: return std::cos(nf * angle);
      case Kind::kU:
        if (std::sin(angle) != T(0)) return std::sin(n1 * angle) / std::sin(angle);
        return n1 * std::cos(n1 * angle) / t;
      case Kind::kV:
        if (std::sin(angle / T(2)) != T(1)) return std::cos((nf + T(0.5)) * angle) / std::cos(angle / T(2));
        return sign * n2;
      default:
        if (std::cos(angle / T(2)) != T(1)) return std::sin((nf + T(0.5)) * angle) / std::sin(angle / T(2));
        return sign;  // the shifted form; the plain one passes t > 0 below
    }
  }
  if (n == 0) return T(1);
  T previous = T(1);
  T current = kind == Kind::kT ? t : kind == Kind::kU ? t + t : kind == Kind::kV ? t + t - T(1) : t + t + T(1);
  for (int64_t k = 2; k <= n && !std::isnan(current); ++k) {
    const T next = (t + t) * current - previous;
    previous = current;
    current = next;
  }
  return current;
}

template <typename T>
T Evaluate(Kind kind, bool shifted, T x, int64_t n) {
  switch (kind) {
    case Kind::kHermiteH:
    case Kind::kHermiteE: {
      if (n < 0) return T(0);
      if (n == 0) return T(1);
      const bool h = kind == Kind::kHermiteH;
      if (n == 1) return h ? x + x : x;
      if (n > (sizeof(T) == sizeof(float) ? 128 : 512)) return std::numeric_limits<T>::quiet_NaN();
      T previous = T(1);
      T current = h ? x + x : x;
      for (int64_t m = 1; m < n; ++m) {  // H_{m+1} = 2x H_m - 2m H_{m-1}; He: x He_m - m He_{m-1}
        const T next = h ? (x + x) * current - static_cast<T>(2 * m) * previous
                         : x * current - static_cast<T>(m) * previous;
        previous = current;
        current = next;
      }
      return current;
    }
    case Kind::kLaguerre: {
      if (n < 0) return T(0);
      if (x == T(0) || n == 0) return T(1);
      T previous = T(1);
      T current = T(1) - x;
      for (int64_t k = 1; k < n && !std::isnan(current); ++k) {
        const T kf = static_cast<T>(k);
        const T next = ((kf + kf + (T(1) - x)) * current - kf * previous) / (kf + T(1));
        previous = current;
        current = next;
      }
      return current;
    }
    case Kind::kLegendre: {
      if (n < 0) return T(0);
      if (std::fabs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
      if (n == 0) return T(1);
      T previous = T(1);
      T current = x;
      for (int64_t k = 1; k < n && !std::isnan(current); ++k) {
        const T kf = static_cast<T>(k);
        const T next = ((kf + kf + T(1)) * x * current - kf * previous) / (kf + T(1));
        previous = current;
        current = next;
      }
      return current;
    }
    default: break;
  }
  if (shifted) {
    const int64_t limit = kind == Kind::kW ? 4 : 6;
    return Chebyshev<T>(kind, x + x - T(1), n, x == T(1), x == T(0), limit);
  }
  const int64_t limit = kind == Kind::kT ? 6 : 8;
  const bool unit = std::fabs(x) == T(1);
  // Plain W's degenerate trigonometric case mirrors its end-point values.
  if (kind == Kind::kW && n > limit && std::fabs(x) < T(1) && std::cos(std::acos(x) / T(2)) == T(1) && x > T(0)) {
    return static_cast<T>(2 * n + 1);
  }
  return Chebyshev<T>(kind, x, n, unit && x > T(0), unit && !(x > T(0)), limit);
}

absl::Status PolynomialOp(RefCall& call, Kind kind, bool shifted) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor x, TensorOrScalar(call, "x"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor n, TensorOrScalar(call, "n"));
  DataType dtype = call.OutputDtype();
  if (dtype == DataType::kUndefined) dtype = DataType::kFloat;
  const bool wide = dtype == DataType::kDouble;
  PT2ONNX_ASSIGN_OR_RETURN(
      Tensor out, BinaryMap(x, n, DataType::kDouble, dtype,
                            [=](double xv, double nv) -> double {
                              if (wide) return Evaluate<double>(kind, shifted, xv, Degree(nv));
                              // torch holds both operands in float first.
                              const float nf = static_cast<float>(nv);
                              return Evaluate<float>(kind, shifted, static_cast<float>(xv), Degree(nf));
                            },
                            [](int64_t, int64_t) -> absl::StatusOr<int64_t> {
                              return absl::InvalidArgumentError("orthogonal polynomials have a float result");
                            }));
  return call.SetTensor(std::move(out));
}

template <Kind kKind, bool kShifted>
absl::Status Op(RefCall& call) {
  return PolynomialOp(call, kKind, kShifted);
}

template <Kind kKind, bool kShifted>
void AddThree(RefRegistry& r, const char* name) {
  for (const char* overload : {".default", ".x_scalar", ".n_scalar"}) {
    r.Add(std::string("aten::") + name + overload, Op<kKind, kShifted>);
  }
}

}  // namespace

void RegisterOrthogonalPolynomialsRef(RefRegistry& r) {
  AddThree<Kind::kT, false>(r, "special_chebyshev_polynomial_t");
  AddThree<Kind::kU, false>(r, "special_chebyshev_polynomial_u");
  AddThree<Kind::kV, false>(r, "special_chebyshev_polynomial_v");
  AddThree<Kind::kW, false>(r, "special_chebyshev_polynomial_w");
  AddThree<Kind::kT, true>(r, "special_shifted_chebyshev_polynomial_t");
  AddThree<Kind::kU, true>(r, "special_shifted_chebyshev_polynomial_u");
  AddThree<Kind::kV, true>(r, "special_shifted_chebyshev_polynomial_v");
  AddThree<Kind::kW, true>(r, "special_shifted_chebyshev_polynomial_w");
  AddThree<Kind::kHermiteH, false>(r, "special_hermite_polynomial_h");
  AddThree<Kind::kHermiteE, false>(r, "special_hermite_polynomial_he");
  AddThree<Kind::kLaguerre, false>(r, "special_laguerre_polynomial_l");
  AddThree<Kind::kLegendre, false>(r, "special_legendre_polynomial_p");
}

}  // namespace pt2onnx::reference
