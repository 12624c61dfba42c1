// Higher-order control flow (torch/_higher_order_ops): torch.cond -> If,
// while_loop -> Loop, scan -> Scan, map -> Scan. The branches and bodies are
// nested FX graphs (translate/subgraph.h); their positional arguments carry no
// names, so they are read by position.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/graph_builder.h"
#include "translate/subgraph.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

struct Operand {
  std::string value;  // ONNX value in the enclosing graph
  DataType dtype = DataType::kUndefined;
};

absl::StatusOr<const Argument*> Positional(TranslateContext& ctx, size_t index,
                                           absl::string_view what) {
  const std::vector<pt2::NamedArgument>& inputs = ctx.node().inputs;
  if (index >= inputs.size()) {
    return ctx.Invalid(absl::StrCat("argument ", index, " (", what, ") is missing"));
  }
  return &inputs[index].arg;
}

absl::StatusOr<const pt2::Graph*> GraphArg(TranslateContext& ctx, size_t index,
                                           absl::string_view what) {
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* arg, Positional(ctx, index, what));
  if (arg->kind != Kind::kGraph || arg->graph == nullptr) {
    return ctx.Invalid(absl::StrCat("argument ", index, " (", what, ") is not a graph"));
  }
  return arg->graph.get();
}

// A tensor-list argument (operands, carried values, scanned inputs).
absl::StatusOr<std::vector<Operand>> Operands(TranslateContext& ctx, size_t index,
                                              absl::string_view what) {
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* arg, Positional(ctx, index, what));
  std::vector<Operand> operands;
  if (arg->kind == Kind::kNone) return operands;
  if (arg->kind != Kind::kTensors) {
    return ctx.Unsupported(absl::StrCat("argument ", index, " (", what,
                                        ") is not a list of tensors; symbolic or constant operands "
                                        "of higher-order ops are not supported"));
  }
  for (const std::string& name : arg->names) {
    Operand op;
    PT2ONNX_ASSIGN_OR_RETURN(op.value, ctx.ValueOf(name));
    const pt2::TensorMeta* meta = ctx.builder().Meta(name);
    if (meta == nullptr) return ctx.Invalid(absl::StrCat("operand '", name, "' has no tensor metadata"));
    op.dtype = meta->dtype;
    operands.push_back(std::move(op));
  }
  return operands;
}

void Capture(const std::vector<Operand>& operands, SubgraphSpec& spec) {
  for (const Operand& op : operands) spec.inputs.push_back(SubgraphInput{op.value, op.dtype});
}

void AsInputs(const std::vector<Operand>& operands, SubgraphSpec& spec) {
  for (const Operand& op : operands) spec.inputs.push_back(SubgraphInput{std::nullopt, op.dtype});
}

// Binds the node's outputs (one Argument per returned value) in order.
absl::Status BindOutputs(TranslateContext& ctx, const std::vector<std::string>& values) {
  if (static_cast<size_t>(ctx.num_outputs()) != values.size()) {
    return ctx.Invalid(absl::StrCat("the node declares ", ctx.num_outputs(),
                                    " outputs but its graph returns ", values.size()));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (ctx.node().outputs[i].kind == Kind::kNone) continue;
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(static_cast<int>(i), values[i]));
  }
  return absl::OkStatus();
}

ir::ValueInfo ScalarInput(std::string name, DataType dtype) {
  ir::ValueInfo info;
  info.name = std::move(name);
  info.dtype = dtype;
  info.shape = std::vector<ir::Dim>{};
  return info;
}

