// File: runtime/plan/session_planner.cc
// -----------------------------------------------------------------------------
// Session::Planner: turns a planned graph into the session's steps, once, at
// Session::Create. Each value gets a slot; initializers and Constant nodes
// become constants; a node whose inputs are all constants runs here and its
// outputs become constants too (so the nodes reading them can pre-pack them);
// every other node becomes a step with its kernel. A constant is freed as soon
// as its last reader is planned and packed, so packed weights and their source
// are not held together; after planning, each computed value is released
// after its last reader.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "core/tensor/convert.h"
#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/control_flow.h"
#include "runtime/kernels/registry.h"
#include "runtime/plan/nhwc_layout.h"
#include "runtime/plan/qdq_int8.h"
#include "runtime/plan/session.h"

namespace pt2onnx::runtime {

class Session::Planner {
 public:
  Planner(Session& session, ir::Graph& graph, int64_t opset) : s_(session), g_(graph), opset_(opset) {}

  absl::Status DefineConstantsAndInputs();
  absl::Status PlanNodes();
  absl::Status BindOutputs();
  // Moves the constants still read into the session and plans buffer release.
  void Finish();

 private:
  absl::StatusOr<int> Define(const std::string& name);
  absl::Status PlanNode(size_t node_index);
  absl::Status CreateKernel(const ir::Node& node, const KernelCreateInfo& info, Step& step) const;
  // Runs a node of constants only; its outputs become constants.
  absl::Status Fold(const ir::Node& node, Step& step, const std::vector<const Tensor*>& const_inputs);
  // Adds a step (a MatMul may take the Add after it into the same step).
  absl::Status AddStep(size_t node_index, Step step, std::vector<std::string>& planned_reads);
  // One fewer unplanned read of each name; a constant nobody reads at run time
  // any more is freed.
  void MarkPlanned(const std::vector<std::string>& planned_reads);

  Session& s_;
  ir::Graph& g_;
  const int64_t opset_;
  std::map<std::string, int> slot_;
  // Reads of each value (graph outputs count as one), and those not yet planned.
  std::map<std::string, int> reads_, unplanned_reads_;
  std::map<int, Tensor> constants_;
  std::set<int> read_at_run_;     // constants some step reads when it runs
  std::set<size_t> fused_adds_;   // nodes whose work a fused MatMul+Add step does
};

absl::StatusOr<int> Session::Planner::Define(const std::string& name) {
  auto [it, inserted] = slot_.emplace(name, static_cast<int>(slot_.size()));
  if (!inserted) return absl::InvalidArgumentError(absl::StrCat("value '", name, "' is defined twice"));
  return it->second;
}

absl::Status Session::Planner::DefineConstantsAndInputs() {
  for (const ir::Node& node : g_.nodes) {
    for (const std::string& name : NodeReads(node)) {
      if (!name.empty()) ++unplanned_reads_[name];
    }
  }
  for (const ir::ValueInfo& out : g_.outputs) ++unplanned_reads_[out.name];
  reads_ = unplanned_reads_;
  for (ir::Initializer& init : g_.initializers) {
    PT2ONNX_ASSIGN_OR_RETURN(int id, Define(init.name));
    absl::StatusOr<Tensor> t = FromIrTensor(init.tensor);
    if (!t.ok()) {
      return absl::Status(t.status().code(), absl::StrCat("initializer '", init.name, "': ", t.status().message()));
    }
    init.tensor = ir::Tensor();  // the session's copy replaces the model's
    constants_[id] = std::move(*t);
  }
  for (const ir::ValueInfo& in : g_.inputs) {
    if (slot_.count(in.name)) continue;  // an input with an initializer default: the initializer
    PT2ONNX_ASSIGN_OR_RETURN(int id, Define(in.name));
    s_.inputs_.push_back(in);
    s_.input_slots_.push_back(id);
  }
  return absl::OkStatus();
}

absl::Status Session::Planner::PlanNodes() {
  for (size_t node_index = 0; node_index < g_.nodes.size(); ++node_index) {
    if (!fused_adds_.count(node_index)) PT2ONNX_RETURN_IF_ERROR(PlanNode(node_index));
  }
  return absl::OkStatus();
}

absl::Status Session::Planner::PlanNode(size_t node_index) {
  const ir::Node& node = g_.nodes[node_index];
  const std::vector<std::string> node_reads = NodeReads(node);
  Step step;
  step.node_name = node.name;
  step.op_type = node.op_type;
  std::vector<const Tensor*> const_inputs;
  // Subgraphs' reads of outer values come after the node's own inputs.
  for (const std::string& name : node_reads) {
    if (name.empty()) {
      step.inputs.push_back(-1);
      const_inputs.push_back(nullptr);
      continue;
    }
    auto it = slot_.find(name);
    if (it == slot_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name, "' (", node.op_type, ") reads '", name, "' before it is defined"));
    }
    step.inputs.push_back(it->second);
    auto c = constants_.find(it->second);
    const_inputs.push_back(c == constants_.end() ? nullptr : &c->second);
  }
  for (const std::string& name : node.outputs) {
    if (name.empty()) {
      step.outputs.push_back(-1);
      continue;
    }
    PT2ONNX_ASSIGN_OR_RETURN(int id, Define(name));
    step.outputs.push_back(id);
  }
  // Constant nodes are values, not steps.
  if (node.op_type == "Constant" && step.outputs.size() == 1 && step.outputs[0] >= 0) {
    absl::StatusOr<Tensor> value = ConstantNodeValue(node);
    if (!value.ok()) return NodeError(node.name, node.op_type, value.status());
    constants_[step.outputs[0]] = std::move(*value);
    return absl::OkStatus();
  }
  KernelCreateInfo info{node, opset_, const_inputs, s_.options_.threadpool};
  PT2ONNX_RETURN_IF_ERROR(CreateKernel(node, info, step));
  // A node of constants only (e.g. Transpose of a weight) runs once here, so
  // the nodes reading it see a constant and can pre-pack it. Random draws are
  // never folded: each run draws anew.
  bool foldable = !step.inputs.empty() && node.op_type.rfind("Random", 0) != 0;
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    if (step.inputs[i] >= 0 && (const_inputs[i] == nullptr || IsHalfFloat(const_inputs[i]->dtype()))) {
      foldable = false;
    }
  }
  std::vector<std::string> planned_reads = node_reads;
  if (foldable) {
    PT2ONNX_RETURN_IF_ERROR(Fold(node, step, const_inputs));
  } else {
    PT2ONNX_RETURN_IF_ERROR(AddStep(node_index, std::move(step), planned_reads));
  }
  MarkPlanned(planned_reads);
  return absl::OkStatus();
}

