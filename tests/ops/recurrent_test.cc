// Tests for ops/recurrent.cc: one ONNX LSTM / GRU / RNN node per layer with
// torch's gates reordered, the unrolled form for proj_size, and the refusals
// (packed sequences, training-mode dropout, a symbolic length with
// proj_size, malformed weight lists). Numerics: tests/fixtures/ops/lstm_*,
// gru_*, rnn_* and the nn_* models.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

struct Rnn {
  std::string overload = "lstm.input";
  int gates = 4;
  int64_t layers = 1, dirs = 1, in = 3, hidden = 4, proj = 0, steps = 5, batch = 2;
  bool biases = true, batch_first = false, train = false, symbolic_steps = false;
  double dropout = 0;
  int64_t drop_params = 0;  // malformed: fewer weights than the layout needs
};

ProgramBuilder Build(const Rnn& r) {
  const bool lstm = r.overload.rfind("lstm", 0) == 0;
  const int64_t out_h = r.proj > 0 ? r.proj : r.hidden;
  std::vector<TensorSpec> inputs;
  std::vector<int64_t> x_shape = r.batch_first ? std::vector<int64_t>{r.batch, r.steps, r.in}
                                               : std::vector<int64_t>{r.steps, r.batch, r.in};
  TensorSpec x{"x", kF32, x_shape};
  if (r.symbolic_steps) x.symbolic = r.batch_first ? std::vector<std::string>{"", "s0", ""}
                                                   : std::vector<std::string>{"s0", "", ""};
  inputs.push_back(x);
  inputs.push_back({"h0", kF32, {r.layers * r.dirs, r.batch, out_h}});
  if (lstm) inputs.push_back({"c0", kF32, {r.layers * r.dirs, r.batch, r.hidden}});
  std::vector<std::string> params;
  for (int64_t l = 0; l < r.layers; ++l) {
    for (int64_t d = 0; d < r.dirs; ++d) {
      std::string p = absl::StrCat("l", l, "d", d, "_");
      int64_t layer_in = l == 0 ? r.in : r.dirs * out_h;
      inputs.push_back({p + "w_ih", kF32, {r.gates * r.hidden, layer_in}});
      inputs.push_back({p + "w_hh", kF32, {r.gates * r.hidden, out_h}});
      params.push_back(p + "w_ih");
      params.push_back(p + "w_hh");
      if (r.biases) {
        inputs.push_back({p + "b_ih", kF32, {r.gates * r.hidden}});
        inputs.push_back({p + "b_hh", kF32, {r.gates * r.hidden}});
        params.push_back(p + "b_ih");
        params.push_back(p + "b_hh");
      }
      if (r.proj > 0) {
        inputs.push_back({p + "w_hr", kF32, {r.proj, r.hidden}});
        params.push_back(p + "w_hr");
      }
    }
  }
  params.resize(params.size() - static_cast<size_t>(r.drop_params));
  std::vector<pt2::NamedArgument> args = {TensorArg("input", "x")};
  if (lstm) args.push_back(TensorsArg("hx", {"h0", "c0"}));
  else args.push_back(TensorArg("hx", "h0"));
  args.push_back(TensorsArg("params", params));
  args.push_back(BoolArg("has_biases", r.biases));
  args.push_back(IntArg("num_layers", r.layers));
  args.push_back(FloatArg("dropout", r.dropout));
  args.push_back(BoolArg("train", r.train));
  args.push_back(BoolArg("bidirectional", r.dirs == 2));
  args.push_back(BoolArg("batch_first", r.batch_first));
  TensorSpec y{"y", kF32, r.batch_first ? std::vector<int64_t>{r.batch, r.steps, r.dirs * out_h}
                                        : std::vector<int64_t>{r.steps, r.batch, r.dirs * out_h}};
  y.symbolic = x.symbolic;
  std::vector<TensorSpec> outputs = {y, {"hn", kF32, {r.layers * r.dirs, r.batch, out_h}}};
  if (lstm) outputs.push_back({"cn", kF32, {r.layers * r.dirs, r.batch, r.hidden}});
  return OneNodeProgram(inputs, r.overload, std::move(args), std::move(outputs));
}

int Count(const ir::Model& model, const std::string& op) {
  int n = 0;
  for (const std::string& t : OpTypes(model)) n += t == op;
  return n;
}

