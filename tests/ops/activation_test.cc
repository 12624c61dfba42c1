// Tests for ops/activation.cc. Each case is a one-node program; it must
// convert, pass the ONNX checker and strict shape inference, infer the FX
// output shape and dtype, and emit the expected op types (Constants
// skipped). Numerics are checked against torch by the fixture tests.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

using Case = OpCase;

// x -> one node -> output "y".
Case One(std::string name, TensorSpec in, std::string target, std::vector<pt2::NamedArgument> args,
         TensorSpec out, std::vector<std::string> ops, int opset = 20) {
  args.insert(args.begin(), TensorArg("self", in.name));
  out.name = "y";
  return OneNodeCase(std::move(name), {in}, target, std::move(args), {out}, std::move(ops), opset);
}

// Expects `op_type`'s attribute `attr` to hold `value` (float, int or string).
std::function<void(const ir::Model&)> ExpectFloatAttr(std::string op_type, std::string attr,
                                                      float value) {
  return [=](const ir::Model& m) {
    const ir::Node* n = FindNode(m, op_type);
    ASSERT_NE(n, nullptr) << op_type;
    const ir::Attribute* a = n->FindAttribute(attr);
    ASSERT_NE(a, nullptr) << attr;
    EXPECT_FLOAT_EQ(a->f(), value);
  };
}

