// File: runtime/plan/qdq_int8.cc
// -----------------------------------------------------------------------------
// QdqToInt8 (plan/qdq_int8.h): match -> guard -> rewrite, one walk over the
// nodes in order. A matched node becomes an int8 step at its own position;
// the Relu/Clip/MaxPool/Add/Q it absorbs are skipped when the walk reaches
// them; DequantizeLinear/Transpose/shift nodes left unread are dropped at the
// end. The elementwise steps are matched in qdq_int8_elementwise.cc.
#include "runtime/plan/qdq_int8.h"

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/tensor/convert.h"
#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/control_flow.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/plan/nhwc_layout.h"
#include "runtime/plan/qdq_int8_rewriter.h"

namespace pt2onnx::runtime {
namespace qdq {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};
const std::vector<int64_t> kToNchw = {0, 3, 1, 2};

bool PositiveNormal(float s) { return std::isnormal(s) && s > 0; }

ir::Node Shift(const char* op_type, const std::string& in, const std::string& out) {
  ir::Node node;
  node.name = out + "::shift";
  node.op_type = op_type;
  node.domain = kRuntimeDomain;
  node.inputs = {in};
  node.outputs = {out};
  return node;
}

bool SameParams(const QParams& a, const QParams& b) { return a.scale == b.scale && a.zero == b.zero && a.u8 == b.u8; }

constexpr int kMaxPoolDepth = 8;  // MaxPools of MaxPools a shared chain follows

}  // namespace

ir::Node Plain(const char* op_type, std::vector<std::string> inputs, const std::string& out) {
  ir::Node node;
  node.name = out + "::" + op_type;
  node.op_type = op_type;
  node.inputs = std::move(inputs);
  node.outputs = {out};
  return node;
}

int32_t QuantizeValue(float v, const QParams& q) {
  if (v == -kInf) return -128;
  if (v == kInf) return 127;
  const float r = std::nearbyint(v / q.scale) + static_cast<float>(q.zero);
  return static_cast<int32_t>(std::fmin(127.0f, std::fmax(-128.0f, r)));
}

Rewriter::Rewriter(const ir::Graph& graph)
    : in_(graph), uses_(ir::BuildUseMap(graph)), float_output_(Int8FloatOutputAvailable()) {
  for (const ir::Initializer& init : graph.initializers) inits_[init.name] = &init;
  for (const ir::ValueInfo& out : graph.outputs) outputs_.insert(out.name);
}

std::optional<Tensor> Rewriter::Const(const std::string& name) const {
  auto it = inits_.find(name);
  if (it == inits_.end()) return std::nullopt;
  absl::StatusOr<Tensor> t = FromIrTensor(it->second->tensor);
  return t.ok() ? std::optional<Tensor>(std::move(*t)) : std::nullopt;
}

const ir::Node* Rewriter::Producer(const std::string& name) const {
  auto it = uses_.producer.find(name);
  return it == uses_.producer.end() ? nullptr : &in_.nodes[it->second];
}

std::optional<size_t> Rewriter::SoleReader(const std::string& value, bool any_input) const {
  auto it = uses_.consumers.find(value);
  if (it == uses_.consumers.end() || it->second.size() != 1 || outputs_.count(value)) return std::nullopt;
  const ir::Node& r = in_.nodes[it->second[0]];
  if (!r.domain.empty() || r.outputs.size() < 1 || r.inputs.empty()) return std::nullopt;
  if (!any_input && r.inputs[0] != value) return std::nullopt;
  return it->second[0];
}

bool Rewriter::RequantizationOk(const QParams& x, const Weight& w, const QParams& y) const {
  for (float s : w.scales) {
    if (!PositiveNormal(s) || !(x.scale * s / y.scale < 256.0f)) return false;  // XNNPACK's limit
  }
  return true;
}

void Rewriter::EmitFloatOutput(ir::Node node, const QParams& x) {
  node.domain = kRuntimeDomain;
  node.attributes.push_back(ir::Attribute::Float("x_scale", x.scale));
  node.attributes.push_back(ir::Attribute::Int("x_zero_point", x.zero));
  node.attributes.push_back(ir::Attribute::Int("float_output", 1));
  nodes_.push_back(std::move(node));
}

