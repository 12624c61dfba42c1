// File: translate/translate_context.h
// -----------------------------------------------------------------------------
// TranslateContext: everything one translation function sees while it turns
// one FX node into ONNX nodes.
//
//   // aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)
//   absl::Status AtenAddmm(TranslateContext& ctx) {
//     PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
//     ...
//     return ctx.SetOutput(0, ctx.Op("Gemm", {mat1, mat2, self}, {...}));
//   }
//
// Arguments are read by their ATen schema name; arguments the .pt2 omitted
// take the schema's default (core/aten/op_schema.h). Tensor-valued results are ONNX
// value names. Symbolic ints (SymInt) are 0-d INT64 ONNX values, as in
// torch.onnx. The FX metadata (dtype, sizes) of every tensor argument and
// output is available, so a translation knows ranks and dtypes statically.
//
// Emission: Op()/AddNode() append nodes to the graph being built; every FX
// output must be bound once with SetOutput. The translator then names the
// bound values after the FX values and stamps torch.onnx's metadata on all
// nodes this translation emitted.
#ifndef PT2ONNX_TRANSLATE_TRANSLATE_CONTEXT_H_
#define PT2ONNX_TRANSLATE_TRANSLATE_CONTEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/aten/op_schema.h"
#include "core/pt2/schema.h"

namespace pt2onnx::translate {

// The ATen schema types translations read their arguments through.
using aten::OpSchema;
using aten::SchemaArgument;

class GraphBuilder;  // translator-internal state (value map, name counter)

// A Scalar argument: ATen's `Scalar` is an int, a float or a bool.
struct ScalarValue {
  enum class Kind { kInt, kFloat, kBool };
  Kind kind = Kind::kInt;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  double AsDouble() const;
};

class TranslateContext {
 public:
  TranslateContext(GraphBuilder& builder, const pt2::Node& node,
                   const OpSchema* schema, int opset);

  const pt2::Node& node() const { return node_; }
  // The graph under construction, for higher-order ops that translate nested
  // graphs (translate/subgraph.h); other translations emit through Op/AddNode.
  GraphBuilder& builder() { return builder_; }
  // The FX graph the node belongs to (for translations that must know who
  // reads their results, e.g. complex values only some ops understand).
  const pt2::Graph& fx_graph() const;
  // The ONNX value bound to an FX value of that graph (NotFound if none yet).
  absl::StatusOr<std::string> ValueOf(absl::string_view fx_name) const;
  // Registry key of the node ("aten::add.Tensor").
  const std::string& key() const { return key_; }
  int opset() const { return opset_; }

  // ---- Arguments (by ATen schema name; defaults filled from the schema) ----
  // True if the node carries the argument or the schema gives a non-None
  // default for it.
  bool Has(absl::string_view arg) const;
  // The raw argument (node's, or the schema default); NotFound if neither.
  absl::StatusOr<pt2::Argument> Arg(absl::string_view arg) const;

  // A tensor argument as an ONNX value name. SymInt/SymFloat/SymBool and
  // constant scalars passed where a tensor is expected become 0-d values.
  absl::StatusOr<std::string> Input(absl::string_view arg);
  // nullopt for None / absent.
  absl::StatusOr<std::optional<std::string>> OptionalInput(absl::string_view arg);
  absl::StatusOr<std::vector<std::string>> Inputs(absl::string_view arg);  // Tensor[]
  absl::StatusOr<std::vector<std::optional<std::string>>> OptionalInputs(
      absl::string_view arg);  // Tensor?[]

  // Static values. A symbolic value where a static one is needed gives
  // Unimplemented naming the argument.
  absl::StatusOr<int64_t> Int(absl::string_view arg) const;
  absl::StatusOr<std::optional<int64_t>> OptionalInt(absl::string_view arg) const;
  absl::StatusOr<std::vector<int64_t>> Ints(absl::string_view arg) const;
  absl::StatusOr<std::optional<std::vector<int64_t>>> OptionalInts(absl::string_view arg) const;
  absl::StatusOr<double> Float(absl::string_view arg) const;
  absl::StatusOr<std::optional<double>> OptionalFloat(absl::string_view arg) const;
  absl::StatusOr<bool> Bool(absl::string_view arg) const;
  absl::StatusOr<std::string> String(absl::string_view arg) const;
  absl::StatusOr<ScalarValue> Scalar(absl::string_view arg) const;
  // `ScalarType? dtype` arguments; nullopt for None.
  absl::StatusOr<std::optional<DataType>> OptionalDtype(absl::string_view arg) const;

  // An int list that may hold symbolic elements (SymInt[]), as a 1-D INT64
  // ONNX value (constants folded together, symbols concatenated in).
  absl::StatusOr<std::string> IntsAsTensor(absl::string_view arg);
  // True if every element of the int list argument is static.
  bool IsStaticInts(absl::string_view arg) const;
  // A SymInt argument as a 0-d INT64 value (static or symbolic).
  absl::StatusOr<std::string> SymIntAsTensor(absl::string_view arg);

