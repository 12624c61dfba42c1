#include "runtime/plan/session.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/control_flow.h"
#include "runtime/kernels/registry.h"
#include "runtime/plan/fold_batchnorm.h"
#include "runtime/plan/nhwc_layout.h"
#include "core/tensor/convert.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

bool IsHalf(DataType d) { return d == DataType::kFloat16 || d == DataType::kBFloat16; }

absl::Status NodeError(const std::string& name, const std::string& op, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat("node '", name, "' (", op, "): ", s.message()));
}

}  // namespace

Session::~Session() = default;

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

// The accelerated plan folds Conv -> BatchNormalization and runs convolutions
// in NHWC (plan/nhwc_layout.h); the portable one runs the graph as written (the
// reference). Weight bytes are shared with `graph`, not copied.
ir::Graph PlannedGraph(const ir::Graph& graph, const SessionOptions& options) {
  if (!options.accelerate) return graph;
  return AcceleratorAvailable() ? ConvolutionsToNhwc(FoldConvBatchNorm(graph)) : FoldConvBatchNorm(graph);
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

absl::StatusOr<std::unique_ptr<Session>> Session::Build(ir::Graph g, int64_t opset, const SessionOptions& options) {
  std::unique_ptr<Session> session(new Session());
  Session& s = *session;
  s.options_ = options;
  std::map<std::string, int> slot;
  auto define = [&](const std::string& name) -> absl::StatusOr<int> {
    auto [it, inserted] = slot.emplace(name, static_cast<int>(slot.size()));
    if (!inserted) return absl::InvalidArgumentError(absl::StrCat("value '", name, "' is defined twice"));
    return it->second;
  };
  // Reads of each value not yet planned (graph outputs count as one that
  // never is): a constant whose reads are all planned and packed is freed at
  // once, so packed weights and their source are not all held together.
  std::map<std::string, int> unplanned_reads;
  for (const ir::Node& node : g.nodes) {
    for (const std::string& name : NodeReads(node)) if (!name.empty()) ++unplanned_reads[name];
  }
  for (const ir::ValueInfo& out : g.outputs) ++unplanned_reads[out.name];
  const std::map<std::string, int> reads = unplanned_reads;
  std::map<int, Tensor> constants;
  std::set<int> read_at_run;  // constants some step reads when it runs
  for (ir::Initializer& init : g.initializers) {
    auto id = define(init.name);
    if (!id.ok()) return id.status();
    auto t = FromIrTensor(init.tensor);
    if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat("initializer '", init.name, "': ", t.status().message()));
    init.tensor = ir::Tensor();  // the session's copy replaces the model's
    constants[*id] = std::move(*t);
  }
  for (const ir::ValueInfo& in : g.inputs) {
    if (slot.count(in.name)) continue;  // an input with an initializer default: the initializer
    PT2ONNX_ASSIGN_OR_RETURN(auto id, define(in.name));
    s.inputs_.push_back(in);
    s.input_slots_.push_back(id);
  }
  std::set<size_t> fused_adds;  // nodes whose work a fused MatMul+Add step does
  for (size_t node_index = 0; node_index < g.nodes.size(); ++node_index) {
    if (fused_adds.count(node_index)) continue;
    const ir::Node& node = g.nodes[node_index];
    const std::vector<std::string> node_reads = NodeReads(node);
    std::vector<int> in_slots;
    std::vector<const Tensor*> const_inputs;
    // Subgraphs' reads of outer values come after the node's own inputs.
    for (const std::string& name : node_reads) {
      if (name.empty()) {
        in_slots.push_back(-1);
        const_inputs.push_back(nullptr);
        continue;
      }
      auto it = slot.find(name);
      if (it == slot.end()) {
        return absl::InvalidArgumentError(absl::StrCat("node '", node.name, "' (", node.op_type,
                                                       ") reads '", name, "' before it is defined"));
      }
      in_slots.push_back(it->second);
      auto c = constants.find(it->second);
      const_inputs.push_back(c == constants.end() ? nullptr : &c->second);
    }
    std::vector<int> out_slots;
    for (const std::string& name : node.outputs) {
      if (name.empty()) {
        out_slots.push_back(-1);
        continue;
      }
      PT2ONNX_ASSIGN_OR_RETURN(auto id, define(name));
      out_slots.push_back(id);
    }
    // Constant nodes are values, not steps.
    if (node.op_type == "Constant" && out_slots.size() == 1 && out_slots[0] >= 0) {
      auto value = ConstantNodeValue(node);
      if (!value.ok()) return NodeError(node.name, node.op_type, value.status());
      constants[out_slots[0]] = std::move(*value);
      continue;
    }
    KernelCreateInfo info{node, opset, const_inputs, options.threadpool};
    Step step;
    step.node_name = node.name;
    step.op_type = node.op_type;
    step.inputs = in_slots;
    step.outputs = out_slots;
    bool accelerated = false;
    if (options.accelerate) {
      auto fast = CreateAcceleratedKernel(info);
      if (!fast.ok()) return NodeError(node.name, node.op_type, fast.status());
      step.kernel = std::move(*fast);
      accelerated = step.kernel != nullptr;
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
      auto kernel = reg->factory(info);
      if (!kernel.ok()) return NodeError(node.name, node.op_type, kernel.status());
      step.kernel = std::move(*kernel);
    }
    // A node of constants only (e.g. Transpose of a weight) runs once here,
    // so the nodes reading it see a constant and can pre-pack it. Random
    // draws are never folded: each run draws anew.
    bool foldable = !in_slots.empty() && node.op_type.rfind("Random", 0) != 0;
    for (size_t i = 0; i < in_slots.size(); ++i) {
      if (in_slots[i] >= 0 && (const_inputs[i] == nullptr || IsHalf(const_inputs[i]->dtype()))) foldable = false;
    }
    std::vector<std::string> planned_reads = node_reads;
    if (foldable) {
      // A pool of its own: kernels take scratch buffers from it (XNNPACK's
      // NHWC copies and workspace); the folded values outlive it.
      BufferPool fold_pool;
      KernelContext ctx(const_inputs, out_slots.size(), &fold_pool, options.threadpool);
      absl::Status folded = step.kernel->Run(ctx);
      if (!folded.ok()) return NodeError(node.name, node.op_type, folded);
      for (size_t i = 0; i < out_slots.size(); ++i) {
        if (out_slots[i] >= 0) constants[out_slots[i]] = std::move(ctx.outputs()[i]);
      }
    } else {
      if (accelerated && node.op_type == "MatMul") {
        auto fused = FuseBiasAdd(g, node_index, reads, slot, constants, step);
        if (!fused.ok()) return NodeError(node.name, node.op_type, fused.status());
        if (*fused >= 0) {
          fused_adds.insert(static_cast<size_t>(*fused));
          const ir::Node& add = g.nodes[static_cast<size_t>(*fused)];
          PT2ONNX_ASSIGN_OR_RETURN(auto id, define(add.outputs[0]));
          step.outputs[0] = id;
          for (const std::string& name : NodeReads(add)) planned_reads.push_back(name);
        }
      }
      // Weights packed into the kernel are not read at run time.
      for (size_t i = 0; i < step.inputs.size(); ++i) {
        const int id = step.inputs[i];
        if (id < 0 || !constants.count(id)) continue;
        if (step.kernel->PackedInput(i)) step.inputs[i] = -1; else read_at_run.insert(id);
      }
      step.accelerated = accelerated;
      s.steps_.push_back(std::move(step));
    }
    for (const std::string& name : planned_reads) {
      if (name.empty()) continue;
      auto id = slot.find(name);
      if (--unplanned_reads[name] == 0 && id != slot.end() && !read_at_run.count(id->second)) constants.erase(id->second);
    }
  }
  for (const ir::ValueInfo& out : g.outputs) {
    auto it = slot.find(out.name);
    if (it == slot.end()) return absl::InvalidArgumentError(absl::StrCat("graph output '", out.name, "' is never produced"));
    s.outputs_.push_back(out);
    s.output_slots_.push_back(it->second);
  }
  s.num_slots_ = slot.size();
  for (const Step& step : s.steps_) {
    if (step.accelerated) ++s.accelerated_nodes_;
  }
  std::vector<bool> read(s.num_slots_, false);
  for (const Step& step : s.steps_) {
    for (int id : step.inputs) if (id >= 0) read[id] = true;
  }
  for (int id : s.output_slots_) read[id] = true;
  s.constants_.resize(s.num_slots_);
  for (auto& [id, t] : constants) {
    if (read[id]) s.constants_[id] = std::move(t);
  }
  // Buffer reuse: each computed value is released after its last reader
  // (or right after it is produced when nothing reads it).
  std::vector<int> last_use(s.num_slots_, -1);
  for (size_t i = 0; i < s.steps_.size(); ++i) {
    for (int id : s.steps_[i].outputs) if (id >= 0) last_use[id] = static_cast<int>(i);
    for (int id : s.steps_[i].inputs) if (id >= 0) last_use[id] = static_cast<int>(i);
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
  return session;
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
    if (t != nullptr && step.half_mode == HalfMode::kViaFloat32 && IsHalf(t->dtype())) {
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
  for (Step& step : steps_) {
    absl::Status s = RunStep(step, slots_);
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

}  // namespace pt2onnx::runtime
