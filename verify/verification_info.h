// File: verify/verification_info.h
// -----------------------------------------------------------------------------
// torch.onnx's VerificationInfo (torch/onnx/_internal/exporter/_verification.py)
// computed natively: the largest absolute and relative differences between an
// expected (reference) and an actual (ONNX) tensor, and histograms of both
// over torch's fixed bin edges. The relative difference and the pass/fail
// rule depend on the expected dtype (verify/thresholds.h): torch's for
// float32 (over |expected| + 1e-7), ulp-based with a floor for half precision.
#ifndef PT2ONNX_VERIFY_VERIFICATION_INFO_H_
#define PT2ONNX_VERIFY_VERIFICATION_INFO_H_

#include <array>
#include <cstdint>
#include <string>

#include "core/dtype.h"
#include "core/tensor/tensor.h"
#include "verify/thresholds.h"

namespace pt2onnx::verify {

// torch's bins: 0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 1e6.
inline constexpr std::array<double, 10> kHistogramEdges = {0.0,  1e-6, 1e-5, 1e-4, 1e-3,
                                                           1e-2, 1e-1, 1.0,  10.0, 1e6};
// verify_onnx_program(compare_intermediates=True) warns above these.
inline constexpr double kIntermediateWarnAbs = 0.01;
inline constexpr double kIntermediateWarnRel = 0.1;

struct VerificationInfo {
  std::string name;
  double max_abs_diff = 0;
  double max_rel_diff = 0;
  // The largest relative difference the thresholds judge: over the elements
  // whose absolute difference reaches thresholds.rel_min_abs.
  double max_judged_rel_diff = 0;
  // Counts per bin (torch.histogram: values outside [0, 1e6] and NaN are not counted).
  std::array<int64_t, 9> abs_diff_hist{};
  std::array<int64_t, 9> rel_diff_hist{};
  DataType expected_dtype = DataType::kUndefined;
  DataType actual_dtype = DataType::kUndefined;
  // Beyond torch's fields: a shape mismatch (then both maxima are inf).
  std::string mismatch;
  // The rule this value is judged by (from expected_dtype), and the
  // denominator floor its relative difference used (1e-7 added, torch's, for
  // float32; max(|expected|, rel_floor) for half precision).
  Thresholds thresholds;
  double rel_floor = 1e-7;
  // Non-empty: the value was not compared, and why (it derives from random
  // numbers, which no two engines share); it then neither passes nor fails.
  std::string not_compared;

  // The output-accuracy check of `thresholds` (float32: torch.onnx's abs >=
  // 5e-3 or rel >= 1e-1 fails); a value not compared never fails. The first
  // diverging node is found by the same rule.
  bool FailsOutputThresholds() const;
  // float32: the warning threshold of compare_intermediates (abs > 0.01 or
  // rel > 0.1); half precision: FailsOutputThresholds().
  bool ExceedsIntermediateThresholds() const;
};

// VerificationInfo.from_tensors (for float32; half precision measures the
// relative difference as thresholds.h says), except that two empty tensors of one shape
// are equal (torch gives inf, failing every empty output), bools
// compare as 0/1, NaN in the same place on both sides counts as equal
// (torch's subtraction would give NaN, which max() propagates; pt2onnx
// treats matching NaN as no difference and a one-sided NaN as inf).
VerificationInfo CompareTensors(const std::string& name, const Tensor& expected,
                                const Tensor& actual);

// "[0.0, 1e-06, ...]" and "[3, 0, ...]" as JSON arrays.
std::string HistogramEdgesJson();
std::string HistogramCountsJson(const std::array<int64_t, 9>& counts);

}  // namespace pt2onnx::verify

#endif  // PT2ONNX_VERIFY_VERIFICATION_INFO_H_
