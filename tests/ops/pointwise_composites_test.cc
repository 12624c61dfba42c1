// Tests for ops/pointwise_composites.cc: every overload converts (checker +
// strict shape inference) with torch's output dtypes, integer inputs where
// torch takes them, and the refusals name the cause. Numerics (NaN, inf,
// signed zero): tests/fixtures/ops/erfc_frac_sinc, logit_xlogy,
// logaddexp_heaviside, addcmul_addcdiv_lerp, float_classes.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

pt2::ExportedProgram Unary(std::string overload, DataType in, DataType out,
                           std::vector<pt2::NamedArgument> extra = {}) {
  std::vector<pt2::NamedArgument> args = {TensorArg("self", "x")};
  for (auto& a : extra) args.push_back(a);
  return OneNodeProgram({{"x", in, {2, 3}}}, overload, args, {{"y", out, {2, 3}}}).Build();
}

pt2::ExportedProgram Binary(std::string overload, DataType a, DataType b, DataType out,
                            std::string other = "other") {
  return OneNodeProgram({{"a", a, {2, 3}}, {"b", b, {3}}}, overload,
                        {TensorArg("self", "a"), TensorArg(other, "b")}, {{"y", out, {2, 3}}})
      .Build();
}

TEST(PointwiseComposites, UnaryFloatOpsConvertWithTorchsDtypes) {
  for (std::string overload : {"erfc.default", "frac.default", "sinc.default", "deg2rad.default",
                               "rad2deg.default", "logit.default", "erfc_.default", "sinc_.default"}) {
    for (auto [in, out] : std::vector<std::pair<DataType, DataType>>{
             {kF32, kF32}, {kF64, kF64}, {kI64, kF32}}) {
      if (overload == "frac.default" && in == kI64) continue;  // torch: not for integers
      for (int opset : {18, 20, 22, 26}) {  // ONNX 1.21 infers shapes at every opset
        pt2::ExportedProgram program = Unary(overload, in, out);
        absl::StatusOr<Converted> got = ConvertAndCheck(program, opset);
        ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
        EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
      }
    }
  }
}

TEST(PointwiseComposites, LogitClampsWithWheresNotClip) {
  pt2::ExportedProgram program = Unary("logit.default", kF32, kF32, {FloatArg("eps", 0.1)});
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(FindNode(got->model, "Clip"), nullptr);  // Clip may turn NaN into a bound
  EXPECT_NE(FindNode(got->model, "Where"), nullptr);
}

TEST(PointwiseComposites, BinaryOpsBroadcastAndPromote) {
  struct Row {
    std::string overload;
    DataType a, b, out;
    std::string other = "other";
  };
  for (const Row& r : std::vector<Row>{{"xlogy.Tensor", kF32, kF32, kF32},
                                       {"xlogy.Tensor", kI64, kF32, kF32},
                                       {"xlogy_.Tensor", kF32, kF32, kF32},
                                       {"logaddexp.default", kF32, kF32, kF32},
                                       {"logaddexp2.default", kF64, kF64, kF64},
                                       {"heaviside.default", kF32, kF32, kF32, "values"},
                                       {"heaviside.default", kI64, kI64, kI64, "values"},
                                       {"heaviside.default", kBool, kBool, kBool, "values"}}) {
    pt2::ExportedProgram program = Binary(r.overload, r.a, r.b, r.out, r.other);
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << r.overload << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << r.overload;
  }
}

TEST(PointwiseComposites, XlogyScalarOverloads) {
  pt2::ExportedProgram self_scalar =
      OneNodeProgram({{"b", kF32, {4}}}, "xlogy.Scalar_Self", {FloatArg("self", 2.0), TensorArg("other", "b")},
                     {{"y", kF32, {4}}})
          .Build();
  pt2::ExportedProgram other_scalar =
      OneNodeProgram({{"a", kF32, {4}}}, "xlogy.Scalar_Other", {TensorArg("self", "a"), FloatArg("other", 3.0)},
                     {{"y", kF32, {4}}})
          .Build();
  for (const auto& program : {self_scalar, other_scalar}) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

TEST(PointwiseComposites, AddcmulAddcdivLerp) {
  auto ternary = [](std::string overload, DataType dtype, std::string a1, std::string a2,
                    std::vector<pt2::NamedArgument> extra) {
    std::vector<pt2::NamedArgument> args = {TensorArg("self", "s"), TensorArg(a1, "t1")};
    if (!a2.empty()) args.push_back(TensorArg(a2, "t2"));
    for (auto& a : extra) args.push_back(a);
    return OneNodeProgram({{"s", dtype, {2, 3}}, {"t1", dtype, {3}}, {"t2", dtype, {2, 1}}}, overload, args,
                          {{"y", dtype, {2, 3}}})
        .Build();
  };
  std::vector<pt2::ExportedProgram> programs = {
      ternary("addcmul.default", kF32, "tensor1", "tensor2", {FloatArg("value", 0.5)}),
      ternary("addcmul.default", kI64, "tensor1", "tensor2", {IntArg("value", 3)}),
      ternary("addcmul_.default", kF32, "tensor1", "tensor2", {}),
      ternary("addcdiv.default", kF32, "tensor1", "tensor2", {FloatArg("value", 2.0)}),
      ternary("lerp.Tensor", kF32, "end", "weight", {}),
      ternary("lerp.Scalar", kF32, "end", "", {FloatArg("weight", 0.25)}),
      ternary("lerp_.Scalar", kF64, "end", "", {FloatArg("weight", 0.75)})};
  for (const auto& program : programs) {
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << program.graph.nodes[0].target << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << program.graph.nodes[0].target;
  }
  pt2::ExportedProgram int_addcdiv = ternary("addcdiv.default", kI64, "tensor1", "tensor2", {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(int_addcdiv), absl::StatusCode::kInvalidArgument, "integer"));
}

TEST(PointwiseComposites, FloatClassPredicatesOnEveryDtype) {
  for (std::string overload : {"isfinite.default", "isposinf.default", "isneginf.default", "signbit.default"}) {
    for (DataType in : {kF32, kF16, kF64, kI64, kI32, kBool}) {
      pt2::ExportedProgram program = Unary(overload, in, kBool);
      absl::StatusOr<Converted> got = ConvertAndCheck(program);
      ASSERT_TRUE(got.ok()) << overload << " " << DataTypeName(in) << ": " << got.status();
      EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
    }
  }
}

TEST(PointwiseComposites, IscloseAndAngle) {
  for (DataType in : {kF32, kF64, kI64, kBool}) {
    pt2::ExportedProgram program =
        OneNodeProgram({{"a", in, {2, 3}}, {"b", in, {2, 3}}}, "isclose.default",
                       {TensorArg("self", "a"), TensorArg("other", "b"), FloatArg("rtol", 0.1), FloatArg("atol", 0.0),
                        BoolArg("equal_nan", true)},
                       {{"y", kBool, {2, 3}}})
            .Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << DataTypeName(in) << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << DataTypeName(in);
  }
  for (auto [in, out] : std::vector<std::pair<DataType, DataType>>{{kF32, kF32}, {kI64, kF32}}) {
    pt2::ExportedProgram program = Unary("angle.default", in, out);
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

TEST(PointwiseComposites, IntegerTypedFloatResultIsRefused) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(Unary("erfc.default", kI64, kI64)), absl::StatusCode::kInvalidArgument,
                        "floating point"));
}

}  // namespace
}  // namespace pt2onnx::testing
