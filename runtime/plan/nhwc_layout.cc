#include "runtime/plan/nhwc_layout.h"

#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/kernels/kernel_util.h"
#include "core/tensor/convert.h"

namespace pt2onnx::runtime {
namespace {

// Ops that compute each element from the same element of their inputs: they
// run on NHWC values as they are (no Transpose back to NCHW in between).
const std::set<std::string> kPointwiseUnary = {
    "Relu",  "HardSwish", "HardSigmoid", "Sigmoid", "Tanh",    "LeakyRelu", "Elu",  "Selu", "Celu",
    "Gelu",  "Softplus",  "Softsign",    "Mish",    "Erf",     "Exp",       "Log",  "Abs",  "Neg",
    "Sqrt",  "Reciprocal", "Floor",      "Ceil",    "Round",   "Sign",      "Sin",  "Cos",  "ThresholdedRelu"};
const std::set<std::string> kPointwiseBinary = {"Add", "Mul", "Sub", "Div", "Max", "Min"};

const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};
const std::vector<int64_t> kToNchw = {0, 3, 1, 2};

// Constant float32 scalars (Clip bounds) from initializers and Constant nodes.
std::map<std::string, float> ScalarConstants(const ir::Graph& g) {
  std::map<std::string, float> values;
  auto take = [&](const std::string& name, const absl::StatusOr<Tensor>& t) {
    if (t.ok() && t->dtype() == DataType::kFloat && t->numel() == 1) values[name] = t->data<float>()[0];
  };
  for (const ir::Initializer& init : g.initializers) {
    if (init.tensor.numel() == 1) take(init.name, FromIrTensor(init.tensor));
  }
  for (const ir::Node& node : g.nodes) {
    if (node.op_type == "Constant" && node.domain.empty() && node.outputs.size() == 1) {
      take(node.outputs[0], ConstantNodeValue(node));
    }
  }
  return values;
}

// Conv nodes XNNPACK's NHWC convolution takes: 2-D, float32 constant weights
// (and bias), explicit or no padding. `dequantized` maps the output of a
// DequantizeLinear of a constant (folded to float32 when the session is
// planned) to that constant: a QDQ weight the int8 plan left float.
bool IsNhwcConv(const ir::Node& node, const std::map<std::string, const ir::Initializer*>& inits,
                const std::map<std::string, const ir::Initializer*>& dequantized) {
  if (node.op_type != "Conv" || !node.domain.empty() || node.inputs.size() < 2 || node.outputs.size() != 1) return false;
  auto w = inits.find(node.inputs[1]);
  auto dq = dequantized.find(node.inputs[1]);
  if (dq != dequantized.end() && dq->second->tensor.dims().size() == 4) {
    w = dq;
  } else if (w == inits.end() || w->second->tensor.dtype() != DataType::kFloat ||
             w->second->tensor.dims().size() != 4) {
    return false;
  }
  if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
    auto b = inits.find(node.inputs[2]);
    if (b == inits.end() || b->second->tensor.dtype() != DataType::kFloat || b->second->tensor.dims().size() != 1) {
      return false;
    }
  }
  const std::string auto_pad = AttrString(node, "auto_pad", "NOTSET");
  const std::vector<int64_t> pads = AttrInts(node, "pads");
  const int64_t group = AttrInt(node, "group", 1), m = w->second->tensor.dims()[0];
  return (auto_pad == "NOTSET" || auto_pad == "VALID") && (pads.empty() || pads.size() == 4) && group >= 1 && m > 0 &&
         m % group == 0;
}

