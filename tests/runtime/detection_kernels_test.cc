// Kernels of the detection family (runtime/kernels/detection.cc): RoiAlign,
// MaxRoiPool and NonMaxSuppression on hand-checked cases.
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

ir::Attribute Int(const char* n, int64_t v) { return ir::Attribute::Int(n, v); }
ir::Attribute Str(const char* n, const char* v) { return ir::Attribute::String(n, v); }

// A 4x4 plane holding 0..15 row-major: bilinear samples are y * 4 + x inside it.
Tensor Ramp() {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i);
  return F32({1, 1, 4, 4}, v);
}

TEST(RoiAlign, AveragesBilinearSamplesOfEachBin) {
  // Box (0.5, 0.5)-(2.5, 2.5), half_pixel: shifted to (0, 0)-(2, 2); one bin, 2x2 samples at 0.5 and 1.5.
  auto out = RunOp("RoiAlign",
                   {Str("coordinate_transformation_mode", "half_pixel"), Int("output_height", 1),
                    Int("output_width", 1), Int("sampling_ratio", 2)},
                   {{Ramp()}, {F32({1, 4}, {0.5f, 0.5f, 2.5f, 2.5f})}, {I64({1}, {0})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FLOAT_EQ(Values<float>((*out)[0].tensor)[0], 5.0f);  // mean of 2.5, 3.5, 6.5, 7.5 (4y + x)
  // output_half_pixel: a 0-size box is made 1x1 and sampled once (adaptive grid) at its centre.
  auto tiny = RunOp("RoiAlign",
                    {Str("coordinate_transformation_mode", "output_half_pixel"), Int("output_height", 1),
                     Int("output_width", 1)},
                    {{Ramp()}, {F32({1, 4}, {1.0f, 2.0f, 1.0f, 2.0f})}, {I64({1}, {0})}});
  ASSERT_TRUE(tiny.ok()) << tiny.status();
  EXPECT_FLOAT_EQ(Values<float>((*tiny)[0].tensor)[0], 2.5f * 4 + 1.5f);
  auto bad = RunOp("RoiAlign", {}, {{Ramp()}, {F32({1, 4}, {0, 0, 1, 1})}, {I64({1}, {3})}});
  EXPECT_TRUE(absl::StrContains(bad.status().message(), "batch index 3")) << bad.status();
}

TEST(MaxRoiPool, MaxOfEachRoundedBin) {
  // Box (0, 0)-(3, 1) covers rows 0..1, columns 0..3; 1x2 bins: columns 0..1 and 2..3.
  auto out = RunOp("MaxRoiPool", {ir::Attribute::Ints("pooled_shape", {1, 2})},
                   {{Ramp()}, {F32({1, 5}, {0, 0.f, 0.f, 3.f, 1.f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{5, 7}));
}

TEST(NonMaxSuppression, GreedyByScoreThenIndex) {
  // Boxes 0 and 1 overlap (IoU 0.9), boxes 2 and 3 are apart and tie on score.
  Tensor boxes = F32({1, 4, 4}, {0, 0, 10, 10, 0, 1, 10, 10, 20, 20, 30, 30, 40, 40, 50, 50});
  Tensor scores = F32({1, 1, 4}, {0.9f, 0.95f, 0.5f, 0.5f});
  auto out = RunOp("NonMaxSuppression", {}, {{boxes}, {scores}, {I64({1}, {4})}, {F32({1}, {0.5f})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0].tensor), (std::vector<int64_t>{0, 0, 1, 0, 0, 2, 0, 0, 3}));
  auto capped = RunOp("NonMaxSuppression", {}, {{boxes}, {scores}, {I64({1}, {1})}, {F32({1}, {0.9f})}});
  ASSERT_TRUE(capped.ok()) << capped.status();
  EXPECT_EQ(Values<int64_t>((*capped)[0].tensor), (std::vector<int64_t>{0, 0, 1}));
  auto thresholded = RunOp("NonMaxSuppression", {},
                           {{boxes}, {scores}, {I64({1}, {4})}, {F32({1}, {0.9f})}, {F32({1}, {0.6f})}});
  ASSERT_TRUE(thresholded.ok()) << thresholded.status();
  EXPECT_EQ(Values<int64_t>((*thresholded)[0].tensor), (std::vector<int64_t>{0, 0, 1, 0, 0, 0}));
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
