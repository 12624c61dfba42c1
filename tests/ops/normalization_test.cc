// Tests for ops/normalization.cc: each case is a one-node program; it must
// convert, pass the ONNX checker and shape inference, infer the FX output
// shapes and dtypes, and emit the expected op types (Constants skipped).
// Numerics are checked end to end against torch (tests/fixtures/ops/
// {batch,layer,group,instance,rms}_norm*).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

struct Case {
  std::string name;
  ProgramBuilder program;
  std::vector<std::string> ops;  // expected op types (Constants skipped)
  int opset = 20;
  // ONNX infers GroupNormalization through its function body, which loses
  // static sizes (rank only); such cases accept -1 for a static dim.
  bool rank_only = false;
};

Case RankOnly(Case c) {
  c.rank_only = true;
  return c;
}

// Inputs -> one node -> its outputs (outputs named "*_unused_*" are not
// returned, as in real programs).
Case One(std::string name, std::vector<TensorSpec> inputs, std::string target,
         std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outs,
         std::vector<std::string> ops, int opset = 20) {
  return Case{std::move(name), OneNodeProgram(inputs, target, std::move(args), std::move(outs)),
              std::move(ops), opset};
}

const TensorSpec kX{"x", kF32, {2, 3, 4, 4}};
const TensorSpec kW{"w", kF32, {3}}, kB{"b", kF32, {3}}, kMean{"rm", kF32, {3}},
    kVar{"rv", kF32, {3}};

