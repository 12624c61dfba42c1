// Tests for ops/attention.cc: each case is a one-node program; it must
// convert, pass the ONNX checker and shape inference, infer the FX output
// shapes and dtypes, and emit the expected op types (Constants skipped).
// Numerics are checked end to end against torch (tests/fixtures/ops/sdpa_*,
// multihead_attention, and the gpt_block fixture).
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

using Case = OpCase;

// The query, key and value arguments (inputs q, k, v), then `rest`.
std::vector<pt2::NamedArgument> Qkv(std::vector<pt2::NamedArgument> rest) {
  rest.insert(rest.begin(), {TensorArg("query", "q"), TensorArg("key", "k"),
                             TensorArg("value", "v")});
  return rest;
}

// q, k, v -> one attention node.
Case Attention(std::string name, std::vector<int64_t> q, std::vector<int64_t> kv,
               std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outs,
               std::vector<std::string> ops, std::string target = "scaled_dot_product_attention",
               DataType dtype = kF32) {
  return OneNodeCase(std::move(name), {{"q", dtype, q}, {"k", dtype, kv}, {"v", dtype, kv}},
                     target + ".default", Qkv(std::move(args)), std::move(outs), std::move(ops));
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
                "scaled_dot_product_attention", kF16));
  const std::vector<std::string> causal = {"Shape", "Shape", "Concat", "Expand", "Trilu",
                                           "Cast",  "Where", "Softmax", "MatMul"};
  // Training-mode dropout of the softmax weights (draws: distribution_draws_test.cc).
  add(Attention("sdpa_dropout", q, q, {FloatArg("dropout_p", 0.1)}, {{"y", kF32, {1, 2, 4, 8}}},
                Ops({"Softmax", "RandomUniformLike", "Less", "Cast", "Div", "Mul", "MatMul"})));
  add(Attention("sdpa_causal", q, q, {NoneArg("attn_mask"), FloatArg("dropout_p", 0.0),
                                      BoolArg("is_causal", true)},
                {{"y", kF32, {1, 2, 4, 8}}}, Ops(causal)));
  // Symbolic sequence length: the mask is built from runtime sizes.
  {
    auto seq = [](std::string name) {
      return TensorSpec{std::move(name), kF32, {1, 2, 2, 8}, {"", "", "s0", ""}};
    };
    add(Case{"sdpa_causal_symbolic",
             OneNodeProgram({seq("q"), seq("k"), seq("v")}, "scaled_dot_product_attention.default",
                            Qkv({BoolArg("is_causal", true)}), {seq("y")}),
             Ops(causal)});
  }
  for (DataType mask_dtype : {DataType::kBool, kF32}) {
    ProgramBuilder b = OneNodeProgram(
        {{"q", kF32, q}, {"k", kF32, q}, {"v", kF32, q}, {"m", mask_dtype, {4, 4}}},
        "scaled_dot_product_attention.default", Qkv({TensorArg("attn_mask", "m")}),
        {{"y", kF32, {1, 2, 4, 8}}});
    if (mask_dtype == DataType::kBool) {
      add(Case{"sdpa_bool_mask", b, Ops({"Where", "Softmax", "IsInf", "Cast", "ReduceMin", "Cast",
                                         "Where", "MatMul"})});
    } else {
      add(Case{"sdpa_float_mask", b, Ops({"Add", "Softmax", "IsInf", "Cast", "ReduceMin", "Cast",
                                          "Where", "MatMul"})});
    }
  }
  add(Attention("flash_for_cpu_logsumexp", q, q, {},
                {{"y", kF32, {1, 2, 4, 8}}, {"lse", kF32, {1, 2, 4}}},
                Ops({"Softmax", "MatMul", "ReduceLogSumExp"}),
                "_scaled_dot_product_flash_attention_for_cpu"));
  add(Attention("flash_for_cpu", q, q, {BoolArg("is_causal", true)},
                {{"y", kF32, {1, 2, 4, 8}}, {"f_unused_1", kF32, {1, 2, 4}}}, Ops(causal),
                "_scaled_dot_product_flash_attention_for_cpu"));
  // GQA: 4 query heads over 2 key/value heads, each repeated twice.
  const std::vector<std::string> repeat = {"Unsqueeze", "Shape", "Shape", "Concat", "Expand",
                                           "Shape",     "Shape", "Concat", "Reshape"};
  std::vector<std::string> gqa_ops = repeat;
  gqa_ops.insert(gqa_ops.end(), repeat.begin(), repeat.end());
  for (const std::string& op : Ops({"Softmax", "MatMul"})) gqa_ops.push_back(op);
  add(Attention("sdpa_gqa", {1, 4, 3, 8}, {1, 2, 5, 8}, {BoolArg("enable_gqa", true)},
                {{"y", kF32, {1, 4, 3, 8}}}, gqa_ops));
  add(Attention("sdpa_gqa_same_heads", q, q, {BoolArg("enable_gqa", true)},
                {{"y", kF32, {1, 2, 4, 8}}}, Ops({"Softmax", "MatMul"})));
  add(Attention("flash_causal_equal_lengths", q, q, {BoolArg("is_causal", true)},
                {{"y", kF32, {1, 2, 4, 8}}}, Ops(causal), "_scaled_dot_product_flash_attention"));
  add(Attention("efficient", q, q, {NoneArg("attn_bias"), BoolArg("compute_log_sumexp", false)},
                {{"y", kF32, {1, 2, 4, 8}},
                 {"e_unused_1", kF32, {1, 2, 0}},
                 {"e_unused_2", DataType::kInt64, {}},
                 {"e_unused_3", DataType::kInt64, {}}},
                Ops({"Softmax", "MatMul"}), "_scaled_dot_product_efficient_attention"));
  return cases;
}

