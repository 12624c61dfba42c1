// Tests for ops/linear_cross_entropy.cc: torch.nn's chunked linear +
// cross-entropy library ops convert to one unchunked graph (Gemm,
// LogSoftmax, GatherElements); the chunked op's unrequested gradients are
// empty constants; label smoothing is refused as torch refuses it. Numerics:
// the OpInfo samples (nn.functional.linear_cross_entropy.chunked*).
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

constexpr char kChunked[] = "torch.ops.torch_nn._linear_cross_entropy_batch_chunked.default";
constexpr char kNoReduction[] = "torch.ops.torch_nn._linear_cross_entropy_batch_chunked_no_reduction.default";

std::vector<pt2::NamedArgument> CommonArgs() {
  return {TensorArg("input", "x"), TensorArg("linear_weight", "w"), TensorArg("target", "t"),
          NoneArg("linear_bias"), NoneArg("weight")};
}

ProgramBuilder Chunked(const std::string& reduction, double smoothing) {
  std::vector<pt2::NamedArgument> args = CommonArgs();
  args.push_back(StringArg("reduction", reduction));
  args.push_back(IntArg("ignore_index", -100));
  args.push_back(FloatArg("label_smoothing", smoothing));
  args.push_back(IntArg("batch_chunk_size", 2));
  args.push_back(StringArg("acc_policy", "compact"));
  args.push_back(DtypeArg("acc_dtype", kF32));
  for (const char* flag : {"allow_retain_graph", "compute_input_grad", "compute_linear_weight_grad",
                           "compute_linear_bias_grad"}) {
    args.push_back(BoolArg(flag, false));
  }
  ProgramBuilder p;
  p.Input("x", kF32, {8, 3}).Input("w", kF32, {4, 3}).Input("t", kI64, {8});
  p.Node(kChunked, args,
         {{"loss", kF32, {}}, {"gi", kF32, {0, 0}}, {"gw", kF32, {0, 0}}, {"gb", kF32, {0}}});
  p.Output("loss");
  return p;
}

TEST(LinearCrossEntropy, ChunkedConverts) {
  for (const char* reduction : {"mean", "sum"}) {
    pt2::ExportedProgram program = Chunked(reduction, 0.0).Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
    EXPECT_NE(FindNode(got->model, "LogSoftmax"), nullptr);
  }
}

TEST(LinearCrossEntropy, NoReductionConverts) {
  std::vector<pt2::NamedArgument> args = CommonArgs();
  args.push_back(IntArg("ignore_index", 1));
  args.push_back(IntArg("batch_chunk_size", 1));
  args.push_back(StringArg("acc_policy", "compact"));
  args.push_back(DtypeArg("acc_dtype", kF32));
  ProgramBuilder p;
  p.Input("x", kF32, {5, 3}).Input("w", kF32, {4, 3}).Input("t", kI64, {5});
  p.Node(kNoReduction, args, {{"loss", kF32, {5}}});
  p.Output("loss");
  pt2::ExportedProgram program = p.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(LinearCrossEntropy, Refusals) {
  std::vector<ErrorCase> cases = {
      {"smoothing", Chunked("mean", 0.1), absl::StatusCode::kInvalidArgument, "label smoothing"},
      {"none_on_chunked", Chunked("none", 0.0), absl::StatusCode::kInvalidArgument, "'mean' or 'sum'"},
  };
  for (const ErrorCase& c : cases) EXPECT_TRUE(Rejects(c)) << c.name;
}

}  // namespace
}  // namespace pt2onnx::testing
