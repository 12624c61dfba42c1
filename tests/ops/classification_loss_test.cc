// Tests for ops/classification_loss.cc: nll_loss in each overload (both
// outputs of nll_loss_forward), 1-D, 2-D and (N, C, H, W) inputs, every
// reduction, and cross_entropy_loss with index and probability targets and
// label smoothing. Numerics: tests/fixtures/ops/nll_cross_entropy.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

struct Shapes {
  std::vector<int64_t> input, target;
};

std::vector<int64_t> Reduced(const Shapes& s, int64_t reduction) {
  return reduction == 0 ? s.target : std::vector<int64_t>{};
}

TEST(ClassificationLoss, NllEveryOverloadShapeAndReduction) {
  for (const Shapes& s : std::vector<Shapes>{{{5}, {}}, {{6, 5}, {6}}, {{2, 5, 3, 4}, {2, 3, 4}}}) {
    for (int64_t reduction : {0, 1, 2}) {
      for (std::string overload : {"nll_loss.default", "nll_loss_nd.default", "nll_loss2d.default"}) {
        pt2::ExportedProgram program =
            OneNodeProgram({{"x", kF32, s.input}, {"t", kI64, s.target}, {"w", kF32, {5}}}, overload,
                           {TensorArg("self", "x"), TensorArg("target", "t"), TensorArg("weight", "w"),
                            IntArg("reduction", reduction), IntArg("ignore_index", 1)},
                           {{"y", kF32, Reduced(s, reduction)}})
                .Build();
        absl::StatusOr<Converted> got = ConvertAndCheck(program);
        ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
        EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload << " reduction " << reduction;
      }
    }
  }
}

TEST(ClassificationLoss, NllForwardBindsTotalWeight) {
  for (int64_t reduction : {0, 1}) {
    pt2::ExportedProgram program =
        OneNodeProgram({{"x", kF32, {6, 5}}, {"t", kI64, {6}}}, "nll_loss_forward.default",
                       {TensorArg("self", "x"), TensorArg("target", "t"), NoneArg("weight"),
                        IntArg("reduction", reduction), IntArg("ignore_index", -100)},
                       {{"y", kF32, reduction == 0 ? std::vector<int64_t>{6} : std::vector<int64_t>{}},
                        {"total", kF32, {}}})
            .Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

TEST(ClassificationLoss, CrossEntropyTargetsAndSmoothing) {
  struct Row {
    DataType target_dtype;
    std::vector<int64_t> target_shape;
    double smoothing;
    int64_t reduction;
  };
  for (const Row& r : std::vector<Row>{{kI64, {2, 3}, 0.0, 1},
                                       {kI64, {2, 3}, 0.2, 0},
                                       {kI64, {2, 3}, 0.1, 2},
                                       {kF32, {2, 5, 3}, 0.0, 1},
                                       {kF32, {2, 5, 3}, 0.3, 0}}) {
    std::vector<int64_t> out = r.reduction == 0 ? std::vector<int64_t>{2, 3} : std::vector<int64_t>{};
    pt2::ExportedProgram program =
        OneNodeProgram({{"x", kF32, {2, 5, 3}}, {"t", r.target_dtype, r.target_shape}, {"w", kF32, {5}}},
                       "cross_entropy_loss.default",
                       {TensorArg("self", "x"), TensorArg("target", "t"), TensorArg("weight", "w"),
                        IntArg("reduction", r.reduction), IntArg("ignore_index", 0),
                        FloatArg("label_smoothing", r.smoothing)},
                       {{"y", kF32, out}})
            .Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << DataTypeName(r.target_dtype) << " " << r.smoothing;
  }
}

TEST(ClassificationLoss, ZeroDimInputIsRefused) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {}}, {"t", kI64, {}}}, "nll_loss.default",
                     {TensorArg("self", "x"), TensorArg("target", "t")}, {{"y", kF32, {}}})
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kInvalidArgument, "0-d"));
}

}  // namespace
}  // namespace pt2onnx::testing
