// core/export/inspect: symbols in input order with their ranges, each
// symbolic dim at its position, the operator histogram with unsupported
// targets and advice, weights per dtype; the real dynamic fixture; and
// invalid files failing as a conversion does.
#include "export/inspect.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "export/converter.h"
#include "core/io/input_file.h"
#include "core/pt2/pt2_reader.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx {
namespace {

using testing::HasStatus;
using testing::ProgramBuilder;
using testing::TensorArg;

std::vector<std::string> SymbolNames(const Inspection& info) {
  std::vector<std::string> names;
  for (const InspectedSymbol& s : info.symbols) names.push_back(s.name);
  return names;
}

// x: [s54, s27, 4], m: [s54, s27]; relu twice, one unsupported op.
pt2::LoadedProgram Loaded() {
  pt2::LoadedProgram loaded;
  loaded.program = ProgramBuilder()
                       .SymInput("x", DataType::kFloat, {"s54", "s27", "4"})
                       .SymInput("m", DataType::kFloat, {"s54", "s27"})
                       .Node("torch.ops.aten.relu.default", {TensorArg("self", "x")},
                             {{"relu", DataType::kFloat, {2, 2, 4}, {"s54", "s27", ""}}})
                       .Node("torch.ops.aten.linalg_eigvals.default", {TensorArg("self", "relu")},
                             {{"inv", DataType::kFloat, {2, 2, 4}, {"s54", "s27", ""}}})
                       .Node("torch.ops.aten.relu.default", {TensorArg("self", "inv")},
                             {{"out", DataType::kFloat, {2, 2, 4}, {"s54", "s27", ""}}})
                       .Output("out")
                       .Build();
  loaded.program.range_constraints["s27"] = pt2::RangeConstraint{2, 512};
  loaded.program.range_constraints["s54"] = pt2::RangeConstraint{0, std::nullopt};
  loaded.root = "model/";
  loaded.model_name = "model";
  return loaded;
}

TEST(InspectTest, SymbolsFollowTheInputsWithRangesAndUses) {
  Inspection info = InspectProgram(Loaded(), {});
  ASSERT_EQ(SymbolNames(info), (std::vector<std::string>{"s54", "s27"}));  // not sorted
  ASSERT_TRUE(info.symbols[0].range.has_value());
  EXPECT_EQ(info.symbols[0].range->min_val, 0);
  EXPECT_FALSE(info.symbols[0].range->max_val.has_value());
  EXPECT_EQ(RangeText(*info.symbols[0].range), "[0, int_oo]");
  EXPECT_EQ(RangeText(*info.symbols[1].range), "[2, 512]");
  EXPECT_EQ(info.symbols[1].uses, (std::vector<std::string>{"x[1]", "m[1]", "out[1]"}));
}

TEST(InspectTest, ShapesKeepEachSymbolicDimAtItsAxis) {
  Inspection info = InspectProgram(Loaded(), {});
  ASSERT_EQ(info.inputs.size(), 2u);
  const InspectedValue& x = info.inputs[0];
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.dtype, "float32");
  ASSERT_EQ(x.shape.size(), 3u);
  EXPECT_TRUE(x.shape[0].symbolic);
  EXPECT_EQ(x.shape[0].name, "s54");
  EXPECT_EQ(x.shape[1].name, "s27");
  EXPECT_EQ(x.shape[1].range->max_val, 512);
  EXPECT_FALSE(x.shape[2].symbolic);
  EXPECT_EQ(x.shape[2].size, 4);
  ASSERT_EQ(info.outputs.size(), 1u);
  EXPECT_EQ(info.outputs[0].name, "out");
}

