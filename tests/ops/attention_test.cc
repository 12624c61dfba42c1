// Tests for ops/attention.cc: each case is a one-node program; it must
// convert, pass the ONNX checker and shape inference, infer the FX output
// shapes and dtypes, and emit the expected op types (Constants skipped).
// Numerics are checked end to end against torch (tests/fixtures/ops/sdpa_*,
// multihead_attention, and the gpt_block fixture).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "core/dtype.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::testing {
namespace {

constexpr DataType kF32 = DataType::kFloat;
constexpr DataType kF16 = DataType::kFloat16;

struct Case {
  std::string name;
  ProgramBuilder program;
  std::vector<std::string> ops;  // expected op types (Constants skipped)
};

std::string Aten(const std::string& op) { return "torch.ops.aten." + op; }

// q, k, v (and an optional mask m) -> one attention node.
Case Attention(std::string name, std::vector<int64_t> q, std::vector<int64_t> kv,
               std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outs,
               std::vector<std::string> ops, std::string target = "scaled_dot_product_attention",
               std::vector<std::string> sym_q = {}, DataType dtype = kF32) {
  ProgramBuilder b;
  if (sym_q.empty()) {
    b.Input("q", dtype, q);
  } else {
    b.SymInput("q", dtype, sym_q);
  }
  b.Input("k", dtype, kv).Input("v", dtype, kv);
  args.insert(args.begin(), {TensorArg("query", "q"), TensorArg("key", "k"),
                             TensorArg("value", "v")});
  b.Node(Aten(target + ".default"), args, outs);
  for (const TensorSpec& o : outs) {
    if (!absl::StrContains(o.name, "_unused_")) b.Output(o.name);
  }
  return Case{std::move(name), b, std::move(ops)};
}

const std::vector<std::string> kCore = {"Transpose", "Mul", "Mul", "MatMul"};

std::vector<std::string> Ops(std::vector<std::string> middle) {
  std::vector<std::string> ops = kCore;
  ops.insert(ops.end(), middle.begin(), middle.end());
  return ops;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  const std::vector<int64_t> q = {1, 2, 4, 8};
  add(Attention("sdpa", q, q, {}, {{"y", kF32, {1, 2, 4, 8}}}, Ops({"Softmax", "MatMul"})));
  add(Attention("sdpa_scale", q, q, {FloatArg("scale", 0.5)}, {{"y", kF32, {1, 2, 4, 8}}},
                Ops({"Softmax", "MatMul"})));
  add(Attention("sdpa_cross_lengths_3d", {2, 4, 8}, {2, 6, 8}, {}, {{"y", kF32, {2, 4, 8}}},
                Ops({"Softmax", "MatMul"})));
  add(Attention("sdpa_fp16", q, q, {}, {{"y", kF16, {1, 2, 4, 8}}}, Ops({"Softmax", "MatMul"}),
                "scaled_dot_product_attention", {}, kF16));
  const std::vector<std::string> causal = {"Shape", "Shape", "Concat", "Expand", "Trilu",
                                           "Cast",  "Where", "Softmax", "MatMul"};
  add(Attention("sdpa_causal", q, q, {NoneArg("attn_mask"), FloatArg("dropout_p", 0.0),
                                      BoolArg("is_causal", true)},
                {{"y", kF32, {1, 2, 4, 8}}}, Ops(causal)));
  // Symbolic sequence length: the mask is built from runtime sizes.
  {
    ProgramBuilder b;
    b.SymInput("q", kF32, {"1", "2", "s0", "8"}).SymInput("k", kF32, {"1", "2", "s0", "8"});
    b.SymInput("v", kF32, {"1", "2", "s0", "8"});
    b.Node(Aten("scaled_dot_product_attention.default"),
           {TensorArg("query", "q"), TensorArg("key", "k"), TensorArg("value", "v"),
            BoolArg("is_causal", true)},
           {{"y", kF32, {1, 2, 2, 8}, {"", "", "s0", ""}}});
    b.Output("y");
    add(Case{"sdpa_causal_symbolic", b, Ops(causal)});
  }
  for (DataType mask_dtype : {DataType::kBool, kF32}) {
    ProgramBuilder b;
    b.Input("q", kF32, q).Input("k", kF32, q).Input("v", kF32, q);
    b.Input("m", mask_dtype, {4, 4});
    b.Node(Aten("scaled_dot_product_attention.default"),
           {TensorArg("query", "q"), TensorArg("key", "k"), TensorArg("value", "v"),
            TensorArg("attn_mask", "m")},
           {{"y", kF32, {1, 2, 4, 8}}});
    b.Output("y");
    if (mask_dtype == DataType::kBool) {
      add(Case{"sdpa_bool_mask", b, Ops({"Where", "Softmax", "IsNaN", "Where", "MatMul"})});
    } else {
      add(Case{"sdpa_float_mask", b, Ops({"Add", "Softmax", "MatMul"})});
    }
  }
  add(Attention("flash_for_cpu_logsumexp", q, q, {},
                {{"y", kF32, {1, 2, 4, 8}}, {"lse", kF32, {1, 2, 4}}},
                Ops({"Softmax", "MatMul", "ReduceLogSumExp"}),
                "_scaled_dot_product_flash_attention_for_cpu"));
  add(Attention("flash_for_cpu", q, q, {BoolArg("is_causal", true)},
                {{"y", kF32, {1, 2, 4, 8}}, {"f_unused_1", kF32, {1, 2, 4}}}, Ops(causal),
                "_scaled_dot_product_flash_attention_for_cpu"));
  add(Attention("efficient", q, q, {NoneArg("attn_bias"), BoolArg("compute_log_sumexp", false)},
                {{"y", kF32, {1, 2, 4, 8}},
                 {"e_unused_1", kF32, {1, 2, 0}},
                 {"e_unused_2", DataType::kInt64, {}},
                 {"e_unused_3", DataType::kInt64, {}}},
                Ops({"Softmax", "MatMul"}), "_scaled_dot_product_efficient_attention"));
  return cases;
}

class AttentionOpsTest : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionOpsTest, ConvertsWithInferredShapes) {
  const Case& c = GetParam();
  pt2::ExportedProgram program = c.program.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->output_shapes.size(), program.graph.outputs.size());
  for (size_t i = 0; i < program.graph.outputs.size(); ++i) {
    const pt2::TensorMeta& meta = program.graph.tensor_values.at(program.graph.outputs[i].name);
    std::vector<int64_t> want;
    for (const pt2::SymInt& s : meta.sizes) want.push_back(s.is_symbolic ? -1 : s.value);
    EXPECT_EQ(got->output_shapes[i], want)
        << "output " << i << " inferred [" << absl::StrJoin(got->output_shapes[i], ", ") << "]";
    EXPECT_EQ(got->output_dtypes[i], meta.dtype) << "output " << i;
  }
  EXPECT_EQ(OpTypes(got->model), c.ops)
      << "got ops [" << absl::StrJoin(OpTypes(got->model), ", ") << "]";
}

