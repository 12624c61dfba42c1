// The fusions keep the source mapping: the fused node has the metadata of
// the pattern's last node (whose output keeps its name), completed with the
// first node's, so FX-node lookups (--verify-intermediates, model-explorer)
// still find it.
#include <string>

#include "core/ir/text.h"
#include "gtest/gtest.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

std::string MetadataValue(const ir::Metadata& metadata, const std::string& key) {
  for (const auto& [k, v] : metadata) {
    if (k == key) return v;
  }
  return "";
}

ir::Node* FindOutput(ir::Model& model, const std::string& out) {
  for (ir::Node& node : model.graph.nodes) {
    if (!node.outputs.empty() && node.outputs[0] == out) return &node;
  }
  return nullptr;
}

void RunOnly(ir::Model& model, const std::string& pass) {
  PipelineOptions options;
  options.verify = true;
  options.only = {pass};
  absl::StatusOr<Pipeline> pipeline = BuildPipeline(options);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  ASSERT_TRUE(RunPipeline(*pipeline, model, options).ok());
}

TEST(FusionMetadataTest, RmsNormKeepsTheLastNodesMetadataAndTheFirstsWhereMissing) {
  absl::StatusOr<ir::Model> model = ir::ParseModel(R"(opset 23
input x: float32[2, 4]
init axes: int64[1] = [-1]
init two: float32[] = [2]
init eps: float32[] = [1e-06]
init w: float32[4] = [1, 2, 3, 4]
sq = Pow(x, two)
ms = ReduceMean(sq, axes)
ve = Add(ms, eps)
std = Sqrt(ve)
r = Reciprocal(std)
n = Mul(x, r)
y = Mul(w, n)
output y: float32[2, 4]
)");
  ASSERT_TRUE(model.ok()) << model.status();
  FindOutput(*model, "sq")->metadata = {{"namespace", "norm: LlamaRMSNorm/pow"},
                                        {"pkg.torch.onnx.stack_trace", "first"}};
  FindOutput(*model, "y")->metadata = {{"namespace", "norm: LlamaRMSNorm/mul_1"},
                                       {"pkg.torch.onnx.fx_node", "mul_1"}};
  RunOnly(*model, "rms_norm_fusion");
  ir::Node* fused = FindOutput(*model, "y");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op_type, "RMSNormalization");
  EXPECT_EQ(MetadataValue(fused->metadata, "namespace"), "norm: LlamaRMSNorm/mul_1");
  EXPECT_EQ(MetadataValue(fused->metadata, "pkg.torch.onnx.fx_node"), "mul_1");
  EXPECT_EQ(MetadataValue(fused->metadata, "pkg.torch.onnx.stack_trace"), "first");
}

TEST(FusionMetadataTest, GeluKeepsTheFinalMulsMetadata) {
  absl::StatusOr<ir::Model> model = ir::ParseModel(R"(opset 20
input x: float32[2, 3]
init half: float32[] = [0.5]
init one: float32[] = [1]
init rsqrt2: float32[] = [0.70710678]
s = Mul(x, rsqrt2)
e = Erf(s)
p = Add(e, one)
hx = Mul(x, half)
y = Mul(hx, p)
output y: float32[2, 3]
)");
  ASSERT_TRUE(model.ok()) << model.status();
  FindOutput(*model, "e")->metadata = {{"pkg.torch.onnx.stack_trace", "erf"}};
  FindOutput(*model, "y")->metadata = {{"namespace", "mlp: GELU/mul_2"}};
  RunOnly(*model, "gelu_fusion");
  ir::Node* fused = FindOutput(*model, "y");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op_type, "Gelu");
  EXPECT_EQ(MetadataValue(fused->metadata, "namespace"), "mlp: GELU/mul_2");
  EXPECT_EQ(MetadataValue(fused->metadata, "pkg.torch.onnx.stack_trace"), "erf");
}

