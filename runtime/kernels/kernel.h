// File: runtime/kernels/kernel.h
// -----------------------------------------------------------------------------
// The kernel contract. A kernel is created once per session from its node
// (attributes read and checked, constant weights pre-packed: XNNPACK's
// "create"), then run once per inference on concrete inputs (output shapes
// computed from the inputs, buffers taken from the pool: "reshape, setup,
// run"). Families register kernels in explicit tables (one line per op type,
// at the end of each family file), collected by kernels/registry.cc.
#ifndef PT2ONNX_RUNTIME_KERNELS_KERNEL_H_
#define PT2ONNX_RUNTIME_KERNELS_KERNEL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/ir/graph.h"
#include "core/tensor/tensor.h"

typedef struct pthreadpool* pthreadpool_t;

namespace pt2onnx::runtime {

// What a kernel sees at creation.
struct KernelCreateInfo {
  const ir::Node& node;
  int64_t opset = 0;
  // One entry per node input: the tensor when it is a constant (initializer
  // or Constant node), else null. Kernels pre-pack weights from these.
  std::vector<const Tensor*> constant_inputs;
  pthreadpool_t threadpool = nullptr;
};

// Work below which an operator runs on the calling thread alone: waking the
// pool's workers and waiting for them costs more than they save (microseconds
// each time, far more when the machine is loaded), as in small models.
inline constexpr double kMinParallelMacs = 1 << 20;      // matrix products, convolutions: multiply-adds
inline constexpr double kMinParallelElements = 1 << 17;  // elementwise ops, copies, pooling: elements

// What a kernel sees at each run.
class KernelContext {
 public:
  KernelContext(std::vector<const Tensor*> inputs, size_t num_outputs, BufferPool* pool,
                pthreadpool_t threadpool)
      : inputs_(std::move(inputs)), outputs_(num_outputs), pool_(pool), threadpool_(threadpool) {}
  // Outputs given as a vector of empty tensors (see Recycle).
  KernelContext(std::vector<const Tensor*> inputs, std::vector<Tensor> outputs, BufferPool* pool,
                pthreadpool_t threadpool)
      : inputs_(std::move(inputs)), outputs_(std::move(outputs)), pool_(pool), threadpool_(threadpool) {}

  size_t num_inputs() const { return inputs_.size(); }
  size_t num_outputs() const { return outputs_.size(); }
  // Null when the input is absent (omitted optional input, or index past the end).
  const Tensor* input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  // The input, or an error naming its position when it is absent.
  absl::StatusOr<const Tensor*> RequiredInput(size_t i) const;
  // Allocates output `i` (from the session's pool).
  absl::StatusOr<Tensor*> AllocateOutput(size_t i, DataType dtype, Dims dims);
  // Sets output `i` to an existing tensor (an alias: Reshape, Identity).
  void SetOutput(size_t i, Tensor t) { outputs_[i] = std::move(t); }
  std::vector<Tensor>& outputs() { return outputs_; }
  BufferPool* pool() const { return pool_; }
  // Hands the input and output vectors back (their capacity reused by the
  // next run of the same step, so a run allocates no argument vectors).
  void Recycle(std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs) {
    inputs = std::move(inputs_);
    outputs = std::move(outputs_);
  }
  pthreadpool_t threadpool() const { return threadpool_; }
  // The pool for an operator of `work` (see kMinParallel*): null below `min_work`.
  pthreadpool_t threadpool_for(double work, double min_work) const { return work >= min_work ? threadpool_ : nullptr; }

 private:
  std::vector<const Tensor*> inputs_;
  std::vector<Tensor> outputs_;
  BufferPool* pool_;
  pthreadpool_t threadpool_;
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  virtual absl::Status Run(KernelContext& ctx) = 0;
  // Whether constant input `i` was copied into the kernel at creation (packed
  // weights) and is never read at run time: the session then frees it.
  virtual bool PackedInput(size_t i) const { return false; }
};

using KernelFactory = absl::StatusOr<std::unique_ptr<OpKernel>> (*)(const KernelCreateInfo& info);

// Half-precision policy (float16, bfloat16), the executor's answer to
// torch's CPU kernels:
// - Values stay in their dtype between ops: a bfloat16 model's weights and
//   activations are held as bfloat16, never widened for the whole run.
// - Data movement (Reshape, Transpose, Gather, Concat, Slice, Where, Cast,
//   ...) is kNative: it copies the 2-byte values unchanged.
// - Arithmetic is kViaFloat32: the session widens the op's half inputs to
//   float32 (exact: every half value is a float32 value), the float32 kernel
//   computes and accumulates in float32, and each output is rounded once to
//   the half dtype (round to nearest even). torch's CPU kernels do the same
//   for half matmuls, reductions and normalisations (float32 accumulation,
//   one rounding of the result: aten/src/ATen/OpMathType.h makes float the
//   opmath type of Half and BFloat16), so the two agree to about an ulp per
//   op. Where torch rounds an intermediate of a composite op to half and we
//   do not (or the reverse), results differ by a few ulps; --verify's
//   half-precision thresholds (verify/thresholds.h) allow for that.
// - The float32 copies are transient: taken from and returned to the run's
//   buffer pool per op, so the extra memory is that of the largest op's
//   widened inputs (for a matmul, its weight at 4 bytes per value), not a
//   float32 copy of the model. XNNPACK's f16 operators are not used yet;
//   float16 and bfloat16 run the portable float32 kernels.
// How a kernel treats float16/bfloat16 values.
enum class HalfMode {
  kNative,     // handles them itself (data movement, Cast, Shape) or never sees them
  kViaFloat32  // the session converts half inputs to float32 and float32 outputs back
};

struct KernelRegistration {
  const char* op_type;  // ai.onnx domain
  KernelFactory factory;
  HalfMode half_mode;
};

// Adapts a kernel class with a constructor `K(const KernelCreateInfo&)` and
// an `absl::Status Init(const KernelCreateInfo&)` to a KernelFactory.
template <typename K>
absl::StatusOr<std::unique_ptr<OpKernel>> MakeKernel(const KernelCreateInfo& info) {
  auto kernel = std::make_unique<K>();
  absl::Status status = kernel->Init(info);
  if (!status.ok()) return status;
  return std::unique_ptr<OpKernel>(std::move(kernel));
}

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_KERNEL_H_
