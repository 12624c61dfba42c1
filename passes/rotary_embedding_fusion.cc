// rotary_embedding_fusion: the rotate-half rotary embedding of
// Llama/Qwen2/Mistral/Phi/Phi3/Gemma (HF's apply_rotary_pos_emb) becomes
// RotaryEmbedding (opset >= 23):
//   y = x * Unsqueeze(cos, 1) + Concat(-x[..., h:], x[..., :h]) * Unsqueeze(sin, 1)
// with x (B, H, S, 2h) and cos/sin (B or 1, S, 2h) computed as
//   cos = Cos(Concat(f, f, -1)) [* a],   sin = Sin(Concat(f, f, -1)) [* a]
// (a: HF's attention_scaling constant). Both halves of such a cos/sin are
// equal, so RotaryEmbedding's caches are Cos(f) [* a] and Sin(f) [* a],
// (B, S, h); a cache of batch 1 is expanded to x's batch. Per element the
// fused op computes c*x1 - s*x2 and s*x1 + c*x2, the pattern's products
// and sums in another order: the same float32 results.
//
// Rules: x is float32 with declared dims (B, H, S, 2h); cos and sin
// float32 (B or 1, S, 2h) with x's S (and B unless 1); the slices split the
// last axis at h with step 1; the per-x nodes are read only inside the
// pattern. A partial rotary (Phi: rotate x[..., :r], keep the rest) fuses
// on its rotated slice. The caches are built once per cos/sin pair, before
// the first fused node; the old cos/sin chain goes when nothing reads it.
// The Add's output keeps its name and metadata.
// Non-rules: opset < 23, halves that are not the same f, a slice at
// another point than the middle, interleaved (GPT-J) rotations, a cos/sin
// of another batch or length, intermediates read elsewhere.
#include <cstdint>
#include <map>
#include <utility>

#include "passes/attention_match.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

std::optional<Dims> FloatDims(const ValueIndex& index, const std::string& value, size_t rank) {
  const ir::ValueInfo* info = index.Info(value);
  if (info == nullptr || info->dtype != DataType::kFloat || !info->shape || info->shape->size() != rank) {
    return std::nullopt;
  }
  return *info->shape;
}

// x[..., begin:end] along the last axis of rank-4 x, step 1: returns x.
// `end_at_least` accepts any end >= it (Python's x[..., h:]).
std::string LastAxisSlice(FusionMatch& match, const std::string& value, int64_t begin, int64_t end,
                          bool end_at_least) {
  const ir::Node* slice = match.Take(value, "Slice");
  if (slice == nullptr || slice->inputs.size() < 4 || slice->inputs.size() > 5) return "";
  const ValueIndex& index = match.index();
  std::optional<std::vector<int64_t>> starts = ConstantInts(index.Constant(slice->inputs[1]));
  std::optional<std::vector<int64_t>> ends = ConstantInts(index.Constant(slice->inputs[2]));
  std::optional<std::vector<int64_t>> axes = ConstantInts(index.Constant(slice->inputs[3]));
  if (!starts || !ends || !axes || starts->size() != 1 || ends->size() != 1 || axes->size() != 1) return "";
  if ((*axes)[0] != 3 && (*axes)[0] != -1) return "";
  if (slice->inputs.size() == 5) {
    std::optional<std::vector<int64_t>> steps = ConstantInts(index.Constant(slice->inputs[4]));
    if (!steps || *steps != std::vector<int64_t>{1}) return "";
  }
  if ((*starts)[0] != begin) return "";
  if (end_at_least ? (*ends)[0] < end : (*ends)[0] != end) return "";
  return slice->inputs[0];
}

// Unsqueeze(v, [1]) of a rank-3 v: v.
std::string UnsqueezedHeads(FusionMatch& match, const std::string& value) {
  const ir::Node* unsqueeze = match.editor().Producer(value);
  if (unsqueeze == nullptr || !IsOp(*unsqueeze, "Unsqueeze") || unsqueeze->inputs.size() != 2) return "";
  std::optional<std::vector<int64_t>> axes = ConstantInts(match.index().Constant(unsqueeze->inputs[1]));
  if (!axes || *axes != std::vector<int64_t>{1}) return "";
  return unsqueeze->inputs[0];
}