absl::Status Session::Planner::CreateKernel(const ir::Node& node, const KernelCreateInfo& info, Step& step) const {
  if (s_.options_.accelerate) {
    absl::StatusOr<std::unique_ptr<OpKernel>> fast = CreateAcceleratedKernel(info);
    if (!fast.ok()) return NodeError(node.name, node.op_type, fast.status());
    step.kernel = std::move(*fast);
    step.accelerated = step.kernel != nullptr;
  }
  const bool internal = node.domain == kRuntimeDomain;
  if (internal && step.kernel == nullptr) {
    return NodeError(node.name, node.op_type,
                     absl::InvalidArgumentError("XNNPACK cannot run this convolution (attributes out of range)"));
  }
  const KernelRegistration* reg = internal ? nullptr : FindKernel(node.op_type);
  // Accelerated kernels take float32, like the portable ones.
  step.half_mode = reg != nullptr ? reg->half_mode : HalfMode::kNative;
  if (step.kernel == nullptr) {
    absl::StatusOr<std::unique_ptr<OpKernel>> kernel = reg->factory(info);
    if (!kernel.ok()) return NodeError(node.name, node.op_type, kernel.status());
    step.kernel = std::move(*kernel);
  }
  return absl::OkStatus();
}

absl::Status Session::Planner::Fold(const ir::Node& node, Step& step,
                                    const std::vector<const Tensor*>& const_inputs) {
  // A pool of its own: kernels take scratch buffers from it (XNNPACK's NHWC
  // copies and workspace); the folded values outlive it.
  BufferPool fold_pool;
  KernelContext ctx(const_inputs, step.outputs.size(), &fold_pool, s_.options_.threadpool);
  absl::Status folded = step.kernel->Run(ctx);
  if (!folded.ok()) return NodeError(node.name, node.op_type, folded);
  for (size_t i = 0; i < step.outputs.size(); ++i) {
    if (step.outputs[i] >= 0) constants_[step.outputs[i]] = std::move(ctx.outputs()[i]);
  }
  return absl::OkStatus();
}

