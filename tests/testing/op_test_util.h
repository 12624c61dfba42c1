// File: tests/testing/op_test_util.h
// -----------------------------------------------------------------------------
// Hand-built ExportedPrograms for translation tests, and a conversion helper
// that validates the result with ONNX's own checker and shape inference.
//
//   pt2::ExportedProgram p = ProgramBuilder()
//       .Input("x", DataType::kFloat, {2, 3})
//       .Node("torch.ops.aten.relu.default", {TensorArg("self", "x")},
//             {{"relu", DataType::kFloat, {2, 3}}})
//       .Output("relu")
//       .Build();
//   ASSERT_OK_AND_ASSIGN(Converted c, ConvertAndCheck(p));
#ifndef PT2ONNX_TESTS_TESTING_OP_TEST_UTIL_H_
#define PT2ONNX_TESTS_TESTING_OP_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"

namespace pt2onnx::testing {

struct TensorSpec {
  std::string name;
  DataType dtype = DataType::kFloat;
  std::vector<int64_t> shape;
  std::vector<std::string> symbolic;  // optional: per-dim symbol ("" = static)
};

class ProgramBuilder {
 public:
  ProgramBuilder& Input(std::string name, DataType dtype, std::vector<int64_t> shape);
  // dims like "4" (static) or "s0" (symbolic, hint 2).
  ProgramBuilder& SymInput(std::string name, DataType dtype, std::vector<std::string> dims);
  ProgramBuilder& Node(std::string target, std::vector<pt2::NamedArgument> args,
                       std::vector<TensorSpec> outputs);
  // A node with one Tensor[] output holding `outputs`.
  ProgramBuilder& ListNode(std::string target, std::vector<pt2::NamedArgument> args,
                           std::vector<TensorSpec> outputs);
  // A node whose single output is a SymInt named `name`.
  ProgramBuilder& SymNode(std::string target, std::vector<pt2::NamedArgument> args,
                          std::string name);
  ProgramBuilder& Output(std::string name);
  pt2::ExportedProgram Build() const { return program_; }

 private:
  void AddMeta(const TensorSpec& spec);
  pt2::ExportedProgram program_;
};

pt2::NamedArgument TensorArg(std::string arg, std::string value);
pt2::NamedArgument IntArg(std::string arg, int64_t v);
pt2::NamedArgument IntsArg(std::string arg, std::vector<int64_t> v);
pt2::NamedArgument FloatArg(std::string arg, double v);
pt2::NamedArgument BoolArg(std::string arg, bool v);
pt2::NamedArgument StringArg(std::string arg, std::string v);
pt2::NamedArgument NoneArg(std::string arg);
pt2::NamedArgument TensorsArg(std::string arg, std::vector<std::string> values);
pt2::NamedArgument DtypeArg(std::string arg, DataType dtype);
// A SymInt[] argument: entries are ints or names of sym values.
pt2::NamedArgument SymIntsArg(std::string arg, std::vector<std::string> values);

struct Converted {
  ir::Model model;
  std::vector<std::vector<int64_t>> output_shapes;  // -1 for unknown/symbolic dims
  std::vector<DataType> output_dtypes;
};

// Translates with the default registry at `opset` (no weights), serializes
// to an ONNX ModelProto, runs the ONNX checker and strict shape inference
// (on a copy whose outputs have their declared dims blanked, so the shapes
// reported are really inferred). Opsets above the checker's are converted
// without checking.
absl::StatusOr<Converted> ConvertAndCheck(const pt2::ExportedProgram& program, int opset = 20);

// Op types of the graph's nodes in order, Constant nodes skipped.
std::vector<std::string> OpTypes(const ir::Model& model);

}  // namespace pt2onnx::testing

#endif  // PT2ONNX_TESTS_TESTING_OP_TEST_UTIL_H_
