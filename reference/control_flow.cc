// Reference kernels: torch's higher-order control flow, run as torch's eager
// (CompositeExplicitAutograd) implementations in torch/_higher_order_ops run
// them, by interpreting the nested FX graphs (SubgraphRunner). Positional
// arguments only: higher-order ops have no ATen schema.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "reference/subgraph_runner.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

using Kind = pt2::Argument::Kind;

absl::StatusOr<const pt2::Graph*> GraphAt(const RefCall& call, size_t index, absl::string_view what) {
  const std::vector<pt2::NamedArgument>& inputs = call.node().inputs;
  if (index >= inputs.size() || inputs[index].arg.kind != Kind::kGraph || inputs[index].arg.graph == nullptr) {
    return call.Invalid(absl::StrCat("argument ", index, " (", what, ") is not a graph"));
  }
  return inputs[index].arg.graph.get();
}

// A list operand (operands, carried inputs, xs, ...): its values in order.
absl::StatusOr<std::vector<RefValue>> ListAt(const RefCall& call, size_t index, absl::string_view what) {
  PT2ONNX_ASSIGN_OR_RETURN(RefValue v, call.ValueAt(index));
  if (v.kind == RefValue::Kind::kNone) return std::vector<RefValue>();
  if (v.kind != RefValue::Kind::kList) {
    return call.Invalid(absl::StrCat("argument ", index, " (", what, ") is not a list"));
  }
  return std::move(v.list);
}

absl::StatusOr<SubgraphRunner*> Runner(const RefCall& call) {
  if (call.subgraph_runner() == nullptr) return call.Unsupported("nested graphs run only inside Interpret()");
  return call.subgraph_runner();
}

std::vector<RefValue> Concat(std::vector<RefValue> a, const std::vector<RefValue>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

absl::Status SetAll(RefCall& call, std::vector<RefValue> values) {
  if (values.size() != call.node().outputs.size()) {
    return call.Invalid(absl::StrCat("the node declares ", call.node().outputs.size(),
                                     " outputs but its graph returns ", values.size()));
  }
  for (RefValue& v : values) PT2ONNX_RETURN_IF_ERROR(call.Set(std::move(v)));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> Tensors(const RefCall& call, const std::vector<RefValue>& values,
                                            absl::string_view what) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].kind != RefValue::Kind::kTensor) {
      return call.Invalid(absl::StrCat(what, " ", i, " is not a tensor"));
    }
    out.push_back(values[i].tensor);
  }
  return out;
}

// The leading-dim length all `xs` share (each at least 1-D).
absl::StatusOr<int64_t> SharedLength(const RefCall& call, const std::vector<Tensor>& xs) {
  for (const Tensor& x : xs) {
    if (x.rank() < 1) return call.Invalid("a scanned or mapped input is 0-d; it needs a leading dim");
    if (x.dim(0) != xs[0].dim(0)) {
      return call.Invalid(absl::StrCat("the scanned or mapped inputs have different leading dims (",
                                       xs[0].dim(0), " and ", x.dim(0), ")"));
    }
  }
  return xs[0].dim(0);
}

// Scans and maps step once per row: rows of zero elements cost nothing to
// store, so their count is bounded like a loop's.
absl::Status CheckSteps(const RefCall& call, int64_t length, absl::string_view op) {
  if (length <= call.subgraph_runner()->max_loop_iterations()) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(op, " over ", length, " rows is more than ",
                                                   call.subgraph_runner()->max_loop_iterations(),
                                                   " steps, the most the reference interpreter and the "
                                                   "executor run (kMaxLoopIterations)"));
}

// Row `index` of `x` along dim 0, copied.
absl::StatusOr<Tensor> Row(const Tensor& x, int64_t index) {
  Dims dims(x.dims().begin() + 1, x.dims().end());
  PT2ONNX_ASSIGN_OR_RETURN(Tensor row, NewTensor(x.dtype(), dims));
  const size_t bytes = row.byte_size();
  if (bytes > 0) std::memcpy(row.raw(), x.raw() + static_cast<size_t>(index) * bytes, bytes);
  return row;
}

