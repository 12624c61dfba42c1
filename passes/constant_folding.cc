// constant_folding: evaluates nodes whose inputs are all constant with the
// ONNX executor (runtime) and stores their outputs as initializers
// named after the outputs, so readers and FX names are unchanged.
//
// Rules: like onnxscript's FoldConstantsPass, a node reading a constant of
// more than FoldingLimits::max_input_elements elements, or producing one of
// more than max_output_elements, is not folded, except a layout change
// (Transpose, Cast, Reshape, Squeeze, Unsqueeze, Flatten, Identity) of a
// constant that no other reader needs: its result replaces the old bytes, so
// a transposed weight is stored once, transposed. Reshape-like layout changes
// of a weight keep its bytes (and file slice) as they are, with new dims; a
// Transpose of a weight of the file becomes a TransposedSlice, computed
// piece by piece when written (a multi-GB model's transposed weights are
// never all in memory).
// Non-rules: random ops (RandomNormal/Uniform(Like), Multinomial, Bernoulli)
// are never folded, nor QuantizeLinear / DequantizeLinear: a DequantizeLinear
// of a constant int8 weight stays one (folding it would store the weight in
// float, four times the bytes, and undo the quantizer's choice), and a
// quantize -> dequantize pair stays a pair, the QDQ structure runtimes fuse
// into int8 kernels. The Cast / Unsqueeze of a quantization parameter (a
// zero point cast to the quantized dtype) folds as any layout change does. A
// Cast of a constant of 8-bit integers (more than a handful) to a wider dtype
// is a dequantization too (torchao's int8 weight-only programs cast the int8
// weight to float and scale the product, its dynamic ones widen it to int32
// for _int_mm): it stays, and the weight stays int8 in the file; runtimes
// (ONNX Runtime, the executor) widen it once, when they load the model.
// Nodes outside ai.onnx or with subgraphs, nodes producing a graph output,
// and nodes the executor cannot run are left as they are.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "core/dtype.h"
#include "runtime/plan/session.h"
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

bool NeverFold(const ir::Node& node) {
  static const absl::flat_hash_set<std::string>* kOps = new absl::flat_hash_set<std::string>{
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
      "Bernoulli",    "QuantizeLinear", "DequantizeLinear", "Constant"};
  return !node.domain.empty() || kOps->contains(node.op_type) || HasSubgraph(node);
}

// A Cast that widens a constant of 8-bit integers (to a float dtype, or to
// int32 for an integer product): folding it would store the weight two to
// eight times larger.
bool WidensQuantizedConstant(const ir::Node& node, const std::vector<const ir::Tensor*>& inputs) {
  // A handful of values (a zero point, a bound) folds as any constant does.
  constexpr int64_t kWeightElements = 64;
  if (node.op_type != "Cast" || inputs.empty() || inputs[0] == nullptr || inputs[0]->numel() <= kWeightElements) {
    return false;
  }
  const DataType from = inputs[0]->dtype();
  const bool narrow = from == DataType::kInt8 || from == DataType::kUint8;
  const ir::Attribute* to = node.FindAttribute("to");
  return narrow && to != nullptr && ElementSize(static_cast<DataType>(to->i())) > 1;
}

bool IsLayoutChange(const ir::Node& node) {
  static const absl::flat_hash_set<std::string>* kOps = new absl::flat_hash_set<std::string>{
      "Transpose", "Cast", "Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity"};
  return kOps->contains(node.op_type);
}

// Ops whose output size comes from input values or attributes (Range's limit,
// ConstantOfShape's shape, Expand, Tile, pads, window sizes...): a file can
// ask for 2^32 elements, so they are evaluated only when the output's static
// shape is known to be small and the integer values agree (OutputElementBound).
bool SizedByValues(const ir::Node& node) {
  static const absl::flat_hash_set<std::string>* kOps = new absl::flat_hash_set<std::string>{
      "Range",       "ConstantOfShape", "Expand",         "Tile",           "Resize",
      "Upsample",    "Pad",             "OneHot",         "Col2Im",         "ConvTranspose",
      "MaxUnpool",   "DFT",             "STFT",           "HannWindow",     "HammingWindow",
      "BlackmanWindow", "MelWeightMatrix", "AffineGrid",  "CenterCropPad",  "EyeLike"};
  return kOps->contains(node.op_type);
}

