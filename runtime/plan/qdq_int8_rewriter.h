// File: runtime/plan/qdq_int8_rewriter.h
// -----------------------------------------------------------------------------
// The rewriter behind QdqToInt8 (plan/qdq_int8.h), shared by its two source
// files: qdq_int8.cc (matching helpers, Conv, MatMul/Gemm, the walk) and
// qdq_int8_elementwise.cc (Add/Mul, activations, pooling, Concat). Internal
// to the plan; nothing outside runtime/plan includes it.
//
// uint8 values join the int8 plan shifted: x - 128 as int8 with zero point
// z - 128 denotes the same real number (x - z) * scale, so a uint8 value is
// converted once where an int8 step reads it (QShiftToInt8, a flip of the
// top bit, or, for a Q of the float path, that Q with zero point z - 128
// writing the int8 form itself), and an int8 step whose Q writes uint8
// produces the int8 form and a QShiftToUint8 back for readers outside the
// plan. Exact both ways.
#ifndef PT2ONNX_RUNTIME_PLAN_QDQ_INT8_REWRITER_H_
#define PT2ONNX_RUNTIME_PLAN_QDQ_INT8_REWRITER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/ir/graph.h"
#include "core/tensor/tensor.h"

namespace pt2onnx::runtime::qdq {

// Per-tensor quantization in int8 terms: for uint8 values `zero` is the
// uint8 zero point minus 128 (see above) and `u8` is set.
struct QParams {
  float scale = 1;
  int32_t zero = 0;
  bool u8 = false;
};

// An int8 value the plan can read (the shifted twin of a uint8 one) and the
// parameters that dequantize it.
struct Activation {
  std::string value;
  QParams q;
};

// int8 Q of `v` (round half to even, saturate), in the shifted terms above.
int32_t QuantizeValue(float v, const QParams& q);

// The ONNX node `op_type`(inputs) -> out, named after its output.
ir::Node Plain(const char* op_type, std::vector<std::string> inputs, const std::string& out);

struct Weight {
  std::string q;              // the int8 initializer
  std::string scale;          // its scale initializer (1 or channel values)
  std::vector<float> scales;  // per output channel
};

// What follows a float result up to the Q that quantizes it. A result read
// by several nodes is a shared chain when each reader is a Q with the same
// parameters, or a MaxPool whose result is quantized alike (Inception's and
// YOLO's concatenations, pools of pools): the Qs are absorbed, the first
// names the int8 result (`q_out`), the others are `aliases`, and the MaxPools
// read DQ(Q(result)) instead of the result, the same integers after their Q
// (max commutes with Q; Q(DQ(q)) = q), until a step of their own takes them.
struct Chain {
  QParams q;
  int32_t qmin = -128, qmax = 127;
  const ir::Node* pool = nullptr;  // a MaxPool between the activation and the Q
  std::string q_out;
  std::vector<size_t> absorbed;
  std::vector<std::string> aliases;  // other Q outputs of a shared chain
  std::string pooled;                // the float result MaxPools of a shared chain read, else ""
  std::string scale, zero;           // a Q's parameter initializers (a shared chain's DQ reads them)
};

class Rewriter {
 public:
  explicit Rewriter(const ir::Graph& graph);
  ir::Graph Run();

 private:
  // Matching (qdq_int8.cc).
  std::optional<Tensor> Const(const std::string& name) const;
  const ir::Node* Producer(const std::string& name) const;
  // The one node reading `value` (not a graph output), when it reads it as input 0 (or any input).
  std::optional<size_t> SoleReader(const std::string& value, bool any_input = false) const;
  std::optional<QParams> PerTensor(const ir::Node& n) const;
  // `value` = DQ(x 8-bit, constant scalar scale and zero point), x not a
  // constant unless `allow_constant`: the int8 form of x (a shift emitted for
  // uint8) and its parameters.
  std::optional<Activation> ActivationDq(const std::string& value, bool allow_constant = false);
  // `value` = DQ(Q(f, s, z), s, z) with s, z computed at run time (dynamic
  // quantization) and known to be scalars: the int8 form of Q's output, and
  // s, z as the values to read at run time (`dynamic_scale`, `dynamic_zero`).
  std::optional<Activation> DynamicActivationDq(const std::string& value, std::string& dynamic_scale,
                                                std::string& dynamic_zero);
  // Whether `value` is a rank-0 tensor by construction: a Reshape to the
  // constant shape [] (how pt2onnx writes torch's scalar parameters), or a
  // Cast of one.
  bool ScalarByConstruction(const std::string& value, int depth = 0) const;
  std::optional<Weight> WeightDq(const std::string& value, size_t rank, int64_t channel_axis) const;
  bool FloatBias(const std::string& value, int64_t n) const;
  std::optional<Chain> OutputChain(std::string value, bool allow_pool) const;
  std::optional<Chain> SharedChain(const std::string& value) const;
  // Whether every reader of `value` is a Q with parameters `q` or a MaxPool
  // whose result is so read in turn; sets `found` on a Q's parameter names.
  bool QuantizedAlike(const std::string& value, const QParams& q, int depth, Chain& found) const;
  // The int8 form of a float value a shared chain quantized, for a MaxPool reading it.
  std::optional<Activation> PooledInput(const std::string& value) const;
  bool RequantizationOk(const QParams& x, const Weight& w, const QParams& y) const;

