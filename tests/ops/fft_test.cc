// Tests for ops/fft.cc: complex values are only translated between FFT ops
// and view_as_real; every other reader and a complex program input are
// refused by name; a complex program output is written as its view_as_real,
// marked. Numerics: tests/fixtures/ops/fft and the OpInfo samples.
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

constexpr DataType kC64 = DataType::kComplex64;

std::vector<pt2::NamedArgument> R2c(std::string self) {
  return {TensorArg("self", std::move(self)), IntsArg("dim", {1}), IntArg("normalization", 0),
          BoolArg("onesided", true)};
}

bool HasEntry(const ir::Metadata& metadata, const std::string& key, const std::string& value) {
  for (const auto& entry : metadata) {
    if (entry.first == key && entry.second == value) return true;
  }
  return false;
}

TEST(Fft, RoundTripThroughViewAsRealConverts) {
  ProgramBuilder p;
  p.Input("x", kF32, {2, 8});
  p.Node(Aten("_fft_r2c.default"), R2c("x"), {{"f", kC64, {2, 5}}});
  p.Node(Aten("view_as_real.default"), {TensorArg("self", "f")}, {{"r", kF32, {2, 5, 2}}});
  p.Node(Aten("_fft_c2r.default"),
         {TensorArg("self", "f"), IntsArg("dim", {1}), IntArg("normalization", 2),
          IntArg("last_dim_size", 8)},
         {{"y", kF32, {2, 8}}});
  p.Output("r").Output("y");
  for (int opset : {18, 20}) {
    pt2::ExportedProgram program = p.Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program, opset);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got,
                                    {.static_dims_may_be_unknown = true})) << "opset " << opset;
  }
}

TEST(Fft, ComplexReadByAnOtherOpIsRefused) {
  ProgramBuilder p;
  p.Input("x", kF32, {2, 8});
  p.Node(Aten("_fft_r2c.default"), R2c("x"), {{"f", kC64, {2, 5}}});
  p.Node(Aten("mul.Tensor"), {TensorArg("self", "f"), TensorArg("other", "f")},
         {{"m", kC64, {2, 5}}});
  p.Node(Aten("view_as_real.default"), {TensorArg("self", "m")}, {{"r", kF32, {2, 5, 2}}});
  p.Output("r");
  EXPECT_TRUE(HasStatus(ConvertAndCheck(p.Build()), absl::StatusCode::kUnimplemented,
                        "read by torch.ops.aten.mul.Tensor"));
}

TEST(Fft, RealToComplexConversionFeedsOnlyFftOps) {
  ProgramBuilder p;
  p.Input("x", kF32, {2, 8});
  p.Node(Aten("_to_copy.default"), {TensorArg("self", "x"), DtypeArg("dtype", kC64)},
         {{"z", kC64, {2, 8}}});
  p.Node(Aten("_fft_c2c.default"),
         {TensorArg("self", "z"), IntsArg("dim", {1}), IntArg("normalization", 0),
          BoolArg("forward", true)},
         {{"f", kC64, {2, 8}}});
  p.Node(Aten("view_as_real.default"), {TensorArg("self", "f")}, {{"r", kF32, {2, 8, 2}}});
  p.Output("r");
  pt2::ExportedProgram program = p.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));

  ProgramBuilder bad;
  bad.Input("x", kF32, {2, 8});
  bad.Node(Aten("_to_copy.default"), {TensorArg("self", "x"), DtypeArg("dtype", kC64)},
           {{"z", kC64, {2, 8}}});
  bad.Node(Aten("mul.Tensor"), {TensorArg("self", "z"), TensorArg("other", "z")},
           {{"m", kC64, {2, 8}}});
  bad.Node(Aten("view_as_real.default"), {TensorArg("self", "m")}, {{"r", kF32, {2, 8, 2}}});
  bad.Output("r");
  EXPECT_TRUE(HasStatus(ConvertAndCheck(bad.Build()), absl::StatusCode::kUnimplemented,
                        "read by torch.ops.aten.mul.Tensor"));
}

// A complex program output is written as its view_as_real and marked on the
// value (metadata; the writer adds a doc_string) and on the model (its name).
TEST(Fft, ComplexProgramOutputIsWrittenAsRealAndMarked) {
  ProgramBuilder p = OneNodeProgram({{"x", kF32, {2, 8}}}, "_fft_r2c.default", R2c("x"),
                                    {{"f", kC64, {2, 5}}});
  absl::StatusOr<Converted> got = ConvertAndCheck(p.Build());
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->model.graph.outputs.size(), 1u);
  EXPECT_EQ(got->output_dtypes[0], kF32);
  EXPECT_EQ(got->output_shapes[0], (std::vector<int64_t>{2, 5, 2}));
  const ir::ValueInfo& out = got->model.graph.outputs[0];
  EXPECT_TRUE(HasEntry(out.metadata, "pkg.pt2onnx.complex_as_real", "complex64"));
  EXPECT_TRUE(HasEntry(got->model.metadata, "pkg.pt2onnx.complex_outputs", out.name));
}

TEST(Fft, RealProgramOutputIsNotMarked) {
  ProgramBuilder p = OneNodeProgram({{"x", kF32, {2, 8}}}, "fft_irfft.default",
                                    {TensorArg("self", "x")}, {{"y", kF32, {2, 14}}});
  absl::StatusOr<Converted> got = ConvertAndCheck(p.Build());
  ASSERT_TRUE(got.ok()) << got.status();
  for (const auto& [key, value] : got->model.graph.outputs[0].metadata) EXPECT_NE(key, "pkg.pt2onnx.complex_as_real");
  EXPECT_TRUE(got->model.metadata.empty());
}

TEST(Fft, ComplexProgramInputIsRefused) {
  ProgramBuilder p = OneNodeProgram({{"z", kC64, {2, 5}}}, "view_as_real.default",
                                    {TensorArg("self", "z")},
                                    {{"r", kF32, {2, 5, 2}}});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(p.Build()), absl::StatusCode::kUnimplemented,
                        "a complex operand from a program input"));
}

}  // namespace
}  // namespace pt2onnx::testing
