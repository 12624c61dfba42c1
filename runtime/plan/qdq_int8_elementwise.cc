// File: runtime/plan/qdq_int8_elementwise.cc
// -----------------------------------------------------------------------------
// The int8 plan's elementwise steps (plan/qdq_int8.h). Between DQs of 8-bit
// values with constant per-tensor parameters and the Q of the result:
//
//   Add, Mul [-> Relu | Clip] -> Q       => QAdd, QMul
//   an activation (Sigmoid, Tanh, ...) -> Q   => QUnary (a 256-entry table)
//   GlobalAveragePool, ReduceMean -> Q   => QMean
//   MaxPool -> Q with the input's parameters  => QMaxPoolNhwc
//   Concat -> Q                          => QConcat (inputs whose parameters
//                                           differ from the output's requantized)
//
// A step reads the NHWC forms of its inputs when every input has one (an
// earlier NHWC step wrote it), and its output then has one too: a residual
// Add between two int8 convolutions stays NHWC. Otherwise the step reads the
// values in the graph's layout.
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/plan/nhwc_layout.h"
#include "runtime/plan/qdq_int8_rewriter.h"

namespace pt2onnx::runtime::qdq {
namespace {

// NHWC position of NCHW axis `axis` of a 4-D value.
int64_t NhwcAxis(int64_t axis) {
  constexpr int64_t kPosition[4] = {0, 3, 1, 2};
  return kPosition[axis];
}

}  // namespace

void Rewriter::EmitElementwise(ir::Node node, std::vector<std::string> inputs, bool nhwc, const Chain& chain,
                               std::vector<ir::Attribute> extra) {
  Absorb(chain);
  const std::string out = nhwc ? chain.q_out + "::nhwc8" : Int8Name(chain);
  node.domain = kRuntimeDomain;
  node.inputs = std::move(inputs);
  node.outputs = {out};
  node.attributes = std::move(extra);
  node.attributes.push_back(ir::Attribute::Float("y_scale", chain.q.scale));
  node.attributes.push_back(ir::Attribute::Int("y_zero_point", chain.q.zero));
  node.attributes.push_back(ir::Attribute::Int("y_min", chain.qmin));
  node.attributes.push_back(ir::Attribute::Int("y_max", chain.qmax));
  node.attributes.push_back(ir::Attribute::Int("y_uint8", chain.q.u8 ? 1 : 0));
  nodes_.push_back(std::move(node));
  Publish(chain, out, nhwc);
}

bool Rewriter::TryBinary(size_t i) {
  const ir::Node& node = in_.nodes[i];
  const bool add = node.op_type == "Add";
  if ((!add && node.op_type != "Mul") || node.inputs.size() != 2 || node.outputs.size() != 1) return false;
  std::optional<Activation> a = ActivationDq(node.inputs[0], true);
  std::optional<Activation> b = a ? ActivationDq(node.inputs[1], true) : std::nullopt;
  if (!b) return false;
  std::optional<Chain> chain = OutputChain(node.outputs[0], false);
  if (!chain) return false;
  const std::string a_nhwc = NhwcTwin(a->value), b_nhwc = NhwcTwin(b->value);
  const bool nhwc = !a_nhwc.empty() && !b_nhwc.empty();
  ir::Node step;
  step.name = node.name;
  step.op_type = add ? "QAdd" : "QMul";
  EmitElementwise(std::move(step), nhwc ? std::vector<std::string>{a_nhwc, b_nhwc} : std::vector{a->value, b->value},
                  nhwc, *chain,
                  {ir::Attribute::Float("a_scale", a->q.scale), ir::Attribute::Int("a_zero_point", a->q.zero),
                   ir::Attribute::Float("b_scale", b->q.scale), ir::Attribute::Int("b_zero_point", b->q.zero)});
  return true;
}

bool Rewriter::TryUnary(size_t i) {
  const ir::Node& node = in_.nodes[i];
  if (!Int8UnaryTakes(node) || node.inputs.empty() || node.outputs.size() != 1) return false;
  std::vector<ir::Attribute> attrs = node.attributes;
  if (node.op_type == "Clip") {  // constant bounds (inputs 1, 2) become attributes
    for (size_t k = 1; k < node.inputs.size(); ++k) {
      if (node.inputs[k].empty()) continue;
      std::optional<Tensor> bound = Const(node.inputs[k]);
      if (!bound || bound->dtype() != DataType::kFloat || bound->numel() != 1) return false;
      attrs.push_back(ir::Attribute::Float(k == 1 ? "min" : "max", bound->data<float>()[0]));
    }
  } else if (node.inputs.size() != 1) {
    return false;
  }
  std::optional<Activation> x = ActivationDq(node.inputs[0]);
  if (!x) return false;
  std::optional<Chain> chain = OutputChain(node.outputs[0], false);
  if (!chain) return false;
  const std::string x_nhwc = NhwcTwin(x->value);
  ir::Node step;
  step.name = node.name;
  step.op_type = "QUnary";
  attrs.push_back(ir::Attribute::String("op", node.op_type));
  attrs.push_back(ir::Attribute::Float("x_scale", x->q.scale));
  attrs.push_back(ir::Attribute::Int("x_zero_point", x->q.zero));
  EmitElementwise(std::move(step), {x_nhwc.empty() ? x->value : x_nhwc}, !x_nhwc.empty(), *chain, std::move(attrs));
  return true;
}

bool Rewriter::TryPool(size_t i) {
  const ir::Node& node = in_.nodes[i];
  const bool max_pool = node.op_type == "MaxPool";
  if (node.op_type != "GlobalAveragePool" && node.op_type != "ReduceMean" && !max_pool) return false;
  if (node.inputs.empty() || node.outputs.empty() || (node.outputs.size() > 1 && !node.outputs[1].empty())) return false;
  std::optional<Activation> x = ActivationDq(node.inputs[0]);
  if (!x && max_pool) x = PooledInput(node.inputs[0]);
  if (!x) return false;
  std::optional<Chain> chain = OutputChain(node.outputs[0], false);
  if (!chain) return false;
  ir::Node step;
  step.name = node.name;
  if (max_pool) {
    // Max commutes with Q only between equal parameters: XNNPACK's int8 max pooling does not requantize.
    // It clamps to nothing either: no Relu or Clip between the pool and the Q.
    if (node.inputs.size() != 1 || AttrInts(node, "kernel_shape").size() != 2 || chain->q.scale != x->q.scale ||
        chain->q.zero != x->q.zero || chain->qmin != -128 || chain->qmax != 127) {
      return false;
    }
    step = node;
    step.op_type = "QMaxPoolNhwc";
    EmitElementwise(std::move(step), {ToNhwc(x->value)}, true, *chain, node.attributes);
    return true;
  }
  std::vector<ir::Attribute> attrs = {ir::Attribute::Float("x_scale", x->q.scale),
                                      ir::Attribute::Int("x_zero_point", x->q.zero)};
  const std::string x_nhwc = NhwcTwin(x->value);
  const bool nhwc = node.op_type == "GlobalAveragePool" && !x_nhwc.empty();
  if (nhwc) {
    attrs.push_back(ir::Attribute::Ints("axes", {1, 2}));
  } else if (node.op_type == "GlobalAveragePool") {
    attrs.push_back(ir::Attribute::Int("spatial", 1));  // every axis from 2 on, whatever the rank
  } else {
    std::vector<int64_t> axes = AttrInts(node, "axes");
    if (node.inputs.size() > 1 && !node.inputs[1].empty()) {
      std::optional<Tensor> given = Const(node.inputs[1]);
      if (!given || given->dtype() != DataType::kInt64) return false;
      axes.assign(given->data<int64_t>(), given->data<int64_t>() + given->numel());
    }
    if (axes.empty() && AttrInt(node, "noop_with_empty_axes", 0) != 0) return false;
    attrs.push_back(ir::Attribute::Ints("axes", axes));
    attrs.push_back(ir::Attribute::Int("keepdims", AttrInt(node, "keepdims", 1)));
  }
  step.op_type = "QMean";
  EmitElementwise(std::move(step), {nhwc ? x_nhwc : x->value}, nhwc, *chain, std::move(attrs));
  return true;
}

bool Rewriter::TryConcat(size_t i) {
  const ir::Node& node = in_.nodes[i];
  if (node.op_type != "Concat" || node.inputs.empty() || node.outputs.size() != 1) return false;
  std::vector<Activation> xs;
  for (const std::string& input : node.inputs) {
    std::optional<Activation> x = ActivationDq(input, true);
    if (!x) return false;
    xs.push_back(std::move(*x));
  }
  std::optional<Chain> chain = OutputChain(node.outputs[0], false);
  if (!chain) return false;
  int64_t axis = AttrInt(node, "axis", 0);
  std::vector<std::string> inputs;
  for (const Activation& x : xs) inputs.push_back(NhwcTwin(x.value));
  bool nhwc = axis >= -4 && axis < 4;
  for (const std::string& twin : inputs) nhwc = nhwc && !twin.empty();
  if (nhwc) {
    axis = NhwcAxis(axis < 0 ? axis + 4 : axis);
  } else {
    for (size_t k = 0; k < xs.size(); ++k) inputs[k] = xs[k].value;
  }
  std::vector<float> scales;
  std::vector<int64_t> zeros;
  for (const Activation& x : xs) {
    scales.push_back(x.q.scale);
    zeros.push_back(x.q.zero);
  }
  ir::Node step;
  step.name = node.name;
  step.op_type = "QConcat";
  EmitElementwise(std::move(step), std::move(inputs), nhwc, *chain,
                  {ir::Attribute::Int("axis", axis), ir::Attribute::Floats("x_scales", scales),
                   ir::Attribute::Ints("x_zero_points", zeros)});
  return true;
}

std::string Rewriter::ToNchw(const Int8Value& v) {
  if (!v.nhwc) return v.name;
  for (const auto& [nchw, nhwc] : nhwc_of_) {
    if (nhwc == v.name) return nchw;
  }
  const std::string nchw = v.name + "::nchw8";
  nodes_.push_back(LayoutTranspose(v.name, nchw, {0, 3, 1, 2}));
  nhwc_of_[nchw] = v.name;
  return nchw;
}

std::optional<Rewriter::Int8Value> Rewriter::QuantizedAt(const std::string& value, const QParams& q, int depth) {
  constexpr int kMaxDepth = 16;
  const auto key = std::make_tuple(value, q.scale, q.zero, q.u8);
  auto done = quantized_at_.find(key);
  if (done != quantized_at_.end()) return done->second;
  const ir::Node* producer = Producer(value);
  if (depth > kMaxDepth || producer == nullptr || !producer->domain.empty()) return std::nullopt;
  const std::string tag = absl::StrCat(value, "::q", quantized_at_.size());
  std::optional<Int8Value> result;
  if (producer->op_type == "DequantizeLinear") {
    std::optional<Activation> x = ActivationDq(value, true);
    if (!x) return std::nullopt;
    const std::string twin = NhwcTwin(x->value);
    Int8Value in{twin.empty() ? x->value : twin, !twin.empty()};
    if (x->q.scale == q.scale && x->q.zero == q.zero) {
      result = in;
    } else {  // requantized through a table: Q(DQ(x)) for every x
      ir::Node step = Plain("QUnary", {in.name}, tag);
      step.domain = kRuntimeDomain;
      step.attributes = {ir::Attribute::String("op", "Identity"), ir::Attribute::Float("x_scale", x->q.scale),
                         ir::Attribute::Int("x_zero_point", x->q.zero), ir::Attribute::Float("y_scale", q.scale),
                         ir::Attribute::Int("y_zero_point", q.zero), ir::Attribute::Int("y_uint8", q.u8 ? 1 : 0)};
      nodes_.push_back(std::move(step));
      result = Int8Value{tag, in.nhwc};
    }
  } else if (producer->op_type == "Concat" && !producer->inputs.empty() && producer->outputs.size() == 1) {
    std::vector<Int8Value> parts;
    for (const std::string& input : producer->inputs) {
      std::optional<Int8Value> part = QuantizedAt(input, q, depth + 1);
      if (!part) return std::nullopt;
      parts.push_back(*part);
    }
    int64_t axis = AttrInt(*producer, "axis", 0);
    bool nhwc = axis >= -4 && axis < 4;
    for (const Int8Value& part : parts) nhwc = nhwc && part.nhwc;
    std::vector<std::string> inputs;
    for (const Int8Value& part : parts) inputs.push_back(nhwc ? part.name : ToNchw(part));
    if (nhwc) axis = NhwcAxis(axis < 0 ? axis + 4 : axis);
    ir::Node step;
    step.name = tag;
    step.op_type = "QConcat";
    step.domain = kRuntimeDomain;
    step.inputs = std::move(inputs);
    step.outputs = {tag};
    step.attributes = {ir::Attribute::Int("axis", axis),
                       ir::Attribute::Floats("x_scales", std::vector<float>(parts.size(), q.scale)),
                       ir::Attribute::Ints("x_zero_points", std::vector<int64_t>(parts.size(), q.zero)),
                       ir::Attribute::Float("y_scale", q.scale), ir::Attribute::Int("y_zero_point", q.zero),
                       ir::Attribute::Int("y_uint8", q.u8 ? 1 : 0)};
    nodes_.push_back(std::move(step));
    result = Int8Value{tag, nhwc};
  } else if (producer->op_type == "MaxPool" && producer->inputs.size() == 1 &&
             (producer->outputs.size() == 1 || producer->outputs[1].empty()) &&
             AttrInts(*producer, "kernel_shape").size() == 2) {
    std::optional<Int8Value> in = QuantizedAt(producer->inputs[0], q, depth + 1);
    if (!in) return std::nullopt;
    ir::Node step = *producer;
    step.name = tag;
    step.op_type = "QMaxPoolNhwc";
    step.domain = kRuntimeDomain;
    step.inputs = {in->nhwc ? in->name : ToNhwc(in->name)};
    step.outputs = {tag};
    nodes_.push_back(std::move(step));
    result = Int8Value{tag, true};
  }
  if (result) quantized_at_[key] = *result;
  return result;
}

bool Rewriter::TryQuantize(size_t i) {
  const ir::Node& node = in_.nodes[i];
  if (node.op_type != "QuantizeLinear" || node.outputs.size() != 1 || outputs_.count(node.outputs[0])) return false;
  const ir::Node* producer = Producer(node.inputs[0]);
  if (producer == nullptr || (producer->op_type != "Concat" && producer->op_type != "MaxPool")) return false;
  std::optional<QParams> q = PerTensor(node);
  if (!q) return false;
  std::optional<Int8Value> v = QuantizedAt(node.inputs[0], *q, 0);
  if (!v) return false;
  Chain chain;
  chain.q = *q;
  chain.q_out = node.outputs[0];
  // The Q's int8 value under its own name (an alias of the step's), NHWC where the step's is.
  const std::string name = v->nhwc ? chain.q_out + "::nhwc8" : Int8Name(chain);
  nodes_.push_back(Plain("Identity", {v->name}, name));
  Publish(chain, name, v->nhwc);
  return true;
}

}  // namespace pt2onnx::runtime::qdq