// Ops whose output has the broadcast shape of their inputs.
bool IsBroadcastElementwise(const ir::Node& node) {
  static const absl::flat_hash_set<std::string>* kOps = new absl::flat_hash_set<std::string>{
      "Add",   "Sub",     "Mul",  "Div",  "Pow",      "Mod",  "Max",       "Min",          "Mean",
      "Sum",   "Equal",   "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor",
      "Where", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "PRelu"};
  return kOps->contains(node.op_type);
}

// The element count of Expand (the broadcast of its input's dims and its
// sizes) and Range (ceil((limit - start) / delta)) from constant inputs;
// nullopt for other ops, unknown inputs or counts over `cap`.
std::optional<int64_t> ExactElementCount(const ir::Node& node, const std::vector<const ir::Tensor*>& inputs,
                                         int64_t cap) {
  for (const ir::Tensor* t : inputs) {
    if (t == nullptr) return std::nullopt;
  }
  if (node.op_type == "Range" && inputs.size() == 3) {
    for (const ir::Tensor* t : inputs) {
      if (t->numel() != 1) return std::nullopt;
    }
    const double start = inputs[0]->GetDouble(0), limit = inputs[1]->GetDouble(0);
    const double delta = inputs[2]->GetDouble(0);
    if (delta == 0) return std::nullopt;
    const double count = std::ceil((limit - start) / delta);
    if (!std::isfinite(count) || count > static_cast<double>(cap)) return std::nullopt;
    return count < 0 ? 0 : static_cast<int64_t>(count);
  }
  if (node.op_type != "Expand" || inputs.size() != 2 || inputs[1]->dtype() != DataType::kInt64) return std::nullopt;
  std::vector<int64_t> dims = inputs[0]->dims();
  const ir::Tensor& sizes = *inputs[1];
  if (sizes.dims().size() != 1 || sizes.numel() > 64) return std::nullopt;
  const size_t n = static_cast<size_t>(sizes.numel());
  if (n > dims.size()) dims.insert(dims.begin(), n - dims.size(), 1);
  const size_t offset = dims.size() - n;
  for (size_t k = 0; k < n; ++k) {
    const int64_t v = sizes.GetInt64(static_cast<int64_t>(k));
    if (v < 0) return std::nullopt;
    dims[offset + k] = std::max(dims[offset + k], v);
  }
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d > 0 && count > cap / d) return std::nullopt;
    count *= d;
  }
  return count;
}

// An upper bound of the elements a node computes before it runs: the static
// output shapes when known, else the broadcast of the input dims for
// element-wise ops, else (ops not sized by values) the product of the input
// sizes, which bounds gathers and contractions; nullopt when no bound is
// known or it overflows.
std::optional<int64_t> OutputElementBound(const ValueIndex& index, const ir::Node& node,
                                          const std::vector<const ir::Tensor*>& inputs) {
  constexpr int64_t kCap = int64_t{1} << 40;
  int64_t total = 0;
  bool all_static = true;
  for (const std::string& out : node.outputs) {
    if (out.empty()) continue;
    std::optional<std::vector<int64_t>> shape = index.StaticShape(out);
    if (!shape.has_value()) {
      all_static = false;
      break;
    }
    int64_t n = 1;
    for (int64_t d : *shape) {
      if (d < 0 || (d > 0 && n > kCap / d)) return std::nullopt;
      n *= d;
    }
    total += n;
  }
  if (!SizedByValues(node)) {
    if (all_static) return total;
  } else {
    // Expand and Range of constants: the values give the exact count.
    if (std::optional<int64_t> exact = ExactElementCount(node, inputs, kCap)) {
      return std::max(all_static ? total : 0, *exact);
    }
    // The declared shape is the file's word; the values decide. Bound the
    // output by the product of every integer input value (sizes, repeats,
    // pads, limits; 0 counts as 1) as well.
    int64_t by_values = 1;
    for (const ir::Tensor* t : inputs) {
      if (t == nullptr || (t->dtype() != DataType::kInt64 && t->dtype() != DataType::kInt32)) continue;
      if (t->numel() > 64) return std::nullopt;
      for (int64_t i = 0; i < t->numel(); ++i) {
        const int64_t v = t->GetInt64(i);
        const int64_t magnitude = v == 0 ? 1 : (v < 0 ? (v == INT64_MIN ? kCap : -v) : v);
        if (magnitude >= kCap || by_values > kCap / magnitude) return std::nullopt;
        by_values *= magnitude;
      }
    }
    if (!all_static) return std::nullopt;
    return std::max(total, by_values);
  }
  if (IsBroadcastElementwise(node)) {
    // The output is the broadcast of the inputs' dims: bound by its size.
    std::vector<int64_t> dims;
    for (const ir::Tensor* t : inputs) {
      if (t == nullptr) return std::nullopt;
      const std::vector<int64_t>& d = t->dims();
      if (d.size() > dims.size()) dims.insert(dims.begin(), d.size() - dims.size(), 1);
      const size_t offset = dims.size() - d.size();
      for (size_t k = 0; k < d.size(); ++k) dims[offset + k] = std::max(dims[offset + k], d[k]);
    }
    int64_t n = 1;
    for (int64_t d : dims) {
      if (d < 0 || (d > 0 && n > kCap / d)) return std::nullopt;
      n *= d;
    }
    return n;
  }
  int64_t product = 1;
  for (const ir::Tensor* t : inputs) {
    if (t == nullptr) continue;
    const int64_t n = std::max<int64_t>(1, t->numel());
    if (product > kCap / n) return std::nullopt;
    product *= n;
  }
  return product;
}