std::vector<pt2::NamedArgument> BatchNormArgs(bool affine, bool stats) {
  return {TensorArg("input", "x"),
          affine ? TensorArg("weight", "w") : NoneArg("weight"),
          affine ? TensorArg("bias", "b") : NoneArg("bias"),
          stats ? TensorArg("running_mean", "rm") : NoneArg("running_mean"),
          stats ? TensorArg("running_var", "rv") : NoneArg("running_var")};
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  const std::vector<std::string> kBatchStatOps = {"ReduceMean", "Sub",        "Mul", "ReduceMean",
                                                  "Add",        "Sqrt",       "Reciprocal",
                                                  "Mul"};

  // batch norm
  {
    std::vector<pt2::NamedArgument> args = BatchNormArgs(true, true);
    args.push_back(BoolArg("training", false));
    args.push_back(FloatArg("momentum", 0.1));
    args.push_back(FloatArg("eps", 1e-5));
    args.push_back(BoolArg("cudnn_enabled", true));
    add(One("batch_norm", {kX, kW, kB, kMean, kVar}, "batch_norm.default", args,
            {{"y", kF32, {2, 3, 4, 4}}}, {"BatchNormalization"}));
  }
  {
    std::vector<pt2::NamedArgument> args = BatchNormArgs(false, true);
    args.push_back(BoolArg("training", false));
    args.push_back(FloatArg("momentum", 0.1));
    args.push_back(FloatArg("eps", 1e-5));
    args.push_back(BoolArg("cudnn_enabled", true));
    add(One("batch_norm_no_affine", {kX, kMean, kVar}, "batch_norm.default", args,
            {{"y", kF32, {2, 3, 4, 4}}}, {"Expand", "Expand", "BatchNormalization"}));
    add(One("batch_norm_2d_input", {{"x", kF32, {5, 3}}, kMean, kVar}, "batch_norm.default", args,
            {{"y", kF32, {5, 3}}}, {"Expand", "Expand", "BatchNormalization"}));
  }
  {
    std::vector<pt2::NamedArgument> args = BatchNormArgs(false, false);
    args.push_back(BoolArg("training", true));
    args.push_back(FloatArg("momentum", 0.1));
    args.push_back(FloatArg("eps", 1e-5));
    args.push_back(BoolArg("cudnn_enabled", true));
    add(One("batch_norm_batch_stats", {kX}, "batch_norm.default", args,
            {{"y", kF32, {2, 3, 4, 4}}}, kBatchStatOps));
  }
  {
    std::vector<pt2::NamedArgument> args = BatchNormArgs(true, true);
    args.push_back(FloatArg("momentum", 0.1));
    args.push_back(FloatArg("eps", 1e-5));
    add(One("native_batch_norm_no_training", {kX, kW, kB, kMean, kVar},
            "_native_batch_norm_legit_no_training.default", args,
            {{"y", kF32, {2, 3, 4, 4}}, {"bn_unused_1", kF32, {0}}, {"bn_unused_2", kF32, {0}}},
            {"BatchNormalization"}));
    add(One("native_batch_norm_no_training_empty_stats", {kX, kW, kB, kMean, kVar},
            "_native_batch_norm_legit_no_training.default", args,
            {{"y", kF32, {2, 3, 4, 4}}, {"m", kF32, {0}}, {"bn_unused_2", kF32, {0}}},
            {"BatchNormalization"}));
    std::vector<pt2::NamedArgument> functional = BatchNormArgs(true, true);
    functional.push_back(BoolArg("training", false));
    functional.push_back(FloatArg("momentum", 0.1));
    functional.push_back(FloatArg("eps", 1e-5));
    add(One("native_batch_norm_functional_eval", {kX, kW, kB, kMean, kVar},
            "_native_batch_norm_legit_functional.default", functional,
            {{"y", kF32, {2, 3, 4, 4}},
             {"f_unused_1", kF32, {0}},
             {"f_unused_2", kF32, {0}},
             {"rm_out", kF32, {3}},
             {"rv_out", kF32, {3}}},
            {"BatchNormalization", "Identity", "Identity"}));
  }
  {
    std::vector<pt2::NamedArgument> args = {TensorArg("input", "x"), NoneArg("weight"),
                                            NoneArg("bias"), BoolArg("training", true),
                                            FloatArg("momentum", 0.1), FloatArg("eps", 1e-5)};
    std::vector<std::string> ops = kBatchStatOps;
    ops.insert(ops.end(), {"Reshape", "Reshape"});
    add(One("native_batch_norm_no_stats_training", {kX}, "_native_batch_norm_legit.no_stats",
            args, {{"y", kF32, {2, 3, 4, 4}}, {"mean", kF32, {3}}, {"invstd", kF32, {3}}}, ops));
  }

  // layer norm
  const TensorSpec x245{"x", kF32, {2, 4, 5}};
  add(One("layer_norm", {x245, {"w", kF32, {5}}, {"b", kF32, {5}}}, "layer_norm.default",
          {TensorArg("input", "x"), IntsArg("normalized_shape", {5}), TensorArg("weight", "w"),
           TensorArg("bias", "b")},
          {{"y", kF32, {2, 4, 5}}}, {"LayerNormalization"}));
  // One normalized element: decomposed (ONNX Runtime refuses LayerNormalization there).
  add(One("layer_norm_one_element", {{"x", kF32, {3, 1}}, {"w", kF32, {1}}, {"b", kF32, {1}}},
          "layer_norm.default",
          {TensorArg("input", "x"), IntsArg("normalized_shape", {1}), TensorArg("weight", "w"),
           TensorArg("bias", "b")},
          {{"y", kF32, {3, 1}}},
          {"ReduceMean", "Sub", "Mul", "ReduceMean", "Add", "Sqrt", "Reciprocal", "Mul", "Mul", "Add"}));
  add(One("layer_norm_no_affine", {x245}, "layer_norm.default",
          {TensorArg("input", "x"), IntsArg("normalized_shape", {4, 5})},
          {{"y", kF32, {2, 4, 5}}}, {"Expand", "LayerNormalization"}));
  add(One("native_layer_norm_stats", {x245, {"w", kF32, {4, 5}}, {"b", kF32, {4, 5}}},
          "native_layer_norm.default",
          {TensorArg("input", "x"), IntsArg("normalized_shape", {4, 5}), TensorArg("weight", "w"),
           TensorArg("bias", "b"), FloatArg("eps", 1e-5)},
          {{"y", kF32, {2, 4, 5}}, {"mean", kF32, {2, 1, 1}}, {"rstd", kF32, {2, 1, 1}}},
          {"LayerNormalization"}));
  add(One("native_layer_norm_fp16_stats", {{"x", kF16, {2, 4, 5}}}, "native_layer_norm.default",
          {TensorArg("input", "x"), IntsArg("normalized_shape", {5}), NoneArg("weight"),
           NoneArg("bias"), FloatArg("eps", 1e-5)},
          {{"y", kF16, {2, 4, 5}}, {"mean", kF16, {2, 4, 1}}, {"ln_unused_2", kF16, {2, 4, 1}}},
          {"Expand", "LayerNormalization", "Cast"}));

  // group norm: InstanceNormalization on the grouped view before opset 21 (statistics outputs
  // decomposed), GroupNormalization from 21.
  const TensorSpec x2433{"x", kF32, {2, 4, 3, 3}}, w4{"w", kF32, {4}}, b4{"b", kF32, {4}};
  const std::vector<pt2::NamedArgument> gn = {TensorArg("input", "x"), IntArg("num_groups", 2),
                                              TensorArg("weight", "w"), TensorArg("bias", "b")};
  add(One("group_norm", {x2433, w4, b4}, "group_norm.default", gn, {{"y", kF32, {2, 4, 3, 3}}},
          {"Reshape", "Expand", "Expand", "InstanceNormalization", "Reshape", "Unsqueeze", "Mul",
           "Unsqueeze", "Add"}));
  // One group per channel: weight and bias are InstanceNormalization's own.
  add(One("group_norm_per_channel", {x2433, w4, b4}, "group_norm.default",
          {TensorArg("input", "x"), IntArg("num_groups", 4), TensorArg("weight", "w"), TensorArg("bias", "b")},
          {{"y", kF32, {2, 4, 3, 3}}}, {"InstanceNormalization"}));
  add(RankOnly(One("group_norm_opset21", {x2433, w4, b4}, "group_norm.default", gn,
                   {{"y", kF32, {2, 4, 3, 3}}}, {"GroupNormalization"}, 21)));
  add(RankOnly(One("group_norm_opset21_no_affine", {x2433}, "group_norm.default",
                   {TensorArg("input", "x"), IntArg("num_groups", 4)},
                   {{"y", kF32, {2, 4, 3, 3}}}, {"Expand", "Expand", "GroupNormalization"}, 21)));
  add(One("native_group_norm_stats", {x2433}, "native_group_norm.default",
          {TensorArg("input", "x"), NoneArg("weight"), NoneArg("bias"), IntArg("N", 2),
           IntArg("C", 4), IntArg("HxW", 9), IntArg("group", 2), FloatArg("eps", 1e-5)},
          {{"y", kF32, {2, 4, 3, 3}}, {"mean", kF32, {2, 2}}, {"rstd", kF32, {2, 2}}},
          {"Reshape", "ReduceMean", "Sub", "Mul", "ReduceMean", "Add", "Sqrt", "Reciprocal", "Mul",
           "Reshape", "Squeeze", "Squeeze"}));

  // instance norm
  add(One("instance_norm", {kX}, "instance_norm.default",
          {TensorArg("input", "x"), NoneArg("weight"), NoneArg("bias"), NoneArg("running_mean"),
           NoneArg("running_var"), BoolArg("use_input_stats", true), FloatArg("momentum", 0.1),
           FloatArg("eps", 1e-5), BoolArg("cudnn_enabled", false)},
          {{"y", kF32, {2, 3, 4, 4}}}, {"Expand", "Expand", "InstanceNormalization"}));
  add(One("instance_norm_running_stats", {kX, kW, kB, kMean, kVar}, "instance_norm.default",
          {TensorArg("input", "x"), TensorArg("weight", "w"), TensorArg("bias", "b"),
           TensorArg("running_mean", "rm"), TensorArg("running_var", "rv"),
           BoolArg("use_input_stats", false), FloatArg("momentum", 0.1), FloatArg("eps", 1e-5),
           BoolArg("cudnn_enabled", false)},
          {{"y", kF32, {2, 3, 4, 4}}}, {"BatchNormalization"}));

  // RMS norm: decomposed before opset 23 (float compute for half types).
  const TensorSpec x236{"x", kF32, {2, 3, 6}};
  add(One("rms_norm", {x236, {"w", kF32, {6}}}, "rms_norm.default",
          {TensorArg("input", "x"), IntsArg("normalized_shape", {6}), TensorArg("weight", "w"),
           FloatArg("eps", 1e-6)},
          {{"y", kF32, {2, 3, 6}}},
          {"Mul", "ReduceMean", "Add", "Sqrt", "Reciprocal", "Mul", "Mul"}));
  add(One("rms_norm_fp16_default_eps", {{"x", kF16, {2, 3, 6}}, {"w", kF16, {6}}},
          "rms_norm.default",
          {TensorArg("input", "x"), IntsArg("normalized_shape", {3, 6}), TensorArg("weight", "w")},
          {{"y", kF16, {2, 3, 6}}},
          {"Cast", "Mul", "ReduceMean", "Add", "Sqrt", "Reciprocal", "Mul", "Cast", "Mul",
           "Cast"}));
  add(One("rms_norm_opset23", {x236}, "rms_norm.default",
          {TensorArg("input", "x"), IntsArg("normalized_shape", {6})}, {{"y", kF32, {2, 3, 6}}},
          {"Expand", "RMSNormalization"}, 23));
  add(One("fused_rms_norm_rstd", {x236}, "_fused_rms_norm.default",
          {TensorArg("input", "x"), IntsArg("normalized_shape", {6}), NoneArg("weight"),
           NoneArg("eps")},
          {{"y", kF32, {2, 3, 6}}, {"rstd", kF32, {2, 3, 1}}},
          {"Mul", "ReduceMean", "Add", "Sqrt", "Reciprocal", "Mul"}));
  return cases;
}

