// File: reference/ref_call.h
// -----------------------------------------------------------------------------
// RefCall: one FX node being interpreted. A kernel reads its arguments by
// their ATen schema names (defaults filled from torch's schemas, as the
// translator does), computes with ATen semantics and sets its outputs.
//
//   // aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
//   absl::Status AddTensor(RefCall& call) {
//     PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
//     ...
//     return call.SetTensor(std::move(out));
//   }
#ifndef PT2ONNX_REFERENCE_REF_CALL_H_
#define PT2ONNX_REFERENCE_REF_CALL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/pt2/schema.h"
#include "reference/ref_value.h"
#include "core/aten/op_schema.h"
#include "core/aten/type_promotion.h"

namespace pt2onnx::reference {

// An ATen Scalar (or a SymInt/SymFloat/SymBool value): its kind decides
// promotion (int64 / float32 as a wrapped number / bool).
struct RefScalar {
  DataType kind = DataType::kInt64;  // kInt64, kFloat (any float) or kBool
  double f = 0;
  int64_t i = 0;
  bool is_float() const { return kind == DataType::kFloat; }
  double AsDouble() const { return is_float() ? f : static_cast<double>(i); }
};

using ValueMap = std::map<std::string, RefValue>;

class SubgraphRunner;  // subgraph_runner.h

// The value an argument names in `values` (a tensor, a symbol, a list of
// them) or the constant it holds; NotFound naming an undefined value.
absl::StatusOr<RefValue> ArgumentValue(const ValueMap& values, const pt2::Argument& a);

class RefCall {
 public:
  RefCall(const pt2::Node& node, const aten::OpSchema* schema, const pt2::Graph& graph,
          ValueMap& values);

  const pt2::Node& node() const { return node_; }
  const std::string& key() const { return key_; }

  // The argument as in the node, or its schema default.
  absl::StatusOr<pt2::Argument> Arg(absl::string_view name) const;
  // The same in place (an Argument is about 0.5 KB): valid while the call is.
  absl::StatusOr<const pt2::Argument*> ArgRef(absl::string_view name) const;
  // True when the argument is present and not None (after defaults).
  bool Has(absl::string_view name) const;

  absl::StatusOr<Tensor> Input(absl::string_view name) const;
  absl::StatusOr<std::optional<Tensor>> OptionalInput(absl::string_view name) const;
  absl::StatusOr<std::vector<Tensor>> Inputs(absl::string_view name) const;
  // Optional tensors in a list (index.Tensor): nullopt entries for None.
  absl::StatusOr<std::vector<std::optional<Tensor>>> OptionalInputs(
      absl::string_view name) const;
  absl::StatusOr<int64_t> Int(absl::string_view name) const;
  absl::StatusOr<std::optional<int64_t>> OptionalInt(absl::string_view name) const;
  absl::StatusOr<std::vector<int64_t>> Ints(absl::string_view name) const;
  absl::StatusOr<double> Double(absl::string_view name) const;
  absl::StatusOr<std::optional<double>> OptionalDouble(absl::string_view name) const;
  absl::StatusOr<bool> Bool(absl::string_view name) const;
  absl::StatusOr<RefScalar> Scalar(absl::string_view name) const;
  absl::StatusOr<std::string> String(absl::string_view name) const;
  // A ScalarType argument (dtype=...); nullopt when None.
  absl::StatusOr<std::optional<DataType>> Dtype(absl::string_view name) const;
  // The promotion rank and dtype of a Tensor or Scalar argument.
  absl::StatusOr<aten::ResultTypeOperand> Operand(absl::string_view name) const;
  // torch.result_type over the named Tensor/Scalar arguments.
  absl::StatusOr<DataType> ResultType(const std::vector<absl::string_view>& names) const;
  // Positional operand `index` of a node without an ATen schema
  // (_operator.add, torch.sym_max, math.trunc): a number, a symbol or a 0-d tensor.
  absl::StatusOr<RefScalar> ScalarAt(size_t index) const;
  size_t num_inputs() const { return node_.inputs.size(); }
  // The program's recorded dtype of output `i` (kUndefined when unknown).
  DataType OutputDtype(size_t i = 0) const;
  // The recorded metadata of output `i`, or null.
  const pt2::TensorMeta* OutputMeta(size_t i = 0) const;

  // Higher-order ops: positional argument `index` as a value (ArgumentValue),
  // and the interpreter that runs their nested graphs (null outside Interpret).
  absl::StatusOr<RefValue> ValueAt(size_t index) const;
  SubgraphRunner* subgraph_runner() const { return runner_; }
  void set_subgraph_runner(SubgraphRunner* runner) { runner_ = runner; }

  // Outputs in schema return order.
  absl::Status SetTensor(Tensor t);
  absl::Status SetTensors(std::vector<Tensor> ts);
  absl::Status Set(RefValue v);
  std::vector<RefValue>& results() { return results_; }

  // InvalidArgument naming the node and op.
  absl::Status Invalid(absl::string_view message) const;
  absl::Status Unsupported(absl::string_view message) const;

 private:
  absl::StatusOr<const RefValue*> LookupRef(const std::string& name) const;
  absl::StatusOr<RefScalar> ScalarOf(const pt2::Argument& a, absl::string_view what) const;
  absl::StatusOr<RefScalar> SymScalar(const pt2::SymArg& sym, DataType kind) const;

  const pt2::Node& node_;
  const aten::OpSchema* schema_;
  const pt2::Graph& graph_;
  ValueMap& values_;
  std::string key_;
  std::vector<RefValue> results_;
  SubgraphRunner* runner_ = nullptr;
};

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_REF_CALL_H_