  // Emission (qdq_int8.cc).
  std::string ToNhwc(const std::string& nchw);
  // The NHWC form of an int8 value when a step of the plan wrote it so (no transpose added), else "".
  std::string NhwcTwin(const std::string& value) const;
  std::string Int8Twin(const std::string& uint8_value);
  // The name a step gives the int8 value that stands for `chain`'s Q output.
  static std::string Int8Name(const Chain& chain) { return chain.q.u8 ? chain.q_out + "::s8" : chain.q_out; }
  // After a step wrote `produced` (int8, NHWC when `nhwc`) for `chain`'s Q
  // output: the NCHW int8 value and the uint8 one, for readers outside the plan.
  void Publish(const Chain& chain, const std::string& produced, bool nhwc);
  void Emit(ir::Node node, const QParams& x, const Chain& chain);
  void EmitFloatOutput(ir::Node node, const QParams& x);
  void Absorb(const Chain& chain) { absorbed_.insert(chain.absorbed.begin(), chain.absorbed.end()); }

  bool TryConv(size_t i);
  bool TryFullyConnected(size_t i);

  // Elementwise steps (qdq_int8_elementwise.cc).
  bool TryBinary(size_t i);
  bool TryUnary(size_t i);
  bool TryPool(size_t i);
  bool TryConcat(size_t i);
  // A Q whose float input is a Concat or MaxPool of DQ'd 8-bit values (left
  // float because their readers wanted other parameters): the int8 value
  // from QuantizedAt, the Q absorbed.
  bool TryQuantize(size_t i);
  // Q(value) with parameters `q` computed from int8 values alone, when
  // `value` is a DQ, a Concat or a 2-D MaxPool of such values: requantizing
  // (a table), concatenating and max pooling commute with Q exactly. Emits
  // the steps (each (value, q) once) and returns the int8 value and whether
  // it is NHWC; nullopt when `value` is anything else.
  struct Int8Value {
    std::string name;
    bool nhwc = false;
  };
  std::optional<Int8Value> QuantizedAt(const std::string& value, const QParams& q, int depth);
  std::string ToNchw(const Int8Value& v);
  // Adds the elementwise int8 step `node` reading `inputs` (int8, NHWC when
  // `nhwc`) for `chain`; `extra` attributes besides the output's.
  void EmitElementwise(ir::Node node, std::vector<std::string> inputs, bool nhwc, const Chain& chain,
                       std::vector<ir::Attribute> extra);

  const ir::Graph& in_;
  ir::UseMap uses_;
  std::map<std::string, const ir::Initializer*> inits_;
  std::set<std::string> outputs_;
  std::set<size_t> absorbed_;
  std::map<std::string, std::string> nhwc_of_;  // int8 NCHW value -> its NHWC value
  std::map<std::string, std::string> int8_of_;  // uint8 value -> its int8 twin
  std::map<std::string, std::string> alias_of_;  // int8 Q output of a shared chain -> the int8 value it names
  std::map<std::string, Activation> pooled_;    // float value of a shared chain -> its int8 form
  std::map<std::tuple<std::string, float, int32_t, bool>, Int8Value> quantized_at_;  // QuantizedAt's results
  std::vector<ir::Node> nodes_;
  std::vector<ir::Initializer> new_initializers_;  // zero points of Qs made to write int8 twins
  const bool float_output_;
};

}  // namespace pt2onnx::runtime::qdq

#endif  // PT2ONNX_RUNTIME_PLAN_QDQ_INT8_REWRITER_H_