bool KeepsBytes(const ir::Node& node) {
  return node.op_type == "Reshape" || node.op_type == "Squeeze" || node.op_type == "Unsqueeze" ||
         node.op_type == "Flatten" || node.op_type == "Identity";
}

// Runs one node on constant inputs; nullopt when the executor cannot.
// A weight still in a streamed input file, read into a copy that the fold
// frees: Tensor::bytes() would keep the file's copy for the whole conversion,
// so folding the transposes of a multi-GB model's weights held every weight
// twice (more than a browser tab's 4 GiB for a 1 B-parameter bf16 model).
std::optional<ir::Tensor> ReadForFolding(const ir::Tensor& tensor) {
  const FileSlice* slice = tensor.file_slice();
  if (slice == nullptr || slice->file->InMemory().has_value()) return tensor;
  std::string bytes(slice->range.length, '\0');
  absl::Span<uint8_t> dst(reinterpret_cast<uint8_t*>(bytes.data()), bytes.size());
  if (!slice->file->ReadInto(slice->range.offset, dst).ok()) return std::nullopt;
  return ir::Tensor::Owned(tensor.dtype(), tensor.dims(), std::move(bytes));
}

// Transpose(weight of the input file) described, not computed; nullopt for
// permutations TransposedSlice does not stream (then evaluated as before).
std::optional<ir::Tensor> TransposeOfFileSlice(const ir::Node& node, const ir::Tensor* input) {
  if (node.op_type != "Transpose" || input == nullptr || input->file_slice() == nullptr) return std::nullopt;
  std::vector<int64_t> perm;
  if (const ir::Attribute* attr = node.FindAttribute("perm")) {
    if (attr->type() != ir::Attribute::Type::kInts) return std::nullopt;
    perm = attr->ints();
  } else {
    for (size_t k = input->dims().size(); k > 0; --k) perm.push_back(static_cast<int64_t>(k - 1));
  }
  absl::StatusOr<ir::TransposedSlice> transposed =
      ir::TransposedSlice::Create(input->dtype(), input->dims(), std::move(perm), *input->file_slice());
  if (!transposed.ok()) return std::nullopt;
  return ir::Tensor::Transposed(*std::move(transposed));
}

std::optional<std::vector<ir::Tensor>> Evaluate(const ir::Model& model, const ir::Node& node,
                                                const std::vector<const ir::Tensor*>& inputs) {
  ir::Model single;
  single.opset_imports = model.opset_imports;
  ir::Node copy = node;
  copy.metadata.clear();
  absl::flat_hash_set<std::string> added;  // Mul(x, x) reads one initializer twice
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].empty() || !added.insert(node.inputs[i]).second) continue;
    std::optional<ir::Tensor> input = ReadForFolding(*inputs[i]);
    if (!input.has_value()) return std::nullopt;
    single.graph.initializers.push_back({node.inputs[i], *std::move(input), {}});
  }
  for (const std::string& out : node.outputs) {
    if (!out.empty()) single.graph.outputs.push_back(ir::ValueInfo{out, DataType::kUndefined, std::nullopt, {}});
  }
  single.graph.nodes.push_back(std::move(copy));
  runtime::SessionOptions options;
  options.accelerate = false;  // the portable kernels: exact, no thread pool
  absl::StatusOr<std::unique_ptr<runtime::Session>> session = runtime::Session::Create(single, options);
  if (!session.ok()) return std::nullopt;
  absl::StatusOr<std::vector<NamedTensor>> outputs = (*session)->Run({});
  if (!outputs.ok()) return std::nullopt;
  std::vector<ir::Tensor> results;
  for (const NamedTensor& out : *outputs) {
    const Tensor& t = out.tensor;
    if (t.dtype() == DataType::kString || t.dtype() == DataType::kUndefined) return std::nullopt;
    std::string bytes(reinterpret_cast<const char*>(t.raw()), t.byte_size());
    results.push_back(ir::Tensor::Owned(t.dtype(), t.dims(), std::move(bytes)));
  }
  return results;
}