  // ---- Types from the program ----
  // FX metadata of a tensor argument (its dtype and sizes as exported).
  absl::StatusOr<const pt2::TensorMeta*> InputMeta(absl::string_view arg) const;
  absl::StatusOr<DataType> InputDtype(absl::string_view arg) const;
  absl::StatusOr<int64_t> InputRank(absl::string_view arg) const;
  // FX metadata of element `j` of a Tensor[] / Tensor?[] argument (nullptr
  // for a None element or an index out of range).
  const pt2::TensorMeta* InputListMeta(absl::string_view arg, size_t j) const;
  // FX metadata of the node's i-th tensor output (nullptr if not a tensor).
  const pt2::TensorMeta* OutputMeta(int i) const;
  DataType OutputDtype(int i) const;
  int64_t OutputRank(int i) const;
  int num_outputs() const { return static_cast<int>(node_.outputs.size()); }
  // True if a later node or a graph output reads FX output `i` (any element,
  // for a Tensor[] output). False for None outputs, indices past the end and
  // outputs nothing reads (torch.export names those "<node>_unused_<i>"), so
  // translations can skip auxiliary results (pool indices, saved statistics,
  // logsumexp) nobody needs.
  bool OutputUsed(int i) const;

  // ---- Emission ----
  // Appends a node and returns its fresh output names.
  std::vector<std::string> AddNode(absl::string_view op_type,
                                   std::vector<std::string> inputs,
                                   std::vector<ir::Attribute> attributes,
                                   int num_outputs,
                                   absl::string_view domain = "");
  // Single-output shorthand.
  std::string Op(absl::string_view op_type, std::vector<std::string> inputs,
                 std::vector<ir::Attribute> attributes = {});
  // A Constant node holding `value`.
  std::string Constant(ir::Tensor value);
  std::string ConstantInt64s(std::vector<int64_t> values);  // 1-D
  std::string ConstantInt64(int64_t value);                 // 0-d
  std::string ConstantScalar(DataType dtype, double value);  // 0-d
  // Cast `value` to `dtype` (no node when `from` already equals it).
  std::string CastTo(const std::string& value, DataType from, DataType dtype);
  // A tensor argument cast to `dtype` (type promotion for elementwise ops).
  absl::StatusOr<std::string> InputAs(absl::string_view arg, DataType dtype);
  // A Scalar-or-Tensor argument as a value of `dtype` (Scalars become 0-d
  // constants, tensors are cast when their dtype differs).
  absl::StatusOr<std::string> InputOrScalarAs(absl::string_view arg, DataType dtype);

  // Binds FX output `i` (for a Tensor[] output, element `j` via
  // SetListOutput). Every output the program uses must be bound.
  absl::Status SetOutput(int i, const std::string& value);
  absl::Status SetListOutput(int i, const std::vector<std::string>& values);
  // For in-place ATen ops (add_, relu_): the mutated argument's FX name now
  // refers to `value` for later nodes, as well as the node's own output.
  absl::Status SetInPlaceResult(absl::string_view mutated_arg, const std::string& value);
  // For a side effect on another argument (batch norm's running statistics):
  // the mutated Tensor argument's FX name refers to `value` for later nodes;
  // the node's outputs are bound separately.
  absl::Status RebindMutatedArgument(absl::string_view mutated_arg, const std::string& value);

  // Called by the translator once the translation returned OK: gives bound
  // results their FX names (or an Identity where a value is reused) and
  // records the FX -> ONNX bindings. Internal error if an output that the
  // program uses was never bound.
  absl::Status Commit();

  // Errors naming this node: "node 'addmm_3' (aten::addmm.default): <what>".
  absl::Status Unsupported(absl::string_view what) const;  // Unimplemented
  absl::Status Invalid(absl::string_view what) const;      // InvalidArgument

 private:
  struct Binding {
    std::string fx_name;
    std::string value;
    bool alias = false;  // in-place alias of an argument: no Identity needed
  };
  const pt2::NamedArgument* FindNodeArg(absl::string_view arg) const;
  absl::StatusOr<std::string> ArgumentToTensor(const pt2::Argument& arg,
                                               absl::string_view arg_name);
  absl::StatusOr<std::string> SymArgToTensor(const pt2::SymArg& sym);

  GraphBuilder& builder_;
  const pt2::Node& node_;
  const OpSchema* schema_;  // may be null (custom ops, HOPs)
  int opset_;
  std::string key_;
  size_t first_node_;  // index of the first node this translation emitted
  std::vector<Binding> bindings_;
};

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_TRANSLATE_CONTEXT_H_
