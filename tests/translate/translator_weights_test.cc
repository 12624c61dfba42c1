// Tests for ops/translator.cc's weights: the stored tensor must match the
// graph's placeholder; all-zero records and broadcast (stride-0) views are
// stored once and expanded by the model; copies are capped.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/io/input_file.h"
#include "core/pt2/schema.h"
#include "core/pt2/weights.h"
#include "gtest/gtest.h"
#include "ops/all_ops.h"
#include "translate/registry.h"
#include "translate/translator.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::translate {
namespace {

using testing::HasStatus;
using testing::ProgramBuilder;
using testing::TensorArg;

// relu(p_w) where p_w is the parameter "w" declared as float32 `sizes`.
pt2::ExportedProgram ReluOfParameter(std::vector<int64_t> sizes) {
  pt2::ExportedProgram p = ProgramBuilder()
                               .Input("p_w", DataType::kFloat, sizes)
                               .Node("torch.ops.aten.relu.default", {TensorArg("self", "p_w")},
                                     {{"relu", DataType::kFloat, sizes}})
                               .Output("relu")
                               .Build();
  p.signature.input_specs[0].kind = pt2::InputSpec::Kind::kParameter;
  p.signature.input_specs[0].target = "w";
  return p;
}

absl::StatusOr<ir::Model> Translate(const pt2::ExportedProgram& program,
                                    const pt2::WeightTable& weights,
                                    uint64_t limit = kMaterializeSlackBytes) {
  static const OpRegistry* const registry = new OpRegistry(ops::CreateDefaultRegistry());
  TranslateOptions options;
  options.max_materialized_bytes = limit;
  return TranslateProgram(program, weights, *registry, options);
}

pt2::Weight MakeWeight(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                       FileSlice storage = {}) {
  pt2::Weight w;
  w.name = "w";
  w.dtype = DataType::kFloat;
  w.sizes = std::move(sizes);
  w.strides = std::move(strides);
  w.storage = std::move(storage);
  return w;
}

bool HasOp(const ir::Model& model, const std::string& op) {
  for (const ir::Node& n : model.graph.nodes) {
    if (n.op_type == op) return true;
  }
  return false;
}

TEST(TranslatorWeightsTest, ZeroRecordClaimingTerabytesIsExpandedNotMaterialized) {
  const std::vector<int64_t> sizes = {1 << 20, 1 << 20};  // 4 TiB of float32
  pt2::WeightTable weights;
  ASSERT_TRUE(weights.Add(MakeWeight(sizes, {1 << 20, 1})).ok());
  absl::StatusOr<ir::Model> model = Translate(ReluOfParameter(sizes), weights);
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ(model->graph.initializers.size(), 1u);
  EXPECT_EQ(model->graph.initializers[0].name, "w");
  EXPECT_EQ(model->graph.initializers[0].tensor.numel(), 1);
  EXPECT_TRUE(HasOp(*model, "Expand"));
}

TEST(TranslatorWeightsTest, BroadcastViewIsStoredOnce) {
  auto file = std::make_shared<MemoryFile>(std::string(16, '\0'));
  FileSlice storage{file, FileRange{0, 16}};
  const std::vector<int64_t> sizes = {1 << 16, 4};  // stride 0 along dim 0
  pt2::WeightTable weights;
  ASSERT_TRUE(weights.Add(MakeWeight(sizes, {0, 1}, storage)).ok());
  absl::StatusOr<ir::Model> model = Translate(ReluOfParameter(sizes), weights);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->graph.initializers[0].tensor.numel(), 4);
  EXPECT_TRUE(HasOp(*model, "Expand"));
}

TEST(TranslatorWeightsTest, CopiesOverTheLimitAreRefused) {
  auto file = std::make_shared<MemoryFile>(std::string(64, '\0'));
  FileSlice storage{file, FileRange{0, 64}};
  const std::vector<int64_t> sizes = {4, 4};  // transposed: needs a 64-byte copy
  pt2::WeightTable weights;
  ASSERT_TRUE(weights.Add(MakeWeight(sizes, {1, 4}, storage)).ok());
  EXPECT_TRUE(Translate(ReluOfParameter(sizes), weights, 64).ok());
  EXPECT_TRUE(HasStatus(Translate(ReluOfParameter(sizes), weights, 63).status(),
                        absl::StatusCode::kResourceExhausted, "over the limit of 63 bytes"));
}

TEST(TranslatorWeightsTest, WeightsMustMatchTheGraphsMetadata) {
  pt2::WeightTable weights;
  ASSERT_TRUE(weights.Add(MakeWeight({4, 5}, {5, 1})).ok());
  EXPECT_TRUE(HasStatus(Translate(ReluOfParameter({4, 4}), weights).status(),
                        absl::StatusCode::kInvalidArgument,
                        "'w' is float32 [4, 5] but the graph declares 'p_w' as float32 [4, 4]"));
}

}  // namespace
}  // namespace pt2onnx::translate