class NormalizationOpsTest : public ::testing::TestWithParam<Case> {};

TEST_P(NormalizationOpsTest, ConvertsWithInferredShapes) {
  const Case& c = GetParam();
  pt2::ExportedProgram program = c.program.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program, c.opset);
  ASSERT_TRUE(got.ok()) << got.status();
  // The ONNX checker (onnx 1.21) infers shapes at every opset written.
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {/*static_dims_may_be_unknown=*/c.rank_only}));
  EXPECT_TRUE(OpTypesAre(got->model, c.ops));
}

INSTANTIATE_TEST_SUITE_P(Cases, NormalizationOpsTest, ::testing::ValuesIn(Cases()), CaseName());

std::vector<ErrorCase> ErrorCases() {
  std::vector<pt2::NamedArgument> no_stats = BatchNormArgs(true, false);
  no_stats.push_back(BoolArg("training", false));
  no_stats.push_back(FloatArg("momentum", 0.1));
  no_stats.push_back(FloatArg("eps", 1e-5));
  no_stats.push_back(BoolArg("cudnn_enabled", true));
  std::vector<pt2::NamedArgument> bn = BatchNormArgs(true, true);
  bn.push_back(FloatArg("momentum", 0.1));
  bn.push_back(FloatArg("eps", 1e-5));
  return {
      {"batch_norm_eval_without_running_stats",
       One("e", {kX, kW, kB}, "batch_norm.default", no_stats, {{"y", kF32, {2, 3, 4, 4}}},
           {}).program,
       absl::StatusCode::kInvalidArgument, "running_mean"},
      {"fused_rms_norm_shape_longer_than_input",
       One("r", {{"x", kF32, {4}}}, "_fused_rms_norm.default",
           {TensorArg("input", "x"), IntsArg("normalized_shape", {2, 4}), NoneArg("weight"),
            NoneArg("eps")},
           {{"y", kF32, {4}}, {"r", kF32, {1}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "normalized_shape does not fit the input rank"},
      {"nonempty_saved_stats_used",
       One("s", {kX, kW, kB, kMean, kVar}, "_native_batch_norm_legit_no_training.default", bn,
           {{"y", kF32, {2, 3, 4, 4}}, {"m", kF32, {3}}, {"v_unused_2", kF32, {0}}}, {}).program,
       absl::StatusCode::kUnimplemented, "saved statistics"},
  };
}

using NormalizationOpsErrorsTest = ErrorCaseTest;

TEST_P(NormalizationOpsErrorsTest, Rejected) { EXPECT_TRUE(Rejects(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Cases, NormalizationOpsErrorsTest, ::testing::ValuesIn(ErrorCases()),
                         CaseName());

}  // namespace
}  // namespace pt2onnx::testing