std::optional<QParams> Rewriter::PerTensor(const ir::Node& n) const {
  if (!n.domain.empty() || n.inputs.size() != 3 || n.inputs[2].empty() || AttrInt(n, "block_size", 0) != 0) {
    return std::nullopt;
  }
  std::optional<Tensor> scale = Const(n.inputs[1]), zero = Const(n.inputs[2]);
  if (!scale || !zero || scale->dtype() != DataType::kFloat || scale->numel() != 1 || zero->numel() != 1 ||
      (zero->dtype() != DataType::kInt8 && zero->dtype() != DataType::kUint8)) {
    return std::nullopt;
  }
  const int64_t out_dtype = AttrInt(n, "output_dtype", 0);
  if (out_dtype != 0 && out_dtype != static_cast<int64_t>(zero->dtype())) return std::nullopt;
  const bool u8 = zero->dtype() == DataType::kUint8;
  QParams q{scale->data<float>()[0], u8 ? int32_t{zero->data<uint8_t>()[0]} - 128 : zero->data<int8_t>()[0], u8};
  if (!PositiveNormal(q.scale)) return std::nullopt;
  return q;
}

std::optional<Activation> Rewriter::ActivationDq(const std::string& value, bool allow_constant) {
  const ir::Node* dq = Producer(value);
  if (dq == nullptr || dq->op_type != "DequantizeLinear" || dq->inputs.size() != 3 ||
      (!allow_constant && inits_.count(dq->inputs[0]))) {
    return std::nullopt;
  }
  std::optional<QParams> q = PerTensor(*dq);
  if (!q) return std::nullopt;
  if (q->u8) return Activation{Int8Twin(dq->inputs[0]), *q};
  auto alias = alias_of_.find(dq->inputs[0]);
  return Activation{alias != alias_of_.end() ? alias->second : dq->inputs[0], *q};
}

bool Rewriter::ScalarByConstruction(const std::string& value, int depth) const {
  const ir::Node* p = Producer(value);
  if (p == nullptr || !p->domain.empty() || depth > 4) return false;
  if (p->op_type == "Cast" || p->op_type == "Identity") return ScalarByConstruction(p->inputs[0], depth + 1);
  if (p->op_type != "Reshape" || p->inputs.size() < 2) return false;
  std::optional<Tensor> shape = Const(p->inputs[1]);
  return shape && shape->numel() == 0;
}

std::optional<Activation> Rewriter::DynamicActivationDq(const std::string& value, std::string& dynamic_scale,
                                                        std::string& dynamic_zero) {
  const ir::Node* dq = Producer(value);
  if (dq == nullptr || dq->op_type != "DequantizeLinear" || !dq->domain.empty() || dq->inputs.size() != 3 ||
      AttrInt(*dq, "block_size", 0) != 0) {
    return std::nullopt;
  }
  const ir::Node* q = Producer(dq->inputs[0]);
  if (q == nullptr || q->op_type != "QuantizeLinear" || !q->domain.empty() || q->inputs.size() != 3 ||
      q->inputs[1] != dq->inputs[1] || q->inputs[2] != dq->inputs[2] || AttrInt(*q, "block_size", 0) != 0 ||
      !ScalarByConstruction(dq->inputs[1]) || !ScalarByConstruction(dq->inputs[2])) {
    return std::nullopt;
  }
  // The zero point's dtype is the Q's output dtype: read from the Cast that makes it, when one does.
  const ir::Node* cast = Producer(dq->inputs[2]);
  const int64_t to = cast != nullptr && cast->op_type == "Cast" ? AttrInt(*cast, "to", 0) : 0;
  if (to != static_cast<int64_t>(DataType::kInt8) && to != static_cast<int64_t>(DataType::kUint8)) return std::nullopt;
  const bool u8 = to == static_cast<int64_t>(DataType::kUint8);
  dynamic_scale = dq->inputs[1];
  dynamic_zero = dq->inputs[2];
  return Activation{u8 ? Int8Twin(dq->inputs[0]) : dq->inputs[0], QParams{1, 0, u8}};
}