TEST(InspectTest, HistogramMarksUnsupportedTargetsAndGivesAdvice) {
  Inspection info = InspectProgram(Loaded(), {});
  EXPECT_EQ(info.fx_nodes, 3);
  ASSERT_EQ(info.ops.size(), 2u);
  EXPECT_EQ(info.ops[0].target, "torch.ops.aten.relu.default");
  EXPECT_EQ(info.ops[0].key, "aten::relu.default");
  EXPECT_EQ(info.ops[0].count, 2);
  EXPECT_TRUE(info.ops[0].supported);
  EXPECT_EQ(info.ops[1].key, "aten::linalg_eigvals.default");
  EXPECT_FALSE(info.ops[1].supported);
  ASSERT_EQ(info.unsupported.size(), 1u);
  EXPECT_EQ(info.unsupported[0].first_node, "inv");

  const std::string text = InspectionText(info, "m.pt2");
  EXPECT_TRUE(absl::StrContains(text, "aten::linalg_eigvals.default  1  UNSUPPORTED")) << text;
  EXPECT_TRUE(absl::StrContains(text, std::string(translate::kUnsupportedOpsAdvice))) << text;
  EXPECT_TRUE(absl::StrContains(text, "s54  [0, int_oo]  x[0], m[0], out[0]")) << text;
  const std::string json = InspectionJson(info);
  EXPECT_TRUE(absl::StrContains(json, "\"supported\": false")) << json;
  EXPECT_TRUE(absl::StrContains(json, "\"firstNode\": \"inv\"")) << json;
}

TEST(InspectTest, NothingUnsupportedMeansNoAdvice) {
  pt2::LoadedProgram loaded;
  loaded.program = ProgramBuilder()
                       .Input("x", DataType::kFloat, {2})
                       .Node("torch.ops.aten.relu.default", {TensorArg("self", "x")},
                             {{"y", DataType::kFloat, {2}}})
                       .Output("y")
                       .Build();
  Inspection info = InspectProgram(loaded, {});
  EXPECT_TRUE(info.unsupported.empty());
  EXPECT_TRUE(info.symbols.empty());
  EXPECT_TRUE(absl::StrContains(InspectionJson(info), "\"advice\": null"));
  EXPECT_TRUE(absl::StrContains(InspectionText(info, "m.pt2"), "symbols: none (static shapes)"));
}

TEST(InspectTest, SupportIsCheckedAtTheRequestedOpset) {
  translate::OpRegistry registry;  // relu from opset 21 on, nothing else
  registry.Add("aten::relu.default", [](translate::TranslateContext&) { return absl::OkStatus(); }, 21);
  InspectOptions options;
  options.registry = &registry;
  options.opset = 20;
  EXPECT_FALSE(InspectProgram(Loaded(), options).ops[0].supported);
  options.opset = 21;
  Inspection info = InspectProgram(Loaded(), options);
  EXPECT_TRUE(info.ops[0].supported);
  EXPECT_EQ(info.opset, 21);
  ASSERT_EQ(info.unsupported.size(), 1u);
  EXPECT_EQ(info.unsupported[0].key, "aten::linalg_eigvals.default");
}

TEST(InspectTest, DynamicFixture) {
  absl::StatusOr<std::string> bytes = testing::ReadFixture("dynamic_batch_seq");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<Inspection> info = InspectPt2(std::make_shared<MemoryFile>(*bytes), {});
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(SymbolNames(*info), (std::vector<std::string>{"s54", "s27"}));
  EXPECT_EQ(RangeText(*info->symbols[0].range), "[0, 64]");
  EXPECT_EQ(RangeText(*info->symbols[1].range), "[0, 256]");
  EXPECT_EQ(info->layout, "PT2 archive");
  EXPECT_TRUE(absl::StartsWith(info->torch_version, "2.15.0"));
  ASSERT_EQ(info->weights.size(), 1u);
  EXPECT_EQ(info->weights[0].dtype, "float32");
  EXPECT_EQ(info->weights[0].count, 4);
  EXPECT_EQ(info->weights[0].bytes, info->weights[0].elements * 4);
  EXPECT_TRUE(info->unsupported.empty());
}

TEST(InspectTest, InvalidFilesFailLikeAConversion) {
  for (std::string bytes : {std::string("not a zip at all"), std::string("PK\x03\x04garbage", 12)}) {
    absl::StatusOr<Inspection> info = InspectPt2(std::make_shared<MemoryFile>(bytes), {});
    absl::StatusOr<Conversion> conversion = ConvertPt2(std::make_shared<MemoryFile>(bytes), {});
    ASSERT_FALSE(info.ok());
    ASSERT_FALSE(conversion.ok());
    EXPECT_EQ(info.status(), conversion.status());
  }
}

}  // namespace
}  // namespace pt2onnx
