// attention_fusion: decomposed scaled dot-product attention becomes
// Attention (opset >= 23), in the form ops/attention.cc translates
// aten::scaled_dot_product_attention to:
//   scores = MatMul(Mul(q, c), Mul(Transpose(k, swap last two), c))
//   scores = Where(bool_mask, scores, -inf)  or  Add(scores, float_mask)  (optional;
//            is_causal's Cast<bool>(Trilu<upper=0>(Expand(1, [L, S]))) becomes
//            is_causal=1 when L == S, and stays the mask otherwise)
//   w = Softmax(scores, -1)
//   w = Where(row_all_neg_inf(scores), 0, w)   (torch's _safe_softmax; with a mask)
//   out = MatMul(w, v)
// where k and v may be Hk heads repeated to Hq as HF's repeat_kv and
// enable_gqa do it: Reshape(Expand(Unsqueeze(kv, 2), [B, Hk, G, S, E]),
// [B, Hk*G, S, E]); Attention shares each key/value head among consecutive
// query heads the same way. A Transpose composed into k's by
// transpose_elimination is split back out.
//
// Rules: q, k, v are float32 rank-4 values with declared shapes whose batch,
// head, length and head-size dims agree (equal static sizes or the same
// symbol), Hq a multiple of Hk; c is one float32 constant and scale = c*c
// (the Attention scales q and k by sqrt(scale) = c, as the pattern does);
// the mask is bool or float32 of rank 2..4 whose dims are 1 or those of
// (B, Hq, L, S). torch gives 0 for a row whose every key is masked: the
// pattern's guard is recomputed from the mask alone (the Attention output is
// kept where a row has a key left), so runtimes implementing either reading
// of Attention-23 (NaN or 0 for such rows) give torch's numbers. Without a
// guard, a mask is fused only when it is a constant with a key left in every
// row. The last MatMul's output keeps its name and metadata.
// From opset 24 the same form is written: Attention-24 also takes a mask
// with is_causal=1, but torch's SDPA never carries both (a combined causal
// and padding mask is one mask, fused whole with the same numbers), and its
// nonpad_kv_seqlen is used by --kv-cache static (static_kv_cache.h), where a
// cache's filled length is known.
// Non-rules: opset < 23, different constants on q and k, a symbolic scale,
// a mask that would broadcast q/k, head counts that do not divide, any
// intermediate (scores, softmax, repeated k/v) read elsewhere.
// Known difference: a row whose unmasked scores all overflow to -inf gives
// 0 in torch and NaN in a runtime that does not zero such rows itself.
#include <cmath>

#include "passes/attention_match.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