absl::Status Session::Planner::AddStep(size_t node_index, Step step, std::vector<std::string>& planned_reads) {
  const ir::Node& node = g_.nodes[node_index];
  if (step.accelerated && node.op_type == "MatMul") {
    absl::StatusOr<int> fused = FuseBiasAdd(g_, node_index, reads_, slot_, constants_, step);
    if (!fused.ok()) return NodeError(node.name, node.op_type, fused.status());
    if (*fused >= 0) {
      fused_adds_.insert(static_cast<size_t>(*fused));
      const ir::Node& add = g_.nodes[static_cast<size_t>(*fused)];
      PT2ONNX_ASSIGN_OR_RETURN(int id, Define(add.outputs[0]));
      step.outputs[0] = id;
      for (const std::string& name : NodeReads(add)) planned_reads.push_back(name);
    }
  }
  // Weights packed into the kernel are not read at run time.
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    const int id = step.inputs[i];
    if (id < 0 || !constants_.count(id)) continue;
    if (step.kernel->PackedInput(i)) {
      step.inputs[i] = -1;
    } else {
      read_at_run_.insert(id);
    }
  }
  s_.steps_.push_back(std::move(step));
  return absl::OkStatus();
}

void Session::Planner::MarkPlanned(const std::vector<std::string>& planned_reads) {
  for (const std::string& name : planned_reads) {
    if (name.empty()) continue;
    auto id = slot_.find(name);
    if (--unplanned_reads_[name] == 0 && id != slot_.end() && !read_at_run_.count(id->second)) {
      constants_.erase(id->second);
    }
  }
}

absl::Status Session::Planner::BindOutputs() {
  for (const ir::ValueInfo& out : g_.outputs) {
    auto it = slot_.find(out.name);
    if (it == slot_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("graph output '", out.name, "' is never produced"));
    }
    s_.outputs_.push_back(out);
    s_.output_slots_.push_back(it->second);
  }
  return absl::OkStatus();
}

void Session::Planner::Finish() {
  Session& s = s_;
  s.num_slots_ = slot_.size();
  for (const Step& step : s.steps_) {
    if (step.accelerated) ++s.accelerated_nodes_;
    if (step.accelerated && IsInt8Step(step.op_type)) ++s.int8_steps_;
  }
  std::vector<bool> read(s.num_slots_, false);
  for (const Step& step : s.steps_) {
    for (int id : step.inputs) {
      if (id >= 0) read[id] = true;
    }
  }
  for (int id : s.output_slots_) read[id] = true;
  s.constants_.resize(s.num_slots_);
  for (auto& [id, t] : constants_) {
    if (read[id]) s.constants_[id] = std::move(t);
  }
  // Buffer reuse: each computed value is released after its last reader (or
  // right after it is produced when nothing reads it).
  std::vector<int> last_use(s.num_slots_, -1);
  for (size_t i = 0; i < s.steps_.size(); ++i) {
    for (int id : s.steps_[i].outputs) {
      if (id >= 0) last_use[id] = static_cast<int>(i);
    }
    for (int id : s.steps_[i].inputs) {
      if (id >= 0) last_use[id] = static_cast<int>(i);
    }
  }
  s.slots_ = s.constants_;
  for (size_t id = 0; id < s.num_slots_; ++id) {
    if (s.constants_[id].empty_value()) s.computed_slots_.push_back(static_cast<int>(id));
  }
  std::set<int> kept(s.output_slots_.begin(), s.output_slots_.end());
  for (size_t id = 0; id < s.num_slots_; ++id) {
    if (last_use[id] >= 0 && !kept.count(static_cast<int>(id)) && s.constants_[id].empty_value()) {
      s.steps_[last_use[id]].release.push_back(static_cast<int>(id));
    }
  }
}

absl::StatusOr<std::unique_ptr<Session>> Session::Build(ir::Graph graph, int64_t opset,
                                                        const SessionOptions& options) {
  std::unique_ptr<Session> session(new Session());
  session->options_ = options;
  Planner planner(*session, graph, opset);
  PT2ONNX_RETURN_IF_ERROR(planner.DefineConstantsAndInputs());
  PT2ONNX_RETURN_IF_ERROR(planner.PlanNodes());
  PT2ONNX_RETURN_IF_ERROR(planner.BindOutputs());
  planner.Finish();
  return session;
}

}  // namespace pt2onnx::runtime
