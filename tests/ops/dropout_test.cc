// Tests for ops/dropout.cc: eval-mode dropout is the identity (native_dropout
// adds an all-True bool mask); training-mode dropout converts to a drawn
// mask with the FX shapes and dtypes (its draws: distribution_draws_test.cc);
// a probability outside [0, 1] is refused. Numerics: tests/fixtures/ops/dropout,
// native_dropout.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

ProgramBuilder Dropout(std::string overload, double p, bool train) {
  std::string input = overload.find("_.") != std::string::npos ? "self" : "input";
  return OneNodeProgram({{"x", kF32, {2, 3}}}, overload,
                        {TensorArg(input, "x"), FloatArg("p", p), BoolArg("train", train)},
                        {{"y", kF32, {2, 3}}});
}

TEST(Dropout, EvalModeIsTheIdentity) {
  for (std::string overload :
       {"dropout.default", "dropout_.default", "feature_dropout.default",
        "feature_dropout_.default", "alpha_dropout.default", "alpha_dropout_.default",
        "feature_alpha_dropout.default", "feature_alpha_dropout_.default"}) {
    for (auto [p, train] : std::vector<std::pair<double, bool>>{{0.5, false}, {0.0, true}}) {
      pt2::ExportedProgram program = Dropout(overload, p, train).Build();
      absl::StatusOr<Converted> got = ConvertAndCheck(program);
      ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
      EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
      EXPECT_TRUE(OpTypesAre(got->model, {"Identity"})) << overload;
    }
  }
}

TEST(Dropout, TrainingModeDrawsAMask) {
  for (std::string overload :
       {"dropout.default", "dropout_.default", "feature_dropout.default", "alpha_dropout_.default",
        "feature_alpha_dropout.default"}) {
    pt2::ExportedProgram program = Dropout(overload, 0.1, true).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
    EXPECT_NE(FindNode(got->model, "RandomUniformLike"), nullptr) << overload;
  }
}

// p == 1: x * 0 (NaN stays NaN, as torch multiplies), no draw.
TEST(Dropout, TrainingWithProbabilityOneMultipliesByZero) {
  for (std::string overload : {"dropout.default", "feature_alpha_dropout.default"}) {
    pt2::ExportedProgram program = Dropout(overload, 1.0, true).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
    EXPECT_TRUE(OpTypesAre(got->model, {"Mul"})) << overload;
  }
}

// torch's make_feature_noise needs [N, C, ...].
TEST(Dropout, FeatureDropoutOfA1dInputIsInvalid) {
  ProgramBuilder p = OneNodeProgram({{"x", kF32, {5}}}, "feature_dropout.default",
                                    {TensorArg("input", "x"), FloatArg("p", 0.5), BoolArg("train", true)},
                                    {{"y", kF32, {5}}});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(p.Build()), absl::StatusCode::kInvalidArgument, "at least 2 dimensions"));
}

TEST(Dropout, ProbabilityOutsideZeroOneIsInvalid) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Dropout("dropout.default", 1.5, false).Build()),
                        absl::StatusCode::kInvalidArgument, "outside [0, 1]"));
}

ProgramBuilder NativeDropout(std::vector<pt2::NamedArgument> train) {
  std::vector<pt2::NamedArgument> args = {TensorArg("input", "x"), FloatArg("p", 0.5)};
  args.insert(args.end(), train.begin(), train.end());
  return OneNodeProgram({{"x", kF32, {2, 3}}}, "native_dropout.default", std::move(args),
                        {{"y", kF32, {2, 3}}, {"mask", kBool, {2, 3}}});
}

TEST(NativeDropout, EvalModeGivesTheInputAndAnAllTrueMask) {
  pt2::ExportedProgram program = NativeDropout({BoolArg("train", false)}).Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, {"Expand", "Identity"}));
}

// train=None is training in torch's kernels: a drawn bool mask.
TEST(NativeDropout, TrainNoneOrTrueDrawsTheMask) {
  for (auto train : {NoneArg("train"), BoolArg("train", true)}) {
    pt2::ExportedProgram program = NativeDropout({train}).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
    EXPECT_NE(FindNode(got->model, "RandomUniformLike"), nullptr);
  }
}

}  // namespace
}  // namespace pt2onnx::testing