class ConstantFoldingPass : public Pass {
 public:
  explicit ConstantFoldingPass(FoldingLimits limits) : limits_(limits) {}
  std::string Name() const override { return "constant_folding"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    ir::GraphEditor editor(graph);
    ValueIndex index(graph);
    // Folded values so far (a chain folds in one walk).
    absl::flat_hash_map<std::string, ir::Tensor> folded;
    auto constant = [&](const std::string& name) -> const ir::Tensor* {
      auto it = folded.find(name);
      return it != folded.end() ? &it->second : index.Constant(name);
    };
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      const ir::Node& node = graph.nodes[i];
      if (NeverFold(node) || node.outputs.empty()) continue;
      std::vector<const ir::Tensor*> inputs;
      bool all_constant = true, large = false, sole_reader = true;
      for (const std::string& in : node.inputs) {
        const ir::Tensor* t = in.empty() ? nullptr : constant(in);
        if (!in.empty() && t == nullptr) all_constant = false;
        if (t != nullptr && t->numel() > limits_.max_input_elements) large = true;
        if (!in.empty() && (editor.ConsumerCount(in) != 1 || editor.HasOpaqueUse(in))) sole_reader = false;
        inputs.push_back(t);
      }
      if (!all_constant) continue;
      bool produces_output = false;
      for (const std::string& out : node.outputs) produces_output = produces_output || graph.IsOutput(out);
      if (produces_output) continue;
      if (WidensQuantizedConstant(node, inputs)) continue;
      const bool layout_of_sole_weight = IsLayoutChange(node) && sole_reader;
      if (large && !layout_of_sole_weight) continue;
      std::vector<ir::Tensor> results;
      std::optional<std::vector<int64_t>> static_out =
          node.outputs.size() == 1 ? index.StaticShape(node.outputs[0]) : std::nullopt;
      if (KeepsBytes(node) && inputs[0] != nullptr && static_out.has_value() &&
          index.DType(node.outputs[0]) == inputs[0]->dtype()) {
        int64_t numel = 1;
        for (int64_t d : *static_out) numel *= d;
        if (numel == inputs[0]->numel()) results.push_back(inputs[0]->Reshaped(*static_out));
      }
      if (results.empty()) {
        // Check the size before running: a hostile file chooses it.
        std::optional<int64_t> bound = OutputElementBound(index, node, inputs);
        if (!layout_of_sole_weight && (!bound.has_value() || *bound > limits_.max_output_elements)) continue;
        if (std::optional<ir::Tensor> transposed = TransposeOfFileSlice(node, inputs[0])) {
          results.push_back(*std::move(transposed));
        }
      }
      if (results.empty()) {
        std::optional<std::vector<ir::Tensor>> evaluated = Evaluate(model, node, inputs);
        if (!evaluated.has_value()) continue;
        results = std::move(*evaluated);
      }
      bool too_big = false;
      for (const ir::Tensor& t : results) too_big = too_big || t.numel() > limits_.max_output_elements;
      if (too_big && !layout_of_sole_weight) continue;
      size_t r = 0;
      for (const std::string& out : node.outputs) {
        if (out.empty()) continue;
        folded[out] = results[r];
        editor.AddInitializer({out, std::move(results[r]), {}});
        ++r;
      }
      editor.Remove(i);
    }
    if (editor.empty()) return false;
    absl::Status status = editor.Commit();
    if (!status.ok()) return status;
    // Outputs now stored as initializers keep no stale value_info.
    for (const auto& [name, unused] : folded) graph.value_info.erase(name);
    return true;
  }

 private:
  FoldingLimits limits_;
};

}  // namespace

std::unique_ptr<Pass> CreateConstantFoldingPass(const PipelineOptions& options) {
  return std::make_unique<ConstantFoldingPass>(options.folding);
}

}  // namespace pt2onnx::passes
