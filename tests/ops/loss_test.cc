// Tests for ops/loss.cc: each loss converts under every reduction (0-d for
// mean and sum, the input's shape for none), with optional weights, and
// bad arguments are refused by name. Numerics: tests/fixtures/ops/
// regression_losses, bce_kl_losses.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram Loss(std::string overload, int64_t reduction, std::vector<pt2::NamedArgument> extra = {},
                          std::vector<TensorSpec> more_inputs = {}) {
  std::vector<TensorSpec> inputs = {{"x", kF32, {4, 5}}, {"t", kF32, {4, 5}}};
  for (auto& s : more_inputs) inputs.push_back(s);
  std::vector<pt2::NamedArgument> args = {TensorArg("self", "x"), TensorArg("target", "t"),
                                          IntArg("reduction", reduction)};
  for (auto& a : extra) args.push_back(a);
  std::vector<int64_t> out_shape = reduction == 0 ? std::vector<int64_t>{4, 5} : std::vector<int64_t>{};
  return OneNodeProgram(inputs, overload, args, {{"y", kF32, out_shape}}).Build();
}

TEST(Loss, EveryLossUnderEveryReduction) {
  for (std::string overload : {"mse_loss.default", "l1_loss.default", "huber_loss.default", "smooth_l1_loss.default",
                               "soft_margin_loss.default", "binary_cross_entropy.default",
                               "binary_cross_entropy_with_logits.default", "kl_div.default"}) {
    for (int64_t reduction : {0, 1, 2}) {
      pt2::ExportedProgram program = Loss(overload, reduction);
      absl::StatusOr<Converted> got = ConvertAndCheck(program);
      ASSERT_TRUE(got.ok()) << overload << " reduction " << reduction << ": " << got.status();
      EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload << " reduction " << reduction;
    }
  }
}

TEST(Loss, OptionalArguments) {
  std::vector<pt2::ExportedProgram> programs = {
      Loss("huber_loss.default", 1, {FloatArg("delta", 0.3)}),
      Loss("smooth_l1_loss.default", 0, {FloatArg("beta", 0.0)}),
      Loss("kl_div.default", 2, {BoolArg("log_target", true)}),
      Loss("binary_cross_entropy.default", 1, {TensorArg("weight", "w")}, {{"w", kF32, {5}}}),
      Loss("binary_cross_entropy_with_logits.default", 0, {TensorArg("weight", "w"), TensorArg("pos_weight", "p")},
           {{"w", kF32, {4, 1}}, {"p", kF32, {5}}})};
  for (const auto& program : programs) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << program.graph.nodes[0].target << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << program.graph.nodes[0].target;
  }
}

TEST(Loss, BadArgumentsAreRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Loss("mse_loss.default", 3)), absl::StatusCode::kInvalidArgument,
                        "reduction 3"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Loss("smooth_l1_loss.default", 1, {FloatArg("beta", -1.0)})),
                        absl::StatusCode::kInvalidArgument, "negative values for beta"));
}

TEST(Loss, PoissonNllLossEveryVariant) {
  for (bool log_input : {false, true}) {
    for (bool full : {false, true}) {
      for (int64_t reduction : {0, 1, 2}) {
        std::vector<int64_t> out = reduction == 0 ? std::vector<int64_t>{4, 5} : std::vector<int64_t>{};
        pt2::ExportedProgram program =
            OneNodeProgram({{"x", kF32, {4, 5}}, {"t", kF32, {4, 5}}}, "poisson_nll_loss.default",
                           {TensorArg("input", "x"), TensorArg("target", "t"), BoolArg("log_input", log_input),
                            BoolArg("full", full), FloatArg("eps", 1e-8), IntArg("reduction", reduction)},
                           {{"y", kF32, out}})
                .Build();
        absl::StatusOr<Converted> got = ConvertAndCheck(program);
        ASSERT_TRUE(got.ok()) << got.status();
        EXPECT_TRUE(OutputsMatchProgram(program, *got));
        EXPECT_EQ(FindNode(got->model, "LessOrEqual") != nullptr, full);
      }
    }
  }
}

}  // namespace
}  // namespace pt2onnx::testing
