// Constant folding of Transpose(weight of the input file): described as a
// TransposedSlice instead of computed, and written with the same bytes as the
// transpose computed in memory (the path other constants take).
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/io/byte_sink.h"
#include "core/ir/graph.h"
#include "core/ir/tensor.h"
#include "core/onnx/model_writer.h"
#include "gtest/gtest.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "tests/passes/ir_builders.h"

namespace pt2onnx::passes {
namespace {

std::string Pattern(size_t n) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 37 + 11) % 253);
  return bytes;
}

// y = Add(x, Transpose(w)) + z = Add(x2, Transpose<perm=[0,2,1]>(w3)); w and
// w3 either slices of `file` or the same bytes owned.
ir::Model TransposeModel(const std::shared_ptr<const InputFile>& file, bool from_file) {
  ir::Model m;
  m.opset_imports = {{"", 20}};
  ir::Graph& g = m.graph;
  auto value = [](std::string name, std::vector<int64_t> dims) {
    std::vector<ir::Dim> shape;
    for (int64_t d : dims) shape.push_back(ir::Dim::Static(d));
    return ir::ValueInfo{std::move(name), DataType::kFloat, shape, {}};
  };
  g.inputs = {value("x", {5, 3}), value("x2", {2, 4, 3})};
  g.outputs = {value("y", {5, 3}), value("z", {2, 4, 3})};
  auto weight = [&](std::vector<int64_t> dims, FileRange range) {
    if (from_file) return ir::Tensor::FromFile(DataType::kFloat, dims, FileSlice{file, range});
    absl::StatusOr<ByteSpan> bytes = file->Read(range);
    return ir::Tensor::Owned(DataType::kFloat, dims,
                             std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  };
  g.initializers.push_back({"w", weight({3, 5}, {16, 60}), {}});
  g.initializers.push_back({"w3", weight({2, 3, 4}, {76, 96}), {}});
  ir::Node t = testing::MakeNode("t", "Transpose", {"w"}, {"wt"});
  t.attributes.push_back(ir::Attribute::Ints("perm", {1, 0}));
  ir::Node t3 = testing::MakeNode("t3", "Transpose", {"w3"}, {"w3t"});
  t3.attributes.push_back(ir::Attribute::Ints("perm", {0, 2, 1}));
  g.nodes = {t, testing::MakeNode("add", "Add", {"x", "wt"}, {"y"}), t3,
             testing::MakeNode("add3", "Add", {"x2", "w3t"}, {"z"})};
  return m;
}

std::string Converted(ir::Model m, bool external) {
  PipelineOptions options;
  options.folding = FoldingLimits{4, 4};  // the weights are "large": folded only as a sole reader's layout
  absl::StatusOr<std::unique_ptr<Pass>> folding = CreatePass("constant_folding", options);
  EXPECT_TRUE(folding.ok());
  EXPECT_TRUE((*folding)->Run(m).ok());
  EXPECT_EQ(m.graph.nodes.size(), 2u);
  onnx_writer::WriteOptions write;
  write.external_data = external ? onnx_writer::WriteOptions::ExternalData::kAlways
                                 : onnx_writer::WriteOptions::ExternalData::kNever;
  write.min_external_bytes = 0;
  write.external_data_location = "m.onnx.data";
  StringSink model_sink, data_sink;
  EXPECT_TRUE(onnx_writer::WriteModel(m, write, model_sink, &data_sink).ok());
  return model_sink.data() + "|" + data_sink.data();
}

TEST(TransposeFoldingTest, AWeightOfTheFileIsTransposedWhenWrittenWithTheSameBytes) {
  auto file = std::make_shared<MemoryFile>(Pattern(16 + 60 + 96 + 8));
  ir::Model m = TransposeModel(file, /*from_file=*/true);
  PipelineOptions options;
  options.folding = FoldingLimits{4, 4};
  absl::StatusOr<std::unique_ptr<Pass>> folding = CreatePass("constant_folding", options);
  ASSERT_TRUE(folding.ok());
  ASSERT_TRUE((*folding)->Run(m).ok());
  int described = 0;
  for (const ir::Initializer& init : m.graph.initializers) {
    if (init.name == "wt" || init.name == "w3t") {
      ASSERT_NE(init.tensor.transposed_slice(), nullptr) << init.name;
      ++described;
    }
  }
  EXPECT_EQ(described, 2);
  for (bool external : {false, true}) {
    EXPECT_EQ(Converted(TransposeModel(file, true), external), Converted(TransposeModel(file, false), external));
  }
}

}  // namespace
}  // namespace pt2onnx::passes
