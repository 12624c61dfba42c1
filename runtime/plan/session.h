// File: runtime/plan/session.h
// -----------------------------------------------------------------------------
// Session: an ir::Model prepared for execution. Create() checks every node
// has a kernel (listing all that do not), turns initializers and Constant
// nodes into tensors, creates each node's kernel once (weights pre-packed)
// and plans buffer reuse from each value's last use. Run() binds concrete
// inputs (checking dtype, rank, static dims and that every symbolic dim has
// one value across inputs), runs the nodes in order and returns the graph
// outputs. Threads come from the pthreadpool in the options (null: the
// calling thread only); the session makes no OS calls. One Run at a time.
#ifndef PT2ONNX_RUNTIME_PLAN_SESSION_H_
#define PT2ONNX_RUNTIME_PLAN_SESSION_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ir/graph.h"
#include "runtime/kernels/kernel.h"
#include "core/tensor/tensor.h"

namespace pt2onnx::runtime {

struct SessionOptions {
  pthreadpool_t threadpool = nullptr;
  // Use XNNPACK kernels where they apply (false: portable kernels only).
  bool accelerate = true;
  // With accelerate: run QDQ patterns in int8 (plan/qdq_int8.h); false runs
  // them in float32 as the graph writes them (for comparisons).
  bool int8 = true;
  // Seconds since any fixed point, supplied by a front end (the library reads
  // no clock): when set, each step's time is added up (Session::Profile()).
  std::function<double()> clock;
};

// Time spent in one step of the plan over the profiled runs.
struct StepProfile {
  std::string node_name, op_type;
  bool accelerated = false;  // an XNNPACK kernel
  double seconds = 0;
};

class Session {
 public:
  static absl::StatusOr<std::unique_ptr<Session>> Create(const ir::Model& model, const SessionOptions& options);
  // Takes the model: each weight's bytes are freed once the session holds its
  // own copy, and that copy once every kernel reading it has packed it, so a
  // weight is not held three times while the session is built.
  static absl::StatusOr<std::unique_ptr<Session>> Create(ir::Model&& model, const SessionOptions& options);
  ~Session();

  const std::vector<ir::ValueInfo>& inputs() const { return inputs_; }
  const std::vector<ir::ValueInfo>& outputs() const { return outputs_; }
  // Inputs by graph input name, any order; outputs in graph order.
  absl::StatusOr<std::vector<NamedTensor>> Run(const std::vector<NamedTensor>& inputs);
  // Bytes of intermediate buffers allocated so far (reused buffers count once).
  size_t allocated_bytes() const { return pool_.allocated_bytes(); }
  // How many nodes run through an accelerated (XNNPACK) kernel.
  size_t accelerated_nodes() const { return accelerated_nodes_; }
  // How many of those are int8 steps (plan/qdq_int8.h); each also counts above.
  size_t int8_steps() const { return int8_steps_; }
  // With SessionOptions::clock: per step, in plan order, the time of every
  // run so far (ResetProfile() starts again, e.g. after warm-up runs).
  std::vector<StepProfile> Profile() const;
  void ResetProfile();

 private:
  struct Step {
    std::string node_name, op_type;
    std::vector<int> inputs;   // slot per input; -1 when omitted
    std::vector<int> outputs;  // slot per output; -1 when omitted
    std::unique_ptr<OpKernel> kernel;
    HalfMode half_mode = HalfMode::kNative;
    bool accelerated = false;
    std::vector<int> release;  // slots whose last use is this step
    double seconds = 0;        // profiled time (SessionOptions::clock)
    // Argument vectors kept between runs (KernelContext::Recycle).
    std::vector<const Tensor*> in_scratch;
    std::vector<Tensor> out_scratch;
  };
  class Planner;  // session_planner.cc

  Session() = default;
  static absl::Status NodeError(const std::string& name, const std::string& op, const absl::Status& s);
  static absl::StatusOr<std::unique_ptr<Session>> Build(ir::Graph graph, int64_t opset, const SessionOptions& options);
  absl::Status BindInputs(const std::vector<NamedTensor>& inputs, std::vector<Tensor>& slots) const;
  absl::Status RunStep(Step& step, std::vector<Tensor>& slots);
  // Empties every slot that is not a constant (after a run, or a failed one).
  void ClearComputedSlots();
  // A MatMul (node `matmul`, its step just created) with constant weights whose
  // only reader is an Add of a constant bias [N] becomes one fully connected
  // step (plan/fuse_matmul_bias.cc). Returns the Add's node index (the step
  // then does its work and reads the bias as input 2), or -1.
  static absl::StatusOr<int> FuseBiasAdd(const ir::Graph& graph, size_t matmul, const std::map<std::string, int>& reads,
                                         const std::map<std::string, int>& slots,
                                         const std::map<int, Tensor>& constants, Step& step);

  std::vector<ir::ValueInfo> inputs_, outputs_;
  std::vector<int> input_slots_, output_slots_;
  std::vector<Tensor> constants_;  // per slot; empty for computed values
  // The values of a run, kept between runs so a run does not copy the
  // constants: computed slots are empty outside Run.
  std::vector<Tensor> slots_;
  std::vector<int> computed_slots_;  // ids whose constants_ entry is empty
  std::vector<Step> steps_;
  size_t num_slots_ = 0;
  size_t accelerated_nodes_ = 0;
  size_t int8_steps_ = 0;
  SessionOptions options_;
  BufferPool pool_;
};

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_PLAN_SESSION_H_