// cos/sin = Trig(Concat(f, f, last axis)) [* a]: f, the trig op and a ("" if none).
struct HalfCache {
  std::string f, scale;
  bool is_one = false;
  const ir::Node* origin = nullptr;
};
std::optional<HalfCache> MatchHalfCache(const FusionMatch& match, const ir::GraphEditor& editor,
                                        const std::string& value, const char* trig) {
  HalfCache cache;
  const ir::Node* node = editor.Producer(value);
  if (node != nullptr && IsOp(*node, "Mul") && node->inputs.size() == 2) {
    int side = match.Scalar(node->inputs[1], 3) ? 1 : 0;
    if (!match.Scalar(node->inputs[side], 3)) return std::nullopt;
    cache.scale = node->inputs[side];
    cache.is_one = *match.Scalar(cache.scale, 3) == 1.0;
    node = editor.Producer(node->inputs[1 - side]);
  }
  if (node == nullptr || !IsOp(*node, trig) || node->inputs.size() != 1) return std::nullopt;
  cache.origin = node;
  const ir::Node* concat = editor.Producer(node->inputs[0]);
  if (concat == nullptr || !IsOp(*concat, "Concat") || concat->inputs.size() != 2 ||
      concat->inputs[0] != concat->inputs[1]) {
    return std::nullopt;
  }
  const int64_t axis = IntAttribute(*concat, "axis", 0);
  if (axis != 2 && axis != -1) return std::nullopt;
  cache.f = concat->inputs[0];
  return cache;
}

// The caches made for one cos/sin pair (and, when expanded, the batch dim).
struct Caches {
  std::string cos, sin;
  ir::Dim batch;
};

class RotaryEmbeddingFusionPass : public Pass {
 public:
  std::string Name() const override { return "rotary_embedding_fusion"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    std::map<std::pair<std::string, std::string>, Caches> caches;
    return RunFusion(model, 23, [&caches](ir::GraphEditor& editor, const ValueIndex& index, size_t i) {
      FuseAt(editor, index, i, caches);
    });
  }