TEST(Recurrent, OneOnnxNodePerLayer) {
  struct Row {
    Rnn r;
    std::string op;
  };
  Rnn lstm;
  lstm.layers = 2;
  lstm.dirs = 2;
  lstm.batch_first = true;
  Rnn gru = lstm;
  gru.overload = "gru.input";
  gru.gates = 3;
  gru.biases = false;
  Rnn tanh_rnn;
  tanh_rnn.overload = "rnn_tanh.input";
  tanh_rnn.gates = 1;
  tanh_rnn.layers = 3;
  Rnn relu_rnn = tanh_rnn;
  relu_rnn.overload = "rnn_relu.input";
  relu_rnn.dirs = 2;
  Rnn symbolic = lstm;
  symbolic.symbolic_steps = true;
  for (const Row& row : std::vector<Row>{{lstm, "LSTM"}, {gru, "GRU"}, {tanh_rnn, "RNN"}, {relu_rnn, "RNN"},
                                         {symbolic, "LSTM"}}) {
    pt2::ExportedProgram program = Build(row.r).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << row.r.overload << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << row.r.overload;
    EXPECT_EQ(Count(got->model, row.op), row.r.layers) << row.r.overload;
    const ir::Node* node = FindNode(got->model, row.op);
    ASSERT_NE(node, nullptr);
    const ir::Attribute* dir = node->FindAttribute("direction");
    ASSERT_NE(dir, nullptr);
    EXPECT_EQ(dir->s(), row.r.dirs == 2 ? "bidirectional" : "forward");
    EXPECT_EQ(node->FindAttribute("hidden_size")->i(), row.r.hidden);
  }
}

TEST(Recurrent, GruResetsAfterTheRecurrentProduct) {
  Rnn gru;
  gru.overload = "gru.input";
  gru.gates = 3;
  absl::StatusOr<Converted> got = ConvertAndCheck(Build(gru).Build());
  ASSERT_TRUE(got.ok()) << got.status();
  const ir::Node* node = FindNode(got->model, "GRU");
  ASSERT_NE(node, nullptr);
  ASSERT_NE(node->FindAttribute("linear_before_reset"), nullptr);
  EXPECT_EQ(node->FindAttribute("linear_before_reset")->i(), 1);
}

TEST(Recurrent, ReluRnnNamesItsActivation) {
  Rnn r;
  r.overload = "rnn_relu.input";
  r.gates = 1;
  r.dirs = 2;
  absl::StatusOr<Converted> got = ConvertAndCheck(Build(r).Build());
  ASSERT_TRUE(got.ok()) << got.status();
  const ir::Attribute* acts = FindNode(got->model, "RNN")->FindAttribute("activations");
  ASSERT_NE(acts, nullptr);
  EXPECT_EQ(acts->strings(), (std::vector<std::string>{"Relu", "Relu"}));
}

TEST(Recurrent, ProjectionIsUnrolledOverTheSteps) {
  Rnn r;
  r.proj = 2;
  r.dirs = 2;
  r.layers = 2;
  pt2::ExportedProgram program = Build(r).Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_EQ(Count(got->model, "LSTM"), 0);
  // Per step, layer and direction: a cell update (2 Tanh) and the projection.
  EXPECT_EQ(Count(got->model, "Tanh"), 2 * r.steps * r.layers * r.dirs);
}

TEST(Recurrent, Refusals) {
  Rnn proj_symbolic;
  proj_symbolic.proj = 2;
  proj_symbolic.symbolic_steps = true;
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Build(proj_symbolic).Build()), absl::StatusCode::kUnimplemented,
                        "static sequence length"));
  Rnn training;
  training.layers = 2;
  training.train = true;
  training.dropout = 0.5;
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Build(training).Build()), absl::StatusCode::kUnimplemented, "eval mode"));
  Rnn missing;
  missing.drop_params = 1;
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Build(missing).Build()), absl::StatusCode::kInvalidArgument,
                        "weight tensors"));
}

TEST(Recurrent, PackedSequencesAreRefusedWithAdvice) {
  for (std::string overload : {"lstm.data", "gru.data", "rnn_tanh.data", "rnn_relu.data"}) {
    bool lstm = overload == "lstm.data";
    std::vector<pt2::NamedArgument> args = {TensorArg("data", "x"), TensorArg("batch_sizes", "bs")};
    args.push_back(lstm ? TensorsArg("hx", {"h", "h"}) : TensorArg("hx", "h"));
    args.push_back(TensorsArg("params", {"w", "w"}));
    args.push_back(BoolArg("has_biases", false));
    args.push_back(IntArg("num_layers", 1));
    args.push_back(FloatArg("dropout", 0));
    args.push_back(BoolArg("train", false));
    args.push_back(BoolArg("bidirectional", false));
    std::vector<TensorSpec> outs = {{"y", kF32, {6, 4}}, {"hn", kF32, {1, 2, 4}}};
    if (lstm) outs.push_back({"cn", kF32, {1, 2, 4}});
    pt2::ExportedProgram program =
        OneNodeProgram({{"x", kF32, {6, 3}}, {"bs", kI64, {3}}, {"h", kF32, {1, 2, 4}}, {"w", kF32, {4, 3}}},
                       overload, std::move(args), std::move(outs))
            .Build();
    EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented, "padded tensor"))
        << overload;
  }
}

}  // namespace
}  // namespace pt2onnx::testing