std::function<void(const ir::Model&)> ExpectStringAttr(std::string op_type, std::string attr,
                                                       std::string value) {
  return [=](const ir::Model& m) {
    const ir::Node* n = FindNode(m, op_type);
    ASSERT_NE(n, nullptr) << op_type;
    const ir::Attribute* a = n->FindAttribute(attr);
    ASSERT_NE(a, nullptr) << attr;
    EXPECT_EQ(a->s(), value);
  };
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  TensorSpec x{"x", kF32, {2, 3}};
  TensorSpec out{"", kF32, {2, 3}};
  const std::vector<std::string> kGeluErf = {"Mul", "Erf", "Mul", "Add", "Mul"};
  const std::vector<std::string> kGeluTanh = {"Mul", "Mul", "Mul", "Add", "Mul",
                                              "Tanh", "Mul", "Add", "Mul"};

  add(One("relu", x, "relu.default", {}, out, {"Relu"}));
  add(One("relu_inplace", x, "relu_.default", {}, out, {"Relu"}));
  add(One("relu6", x, "relu6.default", {}, out, {"Clip"}));
  add(One("hardtanh", x, "hardtanh.default", {FloatArg("min_val", -2), FloatArg("max_val", 2)},
          out, {"Clip"}));
  add(One("hardtanh_inplace_defaults", x, "hardtanh_.default", {}, out, {"Clip"}));
  {
    Case c = One("leaky_relu_default_slope", x, "leaky_relu.default", {}, out, {"LeakyRelu"});
    c.check = ExpectFloatAttr("LeakyRelu", "alpha", 0.01f);
    add(c);
  }
  {
    Case c = One("leaky_relu_inplace", x, "leaky_relu_.default",
                 {FloatArg("negative_slope", 0.2)}, out, {"LeakyRelu"});
    c.check = ExpectFloatAttr("LeakyRelu", "alpha", 0.2f);
    add(c);
  }
  // Gelu is an operator from opset 20; below that, the formulas.
  {
    Case c = One("gelu_opset20", x, "gelu.default", {}, out, {"Gelu"});
    c.check = ExpectStringAttr("Gelu", "approximate", "none");
    add(c);
  }
  {
    Case c = One("gelu_tanh_opset20", x, "gelu.default", {StringArg("approximate", "tanh")}, out,
                 {"Gelu"});
    c.check = ExpectStringAttr("Gelu", "approximate", "tanh");
    add(c);
  }
  add(One("gelu_opset18", x, "gelu.default", {}, out, kGeluErf, 18));
  add(One("gelu_opset19", x, "gelu.default", {}, out, kGeluErf, 19));
  add(One("gelu_tanh_opset18", x, "gelu.default", {StringArg("approximate", "tanh")}, out,
          kGeluTanh, 18));
  add(One("gelu_opset22", x, "gelu.default", {}, out, {"Gelu"}, 22));
  add(One("silu", x, "silu.default", {}, out, {"Sigmoid", "Mul"}));
  add(One("silu_opset23", x, "silu.default", {}, out, {"Sigmoid", "Mul"}, 23));
  add(One("silu_opset24", x, "silu.default", {}, out, {"Swish"}, 24));
  add(One("silu_half_opset24", {"x", kF16, {2, 3}}, "silu.default", {}, {"", kF16, {2, 3}}, {"Swish"}, 24));
  add(One("silu_opset25", x, "silu.default", {}, out, {"Sigmoid", "Mul"}, 25));
  add(One("silu_bf16_opset24", {"x", DataType::kBFloat16, {2, 3}}, "silu.default", {}, {"", DataType::kBFloat16, {2, 3}},
          {"Sigmoid", "Mul"}, 24));
  add(One("hardswish", x, "hardswish.default", {}, out, {"HardSwish"}));
  {
    Case c = One("hardsigmoid", x, "hardsigmoid.default", {}, out, {"HardSigmoid"});
    c.check = ExpectFloatAttr("HardSigmoid", "alpha", 1.0f / 6);
    add(c);
  }
  add(One("elu", x, "elu.default", {FloatArg("alpha", 0.5)}, out, {"Elu"}));
  add(One("elu_scaled", x, "elu.default", {FloatArg("scale", 2.0), FloatArg("input_scale", 0.5)},
          out, {"Mul", "Exp", "Sub", "Mul", "Greater", "Where", "Mul"}));
  add(One("celu", x, "celu.default", {FloatArg("alpha", 0.7)}, out, {"Celu"}));
  add(One("celu_half", {"x", kF16, {2, 3}}, "celu.default", {}, {"", kF16, {2, 3}},
          {"Cast", "Celu", "Cast"}));
  add(One("selu", x, "selu.default", {}, out, {"Selu"}));
  add(One("softplus", x, "softplus.default", {}, out, {"Softplus", "Greater", "Where"}));
  add(One("softplus_beta", x, "softplus.default", {IntArg("beta", 2), IntArg("threshold", 10)},
          out, {"Mul", "Softplus", "Div", "Greater", "Where"}));
  add(One("mish", x, "mish.default", {}, out, {"Mish"}));
  add(One("log_sigmoid", x, "log_sigmoid.default", {}, out, {"Neg", "Softplus", "Neg"}));
  add(One("threshold", x, "threshold.default", {FloatArg("threshold", 0.1), IntArg("value", 20)},
          out, {"LessOrEqual", "Where"}));
  add(One("hardshrink", x, "hardshrink.default", {}, out, {"Shrink"}));
  {
    Case c = One("softshrink", x, "softshrink.default", {FloatArg("lambd", 0.25)}, out,
                 {"Shrink"});
    c.check = ExpectFloatAttr("Shrink", "bias", 0.25f);
    add(c);
  }
  add(One("relu_of_int", {"x", kI64, {2, 3}}, "relu.default", {}, {"", kI64, {2, 3}},
          {"Relu"}));
  auto prelu = [&](std::string name, std::string target, std::vector<int64_t> shape,
                   std::vector<int64_t> weight, std::vector<std::string> ops) {
    add(Case{std::move(name),
             OneNodeProgram({{"x", kF32, shape}, {"w", kF32, std::move(weight)}}, target,
                            {TensorArg("self", "x"), TensorArg("weight", "w")},
                            {{"y", kF32, shape}}),
             std::move(ops)});
  };
  prelu("prelu_per_channel", "prelu.default", {2, 4, 5, 5}, {4}, {"Unsqueeze", "PRelu"});
  prelu("prelu_single", "prelu.default", {2, 4, 5}, {1}, {"PRelu"});
  prelu("prelu_kernel", "_prelu_kernel.default", {2, 4, 5}, {4, 1}, {"Greater", "Mul", "Where"});
  add(One("glu", {"x", kF32, {2, 6}}, "glu.default", {}, {"", kF32, {2, 3}},
          {"Split", "Sigmoid", "Mul"}));
  add(One("glu_dim0", {"x", kF32, {4, 3}}, "glu.default", {IntArg("dim", 0)},
          {"", kF32, {2, 3}}, {"Split", "Sigmoid", "Mul"}));

  // Softmax family.
  add(One("softmax", x, "softmax.int", {IntArg("dim", -1)}, out, {"Softmax"}));
  add(One("softmax_dtype", {"x", kF16, {2, 3}}, "softmax.int",
          {IntArg("dim", 1), DtypeArg("dtype", kF32)}, out, {"Cast", "Softmax"}));
  add(One("softmax_scalar", {"x", kF32, {}}, "softmax.int", {IntArg("dim", 0)},
          {"", kF32, {}}, {"Unsqueeze", "Softmax", "Squeeze"}));
  add(One("softmax_internal", x, "_softmax.default",
          {IntArg("dim", 0), BoolArg("half_to_float", false)}, out, {"Softmax"}));
  add(One("softmax_half_to_float", {"x", kF16, {2, 3}}, "_softmax.default",
          {IntArg("dim", 0), BoolArg("half_to_float", true)}, out, {"Cast", "Softmax"}));
  add(One("log_softmax", x, "log_softmax.int", {IntArg("dim", 1)}, out, {"LogSoftmax"}));
  add(One("log_softmax_internal", x, "_log_softmax.default",
          {IntArg("dim", -1), BoolArg("half_to_float", false)}, out, {"LogSoftmax"}));
  add(One("safe_softmax", x, "_safe_softmax.default", {IntArg("dim", -1)}, out,
          {"Softmax", "IsInf", "Cast", "ReduceMin", "Cast", "Where"}));
  add(One("safe_softmax_half_opset18", {"x", kF16, {2, 3}}, "_safe_softmax.default",
          {IntArg("dim", -1)}, {"", kF16, {2, 3}},
          {"Softmax", "Cast", "IsInf", "Cast", "ReduceMin", "Cast", "Where"}, 18));
  add(One("safe_softmax_opset18", x, "_safe_softmax.default", {IntArg("dim", -1)}, out,
          {"Softmax", "IsInf", "Cast", "ReduceMin", "Cast", "Where"}, 18));
  return cases;
}

