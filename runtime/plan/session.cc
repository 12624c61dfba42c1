// File: runtime/plan/session.cc
// -----------------------------------------------------------------------------
// Session: creation (the planned graph handed to Session::Planner,
// session_planner.cc) and running the steps.
#include "runtime/plan/session.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/registry.h"
#include "runtime/plan/einsum_matmul.h"
#include "runtime/plan/fold_batchnorm.h"
#include "runtime/plan/nhwc_layout.h"
#include "runtime/plan/qdq_int8.h"
#include "core/tensor/convert.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {

Session::~Session() = default;

absl::Status Session::NodeError(const std::string& name, const std::string& op, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat("node '", name, "' (", op, "): ", s.message()));
}

namespace {

// Every op without a kernel, listed before failing.
absl::Status CheckKernels(const ir::Graph& graph) {
  std::map<std::string, std::string> missing;  // op -> first node
  for (const ir::Node& node : graph.nodes) {
    if (!node.domain.empty() && node.domain != "ai.onnx") {
      missing.emplace(node.domain + "::" + node.op_type, node.name);
      continue;
    }
    if (FindKernel(node.op_type) == nullptr) missing.emplace(node.op_type, node.name);
  }
  if (missing.empty()) return absl::OkStatus();
  std::vector<std::string> parts;
  for (const auto& [op, name] : missing) parts.push_back(absl::StrCat(op, " (first node '", name, "')"));
  return absl::UnimplementedError(absl::StrCat("the executor has no kernel for ", missing.size(),
                                               " op type(s): ", absl::StrJoin(parts, ", ")));
}

// The accelerated plan folds Conv -> BatchNormalization, runs matrix-product
// Einsums as MatMul (plan/einsum_matmul.h), runs QDQ patterns in
// int8 (plan/qdq_int8.h; before the float layout pass, which then sees only
// what stays float) and runs convolutions in NHWC (plan/nhwc_layout.h); the
// portable one runs the graph as written (the reference). Weight bytes are
// shared with `graph`, not copied.
ir::Graph PlannedGraph(const ir::Graph& graph, const SessionOptions& options) {
  if (!options.accelerate) return graph;
  if (!AcceleratorAvailable()) return FoldConvBatchNorm(graph);
  ir::Graph folded = EinsumsToMatMuls(FoldConvBatchNorm(graph));
  return ConvolutionsToNhwc(options.int8 ? QdqToInt8(folded) : folded);
}

}  // namespace

absl::StatusOr<std::unique_ptr<Session>> Session::Create(const ir::Model& model, const SessionOptions& options) {
  PT2ONNX_RETURN_IF_ERROR(CheckKernels(model.graph));
  return Build(PlannedGraph(model.graph, options), model.OnnxOpset(), options);
}

absl::StatusOr<std::unique_ptr<Session>> Session::Create(ir::Model&& model, const SessionOptions& options) {
  PT2ONNX_RETURN_IF_ERROR(CheckKernels(model.graph));
  ir::Graph graph = PlannedGraph(model.graph, options);
  const int64_t opset = model.OnnxOpset();
  model = ir::Model();  // the planned graph now holds the only reference to each weight
  return Build(std::move(graph), opset, options);
}

absl::Status Session::BindInputs(const std::vector<NamedTensor>& inputs, std::vector<Tensor>& slots) const {
  // Few inputs: linear scans, no maps on the per-run path.
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (inputs[j].name == inputs[i].name) {
        return absl::InvalidArgumentError(absl::StrCat("input '", inputs[i].name, "' is given twice"));
      }
    }
  }
  std::vector<std::pair<const std::string*, int64_t>> symbols;
  size_t matched = 0;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const ir::ValueInfo& info = inputs_[i];
    const Tensor* found = nullptr;
    for (const NamedTensor& given : inputs) {
      if (given.name == info.name) found = &given.tensor;
    }
    if (found == nullptr) return absl::InvalidArgumentError(absl::StrCat("missing input '", info.name, "'"));
    const Tensor& t = *found;
    ++matched;
    if (t.dtype() != info.dtype) {
      return absl::InvalidArgumentError(absl::StrCat("input '", info.name, "' must be ", DataTypeName(info.dtype),
                                                     ", got ", DataTypeName(t.dtype())));
    }
    if (info.shape.has_value()) {
      const auto& want = *info.shape;
      if (static_cast<size_t>(t.rank()) != want.size()) {
        return absl::InvalidArgumentError(absl::StrCat("input '", info.name, "' must have rank ", want.size(),
                                                       ", got shape ", DimsString(t.dims())));
      }
      for (size_t d = 0; d < want.size(); ++d) {
        if (want[d].is_static() && want[d].value != t.dim(d)) {
          return absl::InvalidArgumentError(absl::StrCat("input '", info.name, "' dim ", d, " must be ",
                                                         want[d].value, ", got shape ", DimsString(t.dims())));
        }
        if (!want[d].param.empty()) {
          auto sym = std::find_if(symbols.begin(), symbols.end(),
                                  [&](const auto& entry) { return *entry.first == want[d].param; });
          if (sym == symbols.end()) {
            symbols.emplace_back(&want[d].param, t.dim(d));
          } else if (sym->second != t.dim(d)) {
            return absl::InvalidArgumentError(absl::StrCat("input '", info.name, "' dim ", d, " ('", want[d].param,
                                                           "') is ", t.dim(d), " but another input has it ",
                                                           sym->second));
          }
        }
      }
    }
    slots[input_slots_[i]] = t;
  }
  if (matched != inputs.size()) {
    // The first unknown name in name order, as before.
    const std::string* unknown = nullptr;
    for (const NamedTensor& given : inputs) {
      bool known = std::any_of(inputs_.begin(), inputs_.end(), [&](const ir::ValueInfo& v) { return v.name == given.name; });
      if (!known && (unknown == nullptr || given.name < *unknown)) unknown = &given.name;
    }
    if (unknown != nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown input '", *unknown, "'"));
  }
  return absl::OkStatus();
}