using AttentionOpsTest = OpCaseTest;

TEST_P(AttentionOpsTest, ConvertsWithInferredShapes) { ExpectConverts(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, AttentionOpsTest, ::testing::ValuesIn(Cases()), CaseName());

std::vector<ErrorCase> ErrorCases() {
  const std::vector<int64_t> q = {1, 2, 4, 8};
  ProgramBuilder causal_and_mask = OneNodeProgram(
      {{"q", kF32, q}, {"k", kF32, q}, {"v", kF32, q}, {"m", kF32, {4, 4}}},
      "scaled_dot_product_attention.default",
      Qkv({TensorArg("attn_mask", "m"), BoolArg("is_causal", true)}), {{"y", kF32, {1, 2, 4, 8}}});
  return {
      {"fused_kernel_dropout",
       Attention("d", q, q, {FloatArg("dropout_p", 0.1)}, {{"y", kF32, q}, {"lse", kF32, {1, 2, 4}}}, {},
                 "_scaled_dot_product_flash_attention_for_cpu").program,
       absl::StatusCode::kUnimplemented, "fused attention kernel"},
      {"dropout_above_one", Attention("d", q, q, {FloatArg("dropout_p", 1.5)}, {{"y", kF32, q}}, {}).program,
       absl::StatusCode::kInvalidArgument, "outside [0, 1]"},
      {"gqa_heads_not_a_multiple",
       Attention("g", {1, 3, 4, 8}, q, {BoolArg("enable_gqa", true)}, {{"y", kF32, {1, 3, 4, 8}}},
                 {}).program,
       absl::StatusCode::kInvalidArgument, "3 query heads are not a multiple of 2 key heads"},
      {"gqa_symbolic_heads",
       Case{"g",
            OneNodeProgram({{"q", kF32, {1, 4, 4, 8}, {"", "h", "", ""}},
                            {"k", kF32, q},
                            {"v", kF32, q}},
                           "scaled_dot_product_attention.default",
                           Qkv({BoolArg("enable_gqa", true)}), {{"y", kF32, {1, 4, 4, 8}}}),
            {}}
           .program,
       absl::StatusCode::kUnimplemented, "symbolic number of heads"},
      {"gqa_rank_two",
       Attention("g", {4, 8}, {4, 8}, {BoolArg("enable_gqa", true)}, {{"y", kF32, {4, 8}}}, {})
           .program,
       absl::StatusCode::kInvalidArgument, "equal rank >= 3"},
      {"flash_causal_unequal_lengths",
       Attention("f", {1, 2, 3, 8}, q, {BoolArg("is_causal", true)}, {{"y", kF32, {1, 2, 3, 8}}},
                 {}, "_scaled_dot_product_flash_attention").program,
       absl::StatusCode::kUnimplemented, "bottom-right"},
      {"integer_query",
       Attention("i", q, q, {}, {{"y", kI64, q}}, {}, "scaled_dot_product_attention", kI64)
           .program,
       absl::StatusCode::kUnimplemented, "non-floating query"},
      {"efficient_log_sumexp_used",
       Attention("e", q, q, {NoneArg("attn_bias"), BoolArg("compute_log_sumexp", true)},
                 {{"y", kF32, q}, {"lse", kF32, {1, 2, 32}}}, {},
                 "_scaled_dot_product_efficient_attention").program,
       absl::StatusCode::kUnimplemented, "output 1"},
      {"causal_and_mask", causal_and_mask, absl::StatusCode::kInvalidArgument, "is_causal"},
      {"flash_bookkeeping_used",
       Attention("f", q, q, {}, {{"y", kF32, q}, {"lse", kF32, {1, 2, 4}}, {"cum_q", kI64, {0}}},
                 {}, "_scaled_dot_product_flash_attention").program,
       absl::StatusCode::kUnimplemented, "output 2"},
  };
}

using AttentionOpsErrorsTest = ErrorCaseTest;

TEST_P(AttentionOpsErrorsTest, Rejected) { EXPECT_TRUE(Rejects(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Cases, AttentionOpsErrorsTest, ::testing::ValuesIn(ErrorCases()),
                         CaseName());

}  // namespace
}  // namespace pt2onnx::testing
