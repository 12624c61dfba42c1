// Reference kernels of reference/recurrent.cc, counting.cc and
// library_ops.cc on one-node calls, against numbers torch 2.15 computed
// (CPU, float32): a bidirectional LSTM with a projection and initial
// states, a batch-first GRU without biases, a ReLU RNN, histc on bin edges
// and NaN, bincount with weights, transformers' grouped_mm_fallback.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/aten/op_schema.h"
#include "gtest/gtest.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"
#include "tests/reference/kernel_runner.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::reference {
namespace {

using ::pt2onnx::testing::BoolArg;
using ::pt2onnx::testing::FloatArg;
using ::pt2onnx::testing::IntArg;
using ::pt2onnx::testing::TensorArg;
using ::pt2onnx::testing::TensorsArg;

// The generator's deterministic values: round(((i * 7) % 11 - 5) * scale + off, 4).
std::vector<double> Vals(int n, double scale, double off) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(std::round((((i * 7) % 11 - 5) * scale + off) * 1e4) / 1e4);
  return v;
}

std::vector<pt2::NamedArgument> RnnArgs(bool lstm, std::vector<std::string> params, bool biases, bool bidirectional,
                                        bool batch_first) {
  return {TensorArg("input", "x"),
          lstm ? TensorsArg("hx", {"h0", "c0"}) : TensorArg("hx", "h0"),
          TensorsArg("params", std::move(params)),
          BoolArg("has_biases", biases),
          IntArg("num_layers", 1),
          FloatArg("dropout", 0.0),
          BoolArg("train", false),
          BoolArg("bidirectional", bidirectional),
          BoolArg("batch_first", batch_first)};
}

TEST(ReferenceRecurrent, BidirectionalLstmWithProjection) {
  ValueMap values{{"x", RefValue::OfTensor(F32({3, 1, 2}, Vals(6, 0.3, 0.1)))},
                  {"h0", RefValue::OfTensor(F32({2, 1, 1}, {0.2, -0.1}))},
                  {"c0", RefValue::OfTensor(F32({2, 1, 2}, {0.3, -0.2, 0.1, 0.4}))},
                  {"w_ih", RefValue::OfTensor(F32({8, 2}, Vals(16, 0.1, 0.05)))},
                  {"w_hh", RefValue::OfTensor(F32({8, 1}, Vals(8, 0.15, -0.02)))},
                  {"b_ih", RefValue::OfTensor(F32({8}, Vals(8, 0.05, 0.01)))},
                  {"b_hh", RefValue::OfTensor(F32({8}, Vals(8, -0.04, 0.0)))},
                  {"w_hr", RefValue::OfTensor(F32({1, 2}, Vals(2, 0.3, 0.1)))}};
  std::vector<std::string> dir = {"w_ih", "w_hh", "b_ih", "b_hh", "w_hr"};
  std::vector<std::string> params = dir;
  params.insert(params.end(), dir.begin(), dir.end());  // both directions share the weights
  KernelRun run = RunKernel("aten::lstm.input", RnnArgs(true, params, true, true, false), values, 3);
  ASSERT_TRUE(run.status.ok()) << run.status;
  ASSERT_EQ(run.results.size(), 3u);
  ExpectValues(run.results[0], {3, 1, 2},
               {-0.3669697046279907, -0.30942124128341675, -0.4509863257408142, -0.3222180902957916,
                -0.144817516207695, 0.20403552055358887});
  ExpectValues(run.results[1], {2, 1, 1}, {-0.144817516207695, -0.30942124128341675});
  ExpectValues(run.results[2], {2, 1, 2},
               {0.18135374784469604, -0.05051271617412567, 0.6021304130554199, -0.1716415286064148});
}

TEST(ReferenceRecurrent, BatchFirstGruWithoutBiases) {
  ValueMap values{{"x", RefValue::OfTensor(F32({1, 2, 1}, {0.5, -1.0}))},
                  {"h0", RefValue::OfTensor(F32({1, 1, 2}, {0.1, -0.3}))},
                  {"w_ih", RefValue::OfTensor(F32({6, 1}, Vals(6, 0.2, 0.0)))},
                  {"w_hh", RefValue::OfTensor(F32({6, 2}, Vals(12, 0.1, 0.03)))}};
  KernelRun run = RunKernel("aten::gru.input", RnnArgs(false, {"w_ih", "w_hh"}, false, false, true), values, 2);
  ASSERT_TRUE(run.status.ok()) << run.status;
  ExpectValues(run.results[0], {1, 2, 2},
               {0.07486516237258911, -0.2734310030937195, -0.05915053188800812, 0.3378697633743286});
  ExpectValues(run.results[1], {1, 1, 2}, {-0.05915053188800812, 0.3378697633743286});
}