std::optional<Activation> Rewriter::PooledInput(const std::string& value) const {
  auto it = pooled_.find(value);
  return it == pooled_.end() ? std::nullopt : std::optional<Activation>(it->second);
}

// `value` = DQ(W int8 constant of `rank`, zero point 0, one scale or one per
// index of `channel_axis`).
std::optional<Weight> Rewriter::WeightDq(const std::string& value, size_t rank, int64_t channel_axis) const {
  const ir::Node* dq = Producer(value);
  if (dq == nullptr || dq->op_type != "DequantizeLinear" || !dq->domain.empty() || dq->inputs.size() < 2 ||
      AttrInt(*dq, "block_size", 0) != 0) {
    return std::nullopt;
  }
  auto w = inits_.find(dq->inputs[0]);
  if (w == inits_.end() || w->second->tensor.dtype() != DataType::kInt8 || w->second->tensor.dims().size() != rank) {
    return std::nullopt;
  }
  const int64_t channels = w->second->tensor.dims()[channel_axis];
  std::optional<Tensor> scale = Const(dq->inputs[1]);
  int64_t axis = AttrInt(*dq, "axis", 1);
  if (axis < 0) axis += static_cast<int64_t>(rank);
  if (!scale || scale->dtype() != DataType::kFloat) return std::nullopt;
  const bool per_tensor = scale->numel() == 1 && scale->rank() == 0;
  if (!per_tensor && !(scale->rank() == 1 && scale->numel() == channels && axis == channel_axis)) return std::nullopt;
  if (dq->inputs.size() > 2 && !dq->inputs[2].empty()) {
    std::optional<Tensor> zero = Const(dq->inputs[2]);
    if (!zero || zero->dtype() != DataType::kInt8 || zero->numel() != scale->numel()) return std::nullopt;
    for (int64_t i = 0; i < zero->numel(); ++i) {
      if (zero->data<int8_t>()[i] != 0) return std::nullopt;  // XNNPACK's qc8w weights are symmetric
    }
  }
  Weight out{dq->inputs[0], dq->inputs[1], {}};
  for (int64_t c = 0; c < channels; ++c) out.scales.push_back(scale->data<float>()[per_tensor ? 0 : c]);
  return out;
}

// A float32 bias of `n` values: an initializer, or DQ of an int32 initializer
// (folded to float when the session is planned).
bool Rewriter::FloatBias(const std::string& value, int64_t n) const {
  const ir::Node* dq = Producer(value);
  const ir::Initializer* init = nullptr;
  if (dq != nullptr && dq->op_type == "DequantizeLinear" && dq->domain.empty() && dq->inputs.size() >= 2 &&
      inits_.count(dq->inputs[0]) && inits_.count(dq->inputs[1]) &&
      (dq->inputs.size() < 3 || dq->inputs[2].empty() || inits_.count(dq->inputs[2]))) {
    init = inits_.at(dq->inputs[0]);
    if (init->tensor.dtype() != DataType::kInt32) return false;
  } else {
    auto it = inits_.find(value);
    if (it == inits_.end() || it->second->tensor.dtype() != DataType::kFloat) return false;
    init = it->second;
  }
  const std::vector<int64_t>& dims = init->tensor.dims();
  return dims.size() == 1 && dims[0] == n;
}