// The values of a constant int64 vector (initializer or Constant node), if `name` is one.
std::optional<std::vector<int64_t>> ConstantInts(const ir::Graph& g, const std::string& name) {
  auto ints = [](const absl::StatusOr<Tensor>& t) -> std::optional<std::vector<int64_t>> {
    if (!t.ok() || t->dtype() != DataType::kInt64 || t->rank() != 1) return std::nullopt;
    return std::vector<int64_t>(t->data<int64_t>(), t->data<int64_t>() + t->numel());
  };
  for (const ir::Initializer& init : g.initializers) {
    if (init.name == name) return ints(FromIrTensor(init.tensor));
  }
  for (const ir::Node& node : g.nodes) {
    if (node.op_type == "Constant" && node.domain.empty() && node.outputs.size() == 1 && node.outputs[0] == name) {
      return ints(ConstantNodeValue(node));
    }
  }
  return std::nullopt;
}

// A ReduceMean over H and W of a 4-D value, keeping the dims: a GlobalAveragePool.
bool IsSpatialMean(const ir::Graph& g, const ir::Node& node) {
  if (node.op_type != "ReduceMean" || !node.domain.empty() || node.outputs.size() != 1 ||
      AttrInt(node, "keepdims", 1) != 1) {
    return false;
  }
  std::optional<std::vector<int64_t>> axes;
  if (node.FindAttribute("axes") != nullptr) axes = AttrInts(node, "axes");
  else if (node.inputs.size() == 2 && !node.inputs[1].empty()) axes = ConstantInts(g, node.inputs[1]);
  if (!axes || axes->size() != 2) return false;
  std::set<int64_t> spatial;
  for (int64_t a : *axes) spatial.insert(a < 0 ? a + 4 : a);
  return spatial == std::set<int64_t>{2, 3};
}

bool IsTranspose(const ir::Node& node, const std::vector<int64_t>& perm) {
  return node.op_type == "Transpose" && node.domain.empty() && AttrInts(node, "perm") == perm;
}

// `constant` (rank <= 4, read as left-padded with ones to 4-D NCHW) transposed
// to NHWC: it broadcasts against an NHWC value as `constant` does against the
// NCHW one (a per-channel scale [1, C, 1, 1] becomes [1, 1, 1, C]).
std::optional<ir::Tensor> NhwcConstant(const ir::Tensor& constant) {
  if (constant.dims().size() > 4 || constant.numel() <= 0) return std::nullopt;
  absl::StatusOr<Tensor> source = FromIrTensor(constant);
  if (!source.ok()) return std::nullopt;
  Dims nchw(4 - constant.dims().size(), 1);
  nchw.insert(nchw.end(), constant.dims().begin(), constant.dims().end());
  absl::StatusOr<Tensor> nhwc = Tensor::Allocate(source->dtype(), {nchw[0], nchw[2], nchw[3], nchw[1]}, nullptr);
  if (!nhwc.ok()) return std::nullopt;
  const std::vector<int64_t> strides = ContiguousStrides(nchw);
  StridedCopy(*source, 0, {strides[0], strides[2], strides[3], strides[1]}, *nhwc);
  return ir::Tensor::Owned(nhwc->dtype(), nhwc->dims(),
                           std::string(reinterpret_cast<const char*>(nhwc->raw()), nhwc->byte_size()));
}

}  // namespace

ir::Node LayoutTranspose(const std::string& in, const std::string& out, const std::vector<int64_t>& perm) {
  ir::Node t;
  t.name = out + "::transpose";
  t.op_type = "Transpose";
  t.inputs = {in};
  t.outputs = {out};
  t.attributes.push_back(ir::Attribute::Ints("perm", perm));
  return t;
}

