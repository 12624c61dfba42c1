// Tests for ops/quantize.cc, ops/quantize_params.cc and ops/fake_quantize.cc:
// the quantized_decomposed operators and ATen's fake quantization become
// QuantizeLinear / DequantizeLinear where the opset has them for the dtype
// (per axis with the right axis; a Clip where torch's range is narrower than
// the dtype's), torch's formula elsewhere (int16 below opset 21, int32), and
// the parameter choosers become float32 arithmetic; refusals. Numerics
// against torch (ties at .5, clamping, axes, dynamic parameters):
// tests/fixtures/quantized/quant_ops_*, and the models beside them.
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

constexpr DataType kI8 = DataType::kInt8;
constexpr DataType kU8 = DataType::kUint8;
constexpr DataType kI16 = DataType::kInt16;

std::string Qd(const std::string& overload) { return "torch.ops.quantized_decomposed." + overload; }

ProgramBuilder QuantizePerTensor(DataType dtype, int64_t quant_min, int64_t quant_max) {
  ProgramBuilder b;
  b.Input("x", kF32, {2, 3});
  b.Node(Qd("quantize_per_tensor.default"),
         {TensorArg("input", "x"), FloatArg("scale", 0.5), IntArg("zero_point", 2), IntArg("quant_min", quant_min),
          IntArg("quant_max", quant_max), DtypeArg("dtype", dtype)},
         {{"q", dtype, {2, 3}}});
  b.Output("q");
  return b;
}

// The zero point is read as int64 and cast to the quantized dtype; the Cast of
// that constant folds in the optimizer (these conversions run without it).
int Count(const ir::Model& model, const std::string& op) {
  int n = 0;
  for (const std::string& t : OpTypes(model)) n += t == op;
  return n;
}

TEST(QuantizePerTensor, FullRangeIsOneQuantizeLinear) {
  pt2::ExportedProgram program = QuantizePerTensor(kI8, -128, 127).Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, {"Cast", "QuantizeLinear"}));
}

TEST(QuantizePerTensor, NarrowRangeIsClamped) {
  pt2::ExportedProgram program = QuantizePerTensor(kI8, -5, 6).Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, {"Cast", "QuantizeLinear", "Clip"}));
}

TEST(QuantizePerTensor, Int16IsAFormulaBeforeOpset21) {
  pt2::ExportedProgram program = QuantizePerTensor(kI16, -32768, 32767).Build();
  absl::StatusOr<Converted> old = ConvertAndCheck(program, 20);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(Count(old->model, "QuantizeLinear"), 0);
  EXPECT_EQ(Count(old->model, "Round"), 1);
  absl::StatusOr<Converted> now = ConvertAndCheck(program, 21);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_TRUE(OpTypesAre(now->model, {"Cast", "QuantizeLinear"}));
}

TEST(QuantizePerTensor, Int32IsAlwaysAFormula) {
  pt2::ExportedProgram program = QuantizePerTensor(DataType::kInt32, -1000, 1000).Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program, 22);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_EQ(Count(got->model, "QuantizeLinear"), 0);
}

TEST(DequantizePerChannel, IsPerAxisDequantizeLinear) {
  ProgramBuilder b;
  b.Input("w", kI8, {4, 3, 2}).Input("s", kF32, {3}).Input("z", kI64, {3});
  b.Node(Qd("dequantize_per_channel.default"),
         {TensorArg("input", "w"), TensorArg("scales", "s"), TensorArg("zero_points", "z"), IntArg("axis", -2),
          IntArg("quant_min", -127), IntArg("quant_max", 127), DtypeArg("dtype", kI8)},
         {{"y", kF32, {4, 3, 2}}});
  b.Output("y");
  pt2::ExportedProgram program = b.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  const ir::Node* dq = FindNode(got->model, "DequantizeLinear");
  ASSERT_NE(dq, nullptr);
  EXPECT_EQ(dq->FindAttribute("axis")->i(), 1);
}

TEST(QuantizePerToken, IsPerAxisOverRows) {
  ProgramBuilder b;
  b.Input("x", kF32, {2, 3, 8}).Input("s", kF64, {2, 3, 1}).Input("z", kI64, {2, 3, 1});
  b.Node(Qd("quantize_per_token.default"),
         {TensorArg("input", "x"), TensorArg("scales", "s"), TensorArg("zero_points", "z"),
          IntArg("quant_min", -128), IntArg("quant_max", 127), DtypeArg("dtype", kI8)},
         {{"q", kI8, {2, 3, 8}}});
  b.Output("q");
  pt2::ExportedProgram program = b.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  const ir::Node* q = FindNode(got->model, "QuantizeLinear");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->FindAttribute("axis")->i(), 0);
}

TEST(ChooseQparams, GivesFloat64ScaleAndInt64ZeroPoint) {
  ProgramBuilder b;
  b.Input("x", kF32, {4, 5});
  b.Node(Qd("choose_qparams.tensor"),
         {TensorArg("input", "x"), IntArg("quant_min", 0), IntArg("quant_max", 255), FloatArg("eps", 1.1920929e-07),
          DtypeArg("dtype", kU8)},
         {{"scale", kF64, {1}}, {"zero_point", kI64, {1}}});
  b.Output("scale").Output("zero_point");
  pt2::ExportedProgram program = b.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(FakeQuantize, PerTensorIsAQdqPairOfTheNarrowestDtype) {
  ProgramBuilder b;
  b.Input("x", kF32, {2, 3});
  b.Node(Aten("fake_quantize_per_tensor_affine.default"),
         {TensorArg("self", "x"), FloatArg("scale", 0.1), IntArg("zero_point", 3), IntArg("quant_min", 0),
          IntArg("quant_max", 255)},
         {{"y", kF32, {2, 3}}});
  b.Output("y");
  pt2::ExportedProgram program = b.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, {"Cast", "QuantizeLinear", "Cast", "DequantizeLinear"}));
}

TEST(QuantizeErrors, NameTheCause) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(QuantizePerTensor(kI8, -200, 127).Build()),
                        absl::StatusCode::kInvalidArgument, "outside int8's"));
  ProgramBuilder far;
  far.Input("x", kF32, {2});
  far.Node(Qd("quantize_per_tensor.default"),
           {TensorArg("input", "x"), FloatArg("scale", 0.5), IntArg("zero_point", 300), IntArg("quant_min", 0),
            IntArg("quant_max", 255), DtypeArg("dtype", kU8)},
           {{"q", kU8, {2}}});
  far.Output("q");
  EXPECT_TRUE(HasStatus(ConvertAndCheck(far.Build()), absl::StatusCode::kUnimplemented, "zero point 300"));
  ProgramBuilder fq;
  fq.Input("x", kF32, {2});
  fq.Node(Aten("fake_quantize_per_tensor_affine.default"),
          {TensorArg("self", "x"), FloatArg("scale", 0.1), IntArg("zero_point", 9), IntArg("quant_min", 0),
           IntArg("quant_max", 5)},
          {{"y", kF32, {2}}});
  fq.Output("y");
  EXPECT_TRUE(HasStatus(ConvertAndCheck(fq.Build()), absl::StatusCode::kInvalidArgument, "zero_point 9"));
}

}  // namespace
}  // namespace pt2onnx::testing
