// File: runtime/kernels/control_flow.cc
// -----------------------------------------------------------------------------
// If, Loop and Scan (ONNX semantics, scans along axis 0 forward only). Each
// subgraph runs in a nested portable session, created at the first run for
// the dtypes it sees (subgraph inputs may leave their types to the caller).
#include "runtime/kernels/control_flow.h"

#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/plan/session.h"

namespace pt2onnx::runtime {
namespace {

void CollectOuterReads(const ir::Graph& graph, std::set<std::string>& seen,
                       std::vector<std::string>& reads) {
  std::set<std::string> defined;
  for (const ir::ValueInfo& in : graph.inputs) defined.insert(in.name);
  for (const ir::Initializer& init : graph.initializers) defined.insert(init.name);
  for (const ir::Node& node : graph.nodes) defined.insert(node.outputs.begin(), node.outputs.end());
  auto read = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name) && seen.insert(name).second) reads.push_back(name);
  };
  for (const ir::Node& node : graph.nodes) {
    for (const std::string& in : node.inputs) read(in);
    for (const std::string& inner : OuterReads(node)) read(inner);
  }
  for (const ir::ValueInfo& out : graph.outputs) read(out.name);
}

// One subgraph and its sessions (one per signature of input dtypes).
class NestedGraph {
 public:
  NestedGraph(const ir::Graph& graph, int64_t opset, pthreadpool_t threadpool,
              std::vector<std::string> captures)
      : graph_(graph), opset_(opset), threadpool_(threadpool), captures_(std::move(captures)) {}

  size_t num_inputs() const { return graph_.inputs.size(); }

  // The stacked output of zero iterations for body output `index`: shape
  // [0] + the output's declared shape, its unknown dims 0 (as ONNX Runtime
  // does); [0] when the rank is not declared.
  absl::StatusOr<Tensor> EmptyStack(size_t index, BufferPool* pool) const {
    if (index >= graph_.outputs.size()) return absl::InvalidArgumentError("the body has too few outputs");
    const ir::ValueInfo& info = graph_.outputs[index];
    if (info.dtype == DataType::kUndefined) {
      return absl::UnimplementedError(absl::StrCat("a scan output of zero iterations ('", info.name,
                                                   "') has no declared element type"));
    }
    Dims dims = {0};
    if (info.shape.has_value()) {
      for (const ir::Dim& d : *info.shape) dims.push_back(d.is_static() ? d.value : 0);
    }
    return Tensor::Allocate(info.dtype, dims, pool);
  }

  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<const Tensor*>& declared,
                                          const std::vector<const Tensor*>& captured) {
    if (declared.size() != graph_.inputs.size() || captured.size() != captures_.size()) {
      return absl::InvalidArgumentError(absl::StrCat("subgraph '", graph_.name, "' takes ",
                                                     graph_.inputs.size(), " inputs, got ",
                                                     declared.size()));
    }
    std::string key;
    std::vector<NamedTensor> feeds;
    for (size_t i = 0; i < declared.size() + captured.size(); ++i) {
      const Tensor* t = i < declared.size() ? declared[i] : captured[i - declared.size()];
      if (t == nullptr) return absl::InvalidArgumentError("a subgraph input is missing");
      absl::StrAppend(&key, static_cast<int>(t->dtype()), ",");
      const std::string& name =
          i < declared.size() ? graph_.inputs[i].name : captures_[i - declared.size()];
      feeds.push_back({name, *t});
    }
    std::unique_ptr<Session>& session = sessions_[key];
    if (session == nullptr) {
      ir::Model model;
      model.opset_imports.push_back(ir::OpsetImport{"", opset_});
      model.graph = graph_;
      for (size_t i = 0; i < feeds.size(); ++i) {
        ir::ValueInfo info{feeds[i].name, feeds[i].tensor.dtype(), std::nullopt, {}};
        if (i < declared.size()) {
          model.graph.inputs[i] = info;
        } else {
          model.graph.inputs.push_back(info);
        }
      }
      SessionOptions options;
      options.threadpool = threadpool_;
      options.accelerate = false;
      PT2ONNX_ASSIGN_OR_RETURN(auto created, Session::Create(model, options));
      session = std::move(created);
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto outputs, session->Run(feeds));
    std::vector<Tensor> result;
    for (NamedTensor& t : outputs) result.push_back(std::move(t.tensor));
    return result;
  }

 private:
  ir::Graph graph_;
  int64_t opset_;
  pthreadpool_t threadpool_;
  std::vector<std::string> captures_;
  std::map<std::string, std::unique_ptr<Session>> sessions_;
};