std::optional<Chain> Rewriter::OutputChain(std::string value, bool allow_pool) const {
  Chain chain;
  float lo = -kInf, hi = kInf;
  std::optional<size_t> r = SoleReader(value);
  auto advance = [&](size_t index) {
    chain.absorbed.push_back(index);
    value = in_.nodes[index].outputs[0];
    r = SoleReader(value);
  };
  if (r && in_.nodes[*r].op_type == "Relu") {
    lo = 0;
    advance(*r);
  } else if (r && in_.nodes[*r].op_type == "Clip") {
    const ir::Node& clip = in_.nodes[*r];
    for (size_t k = 1; k < 3; ++k) {
      if (clip.inputs.size() <= k || clip.inputs[k].empty()) continue;
      std::optional<Tensor> bound = Const(clip.inputs[k]);
      if (!bound || bound->dtype() != DataType::kFloat || bound->numel() != 1) return std::nullopt;
      (k == 1 ? lo : hi) = bound->data<float>()[0];
    }
    advance(*r);
  }
  if (allow_pool && r && in_.nodes[*r].op_type == "MaxPool" && in_.nodes[*r].inputs.size() == 1 &&
      AttrInts(in_.nodes[*r], "kernel_shape").size() == 2 &&
      (in_.nodes[*r].outputs.size() == 1 || in_.nodes[*r].outputs[1].empty())) {
    chain.pool = &in_.nodes[*r];
    advance(*r);
  }
  if (!r || in_.nodes[*r].op_type != "QuantizeLinear") {
    return chain.absorbed.empty() ? SharedChain(value) : std::nullopt;  // a sole MaxPool reader
  }
  std::optional<QParams> q = PerTensor(in_.nodes[*r]);
  if (!q || in_.nodes[*r].outputs.size() != 1) return std::nullopt;
  chain.q = *q;
  chain.absorbed.push_back(*r);
  chain.q_out = in_.nodes[*r].outputs[0];
  chain.qmin = QuantizeValue(lo, *q);
  chain.qmax = QuantizeValue(hi, *q);
  if (chain.qmin >= chain.qmax) return std::nullopt;  // a constant output: XNNPACK needs min < max
  return chain;
}

bool Rewriter::QuantizedAlike(const std::string& value, const QParams& q, int depth, Chain& found) const {
  auto it = uses_.consumers.find(value);
  if (depth > kMaxPoolDepth || it == uses_.consumers.end() || outputs_.count(value)) return false;
  for (size_t index : it->second) {
    const ir::Node& r = in_.nodes[index];
    if (!r.domain.empty() || r.inputs.empty() || r.inputs[0] != value) return false;
    if (r.op_type == "QuantizeLinear") {
      std::optional<QParams> p = PerTensor(r);
      if (!p || r.outputs.size() != 1 || !SameParams(*p, q)) return false;
      found.scale = r.inputs[1];
      found.zero = r.inputs[2];
      if (depth > 0) continue;
      (found.q_out.empty() ? found.q_out : found.aliases.emplace_back()) = r.outputs[0];
      found.absorbed.push_back(index);
    } else if (r.op_type == "MaxPool" && r.inputs.size() == 1 && (r.outputs.size() == 1 || r.outputs[1].empty())) {
      if (!QuantizedAlike(r.outputs[0], q, depth + 1, found)) return false;
      if (depth == 0) found.pooled = value;
    } else {
      return false;
    }
  }
  return true;
}

std::optional<Chain> Rewriter::SharedChain(const std::string& value) const {
  // The parameters of the first Q among the readers, or their MaxPools' readers.
  std::optional<QParams> q;
  std::string at = value;
  for (int depth = 0; depth <= kMaxPoolDepth && !q; ++depth) {
    auto it = uses_.consumers.find(at);
    if (it == uses_.consumers.end()) return std::nullopt;
    std::string next;
    for (size_t index : it->second) {
      const ir::Node& r = in_.nodes[index];
      if (r.op_type == "QuantizeLinear" && r.domain.empty() && !q) q = PerTensor(r);
      if (r.op_type == "MaxPool" && !r.outputs.empty() && next.empty()) next = r.outputs[0];
    }
    at = next;
  }
  if (!q) return std::nullopt;
  Chain chain;
  chain.q = *q;
  if (!QuantizedAlike(value, *q, 0, chain)) return std::nullopt;
  if (chain.q_out.empty()) chain.q_out = value + "::q";  // only MaxPools read it
  return chain;
}

std::string Rewriter::NhwcTwin(const std::string& value) const {
  auto it = nhwc_of_.find(value);
  return it == nhwc_of_.end() ? "" : it->second;
}