// cond(Tensor pred, GraphModule true_fn, GraphModule false_fn, Tensor[] operands)
// The predicate may be a bool tensor of one element or a SymBool.
absl::Status HigherOrderCond(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string pred, ctx.Input(""));  // the first positional
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* then_fx, GraphArg(ctx, 1, "true_fn"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* else_fx, GraphArg(ctx, 2, "false_fn"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Operand> operands, Operands(ctx, 3, "operands"));
  PT2ONNX_ASSIGN_OR_RETURN(const Argument* pred_arg, Positional(ctx, 0, "pred"));
  if (pred_arg->kind == Kind::kTensor) {
    PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype(""));
    pred = ctx.CastTo(pred, dtype, DataType::kBool);
  }
  SubgraphSpec then_spec{"true_graph", {}, {}};
  SubgraphSpec else_spec{"false_graph", {}, {}};
  Capture(operands, then_spec);
  Capture(operands, else_spec);
  PT2ONNX_ASSIGN_OR_RETURN(ir::Graph then_graph, TranslateSubgraph(ctx, *then_fx, then_spec));
  PT2ONNX_ASSIGN_OR_RETURN(ir::Graph else_graph, TranslateSubgraph(ctx, *else_fx, else_spec));
  if (then_graph.outputs.size() != else_graph.outputs.size()) {
    return ctx.Invalid("the two branches return different numbers of values");
  }
  for (size_t i = 0; i < then_graph.outputs.size(); ++i) {
    if (then_graph.outputs[i].dtype != else_graph.outputs[i].dtype) {
      return ctx.Invalid(absl::StrCat("branch output ", i, " has different dtypes in the two branches"));
    }
  }
  const int count = static_cast<int>(then_graph.outputs.size());
  std::vector<std::string> results = ctx.AddNode(
      "If", {pred},
      {ir::Attribute::GraphValue("then_branch", std::move(then_graph)),
       ir::Attribute::GraphValue("else_branch", std::move(else_graph))},
      count);
  return BindOutputs(ctx, results);
}