absl::StatusOr<std::unique_ptr<NestedGraph>> GraphAttribute(const KernelCreateInfo& info,
                                                            const char* name) {
  const ir::Attribute* attr = info.node.FindAttribute(name);
  if (attr == nullptr || attr->type() != ir::Attribute::Type::kGraph) {
    return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' (a graph) is missing"));
  }
  return std::make_unique<NestedGraph>(attr->g(), info.opset, info.threadpool, OuterReads(info.node));
}

absl::StatusOr<bool> ReadBool(const Tensor& t, const char* what) {
  if (t.dtype() != DataType::kBool || t.numel() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be one bool, got ",
                                                   DataTypeName(t.dtype()), " ", DimsString(t.dims())));
  }
  return t.raw()[0] != 0;
}

std::vector<const Tensor*> Captured(const KernelContext& ctx, size_t first) {
  std::vector<const Tensor*> captured;
  for (size_t i = first; i < ctx.num_inputs(); ++i) captured.push_back(ctx.input(i));
  return captured;
}

// Stacks equally shaped tensors along a new leading axis.
absl::StatusOr<Tensor> Stack(const std::vector<Tensor>& parts, BufferPool* pool) {
  if (parts.empty()) return absl::InternalError("no iteration to stack (see EmptyStack)");
  Dims dims = parts[0].dims();
  dims.insert(dims.begin(), static_cast<int64_t>(parts.size()));
  PT2ONNX_ASSIGN_OR_RETURN(auto out, Tensor::Allocate(parts[0].dtype(), dims, pool));
  const size_t row = parts[0].byte_size();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].dims() != parts[0].dims() || parts[i].dtype() != parts[0].dtype()) {
      return absl::InvalidArgumentError(absl::StrCat("scan output changes shape between iterations: ",
                                                     DimsString(parts[0].dims()), " then ",
                                                     DimsString(parts[i].dims())));
    }
    if (row > 0) std::memcpy(out.raw() + i * row, parts[i].raw(), row);
  }
  return std::move(out);
}

// Row `index` of `t` along axis 0, copied.
absl::StatusOr<Tensor> Row(const Tensor& t, int64_t index, BufferPool* pool) {
  Dims dims(t.dims().begin() + 1, t.dims().end());
  PT2ONNX_ASSIGN_OR_RETURN(auto out, Tensor::Allocate(t.dtype(), dims, pool));
  const size_t row = out.byte_size();
  if (row > 0) std::memcpy(out.raw(), t.raw() + static_cast<size_t>(index) * row, row);
  return std::move(out);
}

class IfKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    PT2ONNX_ASSIGN_OR_RETURN(auto then_graph, GraphAttribute(info, "then_branch"));
    PT2ONNX_ASSIGN_OR_RETURN(auto else_graph, GraphAttribute(info, "else_branch"));
    then_ = std::move(then_graph);
    else_ = std::move(else_graph);
    num_inputs_ = info.node.inputs.size();
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(cond, 0);
    PT2ONNX_ASSIGN_OR_RETURN(auto taken, ReadBool(cond, "If condition"));
    PT2ONNX_ASSIGN_OR_RETURN(auto outputs, (taken ? then_ : else_)->Run({}, Captured(ctx, num_inputs_)));
    if (outputs.size() != ctx.num_outputs()) {
      return absl::InvalidArgumentError("the branch returns another number of values than the node has outputs");
    }
    for (size_t i = 0; i < outputs.size(); ++i) ctx.SetOutput(i, std::move((outputs)[i]));
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<NestedGraph> then_, else_;
  size_t num_inputs_ = 0;
};