// Stacked outputs: row t of each is the iteration's value (torch.stack / the
// scatter into a preallocated output: one shape and dtype for every row).
class Stacks {
 public:
  Stacks(const RefCall& call, int64_t length) : call_(call), length_(length) {}

  absl::Status Store(const std::vector<RefValue>& values, int64_t t) {
    for (size_t k = 0; k < values.size(); ++k) {
      if (values[k].kind != RefValue::Kind::kTensor) {
        return call_.Unsupported(absl::StrCat("stacked output ", k, " is not a tensor"));
      }
      const Tensor& v = values[k].tensor;
      if (k == stacks_.size()) {
        Dims dims = v.dims();
        dims.insert(dims.begin(), length_);
        PT2ONNX_ASSIGN_OR_RETURN(Tensor stacked, NewTensor(v.dtype(), dims));
        stacks_.push_back(std::move(stacked));
      }
      Tensor& stacked = stacks_[k];
      if (v.dtype() != stacked.dtype() || !std::equal(v.dims().begin(), v.dims().end(), stacked.dims().begin() + 1,
                                                      stacked.dims().end())) {
        return call_.Invalid(absl::StrCat("stacked output ", k, " changes from ", DataTypeName(stacked.dtype()),
                                          " ", DimsString(Dims(stacked.dims().begin() + 1, stacked.dims().end())),
                                          " to ", DataTypeName(v.dtype()), " ", DimsString(v.dims()),
                                          " at iteration ", t));
      }
      const size_t bytes = v.byte_size();
      if (bytes > 0 && t < length_) std::memcpy(stacked.raw() + static_cast<size_t>(t) * bytes, v.raw(), bytes);
    }
    return absl::OkStatus();
  }

  std::vector<RefValue> Take() {
    std::vector<RefValue> out;
    for (Tensor& t : stacks_) out.push_back(RefValue::OfTensor(std::move(t)));
    return out;
  }

 private:
  const RefCall& call_;
  int64_t length_;
  std::vector<Tensor> stacks_;
};

// bool(pred) in Python: one element, non-zero (NaN counts as true).
absl::StatusOr<bool> Truth(const RefCall& call, const RefValue& pred) {
  switch (pred.kind) {
    case RefValue::Kind::kBool: return pred.b;
    case RefValue::Kind::kInt: return pred.i != 0;
    case RefValue::Kind::kFloat: return pred.f != 0;
    case RefValue::Kind::kTensor:
      if (pred.tensor.numel() != 1) {
        return call.Invalid(absl::StrCat("the predicate has ", pred.tensor.numel(),
                                         " elements; torch needs exactly one"));
      }
      if (IsFloatLike(pred.tensor.dtype())) return LoadDouble(pred.tensor, 0) != 0;
      return LoadInt(pred.tensor, 0) != 0;
    default: return call.Invalid("the predicate is neither a tensor nor a boolean");
  }
}

// higher_order::cond(pred, true_fn, false_fn, operands)
absl::Status Cond(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(RefValue pred, call.ValueAt(0));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* true_fn, GraphAt(call, 1, "true_fn"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* false_fn, GraphAt(call, 2, "false_fn"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> operands, ListAt(call, 3, "operands"));
  PT2ONNX_ASSIGN_OR_RETURN(bool taken, Truth(call, pred));
  PT2ONNX_ASSIGN_OR_RETURN(SubgraphRunner * runner, Runner(call));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> outputs, runner->Run(taken ? *true_fn : *false_fn, operands));
  return SetAll(call, std::move(outputs));
}

// while_loop_dense: cond_fn must give a 0-d bool tensor or a bool.
absl::StatusOr<bool> LoopCondition(const RefCall& call, const std::vector<RefValue>& outputs) {
  if (outputs.size() != 1) return call.Invalid(absl::StrCat("cond_fn returns ", outputs.size(), " values, not one"));
  const RefValue& v = outputs[0];
  if (v.kind == RefValue::Kind::kBool) return v.b;
  if (v.kind == RefValue::Kind::kTensor && v.tensor.dtype() == DataType::kBool && v.tensor.rank() == 0) {
    return v.tensor.raw()[0] != 0;
  }
  return call.Invalid(absl::StrCat("cond_fn must return a boolean scalar tensor or a boolean (as torch "
                                   "requires), got ",
                                   v.kind == RefValue::Kind::kTensor
                                       ? absl::StrCat(DataTypeName(v.tensor.dtype()), " ",
                                                      DimsString(v.tensor.dims()))
                                       : std::string("a number")));
}