ir::Graph ConvolutionsToNhwc(const ir::Graph& graph) {
  std::map<std::string, const ir::Initializer*> inits;
  for (const ir::Initializer& init : graph.initializers) inits[init.name] = &init;
  std::map<std::string, const ir::Initializer*> dequantized;
  for (const ir::Node& node : graph.nodes) {
    if (node.op_type == "DequantizeLinear" && node.domain.empty() && node.outputs.size() == 1 && node.inputs.size() >= 2 &&
        inits.count(node.inputs[0]) && inits.count(node.inputs[1]) &&
        (node.inputs.size() < 3 || node.inputs[2].empty() || inits.count(node.inputs[2]))) {
      dequantized[node.outputs[0]] = inits[node.inputs[0]];
    }
  }
  const std::map<std::string, float> scalars = ScalarConstants(graph);
  ir::UseMap uses = ir::BuildUseMap(graph);
  std::set<std::string> graph_outputs;
  for (const ir::ValueInfo& out : graph.outputs) graph_outputs.insert(out.name);
  auto scalar = [&](const ir::Node& node, size_t i, float fallback) -> std::optional<float> {
    if (node.inputs.size() <= i || node.inputs[i].empty()) return fallback;
    auto it = scalars.find(node.inputs[i]);
    if (it == scalars.end()) return std::nullopt;
    return it->second;
  };
  constexpr float kInf = std::numeric_limits<float>::infinity();
  // A one-element constant of rank <= 4 broadcasts to the same 4-D result in NHWC as in NCHW.
  auto scalar_rank_ok = [&](const std::string& name) {
    auto it = inits.find(name);
    return it != inits.end() && it->second->tensor.dims().size() <= 4;
  };
  auto scalar_init = [&](const std::string& name) {
    auto it = inits.find(name);
    return it != inits.end() && it->second->tensor.dims().empty();
  };
  // Constant operands of NHWC elementwise ops that are not one element (a
  // layer scale, a per-channel bias): their NHWC copies, made once each.
  std::map<std::string, std::string> nhwc_constant;
  std::vector<ir::Initializer> added;
  auto nhwc_constant_of = [&](const std::string& name) -> std::optional<std::string> {
    if (auto it = nhwc_constant.find(name); it != nhwc_constant.end()) return it->second;
    auto init = inits.find(name);
    if (init == inits.end()) return std::nullopt;
    std::optional<ir::Tensor> transposed = NhwcConstant(init->second->tensor);
    if (!transposed) return std::nullopt;
    const std::string nhwc = name + "::nhwc";
    added.push_back({nhwc, std::move(*transposed), {}});
    nhwc_constant[name] = nhwc;
    return nhwc;
  };

  ir::Graph g = graph;
  g.nodes.clear();
  std::map<std::string, std::string> nhwc_of;  // NCHW value -> the NHWC value it was transposed from
  std::set<size_t> fused;                      // Clip/Relu nodes taken into a convolution
  auto to_nhwc = [&](const std::string& nchw) {
    auto it = nhwc_of.find(nchw);
    if (it != nhwc_of.end()) return it->second;
    const std::string nhwc = nchw + "::nhwc";
    g.nodes.push_back(LayoutTranspose(nchw, nhwc, kToNhwc));
    nhwc_of[nchw] = nhwc;
    return nhwc;
  };
  // Emits `node` on NHWC inputs; its output comes back to NCHW through a Transpose (dropped later if unread).
  auto emit_nhwc = [&](ir::Node node, const std::string& nchw_out) {
    const std::string nhwc_out = nchw_out + "::nhwc";
    node.outputs = {nhwc_out};
    g.nodes.push_back(std::move(node));
    g.nodes.push_back(LayoutTranspose(nhwc_out, nchw_out, kToNchw));
    nhwc_of[nchw_out] = nhwc_out;
  };
  // The only reader of `out` when it is a Relu, or a Clip with constant bounds: it can become `out`'s range.
  struct Activation {
    size_t node;
    float lo, hi;
    bool relu;
  };
  auto activation_of = [&](const std::string& out) -> std::optional<Activation> {
    const auto& readers = uses.consumers[out];
    if (readers.size() != 1 || graph_outputs.count(out)) return std::nullopt;
    const ir::Node& act = graph.nodes[readers[0]];
    if (act.inputs.empty() || act.inputs[0] != out) return std::nullopt;
    std::optional<float> lo, hi;
    if (act.op_type == "Relu" && act.domain.empty()) lo = 0.0f, hi = kInf;
    if (act.op_type == "Clip" && act.domain.empty()) lo = scalar(act, 1, -kInf), hi = scalar(act, 2, kInf);
    if (!lo || !hi || act.outputs.size() != 1 || !(*lo <= *hi)) return std::nullopt;
    return Activation{readers[0], *lo, *hi, act.op_type == "Relu"};
  };
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (fused.count(i)) continue;
    const ir::Node& node = graph.nodes[i];
    if (IsNhwcConv(node, inits, dequantized)) {
      ir::Node conv = node;
      conv.domain = kRuntimeDomain;
      conv.inputs[0] = to_nhwc(node.inputs[0]);
      std::string out = node.outputs[0];
      // The convolution's only reader, a Clip with constant bounds or a Relu, becomes its output range.
      if (auto act = activation_of(out)) {
        conv.attributes.push_back(ir::Attribute::Float("output_min", act->lo));
        conv.attributes.push_back(ir::Attribute::Float("output_max", act->hi));
        out = graph.nodes[act->node].outputs[0];
        fused.insert(act->node);
      }
      emit_nhwc(std::move(conv), out);
      continue;
    }
    // A Transpose to NHWC of a value that came from NHWC: the value itself.
    if (IsTranspose(node, kToNhwc) && node.inputs.size() == 1 && nhwc_of.count(node.inputs[0]) &&
        !graph_outputs.count(node.outputs[0])) {
      ir::Node same;
      same.name = node.name;
      same.op_type = "Identity";
      same.inputs = {nhwc_of[node.inputs[0]]};
      same.outputs = node.outputs;
      g.nodes.push_back(std::move(same));
      continue;
    }
    // A 2-D MaxPool or a GlobalAveragePool of an NHWC value runs in NHWC (kernels/xnn_pool.cc).
    const bool max_pool = node.op_type == "MaxPool" && AttrInts(node, "kernel_shape").size() == 2 &&
                          (node.outputs.size() == 1 || (node.outputs.size() == 2 && node.outputs[1].empty()));
    const bool global_avg = (node.op_type == "GlobalAveragePool" && node.outputs.size() == 1 &&
                             node.inputs.size() == 1) || IsSpatialMean(graph, node);
    if (node.domain.empty() && (max_pool || global_avg) && !node.inputs.empty() && nhwc_of.count(node.inputs[0]) &&
        !node.outputs[0].empty() && (global_avg || node.inputs.size() == 1)) {
      ir::Node pool = node;
      pool.domain = kRuntimeDomain;
      if (global_avg) {
        pool.op_type = "GlobalAveragePool";
        pool.attributes.clear();
      }
      pool.inputs = {nhwc_of[node.inputs[0]]};
      emit_nhwc(std::move(pool), node.outputs[0]);
      continue;
    }
    // A Concat of NHWC values (Inception's and SqueezeNet's branches) joins them in NHWC, along the
    // NHWC position of its axis.
    if (node.op_type == "Concat" && node.domain.empty() && node.outputs.size() == 1 && !node.inputs.empty() &&
        !node.outputs[0].empty()) {
      bool all_nhwc = true;
      for (const std::string& in : node.inputs) all_nhwc = all_nhwc && nhwc_of.count(in) > 0;
      const int64_t axis = AttrInt(node, "axis", 1);
      if (all_nhwc && axis >= -4 && axis < 4) {
        constexpr int64_t kNhwcAxis[4] = {0, 3, 1, 2};
        ir::Node concat = node;
        for (std::string& in : concat.inputs) in = nhwc_of[in];
        concat.attributes = {ir::Attribute::Int("axis", kNhwcAxis[axis < 0 ? axis + 4 : axis])};
        emit_nhwc(std::move(concat), node.outputs[0]);
        continue;
      }
    }
    // Elementwise ops whose tensor inputs are all NHWC values (or one-element
    // constants, which broadcast alike in either layout) stay in NHWC.
    const bool binary = kPointwiseBinary.count(node.op_type) && node.inputs.size() == 2;
    // Per-tensor QuantizeLinear / DequantizeLinear are elementwise too (the int8 plan's boundaries).
    const bool per_tensor_q = (node.op_type == "QuantizeLinear" || node.op_type == "DequantizeLinear") &&
                              node.inputs.size() >= 2 && scalar_init(node.inputs[1]) &&
                              (node.inputs.size() < 3 || node.inputs[2].empty() || scalar_init(node.inputs[2])) &&
                              AttrInt(node, "block_size", 0) == 0;
    const bool unary = (kPointwiseUnary.count(node.op_type) && node.inputs.size() == 1) ||
                       (node.op_type == "Clip" && scalar(node, 1, 0) && scalar(node, 2, 0)) || per_tensor_q;
    if (node.domain.empty() && (binary || unary) && node.outputs.size() == 1 && !node.inputs.empty()) {
      const size_t tensors = binary ? 2 : 1;
      bool all_nhwc = true;
      size_t nhwc_inputs = 0;
      std::vector<std::string> nhwc_inputs_of(tensors);
      for (size_t k = 0; k < tensors; ++k) {
        const std::string& in = node.inputs[k];
        if (auto it = nhwc_of.find(in); it != nhwc_of.end()) {
          nhwc_inputs_of[k] = it->second;
          ++nhwc_inputs;
        } else if (binary && scalars.count(in) && scalar_rank_ok(in)) {
          nhwc_inputs_of[k] = in;
        } else {
          all_nhwc = false;
        }
      }
      // A constant of any shape that broadcasts against the 4-D value: its NHWC copy.
      if (binary && !all_nhwc && nhwc_inputs == 1) {
        const size_t k = nhwc_inputs_of[0].empty() ? 0 : 1;
        if (auto constant = nhwc_constant_of(node.inputs[k])) {
          nhwc_inputs_of[k] = *constant;
          all_nhwc = true;
        }
      }
      if (all_nhwc && nhwc_inputs > 0) {
        ir::Node moved = node;
        for (size_t k = 0; k < tensors; ++k) moved.inputs[k] = nhwc_inputs_of[k];
        std::string out = node.outputs[0];
        // A residual Add's Relu is applied in place by the Add's step (kernels/nhwc_activated.cc).
        const bool residual = (node.op_type == "Add" || node.op_type == "Mul") && nhwc_inputs == 2;
        if (auto act = residual ? activation_of(out) : std::nullopt) {
          moved.domain = kRuntimeDomain;
          if (act->relu) {
            moved.attributes.push_back(ir::Attribute::String("activation", "Relu"));
          } else {
            moved.attributes.push_back(ir::Attribute::Float("output_min", act->lo));
            moved.attributes.push_back(ir::Attribute::Float("output_max", act->hi));
          }
          out = graph.nodes[act->node].outputs[0];
          fused.insert(act->node);
        }
        emit_nhwc(std::move(moved), out);
        continue;
      }
    }
    // A Transpose to NCHW (as the int8 plan writes after its NHWC steps, plan/qdq_int8.h): its input is the
    // value's NHWC form.
    if (node.domain.empty() && IsTranspose(node, kToNchw) && node.inputs.size() == 1 && node.outputs.size() == 1 &&
        !nhwc_of.count(node.outputs[0])) {
      nhwc_of[node.outputs[0]] = node.inputs[0];
    }
    g.nodes.push_back(node);
  }
  // Drop the Transposes back to NCHW that nothing reads (walking backwards removes chains).
  std::map<std::string, int> readers;
  for (const ir::Node& node : g.nodes) for (const std::string& in : node.inputs) ++readers[in];
  std::vector<ir::Node> kept;
  std::vector<bool> keep(g.nodes.size(), true);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const ir::Node& node = g.nodes[i];
    if (node.op_type == "Transpose" && node.outputs.size() == 1 && readers[node.outputs[0]] == 0 &&
        !graph_outputs.count(node.outputs[0])) {
      keep[i] = false;
      for (const std::string& in : node.inputs) --readers[in];
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) if (keep[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  for (ir::Initializer& init : added) g.initializers.push_back(std::move(init));
  return g;
}

}  // namespace pt2onnx::runtime
