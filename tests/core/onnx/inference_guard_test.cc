// CheckInferenceArithmetic refuses the values ONNX's shape inference would
// overflow on (found by the sanitized e2e suite on hostile dim sweeps) and
// lets every ordinary value through.
#include "core/onnx/inference_guard.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "onnx/onnx-ml.pb.h"

namespace pt2onnx::onnx_writer {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

void AddInt64Scalar(::onnx::GraphProto& g, const std::string& name, int64_t v) {
  ::onnx::TensorProto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::INT64);
  t->add_int64_data(v);
}

void AddFloatScalarConstant(::onnx::GraphProto& g, const std::string& name, float v) {
  ::onnx::NodeProto* n = g.add_node();
  n->set_op_type("Constant");
  n->add_output(name);
  ::onnx::AttributeProto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(::onnx::TensorProto::FLOAT);
  a->mutable_t()->add_float_data(v);
}

::onnx::NodeProto& AddNode(::onnx::GraphProto& g, const std::string& op,
                           std::vector<std::string> inputs) {
  ::onnx::NodeProto* n = g.add_node();
  n->set_name("n" + std::to_string(g.node_size()));
  n->set_op_type(op);
  for (const std::string& in : inputs) n->add_input(in);
  n->add_output("out" + std::to_string(g.node_size()));
  return *n;
}

::onnx::GraphProto IntRange(int64_t start, int64_t limit, int64_t delta) {
  ::onnx::GraphProto g;
  AddInt64Scalar(g, "s", start);
  AddInt64Scalar(g, "l", limit);
  AddInt64Scalar(g, "d", delta);
  AddNode(g, "Range", {"s", "l", "d"});
  return g;
}

TEST(InferenceGuard, OrdinaryRangesPass) {
  EXPECT_TRUE(CheckInferenceArithmetic(IntRange(0, 10, 1)).ok());
  EXPECT_TRUE(CheckInferenceArithmetic(IntRange(10, 4, -2)).ok());
  EXPECT_TRUE(CheckInferenceArithmetic(IntRange(kInt64Max - 5, kInt64Max, 1)).ok());
  EXPECT_TRUE(CheckInferenceArithmetic(IntRange(0, int64_t{1} << 40, 3)).ok());
}

TEST(InferenceGuard, RangeOverflowsAreRefused) {
  for (const ::onnx::GraphProto& g :
       {IntRange(kInt64Min, 10, 1), IntRange(kInt64Min, 1, kInt64Max), IntRange(0, 10, 0),
        IntRange(0, kInt64Max, 1), IntRange(-(int64_t{1} << 62), int64_t{1} << 62, int64_t{1} << 61)}) {
    absl::Status status = CheckInferenceArithmetic(g);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(status.message(), "Range")) << status.message();
  }
}

TEST(InferenceGuard, FloatRangeFromConstantNodes) {
  ::onnx::GraphProto ok, inf, nan;
  for (auto [g, limit] : {std::pair{&ok, 5.0f}, std::pair{&inf, std::numeric_limits<float>::infinity()},
                          std::pair{&nan, std::numeric_limits<float>::quiet_NaN()}}) {
    AddFloatScalarConstant(*g, "s", 0.0f);
    AddFloatScalarConstant(*g, "l", limit);
    AddFloatScalarConstant(*g, "d", 0.5f);
    AddNode(*g, "Range", {"s", "l", "d"});
  }
  EXPECT_TRUE(CheckInferenceArithmetic(ok).ok());
  EXPECT_FALSE(CheckInferenceArithmetic(inf).ok());
  EXPECT_FALSE(CheckInferenceArithmetic(nan).ok());
}