// Loop and Scan: a `body` graph run once per step, carrying state and
// stacking the per-step outputs.
class BodyKernel : public OpKernel {
 protected:
  absl::Status InitBody(const KernelCreateInfo& info) {
    PT2ONNX_ASSIGN_OR_RETURN(auto body, GraphAttribute(info, "body"));
    body_ = std::move(body);
    num_inputs_ = info.node.inputs.size();
    return absl::OkStatus();
  }

  // Outputs: the final state, then one stack per scanned value. An empty
  // stack takes its shape from body output `first_scanned_output + k`.
  absl::Status SetStateAndStacks(KernelContext& ctx, std::vector<Tensor>& state,
                                 std::vector<std::vector<Tensor>>& stacks, size_t first_scanned_output) {
    for (size_t j = 0; j < state.size(); ++j) ctx.SetOutput(j, std::move(state[j]));
    for (size_t k = 0; k < stacks.size(); ++k) {
      PT2ONNX_ASSIGN_OR_RETURN(auto stacked, stacks[k].empty() ? body_->EmptyStack(first_scanned_output + k, ctx.pool())
                                       : Stack(stacks[k], ctx.pool()));
      ctx.SetOutput(state.size() + k, std::move(stacked));
    }
    return absl::OkStatus();
  }

  std::unique_ptr<NestedGraph> body_;
  size_t num_inputs_ = 0;
};

class LoopKernel : public BodyKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    PT2ONNX_RETURN_IF_ERROR(InitBody(info));
    if (num_inputs_ < 2 || body_->num_inputs() != num_inputs_) {
      return absl::InvalidArgumentError("Loop's body must take the iteration, the condition and each carried value");
    }
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    const size_t carried = num_inputs_ - 2;
    if (ctx.num_outputs() < carried) return absl::InvalidArgumentError("Loop has fewer outputs than carried values");
    const size_t scanned = ctx.num_outputs() - carried;
    std::optional<int64_t> trip_count;
    if (const Tensor* m = ctx.input(0)) {
      if (m->dtype() != DataType::kInt64 || m->numel() != 1) {
        return absl::InvalidArgumentError("Loop's trip count must be one int64");
      }
      trip_count = m->data<int64_t>()[0];
    }
    bool keep_going = true;
    if (const Tensor* c = ctx.input(1)) {
      PT2ONNX_ASSIGN_OR_RETURN(auto b, ReadBool(*c, "Loop condition"));
      keep_going = b;
    }
    std::vector<Tensor> state;
    for (size_t i = 0; i < carried; ++i) {
      PT2ONNX_INPUT(v, 2 + i);
      state.push_back(v);
    }
    const std::vector<const Tensor*> captured = Captured(ctx, num_inputs_);
    std::vector<std::vector<Tensor>> stacks(scanned);
    for (int64_t i = 0; keep_going && (!trip_count || i < *trip_count); ++i) {
      if (i == kMaxLoopIterations) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "Loop did not stop after ", kMaxLoopIterations, " iterations (kMaxLoopIterations)"));
      }
      PT2ONNX_ASSIGN_OR_RETURN(Tensor iteration, Tensor::Allocate(DataType::kInt64, {}, ctx.pool()));
      PT2ONNX_ASSIGN_OR_RETURN(Tensor condition, Tensor::Allocate(DataType::kBool, {}, ctx.pool()));
      iteration.data<int64_t>()[0] = i;
      condition.raw()[0] = 1;
      std::vector<const Tensor*> declared = {&iteration, &condition};
      for (const Tensor& v : state) declared.push_back(&v);
      PT2ONNX_ASSIGN_OR_RETURN(auto outputs, body_->Run(declared, captured));
      if (outputs.size() != 1 + carried + scanned) {
        return absl::InvalidArgumentError("Loop's body returns another number of values than expected");
      }
      PT2ONNX_ASSIGN_OR_RETURN(auto next, ReadBool(outputs[0], "Loop body condition"));
      keep_going = next;
      for (size_t j = 0; j < carried; ++j) state[j] = std::move(outputs[1 + j]);
      for (size_t k = 0; k < scanned; ++k) stacks[k].push_back(std::move(outputs[1 + carried + k]));
    }
    return SetStateAndStacks(ctx, state, stacks, 1 + carried);
  }
};