// higher_order::while_loop(cond_fn, body_fn, carried_inputs, additional_inputs)
absl::Status WhileLoop(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* cond_fn, GraphAt(call, 0, "cond_fn"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* body_fn, GraphAt(call, 1, "body_fn"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> carried, ListAt(call, 2, "carried_inputs"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> extra, ListAt(call, 3, "additional_inputs"));
  PT2ONNX_ASSIGN_OR_RETURN(SubgraphRunner * runner, Runner(call));
  const size_t count = carried.size();
  for (int64_t iteration = 0;; ++iteration) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> test, runner->Run(*cond_fn, Concat(carried, extra)));
    PT2ONNX_ASSIGN_OR_RETURN(bool again, LoopCondition(call, test));
    if (!again) break;
    if (iteration == runner->max_loop_iterations()) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "while_loop did not stop after ", runner->max_loop_iterations(),
          " iterations, the most the reference interpreter and the executor run (kMaxLoopIterations)"));
    }
    PT2ONNX_ASSIGN_OR_RETURN(carried, runner->Run(*body_fn, Concat(std::move(carried), extra)));
    if (carried.size() != count) {
      return call.Invalid(absl::StrCat("body_fn returns ", carried.size(), " values for ", count,
                                       " carried inputs"));
    }
  }
  // Zero iterations return clones of the carried inputs, as torch does.
  for (RefValue& v : carried) {
    if (v.kind == RefValue::Kind::kTensor) {
      PT2ONNX_ASSIGN_OR_RETURN(v.tensor, CopyTensor(v.tensor));
    }
  }
  return SetAll(call, std::move(carried));
}

