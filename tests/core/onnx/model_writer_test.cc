// WriteModel streams a ModelProto in pieces; these tests parse the bytes
// back with protobuf and compare them with ToModelProto (the one-message
// form), then check the external-data layout.
#include "core/onnx/model_writer.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "core/bytes.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/ir/tensor.h"
#include "core/onnx/checker.h"
#include "gtest/gtest.h"
#include "onnx/onnx-ml.pb.h"

namespace pt2onnx::onnx_writer {
namespace {

std::string FloatBytes(const std::vector<float>& values) {
  std::string out(values.size() * sizeof(float), '\0');
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// Weight bytes owned by the test and viewed by the IR (as the CLI's mmap is).
struct Weights {
  std::string w = FloatBytes({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});  // [4, 3]
  std::string b = FloatBytes({0.5f, -0.5f, 2.0f});                      // [3]
};

// Appends a node to `g`; the reference is valid until the next append.
ir::Node& AddNode(ir::Graph& g, std::string name, std::string op_type,
                  std::vector<std::string> inputs, std::vector<std::string> outputs) {
  ir::Node& node = g.nodes.emplace_back();
  node.name = std::move(name);
  node.op_type = std::move(op_type);
  node.inputs = std::move(inputs);
  node.outputs = std::move(outputs);
  return node;
}

// out = (x @ W + B) * c, x: [batch, 4] (batch symbolic), c a Constant node.
ir::Model SmallModel(const Weights& weights) {
  ir::Model model;
  model.opset_imports = {{"", 20}};
  model.producer_version = "test";
  model.metadata = {{"source", "model_writer_test"}};
  ir::Graph& g = model.graph;
  g.name = "small";
  g.inputs.push_back(
      {"x", DataType::kFloat, std::vector<ir::Dim>{ir::Dim::Symbolic("batch"), ir::Dim::Static(4)},
       {}});
  g.outputs.push_back(
      {"out", DataType::kFloat, std::vector<ir::Dim>{ir::Dim::Symbolic("batch"), ir::Dim::Static(3)},
       {}});
  g.initializers.push_back(
      {"W", ir::Tensor::View(DataType::kFloat, {4, 3}, AsBytes(weights.w)), {{"fqn", "fc.weight"}}});
  g.initializers.push_back(
      {"B", ir::Tensor::View(DataType::kFloat, {3}, AsBytes(weights.b)), {}});
  ir::Node& c = AddNode(g, "const_c", "Constant", {}, {"c"});
  c.attributes.push_back(ir::Attribute::TensorValue("value", ir::Tensor::Float32Scalar(3.0f)));
  ir::Node& mm = AddNode(g, "matmul", "MatMul", {"x", "W"}, {"y"});
  mm.metadata = {{"namespace", "fc: torch.nn.Linear"}, {"pkg.torch.onnx.name_scopes", "['fc']"}};
  AddNode(g, "add", "Add", {"y", "B"}, {"z"});
  AddNode(g, "mul", "Mul", {"z", "c"}, {"out"});
  return model;
}

std::string Prop(const google::protobuf::RepeatedPtrField<::onnx::StringStringEntryProto>& props,
                 const std::string& key) {
  for (const auto& p : props) {
    if (p.key() == key) return p.value();
  }
  return "<missing>";
}

ir::Model OneNodeModel(int opset, std::string op_type, std::vector<std::string> inputs) {
  ir::Model model;
  model.opset_imports = {{"", opset}};
  AddNode(model.graph, "n", std::move(op_type), std::move(inputs), {"y"});
  return model;
}

TEST(CheckArityTest, NamesUnknownOperatorsAndWrongInputCounts) {
  EXPECT_TRUE(CheckArity(OneNodeModel(20, "Relu", {"x"})).ok());
  absl::Status unknown = CheckArity(OneNodeModel(20, "NoSuchOp", {"x"}));
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInternal);
  EXPECT_NE(unknown.message().find("ONNX has no operator NoSuchOp at opset 20"), std::string::npos);
  absl::Status arity = CheckArity(OneNodeModel(20, "Relu", {"x", "z"}));
  EXPECT_NE(arity.message().find("(Relu) has 2 inputs"), std::string::npos) << arity;
}

// The bundled onnx (1.21) knows every opset pt2onnx writes: the operators
// of opsets 24 and 26 are checked like the others.
TEST(CheckArityTest, KnowsTheOperatorsOfTheNewestOpsets) {
  EXPECT_EQ(CheckerMaxOpset(), 26);
  EXPECT_TRUE(CheckArity(OneNodeModel(24, "Swish", {"x"})).ok());
  EXPECT_FALSE(CheckArity(OneNodeModel(24, "Swish", {"x", "z"})).ok());
  EXPECT_TRUE(CheckArity(OneNodeModel(26, "CumProd", {"x", "axis"})).ok());
  absl::Status too_early = CheckArity(OneNodeModel(25, "CumProd", {"x", "axis"}));
  EXPECT_NE(too_early.message().find("ONNX has no operator CumProd at opset 25"), std::string::npos)
      << too_early;
}

TEST(WriteModelTest, InlineBytesParseToToModelProto) {
  Weights weights;
  const ir::Model model = SmallModel(weights);
  StringSink sink;
  absl::StatusOr<WriteSummary> summary = WriteModel(model, WriteOptions{}, sink, nullptr);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_FALSE(summary->external);
  EXPECT_EQ(summary->initializer_bytes, 60u);
  EXPECT_EQ(summary->external_bytes, 0u);
  EXPECT_EQ(summary->model_bytes, sink.data().size());
  EXPECT_EQ(InitializerBytes(model), 60u);

  ::onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(sink.data()));
  const ::onnx::ModelProto expected = ToModelProto(model);