INSTANTIATE_TEST_SUITE_P(Cases, AttentionOpsTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

struct ErrorCase {
  std::string name;
  Case program;
  absl::StatusCode code;
  std::string message;  // substring
};

std::vector<ErrorCase> ErrorCases() {
  const std::vector<int64_t> q = {1, 2, 4, 8};
  ProgramBuilder causal_and_mask;
  causal_and_mask.Input("q", kF32, q).Input("k", kF32, q).Input("v", kF32, q);
  causal_and_mask.Input("m", kF32, {4, 4});
  causal_and_mask.Node(Aten("scaled_dot_product_attention.default"),
                       {TensorArg("query", "q"), TensorArg("key", "k"), TensorArg("value", "v"),
                        TensorArg("attn_mask", "m"), BoolArg("is_causal", true)},
                       {{"y", kF32, {1, 2, 4, 8}}});
  causal_and_mask.Output("y");
  return {
      {"dropout", Attention("d", q, q, {FloatArg("dropout_p", 0.1)}, {{"y", kF32, q}}, {}),
       absl::StatusCode::kUnimplemented, "dropout_p"},
      {"gqa", Attention("g", {1, 4, 4, 8}, q, {BoolArg("enable_gqa", true)},
                        {{"y", kF32, {1, 4, 4, 8}}}, {}),
       absl::StatusCode::kUnimplemented, "enable_gqa"},
      {"causal_and_mask", Case{"c", causal_and_mask, {}}, absl::StatusCode::kInvalidArgument,
       "is_causal"},
      {"flash_bookkeeping_used",
       Attention("f", q, q, {},
                 {{"y", kF32, q}, {"lse", kF32, {1, 2, 4}}, {"cum_q", DataType::kInt64, {0}}},
                 {}, "_scaled_dot_product_flash_attention"),
       absl::StatusCode::kUnimplemented, "output 2"},
  };
}

class AttentionOpsErrorsTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(AttentionOpsErrorsTest, Rejected) {
  const ErrorCase& c = GetParam();
  absl::StatusOr<Converted> got = ConvertAndCheck(c.program.program.Build());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), c.code) << got.status();
  EXPECT_TRUE(absl::StrContains(got.status().message(), c.message)) << got.status();
}

INSTANTIATE_TEST_SUITE_P(Cases, AttentionOpsErrorsTest, ::testing::ValuesIn(ErrorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace pt2onnx::testing