class ScanKernel : public BodyKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    PT2ONNX_RETURN_IF_ERROR(InitBody(info));
    num_scan_inputs_ = AttrInt(info.node, "num_scan_inputs", 0);
    if (num_scan_inputs_ < 1 || static_cast<size_t>(num_scan_inputs_) > num_inputs_) {
      return absl::InvalidArgumentError("Scan's num_scan_inputs must be between 1 and its input count");
    }
    for (const char* name : {"scan_input_axes", "scan_input_directions", "scan_output_axes",
                             "scan_output_directions"}) {
      for (int64_t v : AttrInts(info.node, name)) {
        if (v != 0) return absl::UnimplementedError(absl::StrCat("Scan with a non-zero ", name));
      }
    }
    return absl::OkStatus();
  }
  absl::Status Run(KernelContext& ctx) override {
    const size_t states = num_inputs_ - static_cast<size_t>(num_scan_inputs_);
    if (ctx.num_outputs() < states) return absl::InvalidArgumentError("Scan has fewer outputs than states");
    const size_t scanned_out = ctx.num_outputs() - states;
    std::vector<Tensor> state;
    for (size_t i = 0; i < states; ++i) {
      PT2ONNX_INPUT(v, i);
      state.push_back(v);
    }
    std::vector<const Tensor*> xs;
    int64_t length = -1;
    for (size_t i = states; i < num_inputs_; ++i) {
      PT2ONNX_INPUT(x, i);
      if (x.rank() < 1 || (length >= 0 && x.dim(0) != length)) {
        return absl::InvalidArgumentError("Scan inputs must share their leading dim");
      }
      length = x.dim(0);
      xs.push_back(&x);
    }
    if (length > kMaxLoopIterations) {
      return absl::ResourceExhaustedError(absl::StrCat("Scan over ", length, " rows is more than ",
                                                       kMaxLoopIterations, " steps (kMaxLoopIterations)"));
    }
    const std::vector<const Tensor*> captured = Captured(ctx, num_inputs_);
    std::vector<std::vector<Tensor>> stacks(scanned_out);
    for (int64_t t = 0; t < length; ++t) {
      std::vector<Tensor> slices;
      for (const Tensor* x : xs) {
        PT2ONNX_ASSIGN_OR_RETURN(auto row, Row(*x, t, ctx.pool()));
        slices.push_back(std::move(row));
      }
      std::vector<const Tensor*> declared;
      for (const Tensor& v : state) declared.push_back(&v);
      for (const Tensor& s : slices) declared.push_back(&s);
      PT2ONNX_ASSIGN_OR_RETURN(auto outputs, body_->Run(declared, captured));
      if (outputs.size() != states + scanned_out) {
        return absl::InvalidArgumentError("Scan's body returns another number of values than expected");
      }
      for (size_t j = 0; j < states; ++j) state[j] = std::move((outputs)[j]);
      for (size_t k = 0; k < scanned_out; ++k) stacks[k].push_back(std::move((outputs)[states + k]));
    }
    return SetStateAndStacks(ctx, state, stacks, states);
  }

 private:
  int64_t num_scan_inputs_ = 0;
};

}  // namespace

std::vector<std::string> OuterReads(const ir::Node& node) {
  std::set<std::string> seen;
  std::vector<std::string> reads;
  for (const ir::Attribute& attr : node.attributes) {
    if (attr.type() == ir::Attribute::Type::kGraph) {
      CollectOuterReads(attr.g(), seen, reads);
    }
  }
  return reads;
}

std::vector<std::string> NodeReads(const ir::Node& node) {
  std::vector<std::string> reads = node.inputs;
  for (std::string& name : OuterReads(node)) reads.push_back(std::move(name));
  return reads;
}

extern const KernelRegistration kControlFlowKernels[] = {
    {"If", MakeKernel<IfKernel>, HalfMode::kNative},
    {"Loop", MakeKernel<LoopKernel>, HalfMode::kNative},
    {"Scan", MakeKernel<ScanKernel>, HalfMode::kNative},
};
extern const size_t kNumControlFlowKernels = sizeof(kControlFlowKernels) / sizeof(kControlFlowKernels[0]);

}  // namespace pt2onnx::runtime