// higher_order::scan(combine_fn, init, xs, additional_inputs): torch.export
// has already moved `dim` first and flipped reversed scans around the op, so
// it scans dim 0 forward (generic_scan). The body returns the new carries,
// then the values stacked into the outputs.
absl::Status Scan(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* combine_fn, GraphAt(call, 0, "combine_fn"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> carry, ListAt(call, 1, "init"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> xs_values, ListAt(call, 2, "xs"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> extra, ListAt(call, 3, "additional_inputs"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> xs, Tensors(call, xs_values, "scanned input"));
  PT2ONNX_ASSIGN_OR_RETURN(SubgraphRunner * runner, Runner(call));
  const size_t num_carries = carry.size();
  if (xs.empty()) return SetAll(call, std::move(carry));  // generic_scan: no xs, no steps, no outputs
  PT2ONNX_ASSIGN_OR_RETURN(int64_t length, SharedLength(call, xs));
  PT2ONNX_RETURN_IF_ERROR(CheckSteps(call, length, "scan"));
  const std::vector<RefValue> init = carry;
  Stacks stacks(call, length);
  // A scan of length 0 still runs the body once, on zero slices, for the
  // shapes and dtypes of its (empty) stacked outputs, and returns init.
  for (int64_t t = 0; t < std::max<int64_t>(length, 1); ++t) {
    std::vector<RefValue> inputs = carry;
    for (const Tensor& x : xs) {
      Tensor slice;
      if (length == 0) {
        PT2ONNX_ASSIGN_OR_RETURN(slice, NewTensor(x.dtype(), Dims(x.dims().begin() + 1, x.dims().end())));
      } else {
        PT2ONNX_ASSIGN_OR_RETURN(slice, Row(x, t));
      }
      inputs.push_back(RefValue::OfTensor(std::move(slice)));
    }
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> outputs, runner->Run(*combine_fn, Concat(std::move(inputs), extra)));
    if (outputs.size() < num_carries) {
      return call.Invalid(absl::StrCat("combine_fn returns ", outputs.size(), " values for ", num_carries,
                                       " carries"));
    }
    carry.assign(outputs.begin(), outputs.begin() + num_carries);
    PT2ONNX_RETURN_IF_ERROR(stacks.Store(std::vector<RefValue>(outputs.begin() + num_carries, outputs.end()), t));
  }
  if (length == 0) {
    carry = init;
    for (RefValue& v : carry) {
      if (v.kind == RefValue::Kind::kTensor) {
        PT2ONNX_ASSIGN_OR_RETURN(v.tensor, CopyTensor(v.tensor));
      }
    }
  }
  return SetAll(call, Concat(std::move(carry), stacks.Take()));
}

// higher_order::map_impl(f, xs, pos_args): f on each row of xs along dim 0,
// the results stacked (map_dense). torch has nothing to stack for zero rows
// and raises.
absl::Status MapImpl(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* f, GraphAt(call, 0, "f"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> xs_values, ListAt(call, 1, "xs"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> extra, ListAt(call, 2, "pos_args"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> xs, Tensors(call, xs_values, "mapped input"));
  PT2ONNX_ASSIGN_OR_RETURN(SubgraphRunner * runner, Runner(call));
  if (xs.empty()) return call.Invalid("map over no inputs");
  PT2ONNX_ASSIGN_OR_RETURN(int64_t length, SharedLength(call, xs));
  if (length == 0) return call.Invalid("map over zero rows: torch's map has nothing to stack and raises");
  PT2ONNX_RETURN_IF_ERROR(CheckSteps(call, length, "map"));
  Stacks stacks(call, length);
  for (int64_t t = 0; t < length; ++t) {
    std::vector<RefValue> inputs;
    for (const Tensor& x : xs) {
      PT2ONNX_ASSIGN_OR_RETURN(Tensor row, Row(x, t));
      inputs.push_back(RefValue::OfTensor(std::move(row)));
    }
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> outputs, runner->Run(*f, Concat(std::move(inputs), extra)));
    PT2ONNX_RETURN_IF_ERROR(stacks.Store(outputs, t));
  }
  return SetAll(call, stacks.Take());
}

// The context-manager wrappers run their body on the operands after it.
absl::Status RunWrappedBody(RefCall& call) {
  const std::vector<pt2::NamedArgument>& inputs = call.node().inputs;
  size_t body = 0;
  while (body < inputs.size() && inputs[body].arg.kind != Kind::kGraph) ++body;
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::Graph* graph, GraphAt(call, body, "body"));
  std::vector<RefValue> operands;
  for (size_t i = body + 1; i < inputs.size(); ++i) {
    PT2ONNX_ASSIGN_OR_RETURN(RefValue v, call.ValueAt(i));
    operands.push_back(std::move(v));
  }
  PT2ONNX_ASSIGN_OR_RETURN(SubgraphRunner * runner, Runner(call));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<RefValue> outputs, runner->Run(*graph, operands));
  return SetAll(call, std::move(outputs));
}

// higher_order::wrap_with_set_grad_enabled(enabled, body, *operands):
// gradients do not change values.
absl::Status WrapWithSetGradEnabled(RefCall& call) { return RunWrappedBody(call); }

// higher_order::wrap_with_autocast(device_type, dtype, enabled, cache_enabled, body, *operands)
absl::Status WrapWithAutocast(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(RefValue enabled, call.ValueAt(2));
  if (enabled.kind != RefValue::Kind::kBool) return call.Invalid("argument 2 (enabled) is not a bool");
  if (enabled.b) {
    return call.Unsupported("an enabled torch.autocast region changes the dtypes of the ops inside it; "
                            "re-export with ep.run_decompositions(), which writes its casts as nodes");
  }
  return RunWrappedBody(call);
}

}  // namespace

void RegisterControlFlowRef(RefRegistry& r) {
  r.Add("higher_order::cond", Cond);
  r.Add("higher_order::while_loop", WhileLoop);
  r.Add("higher_order::scan", Scan);
  r.Add("higher_order::map_impl", MapImpl);
  r.Add("higher_order::wrap_with_set_grad_enabled", WrapWithSetGradEnabled);
  r.Add("higher_order::wrap_with_autocast", WrapWithAutocast);
}

}  // namespace pt2onnx::reference