std::string Rewriter::Int8Twin(const std::string& uint8_value) {
  auto it = int8_of_.find(uint8_value);
  if (it != int8_of_.end()) return it->second;
  const std::string twin = uint8_value + "::s8";
  int8_of_[uint8_value] = twin;
  // The float path's Q to uint8 (an RGB stem's, say) quantizes straight to the twin: Q with zero
  // point z - 128 gives Q_uint8 - 128, saturation included. Otherwise a shift.
  const ir::Node* q = Producer(uint8_value);
  if (q != nullptr && q->op_type == "QuantizeLinear" && !absorbed_.count(static_cast<size_t>(q - in_.nodes.data()))) {
    std::optional<QParams> p = PerTensor(*q);
    if (p && p->u8) {
      const std::string zero = uint8_value + "::s8_zero";
      const char byte = static_cast<char>(static_cast<int8_t>(p->zero));
      new_initializers_.push_back({zero, ir::Tensor::Owned(DataType::kInt8, {}, std::string(1, byte)), {}});
      nodes_.push_back(Plain("QuantizeLinear", {q->inputs[0], q->inputs[1], zero}, twin));
      return twin;
    }
  }
  nodes_.push_back(Shift("QShiftToInt8", uint8_value, twin));
  return twin;
}

void Rewriter::Publish(const Chain& chain, const std::string& produced, bool nhwc) {
  const std::string nchw = Int8Name(chain);
  if (nhwc) {
    nodes_.push_back(LayoutTranspose(produced, nchw, kToNchw));
    nhwc_of_[nchw] = produced;
  }
  if (chain.q.u8) {
    nodes_.push_back(Shift("QShiftToUint8", nchw, chain.q_out));
    int8_of_[chain.q_out] = nchw;
  }
  for (const std::string& alias : chain.aliases) {  // for readers outside the plan; dropped when unread
    if (chain.q.u8) {
      nodes_.push_back(Shift("QShiftToUint8", nchw, alias));
      int8_of_[alias] = nchw;
    } else {
      nodes_.push_back(Plain("Identity", {nchw}, alias));
      alias_of_[alias] = nchw;
    }
  }
  if (!chain.pooled.empty()) {  // the MaxPools' input for those no step takes
    nodes_.push_back(Plain("DequantizeLinear", {chain.q_out, chain.scale, chain.zero}, chain.pooled));
    pooled_[chain.pooled] = Activation{nchw, chain.q};
  }
}

std::string Rewriter::ToNhwc(const std::string& nchw) {
  auto it = nhwc_of_.find(nchw);
  if (it != nhwc_of_.end()) return it->second;
  const std::string nhwc = nchw + "::nhwc8";
  nodes_.push_back(LayoutTranspose(nchw, nhwc, kToNhwc));
  nhwc_of_[nchw] = nhwc;
  return nhwc;
}

// Adds `node` (an int8 step reading x) with the chain's output parameters.
void Rewriter::Emit(ir::Node node, const QParams& x, const Chain& chain) {
  node.domain = kRuntimeDomain;
  node.attributes.push_back(ir::Attribute::Float("x_scale", x.scale));
  node.attributes.push_back(ir::Attribute::Int("x_zero_point", x.zero));
  node.attributes.push_back(ir::Attribute::Float("y_scale", chain.q.scale));
  node.attributes.push_back(ir::Attribute::Int("y_zero_point", chain.q.zero));
  node.attributes.push_back(ir::Attribute::Int("y_min", chain.qmin));
  node.attributes.push_back(ir::Attribute::Int("y_max", chain.qmax));
  nodes_.push_back(std::move(node));
}