TEST(FusionMetadataTest, AttentionAndItsGuardKeepTheFinalMatMulsMetadata) {
  absl::StatusOr<ir::Model> model = ir::ParseModel(R"(opset 23
input q: float32[1, 2, 3, 4]
input k: float32[1, 2, 3, 4]
input v: float32[1, 2, 3, 4]
input m: bool[1, 1, 3, 3]
init c: float32[] = [0.70710677]
init ninf: float32[] = [-inf]
init axes: int64[1] = [-1]
init zero: float32[] = [0]
kt = Transpose<perm=[0, 1, 3, 2]>(k)
qs = Mul(q, c)
ks = Mul(kt, c)
s = MatMul(qs, ks)
sm = Where(m, s, ninf)
w = Softmax<axis=-1>(sm)
inf = IsInf<detect_positive=0>(sm)
ii = Cast<to=6>(inf)
rm = ReduceMin<keepdims=1>(ii, axes)
row = Cast<to=9>(rm)
ws = Where(row, zero, w)
y = MatMul(ws, v)
output y: float32[1, 2, 3, 4]
)");
  ASSERT_TRUE(model.ok()) << model.status();
  FindOutput(*model, "qs")->metadata = {{"pkg.torch.onnx.stack_trace", "sdpa"}};
  FindOutput(*model, "y")->metadata = {{"namespace", "attn: LlamaAttention/scaled_dot_product_attention"},
                                       {"pkg.torch.onnx.fx_node", "scaled_dot_product_attention"}};
  RunOnly(*model, "attention_fusion");
  int attention = 0;
  for (const ir::Node& node : model->graph.nodes) {
    attention += node.op_type == "Attention";
    EXPECT_EQ(MetadataValue(node.metadata, "pkg.torch.onnx.fx_node"), "scaled_dot_product_attention") << node.op_type;
    EXPECT_EQ(MetadataValue(node.metadata, "namespace"), "attn: LlamaAttention/scaled_dot_product_attention");
    EXPECT_EQ(MetadataValue(node.metadata, "pkg.torch.onnx.stack_trace"), "sdpa");
  }
  EXPECT_EQ(attention, 1);
  ir::Node* fused = FindOutput(*model, "y");
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->op_type, "Where");
}

TEST(FusionMetadataTest, RotaryEmbeddingKeepsTheAddsMetadataAndItsCachesTheCosSins) {
  absl::StatusOr<ir::Model> model = ir::ParseModel(R"(opset 23
input x: float32[2, 2, 3, 4]
input f: float32[2, 3, 2]
init one: int64[1] = [1]
init z: int64[1] = [0]
init half: int64[1] = [2]
init big: int64[1] = [1000]
init ax: int64[1] = [3]
cat = Concat<axis=2>(f, f)
c = Cos(cat)
sn = Sin(cat)
cu = Unsqueeze(c, one)
su = Unsqueeze(sn, one)
xc = Mul(x, cu)
x1 = Slice(x, z, half, ax)
x2 = Slice(x, half, big, ax)
nx = Neg(x2)
r = Concat<axis=3>(nx, x1)
rs = Mul(r, su)
y = Add(xc, rs)
info cat: float32[2, 3, 4]
info c: float32[2, 3, 4]
info sn: float32[2, 3, 4]
output y: float32[2, 2, 3, 4]
)");
  ASSERT_TRUE(model.ok()) << model.status();
  FindOutput(*model, "c")->metadata = {{"pkg.torch.onnx.fx_node", "cos"}};
  FindOutput(*model, "sn")->metadata = {{"pkg.torch.onnx.fx_node", "sin"}};
  FindOutput(*model, "xc")->metadata = {{"pkg.torch.onnx.stack_trace", "apply_rotary_pos_emb"}};
  FindOutput(*model, "y")->metadata = {{"pkg.torch.onnx.fx_node", "add_4"}};
  RunOnly(*model, "rotary_embedding_fusion");
  int checked = 0;
  for (const ir::Node& node : model->graph.nodes) {
    if (node.op_type == "RotaryEmbedding") {
      EXPECT_EQ(node.outputs[0], "y");
      EXPECT_EQ(MetadataValue(node.metadata, "pkg.torch.onnx.fx_node"), "add_4");
      EXPECT_EQ(MetadataValue(node.metadata, "pkg.torch.onnx.stack_trace"), "apply_rotary_pos_emb");
      ++checked;
    } else if (node.inputs.size() == 1 && node.inputs[0] == "f") {
      EXPECT_EQ(MetadataValue(node.metadata, "pkg.torch.onnx.fx_node"), node.op_type == "Cos" ? "cos" : "sin");
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3);
}

}  // namespace
}  // namespace pt2onnx::passes