absl::Status Session::RunStep(Step& step, std::vector<Tensor>& slots) {
  std::vector<const Tensor*> in = std::move(step.in_scratch);
  in.clear();
  std::vector<Tensor> converted;
  if (step.half_mode == HalfMode::kViaFloat32) converted.reserve(step.inputs.size());  // stable addresses
  DataType half = DataType::kUndefined;
  for (int id : step.inputs) {
    const Tensor* t = id >= 0 && !slots[id].empty_value() ? &slots[id] : nullptr;
    if (id >= 0 && t == nullptr) return absl::InternalError("an input was released before its last use");
    if (t != nullptr && step.half_mode == HalfMode::kViaFloat32 && IsHalfFloat(t->dtype())) {
      half = t->dtype();
      PT2ONNX_ASSIGN_OR_RETURN(auto f, CastTo(*t, DataType::kFloat, &pool_));
      converted.push_back(std::move(f));
      t = &converted.back();
    }
    in.push_back(t);
  }
  std::vector<Tensor> out = std::move(step.out_scratch);
  out.resize(step.outputs.size());
  KernelContext ctx(std::move(in), std::move(out), &pool_, options_.threadpool);
  PT2ONNX_RETURN_IF_ERROR(step.kernel->Run(ctx));
  for (size_t i = 0; i < step.outputs.size(); ++i) {
    if (step.outputs[i] < 0) continue;
    Tensor& t = ctx.outputs()[i];
    if (t.empty_value() && t.dtype() == DataType::kUndefined) {
      return absl::InternalError(absl::StrCat("output ", i, " was not produced"));
    }
    if (half != DataType::kUndefined && t.dtype() == DataType::kFloat) {
      PT2ONNX_ASSIGN_OR_RETURN(auto h, CastTo(t, half, &pool_));
      pool_.Release(t.buffer());
      t = std::move(h);
    }
    slots[step.outputs[i]] = std::move(t);
  }
  ctx.Recycle(step.in_scratch, step.out_scratch);
  for (Tensor& t : step.out_scratch) t = Tensor();
  for (Tensor& t : converted) {
    std::shared_ptr<Buffer> b = t.buffer();
    t = Tensor();
    pool_.Release(std::move(b));
  }
  return absl::OkStatus();
}

void Session::ClearComputedSlots() {
  for (int id : computed_slots_) slots_[id] = Tensor();
}

absl::StatusOr<std::vector<NamedTensor>> Session::Run(const std::vector<NamedTensor>& inputs) {
  absl::Status bound = BindInputs(inputs, slots_);
  if (!bound.ok()) {
    ClearComputedSlots();
    return bound;
  }
  const bool profiled = static_cast<bool>(options_.clock);
  for (Step& step : steps_) {
    const double started = profiled ? options_.clock() : 0;
    absl::Status s = RunStep(step, slots_);
    if (profiled) step.seconds += options_.clock() - started;
    if (!s.ok()) {
      for (Tensor& t : step.out_scratch) t = Tensor();
      ClearComputedSlots();
      return NodeError(step.node_name, step.op_type, s);
    }
    for (int id : step.release) {
      std::shared_ptr<Buffer> b = slots_[id].buffer();
      slots_[id] = Tensor();
      pool_.Release(std::move(b));
    }
  }
  std::vector<NamedTensor> result;
  result.reserve(outputs_.size());
  for (size_t i = 0; i < outputs_.size(); ++i) result.push_back({outputs_[i].name, slots_[output_slots_[i]]});
  // Inputs and outputs are the caller's now: the session keeps no reference.
  ClearComputedSlots();
  return result;
}

std::vector<StepProfile> Session::Profile() const {
  std::vector<StepProfile> profile;
  profile.reserve(steps_.size());
  for (const Step& step : steps_) profile.push_back({step.node_name, step.op_type, step.accelerated, step.seconds});
  return profile;
}

void Session::ResetProfile() {
  for (Step& step : steps_) step.seconds = 0;
}

}  // namespace pt2onnx::runtime