TEST(ReferenceRecurrent, ReluRnn) {
  ValueMap values{{"x", RefValue::OfTensor(F32({3, 1, 1}, {1.0, 2.0, -1.0}))},
                  {"h0", RefValue::OfTensor(F32({1, 1, 2}, {0, 0}))},
                  {"w_ih", RefValue::OfTensor(F32({2, 1}, {1.0, -0.5}))},
                  {"w_hh", RefValue::OfTensor(F32({2, 2}, {0.5, 0.2, 0.1, -0.3}))},
                  {"b_ih", RefValue::OfTensor(F32({2}, {0.1, 0.2}))},
                  {"b_hh", RefValue::OfTensor(F32({2}, {0.0, -0.1}))}};
  KernelRun run = RunKernel("aten::rnn_relu.input",
                            RnnArgs(false, {"w_ih", "w_hh", "b_ih", "b_hh"}, true, false, false), values, 2);
  ASSERT_TRUE(run.status.ok()) << run.status;
  ExpectValues(run.results[0], {3, 1, 2}, {1.1, 0.0, 2.65, 0.0, 0.425, 0.865});
}

TEST(ReferenceRecurrent, PackedSequencesAreRefused) {
  KernelRun run = RunKernel("aten::gru.data", {}, {}, 2);
  EXPECT_EQ(run.status.code(), absl::StatusCode::kUnimplemented) << run.status;
}

TEST(ReferenceCounting, HistcEdgesNanAndDataRange) {
  std::vector<double> x = {0.0, 0.25, 0.5, 0.75, 1.0, -0.1, 1.1, 0.999, 0.3333333, std::nan("")};
  ValueMap values{{"x", RefValue::OfTensor(F32({10}, x))}, {"x8", RefValue::OfTensor(F32({8}, {x.begin(), x.begin() + 8}))}};
  KernelRun given = RunKernel("aten::histc.default",
                              {TensorArg("self", "x"), IntArg("bins", 3), IntArg("min", 0), IntArg("max", 1)}, values);
  ASSERT_TRUE(given.status.ok()) << given.status;
  ExpectValues(given.results[0], {3}, {3, 1, 3});
  KernelRun data = RunKernel("aten::histc.default", {TensorArg("self", "x8"), IntArg("bins", 4)}, values);
  ASSERT_TRUE(data.status.ok()) << data.status;
  ExpectValues(data.results[0], {4}, {2, 1, 2, 3});
}

TEST(ReferenceCounting, BincountAndRepeatInterleave) {
  ValueMap values{{"x", RefValue::OfTensor(I64({4}, {1, 3, 1, 0}))},
                  {"w", RefValue::OfTensor(F32({4}, {0.5, 1.0, 0.25, 2.0}))},
                  {"m", RefValue::OfTensor(F32({2, 2}, {1, 2, 3, 4}))},
                  {"r", RefValue::OfTensor(I64({2}, {0, 3}))}};
  KernelRun bins = RunKernel("aten::bincount.default",
                             {TensorArg("self", "x"), TensorArg("weights", "w"), IntArg("minlength", 6)}, values);
  ASSERT_TRUE(bins.status.ok()) << bins.status;
  ExpectValues(bins.results[0], {6}, {2.0, 0.75, 0.0, 1.0, 0.0, 0.0});
  EXPECT_EQ(bins.results[0].tensor.dtype(), DataType::kFloat);
  KernelRun rows = RunKernel("aten::repeat_interleave.self_Tensor",
                             {TensorArg("self", "m"), TensorArg("repeats", "r"), IntArg("dim", 1)}, values);
  ASSERT_TRUE(rows.status.ok()) << rows.status;
  ExpectValues(rows.results[0], {2, 3}, {2, 2, 2, 4, 4, 4});
  KernelRun flat = RunKernel("aten::repeat_interleave.self_int", {TensorArg("self", "m"), IntArg("repeats", 2)}, values);
  ASSERT_TRUE(flat.status.ok()) << flat.status;
  ExpectValues(flat.results[0], {8}, {1, 1, 2, 2, 3, 3, 4, 4});
  KernelRun idx = RunKernel("aten::repeat_interleave.Tensor", {TensorArg("repeats", "r")}, values);
  ASSERT_TRUE(idx.status.ok()) << idx.status;
  EXPECT_EQ(ToInts(idx.results[0].tensor), (std::vector<int64_t>{1, 1, 1}));
}

TEST(ReferenceLibraryOps, GroupedMmFallbackLeavesUnclaimedRowsZero) {
  ValueMap values{{"in", RefValue::OfTensor(F32({4, 2}, Vals(8, 0.2, 0.0)))},
                  {"w", RefValue::OfTensor(F32({3, 2, 2}, Vals(12, 0.1, 0.02)))},
                  {"offs", RefValue::OfTensor(I64({3}, {1, 1, 3}))}};
  KernelRun run = RunKernel("transformers::grouped_mm_fallback.default",
                            {TensorArg("input", "in"), TensorArg("weight", "w"), TensorArg("offs", "offs")}, values);
  ASSERT_TRUE(run.status.ok()) << run.status;
  ExpectValues(run.results[0], {4, 2},
               {0.40799999237060547, -0.012000009417533875, 0.07199999690055847, -0.6079999804496765,
                -0.02799999713897705, 0.35200002789497375, 0.0, 0.0});
}

}  // namespace
}  // namespace pt2onnx::reference
