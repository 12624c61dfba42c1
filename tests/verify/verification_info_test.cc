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

Tensor Typed(DataType dtype, std::vector<double> v) {
  return *reference::FromDoubles(dtype, {static_cast<int64_t>(v.size())}, v);
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

// The Qwen3 case: bfloat16 logits of magnitude ~0.5 with one ulp
// (2^-8) off on a value of 6.7e-5. torch's normalizer reads that as rel 57;
// over max(|expected|, median) it is 0.0078, one bfloat16 epsilon.
TEST(VerificationInfo, BFloat16OneUlpNearZeroPasses) {
  const Tensor expected = Typed(DataType::kBFloat16, {0.5, -0.75, 6.7e-5, 0.625, -0.5});
  const Tensor actual = Typed(DataType::kBFloat16, {0.5, -0.75, 6.7e-5 + 0.00390625, 0.625, -0.5});
  VerificationInfo info = CompareTensors("logits", expected, actual);
  EXPECT_NEAR(info.max_abs_diff, 0.00390625, 1e-4);
  EXPECT_DOUBLE_EQ(info.rel_floor, 0.5);  // median of 0.5, 0.5, 0.625, 0.75, 6.7e-5
  EXPECT_LT(info.max_rel_diff, 0.01);
  EXPECT_FALSE(info.FailsOutputThresholds());
  EXPECT_EQ(info.thresholds.max_rel, 0.125);
  EXPECT_EQ(info.thresholds.Text(), "rel < 0.125 (16 ulp) over max(|expected|, median)");
}

TEST(VerificationInfo, BFloat16LargeValuesAreRelative) {
  // 1 ulp at 16 is 0.125, beyond torch's abs 5e-3: no absolute threshold.
  EXPECT_FALSE(CompareTensors("t", Typed(DataType::kBFloat16, {16, 20}), Typed(DataType::kBFloat16, {16.125, 20}))
                   .FailsOutputThresholds());
  // 20% off at the median is a wrong value, not rounding. (Below the median a
  // value is judged against the median: 1 -> 1.2 beside 2 and 3 reads 0.1.)
  EXPECT_TRUE(CompareTensors("t", Typed(DataType::kBFloat16, {1, 2, 3}), Typed(DataType::kBFloat16, {1, 2.4, 3}))
                  .FailsOutputThresholds());
  EXPECT_FALSE(CompareTensors("t", Typed(DataType::kBFloat16, {1, 2, 3}), Typed(DataType::kBFloat16, {1.2, 2, 3}))
                   .FailsOutputThresholds());
}

TEST(VerificationInfo, Float16IsJudgedInItsUlps) {
  // 16 float16 ulps at 1 = 1.6%: 1% passes, 2% fails.
  EXPECT_FALSE(CompareTensors("t", Typed(DataType::kFloat16, {1, -1}), Typed(DataType::kFloat16, {1.01, -1}))
                   .FailsOutputThresholds());
  EXPECT_TRUE(CompareTensors("t", Typed(DataType::kFloat16, {1, -1}), Typed(DataType::kFloat16, {1.02, -1}))
                  .FailsOutputThresholds());
  // A ReLU's zeros do not set the floor: the median is of nonzero values.
  VerificationInfo relu = CompareTensors("t", Typed(DataType::kFloat16, {0, 0, 0, 2, 4, 8}),
                                         Typed(DataType::kFloat16, {0.5, 0, 0, 2, 4, 8}));
  EXPECT_DOUBLE_EQ(relu.rel_floor, 4);
  EXPECT_TRUE(relu.FailsOutputThresholds());  // 0.5 / 4
  // All zeros: the floor is float16's smallest normal, so any value fails.
  VerificationInfo zeros = CompareTensors("t", Typed(DataType::kFloat16, {0, 0}), Typed(DataType::kFloat16, {0.01, 0}));
  EXPECT_DOUBLE_EQ(zeros.rel_floor, 6.103515625e-05);
  EXPECT_TRUE(zeros.FailsOutputThresholds());
}

TEST(VerificationInfo, Float32KeepsTorchsRule) {
  VerificationInfo info = CompareTensors("t", Floats({0, 2}), Floats({1e-6, 2.5}));
  EXPECT_EQ(info.rel_floor, 1e-7);
  EXPECT_EQ(info.thresholds.max_abs, 5e-3);
  EXPECT_EQ(info.thresholds.max_rel, 1e-1);
  EXPECT_EQ(info.thresholds.Text(), "abs < 0.005, rel < 0.1 where abs >= 1e-05 (torch.onnx's)");
}

// A logit that cancels to 4e-5, 6e-6 apart in two engines (rel 0.14 over
// |expected| + 1e-7): float32 summation noise, under torch.testing's atol, so
// its relative difference is reported but not judged. 2e-5 apart it fails.
TEST(VerificationInfo, Float32RelativeDifferenceBelowAtolIsNotJudged) {
  VerificationInfo noise = CompareTensors("t", Floats({4e-5, 5.2}), Floats({4.6e-5, 5.2}));
  EXPECT_NEAR(noise.max_rel_diff, 0.15, 1e-3);
  EXPECT_EQ(noise.max_judged_rel_diff, 0);
  EXPECT_FALSE(noise.FailsOutputThresholds());
  EXPECT_FALSE(noise.ExceedsIntermediateThresholds());
  VerificationInfo wrong = CompareTensors("t", Floats({4e-5, 5.2}), Floats({6e-5, 5.2}));
  EXPECT_NEAR(wrong.max_judged_rel_diff, 0.5, 2e-3);  // 2e-5 / (4e-5 + 1e-7)
  EXPECT_TRUE(wrong.FailsOutputThresholds());
  // float64 uses its own atol (1e-7); integers judge every element.
  EXPECT_TRUE(CompareTensors("t", Typed(DataType::kDouble, {4e-5}), Typed(DataType::kDouble, {4.6e-5}))
                  .FailsOutputThresholds());
  EXPECT_EQ(ThresholdsFor(DataType::kInt64).rel_min_abs, 0);
}

TEST(Thresholds, PerDtype) {
  EXPECT_EQ(DtypeEpsilon(DataType::kFloat16), 1.0 / 1024);
  EXPECT_EQ(DtypeEpsilon(DataType::kBFloat16), 1.0 / 128);
  EXPECT_EQ(ThresholdsFor(DataType::kFloat16).max_rel, 16.0 / 1024);
  EXPECT_EQ(ThresholdsFor(DataType::kFloat8E4M3FN).max_rel, 0.25);
  EXPECT_EQ(ThresholdsFor(DataType::kFloat8E5M2).max_rel, 0.5);
  EXPECT_TRUE(ThresholdsFor(DataType::kDouble).torch_normalizer);
  EXPECT_TRUE(ThresholdsFor(DataType::kInt64).torch_normalizer);
  EXPECT_TRUE(std::isinf(ThresholdsFor(DataType::kBFloat16).max_abs));
  // NaN fails.
  EXPECT_TRUE(ThresholdsFor(DataType::kBFloat16).Fails(0, NAN));
}

}  // namespace
}  // namespace pt2onnx::verify