using ActivationTest = OpCaseTest;

TEST_P(ActivationTest, ConvertsWithInferredShapes) { ExpectConverts(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Activation, ActivationTest, ::testing::ValuesIn(Cases()), CaseName());

TEST(ActivationErrors, UnknownGeluApproximation) {
  Case c = One("fast", {"x", kF32, {2}}, "gelu.default", {StringArg("approximate", "fast")},
               {"", kF32, {2}}, {});
  for (int opset : {18, 20}) {
    EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build(), opset),
                          absl::StatusCode::kInvalidArgument, "gelu approximation 'fast'"))
        << "opset " << opset;
  }
}

TEST(ActivationErrors, SoftmaxDimOutOfRange) {
  for (const char* target : {"softmax.int", "_softmax.default", "_log_softmax.default",
                             "_safe_softmax.default"}) {
    std::vector<pt2::NamedArgument> args = {IntArg("dim", 2)};
    if (std::string(target).find("_softmax.default") != std::string::npos &&
        std::string(target) != "_safe_softmax.default") {
      args.push_back(BoolArg("half_to_float", false));
    }
    Case c = One("s", {"x", kF32, {2, 3}}, target, args, {"", kF32, {2, 3}}, {});
    EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kInvalidArgument,
                          "dim: dimension 2 is out of range for a tensor of rank 2"))
        << target;
  }
}

}  // namespace
}  // namespace pt2onnx::testing
