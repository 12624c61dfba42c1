// Tests for ops/histogram.cc: histogram (bin count, edges tensor, density,
// weights) and histogramdd (int[] bins, Tensor[] bins) convert with the
// program's shapes; bad bin counts are refused. Numerics: the OpInfo samples
// (tests/fixtures/opinfo/histogram, histogramdd).
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

TEST(Histogram, BinCountConverts) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {4, 3}}, {"w", kF32, {4, 3}}}, "histogram.bin_ct",
                     {TensorArg("self", "x"), IntArg("bins", 5), TensorArg("weight", "w"), BoolArg("density", true)},
                     {{"hist", kF32, {5}}, {"edges", kF32, {6}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  EXPECT_NE(FindNode(got->model, "ScatterElements"), nullptr);
}

TEST(Histogram, EdgesTensorConverts) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {7}}, {"b", kF32, {4}}}, "histogram.bins_tensor",
                     {TensorArg("self", "x"), TensorArg("bins", "b")}, {{"hist", kF32, {3}}, {"edges", kF32, {4}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
}

TEST(Histogram, HistogramddConverts) {
  ProgramBuilder p;
  p.Input("x", kF32, {6, 2}).Input("b0", kF32, {3}).Input("b1", kF32, {4});
  p.Node(Aten("histogramdd.TensorList_bins"), {TensorArg("self", "x"), TensorsArg("bins", {"b0", "b1"})},
         {{"hist", kF32, {2, 3}}});
  // The edges list output.
  pt2::ExportedProgram program = p.Build();
  pt2::Argument edges;
  edges.kind = pt2::Argument::Kind::kTensors;
  edges.names = {"e0", "e1"};
  program.graph.nodes.back().outputs.push_back(edges);
  program.graph.tensor_values["e0"] = program.graph.tensor_values["b0"];
  program.graph.tensor_values["e1"] = program.graph.tensor_values["b1"];
  p.Output("hist");
  program.graph.outputs = p.Build().graph.outputs;
  program.signature = p.Build().signature;
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
}

TEST(Histogram, Refusals) {
  std::vector<ErrorCase> cases = {
      {"zero_bins",
       OneNodeProgram({{"x", kF32, {3}}}, "histogram.bin_ct", {TensorArg("self", "x"), IntArg("bins", 0)},
                      {{"hist", kF32, {0}}, {"edges", kF32, {1}}}),
       absl::StatusCode::kInvalidArgument, "bins must be positive"},
      {"int_input",
       OneNodeProgram({{"x", kI64, {3}}}, "histogram.bin_ct", {TensorArg("self", "x"), IntArg("bins", 2)},
                      {{"hist", kI64, {2}}, {"edges", kI64, {3}}}),
       absl::StatusCode::kInvalidArgument, "floating-point input"},
  };
  for (const ErrorCase& c : cases) EXPECT_TRUE(Rejects(c)) << c.name;
}

}  // namespace
}  // namespace pt2onnx::testing