class AttentionFusionPass : public Pass {
 public:
  std::string Name() const override { return "attention_fusion"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override { return RunFusion(model, 23, FuseAt); }

 private:
  static void FuseAt(ir::GraphEditor& editor, const ValueIndex& index, size_t i) {
    const ir::Node& root = editor.graph().nodes[i];
    if (!(IsOp(root, "MatMul") || IsOp(root, "Reshape")) || root.inputs.size() != 2 || root.outputs.size() != 1) {
      return;
    }
    FusionMatch match(editor, index);
    match.TakeIndex(i);
    std::optional<std::pair<std::string, std::string>> output = TakeMatMul4d(match, root.outputs[0]);
    if (!output) return;
    std::string weights = output->first;
    const std::string v_in = output->second;
    std::optional<Guard> guard;
    {
      FusionMatch probe = match;
      if (const ir::Node* where = probe.Take(weights, "Where")) {
        guard = MatchGuard(probe, *where);
        // Folded full-size zeros have the scores' dims, not the output's.
        if (!guard || !IsZero(index, guard->zero)) return;
        weights = where->inputs[2];
        match = probe;
      }
    }
    const ir::Node* softmax = match.Take(weights, "Softmax");
    // Axis 3 is the last: the scores are rank 4 (q is checked below).
    const int64_t softmax_axis = softmax == nullptr ? 0 : IntAttribute(*softmax, "axis", -1);
    if (softmax == nullptr || (softmax_axis != -1 && softmax_axis != 3)) return;
    const std::string& scores = softmax->inputs[0];
    if (guard && guard->scores != scores) return;

    // Optional mask: Where(bool, qk, -inf) or Add(qk, float).
    std::string qk = scores, mask;
    bool bool_mask = false;
    {
      FusionMatch probe = match;
      if (const ir::Node* where = probe.Take(scores, "Where")) {
        if (where->inputs.size() != 3 || !IsNegInf(index, where->inputs[2])) return;
        mask = where->inputs[0];
        qk = where->inputs[1];
        bool_mask = true;
        match = probe;
      } else if (const ir::Node* add = probe.Take(scores, "Add")) {
        if (add->inputs.size() != 2) return;
        FusionMatch side_probe = probe;
        const int side = TakeMatMul4d(side_probe, add->inputs[0]) ? 0 : 1;
        qk = add->inputs[side];
        mask = add->inputs[1 - side];
        match = probe;
      }
    }
    if (guard && mask.empty()) return;

    std::optional<std::pair<std::string, std::string>> product = TakeMatMul4d(match, qk);
    if (!product) return;
    const ir::Node* q_mul = match.Take(product->first, "Mul");
    const ir::Node* k_mul = match.Take(product->second, "Mul");
    if (q_mul == nullptr || k_mul == nullptr || q_mul->inputs.size() != 2 || k_mul->inputs.size() != 2) return;
    int q_side = index.Constant(q_mul->inputs[1]) != nullptr ? 0 : 1;
    int k_side = index.Constant(k_mul->inputs[1]) != nullptr ? 0 : 1;
    std::optional<double> c_q = match.Scalar(q_mul->inputs[1 - q_side], 4);
    std::optional<double> c_k = match.Scalar(k_mul->inputs[1 - k_side], 4);
    if (!c_q || !c_k || *c_q != *c_k || *c_q <= 0) return;
    const float c = static_cast<float>(*c_q);
    const float scale = c * c;
    if (!std::isfinite(scale) || scale <= 0 || std::sqrt(scale) != c) return;
    const std::string q = q_mul->inputs[q_side];
    const ir::Node* k_t = match.Take(k_mul->inputs[k_side], "Transpose");
    if (k_t == nullptr) return;
    const ir::Attribute* perm_attr = k_t->FindAttribute("perm");
    if (perm_attr == nullptr || perm_attr->type() != ir::Attribute::Type::kInts || perm_attr->ints().size() != 4) return;
    // k = Transpose(x, k_perm) with kT = swap of k's last two dims.
    const std::vector<int64_t>& p = perm_attr->ints();
    std::vector<int64_t> k_perm = {p[0], p[1], p[3], p[2]};
    const bool k_is_x = k_perm == std::vector<int64_t>{0, 1, 2, 3};
    const std::string& x = k_t->inputs[0];

    std::optional<Dims> q_dims = Float4d(index, q);
    std::optional<Dims> x_dims = QkvDims(index, editor, x);
    if (!q_dims || !x_dims) return;
    std::string k = x;
    Dims k_dims(4);
    for (size_t d = 0; d < 4; ++d) {
      if (k_perm[d] < 0 || k_perm[d] > 3) return;
      k_dims[d] = (*x_dims)[k_perm[d]];
    }
    // The MatMuls read q, k and v with Hq heads each; Attention may read the
    // Hk-head values they were repeated from.
    std::string v = v_in;
    std::optional<Dims> v_dims = QkvDims(index, editor, v);
    std::optional<Dims> out_dims = Float4d(index, root.outputs[0]);
    if (!v_dims || !out_dims || !SameDim((*q_dims)[1], k_dims[1]) || !SameDim((*q_dims)[1], (*v_dims)[1])) return;
    const Dims k_pre_dims = k_dims;
    {
      // Both k and v read from their Hk heads, or neither.
      FusionMatch stripped = match;
      const std::string k_kv = k_is_x ? StripHeadRepeat(stripped, k) : k;
      const std::string v_kv = StripHeadRepeat(stripped, v);
      if ((k_kv != k) == (v_kv != v)) {
        match = stripped;
        k = k_kv;
        v = v_kv;
      }
    }
    if (k != x) {
      std::optional<Dims> d = QkvDims(index, editor, k);
      if (!d) return;
      k_dims = *d;
    }
    v_dims = QkvDims(index, editor, v);
    if (!v_dims) return;
    const Dims& qd = *q_dims;
    const Dims& kd = k_dims;
    const Dims& vd = *v_dims;
    // Equal batch; Hq a multiple of Hk = Hv; E of q and k; S of k and v.
    if (!SameDim(qd[0], kd[0]) || !SameDim(qd[0], vd[0]) || !SameDim(kd[1], vd[1]) ||
        !SameDim(qd[3], kd[3]) || !SameDim(kd[2], vd[2])) {
      return;
    }
    if (!SameDim(qd[1], kd[1])) {
      if (!qd[1].is_static() || !kd[1].is_static() || kd[1].value <= 0 || qd[1].value % kd[1].value != 0) return;
    }
    if (!SameDim((*out_dims)[0], qd[0]) || !SameDim((*out_dims)[1], qd[1]) || !SameDim((*out_dims)[2], qd[2]) ||
        !SameDim((*out_dims)[3], vd[3])) {
      return;
    }
    bool causal = false, causal_mask = false;
    if (bool_mask && !guard) {
      // is_causal=True's mask; Attention's is_causal when L == S (where
      // every reading of its alignment agrees), else the mask itself.
      auto dim_of = [&](const std::string& t, int64_t axis) -> std::optional<ir::Dim> {
        if (t == q) return qd[axis];
        if (t == x) return (*x_dims)[axis];
        std::optional<Dims> d = Float4d(index, t);
        if (!d) return std::nullopt;
        return (*d)[axis];
      };
      FusionMatch probe = match;
      std::optional<std::pair<ir::Dim, ir::Dim>> size = MatchCausalMask(probe, mask, dim_of);
      if (size && SameDim(size->first, qd[2]) && SameDim(size->second, k_pre_dims[2])) {
        if (SameDim(qd[2], kd[2])) {
          causal = true;
          match = probe;
          mask.clear();
        } else {
          // A (L, S) lower triangle keeps key 0 in every row.
          causal_mask = true;
        }
      }
    }
    if (!mask.empty() && !causal_mask) {
      const Dims full = {qd[0], qd[1], qd[2], kd[2]};
      if (!MaskBroadcasts(index, mask, bool_mask ? DataType::kBool : DataType::kFloat, full)) return;
      if (!guard && !ConstantMaskKeepsEveryRow(index.Constant(mask), bool_mask)) return;
    }
    const std::string& result = root.outputs[0];
    if (!match.Contained(result)) return;

    std::vector<ir::Node> nodes;
    if (!k_is_x) {
      ir::Node transpose;
      transpose.op_type = "Transpose";
      transpose.name = editor.FreshName(root.name + "_key");
      transpose.inputs = {x};
      k = editor.FreshName(x + "_key");
      transpose.outputs = {k};
      transpose.attributes = {ir::Attribute::Ints("perm", k_perm)};
      nodes.push_back(std::move(transpose));
    }
    ir::Node attention;
    attention.op_type = "Attention";
    attention.inputs = {q, k, v};
    if (!mask.empty()) attention.inputs.push_back(mask);
    attention.attributes = {ir::Attribute::Float("scale", scale)};
    if (causal) attention.attributes.push_back(ir::Attribute::Int("is_causal", 1));
    if (!guard) {
      attention.outputs = {result};
      nodes.push_back(std::move(attention));
    } else {
      attention.name = editor.FreshName(root.name + "_attention");
      const std::string attended = editor.FreshName(result + "_attention");
      attention.outputs = {attended};
      nodes.push_back(std::move(attention));
      AppendGuard(editor, *guard, mask, bool_mask, attended, result, root.name, nodes);
    }
    match.Replace(i, std::move(nodes), *q_mul);
  }

  // Zeroes the rows of `attended` whose every key the mask removes, as
  // torch's guard did from the scores: keep = any(mask) for a bool mask,
  // masked = all(mask == -inf) for a float one, along the last axis.
  static void AppendGuard(ir::GraphEditor& editor, const Guard& guard, const std::string& mask, bool bool_mask,
                          const std::string& attended, const std::string& result, const std::string& name,
                          std::vector<ir::Node>& nodes) {
    auto add = [&](const char* op, std::vector<std::string> inputs, std::vector<ir::Attribute> attributes) {
      ir::Node node;
      node.op_type = op;
      node.name = editor.FreshName(name + "_guard");
      node.inputs = std::move(inputs);
      node.outputs = {editor.FreshName(mask + "_row")};
      node.attributes = std::move(attributes);
      nodes.push_back(std::move(node));
      return nodes.back().outputs[0];
    };
    std::string axes = GuardAxesOrLast(guard, editor, "attention_last_axis");
    // Opset >= 23 here: ReduceMax/ReduceMin take the bool directly (any / all).
    std::string row;
    if (bool_mask) {
      row = add("ReduceMax", {mask, axes}, {ir::Attribute::Int("keepdims", 1)});
    } else {
      std::string neg_inf = add("IsInf", {mask}, {ir::Attribute::Int("detect_positive", 0)});
      row = add("ReduceMin", {neg_inf, axes}, {ir::Attribute::Int("keepdims", 1)});
    }
    ir::Node where;
    where.op_type = "Where";
    where.inputs = bool_mask ? std::vector<std::string>{row, attended, guard.zero}
                             : std::vector<std::string>{row, guard.zero, attended};
    where.outputs = {result};
    nodes.push_back(std::move(where));
  }
};

}  // namespace

std::unique_ptr<Pass> CreateAttentionFusionPass(const PipelineOptions&) { return std::make_unique<AttentionFusionPass>(); }

}  // namespace pt2onnx::passes