 private:
  static void FuseAt(ir::GraphEditor& editor, const ValueIndex& index, size_t i,
                     std::map<std::pair<std::string, std::string>, Caches>& caches) {
    const ir::Node& root = editor.graph().nodes[i];
    if (!IsOp(root, "Add") || root.inputs.size() != 2 || root.outputs.size() != 1) return;
    for (int side = 0; side < 2; ++side) {
      FusionMatch match(editor, index);
      match.TakeIndex(i);
      const ir::Node* cos_mul = match.Take(root.inputs[side], "Mul");
      const ir::Node* sin_mul = match.Take(root.inputs[1 - side], "Mul");
      if (cos_mul == nullptr || sin_mul == nullptr || cos_mul->inputs.size() != 2 || sin_mul->inputs.size() != 2) {
        continue;
      }
      // sin side: Mul(rotated, Unsqueeze(sin)) in either order.
      std::string rotated, sin_u;
      const ir::Node* concat = nullptr;
      for (int s = 0; s < 2 && concat == nullptr; ++s) {
        FusionMatch probe = match;
        concat = probe.Take(sin_mul->inputs[s], "Concat");
        if (concat == nullptr) continue;
        match = probe;
        sin_u = sin_mul->inputs[1 - s];
      }
      if (concat == nullptr || concat->inputs.size() != 2) continue;
      const int64_t cat_axis = IntAttribute(*concat, "axis", 0);
      if (cat_axis != 3 && cat_axis != -1) continue;
      const ir::Node* neg = match.Take(concat->inputs[0], "Neg");
      if (neg == nullptr) continue;
      // x: the cos side's other operand.
      std::string cos_u;
      std::string x;
      for (int s = 0; s < 2 && x.empty(); ++s) {
        if (UnsqueezedHeads(match, cos_mul->inputs[s]).empty()) continue;
        cos_u = cos_mul->inputs[s];
        x = cos_mul->inputs[1 - s];
      }
      if (x.empty()) continue;
      std::optional<Dims> x_dims = FloatDims(index, x, 4);
      if (!x_dims || !(*x_dims)[3].is_static()) continue;
      const int64_t d = (*x_dims)[3].value;
      if (d <= 0 || d % 2 != 0) continue;
      const int64_t h = d / 2;
      if (LastAxisSlice(match, neg->inputs[0], h, d, true) != x ||
          LastAxisSlice(match, concat->inputs[1], 0, h, false) != x) {
        continue;
      }
      const std::string cos_v = UnsqueezedHeads(match, cos_u);
      const std::string sin_v = UnsqueezedHeads(match, sin_u);
      if (sin_v.empty()) continue;
      std::optional<HalfCache> cos_half = MatchHalfCache(match, editor, cos_v, "Cos");
      std::optional<HalfCache> sin_half = MatchHalfCache(match, editor, sin_v, "Sin");
      if (!cos_half || !sin_half) continue;
      std::optional<Dims> cos_dims = FloatDims(index, cos_v, 3);
      std::optional<Dims> sin_dims = FloatDims(index, sin_v, 3);
      std::optional<Dims> f_dims = FloatDims(index, cos_half->f, 3);
      std::optional<Dims> g_dims = FloatDims(index, sin_half->f, 3);
      if (!cos_dims || !sin_dims || !f_dims || !g_dims) continue;
      bool shapes_ok = true;
      for (const Dims* c : {&*cos_dims, &*sin_dims}) {
        shapes_ok = shapes_ok && SameDim((*c)[1], (*x_dims)[2]) && SameDim((*c)[2], (*x_dims)[3]);
      }
      for (const Dims* f : {&*f_dims, &*g_dims}) {
        shapes_ok = shapes_ok && SameDim((*f)[0], (*cos_dims)[0]) && SameDim((*f)[1], (*x_dims)[2]) &&
                    (*f)[2].is_static() && (*f)[2].value == h;
      }
      if (!shapes_ok || !SameDim((*cos_dims)[0], (*sin_dims)[0])) continue;
      const bool expand_batch = !SameDim((*cos_dims)[0], (*x_dims)[0]);
      if (expand_batch && !((*cos_dims)[0].is_static() && (*cos_dims)[0].value == 1)) continue;
      const std::string& result = root.outputs[0];
      if (!match.Contained(result)) continue;

      auto key = std::make_pair(cos_v + (expand_batch ? "@expanded" : ""), sin_v);
      auto it = caches.find(key);
      if (it != caches.end() && expand_batch && !SameDim(it->second.batch, (*x_dims)[0])) continue;
      if (it == caches.end()) {
        // Built once, before this first fused node, with the metadata of the cos/sin nodes.
        std::vector<ir::Node> cos_nodes, sin_nodes;
        Caches made{HalfNodes(editor, *cos_half, "Cos", cos_v, cos_nodes),
                    HalfNodes(editor, *sin_half, "Sin", sin_v, sin_nodes),
                    (*x_dims)[0]};
        if (expand_batch) {
          // (1, S, h) -> (B, S, h): Expand to [B, 1, 1].
          std::string batch = Add(editor, cos_nodes, "Shape", {x},
                                  {ir::Attribute::Int("start", 0), ir::Attribute::Int("end", 1)}, x + "_batch");
          ir::Initializer ones;
          ones.name = editor.FreshName("rotary_ones");
          ones.tensor = ir::Tensor::Int64s({2}, {1, 1});
          const std::string ones_name = ones.name;
          editor.AddInitializer(std::move(ones));
          std::string shape = Add(editor, cos_nodes, "Concat", {batch, ones_name}, {ir::Attribute::Int("axis", 0)},
                                  "rotary_cache_shape");
          made.cos = Add(editor, cos_nodes, "Expand", {made.cos, shape}, {}, cos_v + "_cache");
          made.sin = Add(editor, sin_nodes, "Expand", {made.sin, shape}, {}, sin_v + "_cache");
        }
        for (ir::Node& node : cos_nodes) {
          node.metadata = cos_half->origin->metadata;
          editor.InsertBefore(i, std::move(node));
        }
        for (ir::Node& node : sin_nodes) {
          node.metadata = sin_half->origin->metadata;
          editor.InsertBefore(i, std::move(node));
        }
        it = caches.emplace(key, made).first;
      }
      ir::Node rotary;
      rotary.op_type = "RotaryEmbedding";
      rotary.inputs = {x, it->second.cos, it->second.sin};
      rotary.outputs = {result};
      match.Replace(i, std::move(rotary), *cos_mul);
      return;
    }
  }

  static std::string Add(ir::GraphEditor& editor, std::vector<ir::Node>& nodes, const char* op,
                         std::vector<std::string> inputs, std::vector<ir::Attribute> attributes,
                         const std::string& hint) {
    ir::Node node;
    node.op_type = op;
    node.name = editor.FreshName(hint);
    node.inputs = std::move(inputs);
    node.outputs = {editor.FreshName(hint)};
    node.attributes = std::move(attributes);
    nodes.push_back(std::move(node));
    return nodes.back().outputs[0];
  }

  // Trig(f) [* a]: one half of the cos/sin cache.
  static std::string HalfNodes(ir::GraphEditor& editor, const HalfCache& half, const char* trig,
                               const std::string& full, std::vector<ir::Node>& nodes) {
    std::string value = Add(editor, nodes, trig, {half.f}, {}, full + "_cache");
    // A scaling of exactly 1 (HF's default attention_scaling) changes no value.
    if (!half.scale.empty() && !half.is_one) value = Add(editor, nodes, "Mul", {value, half.scale}, {}, full + "_cache");
    return value;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateRotaryEmbeddingFusionPass(const PipelineOptions&) { return std::make_unique<RotaryEmbeddingFusionPass>(); }

}  // namespace pt2onnx::passes