  EXPECT_EQ(parsed.ir_version(), 10);
  EXPECT_EQ(parsed.producer_name(), "pt2onnx");
  EXPECT_EQ(parsed.producer_version(), "test");
  ASSERT_EQ(parsed.opset_import_size(), 1);
  EXPECT_EQ(parsed.opset_import(0).domain(), "");
  EXPECT_EQ(parsed.opset_import(0).version(), 20);
  EXPECT_EQ(Prop(parsed.metadata_props(), "source"), "model_writer_test");

  const ::onnx::GraphProto& g = parsed.graph();
  EXPECT_EQ(g.name(), "small");
  ASSERT_EQ(g.input_size(), 1);
  const auto& shape = g.input(0).type().tensor_type().shape();
  ASSERT_EQ(shape.dim_size(), 2);
  EXPECT_EQ(shape.dim(0).dim_param(), "batch");
  EXPECT_FALSE(shape.dim(0).has_dim_value());
  EXPECT_EQ(shape.dim(1).dim_value(), 4);
  EXPECT_EQ(g.input(0).type().tensor_type().elem_type(), ::onnx::TensorProto::FLOAT);

  ASSERT_EQ(g.initializer_size(), 2);
  EXPECT_EQ(g.initializer(0).name(), "W");
  EXPECT_EQ(std::vector<int64_t>(g.initializer(0).dims().begin(), g.initializer(0).dims().end()),
            (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(g.initializer(0).data_type(), ::onnx::TensorProto::FLOAT);
  EXPECT_EQ(g.initializer(0).raw_data(), weights.w);
  EXPECT_EQ(Prop(g.initializer(0).metadata_props(), "fqn"), "fc.weight");
  EXPECT_EQ(g.initializer(1).name(), "B");
  EXPECT_EQ(g.initializer(1).raw_data(), weights.b);
  EXPECT_NE(g.initializer(0).data_location(), ::onnx::TensorProto::EXTERNAL);

  ASSERT_EQ(g.node_size(), 4);
  EXPECT_EQ(g.node(0).op_type(), "Constant");
  ASSERT_EQ(g.node(0).attribute_size(), 1);
  EXPECT_EQ(g.node(0).attribute(0).name(), "value");
  EXPECT_EQ(g.node(0).attribute(0).t().data_type(), ::onnx::TensorProto::FLOAT);
  const ::onnx::NodeProto& mm = g.node(1);
  EXPECT_EQ(mm.name(), "matmul");
  EXPECT_EQ(mm.op_type(), "MatMul");
  EXPECT_EQ(std::vector<std::string>(mm.input().begin(), mm.input().end()),
            (std::vector<std::string>{"x", "W"}));
  EXPECT_EQ(Prop(mm.metadata_props(), "namespace"), "fc: torch.nn.Linear");
  EXPECT_EQ(Prop(mm.metadata_props(), "pkg.torch.onnx.name_scopes"), "['fc']");

  // Everything else agrees with the one-message form: protobuf serializes
  // fields in number order, so equal messages give equal bytes.
  EXPECT_EQ(parsed.SerializeAsString(), expected.SerializeAsString());

  absl::Status check = CheckModel(parsed);
  EXPECT_TRUE(check.ok()) << check;
}

TEST(WriteModelTest, AlwaysExternalWritesAlignedData) {
  Weights weights;
  const ir::Model model = SmallModel(weights);
  WriteOptions options;
  options.external_data = WriteOptions::ExternalData::kAlways;
  options.min_external_bytes = 8;
  options.external_data_location = "model.onnx.data";
  StringSink sink;
  StringSink data;
  absl::StatusOr<WriteSummary> summary = WriteModel(model, options, sink, &data);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(summary->external);
  EXPECT_EQ(summary->model_bytes, sink.data().size());

  ::onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(sink.data()));
  ASSERT_EQ(parsed.graph().initializer_size(), 2);
  const std::map<std::string, std::string> expected_bytes = {{"W", weights.w}, {"B", weights.b}};
  for (const ::onnx::TensorProto& t : parsed.graph().initializer()) {
    SCOPED_TRACE(t.name());
    EXPECT_EQ(t.data_location(), ::onnx::TensorProto::EXTERNAL);
    EXPECT_FALSE(t.has_raw_data());
    EXPECT_EQ(Prop(t.external_data(), "location"), "model.onnx.data");
    const uint64_t offset = std::stoull(Prop(t.external_data(), "offset"));
    const uint64_t length = std::stoull(Prop(t.external_data(), "length"));
    EXPECT_EQ(offset % 64, 0u);
    const std::string& want = expected_bytes.at(t.name());
    EXPECT_EQ(length, want.size());
    ASSERT_LE(offset + length, data.data().size());
    EXPECT_EQ(data.data().substr(offset, length), want);
  }
  // W at 0 (48 bytes), B after padding to 64: 64 + 12 bytes in all.
  EXPECT_EQ(data.data().size(), 76u);
  EXPECT_EQ(summary->external_bytes, 76u);
  EXPECT_EQ(data.data().substr(48, 16), std::string(16, '\0'));
}

TEST(WriteModelTest, SmallInitializersStayInline) {
  Weights weights;
  const ir::Model model = SmallModel(weights);
  WriteOptions options;
  options.external_data = WriteOptions::ExternalData::kAlways;
  options.min_external_bytes = 16;  // W (48 bytes) goes out, B (12) stays
  options.external_data_location = "w.bin";
  StringSink sink;
  StringSink data;
  absl::StatusOr<WriteSummary> summary = WriteModel(model, options, sink, &data);
  ASSERT_TRUE(summary.ok()) << summary.status();
  ::onnx::ModelProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(sink.data()));
  const ::onnx::TensorProto& w = parsed.graph().initializer(0);
  const ::onnx::TensorProto& b = parsed.graph().initializer(1);
  EXPECT_EQ(w.data_location(), ::onnx::TensorProto::EXTERNAL);
  EXPECT_EQ(Prop(w.external_data(), "offset"), "0");
  EXPECT_EQ(Prop(w.external_data(), "length"), "48");
  EXPECT_NE(b.data_location(), ::onnx::TensorProto::EXTERNAL);
  EXPECT_EQ(b.raw_data(), weights.b);
  EXPECT_EQ(data.data(), weights.w);
}

TEST(WriteModelTest, AutoSwitchesToExternalAboveThreshold) {
  Weights weights;
  const ir::Model model = SmallModel(weights);
  WriteOptions options;
  options.external_data = WriteOptions::ExternalData::kAuto;
  options.auto_threshold_bytes = 59;  // initializers hold 60 bytes
  options.min_external_bytes = 1;
  options.external_data_location = "model.onnx.data";
  StringSink sink;
  StringSink data;
  absl::StatusOr<WriteSummary> summary = WriteModel(model, options, sink, &data);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_TRUE(summary->external);
  EXPECT_FALSE(data.data().empty());

  // At the threshold exactly, the model stays in one file.
  options.auto_threshold_bytes = 60;
  StringSink sink2;
  StringSink data2;
  summary = WriteModel(model, options, sink2, &data2);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_FALSE(summary->external);
  EXPECT_TRUE(data2.data().empty());
}

TEST(WriteModelTest, NeverExternalIgnoresThreshold) {
  Weights weights;
  const ir::Model model = SmallModel(weights);
  WriteOptions options;
  options.external_data = WriteOptions::ExternalData::kNever;
  options.auto_threshold_bytes = 1;
  StringSink sink;
  absl::StatusOr<WriteSummary> summary = WriteModel(model, options, sink, nullptr);
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_FALSE(summary->external);
}

TEST(WriteModelTest, ExternalWithoutDataSinkIsFailedPrecondition) {
  Weights weights;
  const ir::Model model = SmallModel(weights);
  WriteOptions options;
  options.external_data = WriteOptions::ExternalData::kAlways;
  options.external_data_location = "model.onnx.data";
  StringSink sink;
  absl::StatusOr<WriteSummary> summary = WriteModel(model, options, sink, nullptr);
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kFailedPrecondition) << summary.status();
  EXPECT_TRUE(absl::StrContains(summary.status().message(), "external data file"))
      << summary.status();
  EXPECT_TRUE(sink.data().empty());

  // Same when the sink exists but no location was given.
  options.external_data_location.clear();
  StringSink data;
  summary = WriteModel(model, options, sink, &data);
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kFailedPrecondition) << summary.status();
  EXPECT_TRUE(absl::StrContains(summary.status().message(), "60 bytes")) << summary.status();
}

}  // namespace
}  // namespace pt2onnx::onnx_writer
