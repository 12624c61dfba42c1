// VerificationInfo as torch.onnx computes it: maxima, |expected| + 1e-7
// normalizer, histogram bins (torch.histogram: right-open, last bin closed,
// out-of-range values not counted), thresholds.
#include <cmath>
#include <vector>

#include "reference/ref_tensor.h"
#include "verify/verification_info.h"
#include "gtest/gtest.h"

namespace pt2onnx::verify {
namespace {

Tensor Floats(std::vector<double> v) {
  return *reference::FromDoubles(DataType::kFloat, {static_cast<int64_t>(v.size())}, v);
}

TEST(VerificationInfo, EqualTensorsFillTheFirstBin) {
  VerificationInfo info = CompareTensors("t", Floats({1, 2, 3}), Floats({1, 2, 3}));
  EXPECT_EQ(info.name, "t");
  EXPECT_EQ(info.max_abs_diff, 0);
  EXPECT_EQ(info.max_rel_diff, 0);
  EXPECT_EQ(info.abs_diff_hist[0], 3);
  EXPECT_EQ(info.expected_dtype, DataType::kFloat);
  EXPECT_FALSE(info.FailsOutputThresholds());
}

TEST(VerificationInfo, RelativeToExpectedPlusEpsilon) {
  VerificationInfo info = CompareTensors("t", Floats({0, 2}), Floats({1e-6, 2.5}));
  EXPECT_NEAR(info.max_abs_diff, 0.5, 1e-7);
  // 1e-6 / (0 + 1e-7) = 10 dominates 0.5 / 2.
  EXPECT_NEAR(info.max_rel_diff, 10, 1e-3);
  EXPECT_TRUE(info.FailsOutputThresholds());
}

TEST(VerificationInfo, HistogramEdgesAsTorch) {
  // abs diffs: 0, 1e-6 (second bin), 0.5 (1e-1..1), 1e6 (last bin, closed), 2e6 (not counted)
  VerificationInfo info = CompareTensors("t", Floats({0, 0, 0, 0, 0}), Floats({0, 1e-6, 0.5, 1e6, 2e6}));
  const std::array<int64_t, 9> want = {1, 1, 0, 0, 0, 0, 1, 0, 1};
  EXPECT_EQ(info.abs_diff_hist, want);
}

TEST(VerificationInfo, ThresholdsAreTorchs) {
  EXPECT_FALSE(CompareTensors("t", Floats({1}), Floats({1.0049})).FailsOutputThresholds());
  EXPECT_TRUE(CompareTensors("t", Floats({1}), Floats({1.006})).FailsOutputThresholds());
}

TEST(VerificationInfo, NanAndEmptyAndShape) {
  EXPECT_EQ(CompareTensors("t", Floats({NAN}), Floats({NAN})).max_abs_diff, 0);
  EXPECT_TRUE(std::isinf(CompareTensors("t", Floats({NAN}), Floats({1})).max_abs_diff));
  EXPECT_EQ(CompareTensors("t", Floats({}), Floats({})).max_abs_diff, 0);
  VerificationInfo shape = CompareTensors("t", Floats({1, 2}), Floats({1}));
  EXPECT_FALSE(shape.mismatch.empty());
  EXPECT_TRUE(shape.FailsOutputThresholds());
}

TEST(VerificationInfo, IntegersCompareExactly) {
  Tensor a = *reference::FromInts(DataType::kInt64, {2}, std::vector<int64_t>{(int64_t{1} << 60) + 1, 5});
  Tensor b = *reference::FromInts(DataType::kInt64, {2}, std::vector<int64_t>{(int64_t{1} << 60) + 1, 5});
  EXPECT_EQ(CompareTensors("t", a, b).max_abs_diff, 0);
}

}  // namespace
}  // namespace pt2onnx::verify