bool Rewriter::TryConv(size_t i) {
  const ir::Node& conv = in_.nodes[i];
  if (conv.inputs.size() < 2 || conv.outputs.size() != 1) return false;
  auto x = ActivationDq(conv.inputs[0]);
  std::optional<Weight> w = WeightDq(conv.inputs[1], 4, 0);
  if (!x || !w) return false;
  const std::vector<int64_t>& wd = inits_.at(w->q)->tensor.dims();
  const bool has_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
  if (has_bias && !FloatBias(conv.inputs[2], wd[0])) return false;
  const std::string auto_pad = AttrString(conv, "auto_pad", "NOTSET");
  const std::vector<int64_t> pads = AttrInts(conv, "pads");
  const int64_t group = AttrInt(conv, "group", 1);
  if ((auto_pad != "NOTSET" && auto_pad != "VALID") || !(pads.empty() || pads.size() == 4) || group < 1 ||
      wd[0] < 1 || wd[0] % group != 0 || wd[1] < 1 || wd[2] < 1 || wd[3] < 1) {
    return false;
  }
  // XNNPACK's int8 convolutions take input channels in blocks of 8 (4 on some targets): with fewer per
  // group they did up to 3.7x the float convolution's time (ResNet-18's 7x7 stem, 3 channels). One
  // group runs as im2col and a product instead (kernels/xnn_int8_im2col.cc), depthwise convolutions have
  // kernels of their own; other grouped convolutions with few channels stay float.
  if (wd[1] < 8 && group > 1 && wd[1] != 1) return false;
  for (const char* name : {"pads", "strides", "dilations"}) {
    for (int64_t v : AttrInts(conv, name)) {
      if (v < (name[0] == 'p' ? 0 : 1) || v > (1 << 20)) return false;
    }
  }
  std::optional<Chain> chain = OutputChain(conv.outputs[0], true);
  if (chain && !RequantizationOk(x->q, *w, chain->q)) return false;
  if (!chain && !float_output_) return false;
  ir::Node q = conv;
  q.op_type = "QConvNhwc";
  q.inputs = {ToNhwc(x->value), w->q, w->scale, has_bias ? conv.inputs[2] : ""};
  if (!chain) {  // float32 out (NHWC; plan/nhwc_layout.cc takes it from the Transpose back)
    const std::string out_nhwc = conv.outputs[0] + "::nhwcf";
    q.outputs = {out_nhwc};
    EmitFloatOutput(std::move(q), x->q);
    nodes_.push_back(LayoutTranspose(out_nhwc, conv.outputs[0], kToNchw));
    return true;
  }
  Absorb(*chain);
  const std::string out_nhwc = chain->q_out + "::nhwc8";
  if (chain->pool == nullptr) {
    q.outputs = {out_nhwc};
    Emit(std::move(q), x->q, *chain);
  } else {
    q.outputs = {chain->q_out + "::prepool_nhwc8"};
    Emit(std::move(q), x->q, *chain);
    ir::Node pool = *chain->pool;
    pool.op_type = "QMaxPoolNhwc";
    pool.domain = kRuntimeDomain;
    pool.inputs = {nodes_.back().outputs[0]};
    pool.outputs = {out_nhwc};
    nodes_.push_back(std::move(pool));
  }
  Publish(*chain, out_nhwc, true);
  return true;
}

bool Rewriter::TryFullyConnected(size_t i) {
  const ir::Node& node = in_.nodes[i];
  const bool gemm = node.op_type == "Gemm";
  if (node.inputs.size() < 2 || node.outputs.size() != 1) return false;
  if (gemm && (AttrInt(node, "transA", 0) != 0 || AttrFloat(node, "alpha", 1) != 1.0f ||
               AttrFloat(node, "beta", 1) != 1.0f)) {
    return false;
  }
  std::string dynamic_scale, dynamic_zero;
  auto x = ActivationDq(node.inputs[0]);
  if (!x && float_output_) x = DynamicActivationDq(node.inputs[0], dynamic_scale, dynamic_zero);
  if (!x) return false;
  // W as [N, K] (XNNPACK's layout) or [K, N].
  bool nk = gemm && AttrInt(node, "transB", 0) != 0;
  std::optional<Weight> w = WeightDq(node.inputs[1], 2, nk ? 0 : 1);
  const ir::Node* t = Producer(node.inputs[1]);
  if (!w && !gemm && t != nullptr && t->op_type == "Transpose" && t->domain.empty() && t->inputs.size() == 1 &&
      AttrInts(*t, "perm") == std::vector<int64_t>{1, 0}) {
    nk = true;
    w = WeightDq(t->inputs[0], 2, 0);
  }
  if (!w || inits_.at(w->q)->tensor.dims()[nk ? 1 : 0] < 1 || w->scales.empty()) return false;
  const int64_t n = static_cast<int64_t>(w->scales.size());
  std::string bias = gemm && node.inputs.size() > 2 ? node.inputs[2] : "";
  if (!bias.empty() && !FloatBias(bias, n)) return false;
  std::string y = node.outputs[0];
  std::optional<size_t> add = gemm ? std::nullopt : SoleReader(y, true);
  std::vector<size_t> absorbed;
  if (add && in_.nodes[*add].op_type == "Add" && in_.nodes[*add].inputs.size() == 2) {
    const ir::Node& a = in_.nodes[*add];
    const std::string& other = a.inputs[0] == y ? a.inputs[1] : a.inputs[0];
    if (other != y && FloatBias(other, n)) {
      bias = other;
      absorbed.push_back(*add);
      y = a.outputs[0];
    }
  }
  const bool dynamic = !dynamic_scale.empty();
  // Dynamic parameters: float output only (a Q of the result would need them at creation).
  std::optional<Chain> chain = dynamic ? std::nullopt : OutputChain(y, false);
  if (chain && !RequantizationOk(x->q, *w, chain->q)) return false;
  if (!chain && !float_output_) return false;
  absorbed_.insert(absorbed.begin(), absorbed.end());
  ir::Node q;
  q.name = node.name;
  q.op_type = "QFullyConnected";
  q.inputs = {x->value, w->q, w->scale, bias};
  q.attributes.push_back(ir::Attribute::Int("weights_nk", nk ? 1 : 0));
  if (dynamic) {  // read each run (inputs 4, 5); a uint8 zero point is shifted by the kernel
    q.inputs.push_back(dynamic_scale);
    q.inputs.push_back(dynamic_zero);
    q.attributes.push_back(ir::Attribute::Int("x_uint8", x->q.u8 ? 1 : 0));
  }
  if (!chain) {
    q.outputs = {y};
    EmitFloatOutput(std::move(q), x->q);
    return true;
  }
  Absorb(*chain);
  const std::string out = Int8Name(*chain);
  q.outputs = {out};
  Emit(std::move(q), x->q, *chain);
  Publish(*chain, out, false);
  return true;
}