TEST(InferenceGuard, ConvTransposeStrideAndDims) {
  ::onnx::GraphProto g;
  ::onnx::ValueInfoProto* x = g.add_input();
  x->set_name("x");
  auto* shape = x->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int64_t d : {1, 2, 4}) shape->add_dim()->set_dim_value(d);
  ::onnx::NodeProto& conv = AddNode(g, "ConvTranspose", {"x", "w"});
  ::onnx::AttributeProto* strides = conv.add_attribute();
  strides->set_name("strides");
  strides->set_type(::onnx::AttributeProto::INTS);
  strides->add_ints(2);
  EXPECT_TRUE(CheckInferenceArithmetic(g).ok());
  strides->set_ints(0, kInt64Max);
  absl::Status status = CheckInferenceArithmetic(g);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "attribute strides")) << status.message();
  strides->set_ints(0, 2);
  shape->mutable_dim(2)->set_dim_value(int64_t{1} << 40);
  EXPECT_FALSE(CheckInferenceArithmetic(g).ok());
  // The batch and channel dims are not spatial: ONNX does no arithmetic on them.
  shape->mutable_dim(2)->set_dim_value(4);
  shape->mutable_dim(0)->set_dim_value(int64_t{1} << 40);
  EXPECT_TRUE(CheckInferenceArithmetic(g).ok());
  // group multiplies the weight's channel count.
  ::onnx::AttributeProto* group = conv.add_attribute();
  group->set_name("group");
  group->set_type(::onnx::AttributeProto::INT);
  group->set_i(kInt64Max);
  status = CheckInferenceArithmetic(g);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "attribute group")) << status.message();
}

TEST(InferenceGuard, PadsInsideSubgraphSeeOuterConstants) {
  ::onnx::GraphProto outer;
  AddInt64Scalar(outer, "pads", kInt64Max);
  ::onnx::NodeProto& iff = AddNode(outer, "If", {"cond"});
  ::onnx::AttributeProto* branch = iff.add_attribute();
  branch->set_name("then_branch");
  branch->set_type(::onnx::AttributeProto::GRAPH);
  AddNode(*branch->mutable_g(), "Pad", {"x", "pads"});
  absl::Status status = CheckInferenceArithmetic(outer);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "Pad")) << status.message();
}

::onnx::GraphProto WithInt64Vector(const std::string& op, std::vector<int64_t> values) {
  ::onnx::GraphProto g;
  ::onnx::TensorProto* t = g.add_initializer();
  t->set_name("v");
  t->set_data_type(::onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
  AddNode(g, op, {"x", "v"});
  return g;
}

TEST(InferenceGuard, ReshapeAndTileProducts) {
  EXPECT_TRUE(CheckInferenceArithmetic(WithInt64Vector("Reshape", {0, -1, 1 << 20, 1 << 20})).ok());
  EXPECT_FALSE(CheckInferenceArithmetic(WithInt64Vector("Reshape", {2, kInt64Max})).ok());
  EXPECT_TRUE(CheckInferenceArithmetic(WithInt64Vector("Tile", {1, 1 << 20})).ok());
  EXPECT_FALSE(CheckInferenceArithmetic(WithInt64Vector("Tile", {3, kInt64Max})).ok());
  EXPECT_TRUE(CheckInferenceArithmetic(WithInt64Vector("Pad", {0, 1, 2, 3})).ok());
  EXPECT_FALSE(CheckInferenceArithmetic(WithInt64Vector("Pad", {0, kInt64Max, 0, 6})).ok());
}

TEST(InferenceGuard, ResizeScales) {
  for (auto [scale, ok] : {std::pair{2.0f, true}, std::pair{-6e19f, false},
                           std::pair{std::numeric_limits<float>::quiet_NaN(), false}}) {
    ::onnx::GraphProto g;
    ::onnx::TensorProto* t = g.add_initializer();
    t->set_name("scales");
    t->set_data_type(::onnx::TensorProto::FLOAT);
    t->add_dims(2);
    t->add_float_data(1.0f);
    t->add_float_data(scale);
    AddNode(g, "Resize", {"x", "", "scales"});
    EXPECT_EQ(CheckInferenceArithmetic(g).ok(), ok) << scale;
  }
}

}  // namespace
}  // namespace pt2onnx::onnx_writer