// while_loop(GraphModule cond_fn, GraphModule body_fn, Tensor[] carried_inputs,
//            Tensor[] additional_inputs) -> carried outputs
// ONNX Loop tests its condition before the first iteration and then reads it
// from the body, so cond_fn runs once outside (on the initial values) and
// once at the end of the body (on the new values); no trip count.
absl::Status HigherOrderWhileLoop(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* cond_fx, GraphArg(ctx, 0, "cond_fn"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* body_fx, GraphArg(ctx, 1, "body_fn"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Operand> carried, Operands(ctx, 2, "carried_inputs"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Operand> extra, Operands(ctx, 3, "additional_inputs"));
  if (cond_fx->outputs.size() != 1) return ctx.Invalid("cond_fn must return one value");

  SubgraphSpec first_spec{"cond_graph_first", {}, {}};
  Capture(carried, first_spec);
  Capture(extra, first_spec);
  PT2ONNX_ASSIGN_OR_RETURN(ir::Graph first_cond, TranslateSubgraph(ctx, *cond_fx, first_spec));
  const DataType cond_dtype = first_cond.outputs[0].dtype;
  std::string init_cond = InlineSubgraph(ctx, std::move(first_cond))[0];
  init_cond = ctx.CastTo(init_cond, cond_dtype, DataType::kBool);

  SubgraphSpec body_spec{"body_graph", {}, {}};
  body_spec.leading_inputs = {ScalarInput("iteration", DataType::kInt64),
                              ScalarInput("condition", DataType::kBool)};
  AsInputs(carried, body_spec);
  Capture(extra, body_spec);
  PT2ONNX_ASSIGN_OR_RETURN(ir::Graph body, TranslateSubgraph(ctx, *body_fx, body_spec));
  if (body.outputs.size() != carried.size()) {
    return ctx.Invalid(absl::StrCat("body_fn returns ", body.outputs.size(), " values for ",
                                    carried.size(), " carried inputs"));
  }
  for (size_t i = 0; i < carried.size(); ++i) {
    if (body.outputs[i].dtype != carried[i].dtype) {
      return ctx.Invalid(absl::StrCat("body_fn changes the dtype of carried value ", i));
    }
  }
  // The condition on the body's results, computed inside the body.
  SubgraphSpec next_spec{"cond_graph", {}, {}};
  for (size_t i = 0; i < carried.size(); ++i) {
    next_spec.inputs.push_back(SubgraphInput{body.outputs[i].name, carried[i].dtype});
  }
  Capture(extra, next_spec);
  PT2ONNX_ASSIGN_OR_RETURN(ir::Graph next_cond, TranslateSubgraph(ctx, *cond_fx, next_spec));
  std::string cond_out = next_cond.outputs[0].name;
  for (ir::Node& node : next_cond.nodes) body.nodes.push_back(std::move(node));
  if (cond_dtype != DataType::kBool) {
    ir::Node cast;
    cast.op_type = "Cast";
    cast.name = absl::StrCat("node_", cond_out, "_bool");
    cast.inputs = {cond_out};
    cond_out = absl::StrCat(cond_out, "_bool");
    cast.outputs = {cond_out};
    cast.attributes.push_back(ir::Attribute::Int("to", static_cast<int64_t>(DataType::kBool)));
    body.nodes.push_back(std::move(cast));
  }
  body.outputs.insert(body.outputs.begin(), ScalarInput(cond_out, DataType::kBool));

  std::vector<std::string> inputs = {"", init_cond};
  for (const Operand& op : carried) inputs.push_back(op.value);
  std::vector<std::string> results = ctx.AddNode(
      "Loop", std::move(inputs),
      {ir::Attribute::GraphValue("body", std::move(body))},
      static_cast<int>(carried.size()));
  return BindOutputs(ctx, results);
}

// Scan with `states` carried values over `scanned` inputs (dim 0, forward),
// the rest captured; returns the final states then the stacked outputs.
absl::Status EmitScan(TranslateContext& ctx, const pt2::Graph& body_fx,
                      const std::vector<Operand>& states, const std::vector<Operand>& scanned,
                      const std::vector<Operand>& extra) {
  if (scanned.empty()) return ctx.Unsupported("a scan or map over no inputs");
  SubgraphSpec spec{"body_graph", {}, {}};
  AsInputs(states, spec);
  AsInputs(scanned, spec);
  Capture(extra, spec);
  PT2ONNX_ASSIGN_OR_RETURN(ir::Graph body, TranslateSubgraph(ctx, body_fx, spec));
  if (body.outputs.size() < states.size()) {
    return ctx.Invalid("the body returns fewer values than there are carried states");
  }
  std::vector<std::string> inputs;
  for (const Operand& op : states) inputs.push_back(op.value);
  for (const Operand& op : scanned) inputs.push_back(op.value);
  const int count = static_cast<int>(body.outputs.size());
  std::vector<std::string> results = ctx.AddNode(
      "Scan", std::move(inputs),
      {ir::Attribute::GraphValue("body", std::move(body)),
       ir::Attribute::Int("num_scan_inputs", static_cast<int64_t>(scanned.size()))},
      count);
  return BindOutputs(ctx, results);
}

// scan(GraphModule combine_fn, Tensor[] init, Tensor[] xs, Tensor[] additional_inputs)
// torch.export has already moved the scanned dim first and flipped reversed
// scans, so the op always scans dim 0 forward, like ONNX Scan's defaults.
absl::Status HigherOrderScan(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* body_fx, GraphArg(ctx, 0, "combine_fn"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Operand> init, Operands(ctx, 1, "init"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Operand> xs, Operands(ctx, 2, "xs"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Operand> extra, Operands(ctx, 3, "additional_inputs"));
  return EmitScan(ctx, *body_fx, init, xs, extra);
}

// map_impl(GraphModule f, Tensor[] xs, Tensor[] pos_args): f on each slice of
// xs along dim 0, results stacked; a Scan without carried state.
absl::Status HigherOrderMap(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* body_fx, GraphArg(ctx, 0, "f"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Operand> xs, Operands(ctx, 1, "xs"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Operand> extra, Operands(ctx, 2, "pos_args"));
  return EmitScan(ctx, *body_fx, {}, xs, extra);
}

}  // namespace

void RegisterControlFlowOps(OpRegistry& r) {
  r.Add("higher_order::cond", HigherOrderCond);
  r.Add("higher_order::while_loop", HigherOrderWhileLoop);
  r.Add("higher_order::scan", HigherOrderScan);
  r.Add("higher_order::map_impl", HigherOrderMap);
}

}  // namespace pt2onnx::ops