ir::Graph Rewriter::Run() {
  for (size_t i = 0; i < in_.nodes.size(); ++i) {
    if (absorbed_.count(i)) continue;
    const ir::Node& node = in_.nodes[i];
    if (node.domain.empty() && node.op_type == "Conv" && TryConv(i)) continue;
    if (node.domain.empty() && (node.op_type == "MatMul" || node.op_type == "Gemm") && TryFullyConnected(i)) continue;
    if (node.domain.empty() && (TryBinary(i) || TryUnary(i) || TryPool(i) || TryConcat(i) || TryQuantize(i))) continue;
    nodes_.push_back(node);
  }
  // Drop the DQs, Qs and Transposes nothing reads any more (backwards: chains go at once).
  std::map<std::string, int> readers;
  for (const ir::Node& node : nodes_) {
    for (const std::string& name : NodeReads(node)) ++readers[name];
  }
  std::vector<bool> keep(nodes_.size(), true);
  for (size_t i = nodes_.size(); i-- > 0;) {
    const ir::Node& node = nodes_[i];
    const bool pure = node.domain.empty() ? node.op_type == "DequantizeLinear" || node.op_type == "Transpose" ||
                                                node.op_type == "QuantizeLinear" || node.op_type == "Identity" ||
                                                node.op_type == "Concat" || node.op_type == "MaxPool"
                                          : node.op_type == "QShiftToInt8" || node.op_type == "QShiftToUint8";
    if (!pure || node.outputs.size() != 1 || readers[node.outputs[0]] > 0 || outputs_.count(node.outputs[0])) continue;
    keep[i] = false;
    for (const std::string& name : node.inputs) --readers[name];
  }
  ir::Graph g = in_;
  g.nodes.clear();
  for (ir::Initializer& init : new_initializers_) g.initializers.push_back(std::move(init));
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (keep[i]) g.nodes.push_back(std::move(nodes_[i]));
  }
  return g;
}

}  // namespace qdq

ir::Graph QdqToInt8(const ir::Graph& graph) { return qdq::Rewriter(graph).Run(); }

bool IsInt8Step(const std::string& op_type) {
  return op_type == "QConvNhwc" || op_type == "QMaxPoolNhwc" || op_type == "QFullyConnected" || op_type == "QAdd" ||
         op_type == "QMul" || op_type == "QUnary" || op_type == "QMean" || op_type == "QConcat";
}

}  // namespace pt2onnx::runtime
