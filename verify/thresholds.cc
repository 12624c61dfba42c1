// File: verify/thresholds.cc
// -----------------------------------------------------------------------------
// The per-dtype table of verify/thresholds.h and the half-precision floor.
#include "verify/thresholds.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reference/ref_tensor.h"

namespace pt2onnx::verify {
namespace {

struct HalfRow {
  DataType dtype;
  int mantissa_bits;    // epsilon = 2^-mantissa_bits
  int min_exponent;     // smallest normal = 2^min_exponent
  double ulps;          // max_rel in epsilons
};

// Why these counts: in both engines a half-precision op rounds its float32
// result once (torch's CPU kernels accumulate in float32, as the executor
// does), so a value differs by a few ulps where the engines round an
// intermediate differently, and that difference grows through the layers.
// 16 ulps is 1.6% in float16 and 12.5% in bfloat16; a wrong translation
// (a swapped axis, a dropped bias, a wrong epsilon) moves values by tens of
// percent of the tensor's magnitude. float8 carries 2-3 mantissa bits: 2 ulps
// is already 25-50%, the least that survives one rounding each side.
constexpr HalfRow kHalfRows[] = {
    {DataType::kFloat16, 10, -14, 16},
    {DataType::kBFloat16, 7, -126, 16},
    {DataType::kFloat8E4M3FN, 3, -6, 2},
    {DataType::kFloat8E4M3FNUZ, 3, -7, 2},
    {DataType::kFloat8E5M2, 2, -14, 2},
    {DataType::kFloat8E5M2FNUZ, 2, -15, 2},
};

const HalfRow* FindHalf(DataType dtype) {
  for (const HalfRow& r : kHalfRows) {
    if (r.dtype == dtype) return &r;
  }
  return nullptr;
}

}  // namespace

bool Thresholds::Fails(double max_abs_diff, double max_rel_diff) const {
  // Written so NaN fails.
  return !(max_abs_diff < max_abs) || !(max_rel_diff < max_rel);
}

std::string Thresholds::Text() const {
  if (torch_normalizer) {
    if (rel_min_abs > 0) {
      return absl::StrFormat("abs < %g, rel < %g where abs >= %g (torch.onnx's)", max_abs, max_rel,
                             rel_min_abs);
    }
    return absl::StrFormat("abs < %g, rel < %g (torch.onnx's)", max_abs, max_rel);
  }
  return absl::StrFormat("rel < %g (%g ulp) over max(|expected|, median)", max_rel, ulps);
}

double DtypeEpsilon(DataType dtype) {
  if (const HalfRow* r = FindHalf(dtype)) return std::ldexp(1.0, -r->mantissa_bits);
  if (dtype == DataType::kFloat) return std::numeric_limits<float>::epsilon();
  if (dtype == DataType::kDouble) return std::numeric_limits<double>::epsilon();
  return 0;
}

double DtypeSmallestNormal(DataType dtype) {
  if (const HalfRow* r = FindHalf(dtype)) return std::ldexp(1.0, r->min_exponent);
  if (dtype == DataType::kFloat) return std::numeric_limits<float>::min();
  if (dtype == DataType::kDouble) return std::numeric_limits<double>::min();
  return 0;
}

Thresholds ThresholdsFor(DataType dtype) {
  Thresholds t;
  t.dtype = dtype;
  if (const HalfRow* r = FindHalf(dtype)) {
    t.max_abs = std::numeric_limits<double>::infinity();
    t.ulps = r->ulps;
    t.max_rel = r->ulps * DtypeEpsilon(dtype);
    t.torch_normalizer = false;
  }
  // torch.testing.assert_close's default atol (torch/testing/_comparison.py).
  if (dtype == DataType::kFloat) t.rel_min_abs = 1e-5;
  if (dtype == DataType::kDouble) t.rel_min_abs = 1e-7;
  return t;
}

double RelFloor(const Thresholds& t, const Tensor& expected) {
  if (t.torch_normalizer) return 1e-7;
  // The median of the nonzero finite magnitudes: a ReLU's zeros or a mask's
  // -inf do not decide the scale of the rest.
  std::vector<float> mags;
  mags.reserve(static_cast<size_t>(expected.numel()));
  for (int64_t i = 0; i < expected.numel(); ++i) {
    const double v = std::fabs(reference::LoadDouble(expected, i));
    if (v != 0 && std::isfinite(v)) mags.push_back(static_cast<float>(v));
  }
  double median = 0;
  if (!mags.empty()) {
    auto mid = mags.begin() + static_cast<std::ptrdiff_t>(mags.size() / 2);
    std::nth_element(mags.begin(), mid, mags.end());
    median = *mid;
  }
  return std::max(DtypeSmallestNormal(t.dtype), median);
}

}  // namespace pt2onnx::verify
