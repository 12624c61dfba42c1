#include "verify/verification_info.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "reference/ref_tensor.h"

namespace pt2onnx::verify {
namespace {

// torch.histogram: bins are [e_i, e_{i+1}), the last one closed.
void AddToHistogram(double v, std::array<int64_t, 9>& counts) {
  if (std::isnan(v) || v < kHistogramEdges[0] || v > kHistogramEdges[9]) return;
  // torch bins in float32: compare in float as it does.
  const float f = static_cast<float>(v);
  for (int b = 8; b >= 0; --b) {
    if (f >= static_cast<float>(kHistogramEdges[b])) {
      ++counts[b];
      return;
    }
  }
}

}  // namespace

bool VerificationInfo::FailsOutputThresholds() const {
  if (!not_compared.empty()) return false;
  return thresholds.Fails(max_abs_diff, max_judged_rel_diff);
}

bool VerificationInfo::ExceedsIntermediateThresholds() const {
  if (!not_compared.empty()) return false;
  if (!thresholds.torch_normalizer) return FailsOutputThresholds();
  return !(max_abs_diff <= kIntermediateWarnAbs) || !(max_judged_rel_diff <= kIntermediateWarnRel);
}

VerificationInfo CompareTensors(const std::string& name, const Tensor& expected,
                                const Tensor& actual) {
  VerificationInfo info;
  info.name = name;
  info.expected_dtype = expected.dtype();
  info.actual_dtype = actual.dtype();
  info.thresholds = ThresholdsFor(expected.dtype());
  const double inf = std::numeric_limits<double>::infinity();
  if (expected.dims() != actual.dims()) {
    info.mismatch = absl::StrCat("shape ", DimsString(actual.dims()), " instead of ",
                                 DimsString(expected.dims()));
    info.max_abs_diff = info.max_rel_diff = info.max_judged_rel_diff = inf;
    return info;
  }
  // torch reports inf for empty tensors, so an empty output always "fails";
  // two empty tensors of the same shape are equal here.
  if (expected.numel() == 0) return info;
  info.rel_floor = RelFloor(info.thresholds, expected);
  const bool torch_normalizer = info.thresholds.torch_normalizer;
  const bool exact_ints = !IsFloatingPoint(expected.dtype()) && !IsFloatingPoint(actual.dtype());
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double abs_diff, e;
    if (exact_ints) {
      const int64_t a = reference::LoadInt(expected, i), b = reference::LoadInt(actual, i);
      e = static_cast<double>(a);
      abs_diff = a == b ? 0.0 : std::fabs(static_cast<double>(a) - static_cast<double>(b));
    } else {
      e = reference::LoadDouble(expected, i);
      const double a = reference::LoadDouble(actual, i);
      if (std::isnan(e) && std::isnan(a)) {
        abs_diff = 0;
      } else if (std::isnan(e) || std::isnan(a)) {
        abs_diff = inf;
      } else if (e == a) {
        abs_diff = 0;  // equal infinities too
      } else {
        abs_diff = std::fabs(e - a);
      }
    }
    const double rel_diff = torch_normalizer ? abs_diff / (std::fabs(e) + info.rel_floor)
                                             : abs_diff / std::max(std::fabs(e), info.rel_floor);
    info.max_abs_diff = std::max(info.max_abs_diff, abs_diff);
    info.max_rel_diff = std::max(info.max_rel_diff, rel_diff);
    // Written so a NaN or infinite difference is judged.
    if (!(abs_diff < info.thresholds.rel_min_abs)) {
      info.max_judged_rel_diff = std::max(info.max_judged_rel_diff, rel_diff);
    }
    AddToHistogram(abs_diff, info.abs_diff_hist);
    AddToHistogram(rel_diff, info.rel_diff_hist);
  }
  return info;
}

std::string HistogramEdgesJson() {
  std::vector<std::string> parts;
  for (double e : kHistogramEdges) parts.push_back(absl::StrCat(e));
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

std::string HistogramCountsJson(const std::array<int64_t, 9>& counts) {
  return absl::StrCat("[", absl::StrJoin(counts, ", "), "]");
}

}  // namespace pt2onnx::verify
