// File: tests/testing/op_test_util.h
// -----------------------------------------------------------------------------
// Hand-built ExportedPrograms for translation tests, a conversion helper that
// validates the result with ONNX's own checker and shape inference, and the
// checks every op-family suite (tests/ops/<family>_test.cc) makes on it.
//
//   pt2::ExportedProgram p = ProgramBuilder()
//       .Input("x", DataType::kFloat, {2, 3})
//       .Node(Aten("relu.default"), {TensorArg("self", "x")},
//             {{"relu", DataType::kFloat, {2, 3}}})
//       .Output("relu")
//       .Build();
//   absl::StatusOr<Converted> got = ConvertAndCheck(p);
//   ASSERT_TRUE(got.ok()) << got.status();
//   EXPECT_TRUE(OutputsMatchProgram(p, *got));
//   EXPECT_TRUE(OpTypesAre(got->model, {"Relu"}));
#ifndef PT2ONNX_TESTS_TESTING_OP_TEST_UTIL_H_
#define PT2ONNX_TESTS_TESTING_OP_TEST_UTIL_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"

namespace pt2onnx::testing {

// Short dtype names for case tables.
inline constexpr DataType kF32 = DataType::kFloat;
inline constexpr DataType kF16 = DataType::kFloat16;
inline constexpr DataType kF64 = DataType::kDouble;
inline constexpr DataType kI32 = DataType::kInt32;
inline constexpr DataType kI64 = DataType::kInt64;
inline constexpr DataType kBool = DataType::kBool;

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
  void AddUserInput(const TensorSpec& spec);
  pt2::ExportedProgram program_;
};

pt2::NamedArgument TensorArg(std::string arg, std::string value);
pt2::NamedArgument IntArg(std::string arg, int64_t v);
pt2::NamedArgument IntsArg(std::string arg, std::vector<int64_t> v);
pt2::NamedArgument FloatArg(std::string arg, double v);
pt2::NamedArgument BoolArg(std::string arg, bool v);
pt2::NamedArgument BoolsArg(std::string arg, std::vector<bool> v);
pt2::NamedArgument StringArg(std::string arg, std::string v);
pt2::NamedArgument NoneArg(std::string arg);
pt2::NamedArgument TensorsArg(std::string arg, std::vector<std::string> values);
pt2::NamedArgument DtypeArg(std::string arg, DataType dtype);
// A SymInt[] argument: entries are ints or names of sym values.
pt2::NamedArgument SymIntsArg(std::string arg, std::vector<std::string> values);
// A SymInt / SymFloat / SymBool argument naming the symbolic value `symbol`
// (a SymNode output).
pt2::NamedArgument SymIntArg(std::string arg, std::string symbol);
pt2::NamedArgument SymFloatArg(std::string arg, std::string symbol);
pt2::NamedArgument SymBoolArg(std::string arg, std::string symbol);

// The FX target of an ATen overload: Aten("relu.default") is
// "torch.ops.aten.relu.default".
std::string Aten(absl::string_view overload);

// `inputs` (each symbolic where its TensorSpec::symbolic names a symbol) ->
// one node Aten(overload) with `outputs` -> every output returned, except
// those whose name contains "_unused_" (real programs drop unused outputs of
// multi-output ops, e.g. the saved statistics of batch norm).
ProgramBuilder OneNodeProgram(const std::vector<TensorSpec>& inputs, absl::string_view overload,
                              std::vector<pt2::NamedArgument> args,
                              std::vector<TensorSpec> outputs);

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

// The first node of type `op_type`, or null.
const ir::Node* FindNode(const ir::Model& model, absl::string_view op_type);

struct OutputCheckOptions {
  // Whether a static FX dim may infer as unknown (-1). For programs whose
  // sizes ONNX can only compute at runtime (symbolic cases) or infers through
  // a function body that keeps only the rank (GroupNormalization). The rank is
  // checked either way, and a symbolic FX dim must always infer as -1.
  bool static_dims_may_be_unknown = false;
};

// OutputsMatchProgram() checks `converted` against the FX metadata of
// `program`'s outputs: as many outputs; for a tensor output, the inferred
// shape has the FX rank, each symbolic dim infers as unknown (-1) and each
// static dim as its size (see OutputCheckOptions), and the dtype is the FX
// dtype; a SymInt / SymFloat / SymBool output is a 0-d INT64 / FLOAT / BOOL
// value (ops/symbolic.cc). The failure message lists every mismatch.
::testing::AssertionResult OutputsMatchProgram(const pt2::ExportedProgram& program,
                                               const Converted& converted,
                                               OutputCheckOptions options = {});

// OpTypesAre() succeeds when OpTypes(model) is `want`, in order.
::testing::AssertionResult OpTypesAre(const ir::Model& model,
                                      const std::vector<std::string>& want);

struct ConvertExpectations {
  int opset = 20;
  OutputCheckOptions outputs;
  // Whether an empty `ops` leaves the op types unchecked (else: no nodes).
  bool empty_ops_unchecked = false;
};

// The check every op-family conversion case makes: `program` converts at
// `expect.opset` (ConvertAndCheck), its outputs match the FX metadata
// (OutputsMatchProgram) and its op types are `ops`. Failures are reported
// (non-fatally) here; the conversion comes back for the caller's own checks,
// nullopt when it failed.
//
//   std::optional<Converted> got = ConvertAndExpect(c.program.Build(), c.ops, {c.opset});
//   ASSERT_TRUE(got.has_value());
std::optional<Converted> ConvertAndExpect(const pt2::ExportedProgram& program,
                                          const std::vector<std::string>& ops,
                                          const ConvertExpectations& expect = {});

// A row of an op-family conversion table: ConvertAndExpect(program.Build(),
// ops, {opset}), then `check` on the model. Families that check more (pads,
// inferred sizes) keep their own row type.
struct OpCase {
  std::string name;
  ProgramBuilder program;
  std::vector<std::string> ops;  // expected op types, Constants skipped
  int opset = 20;
  std::function<void(const ir::Model&)> check;  // optional extra expectations
};

// inputs -> one node Aten(overload) -> `outputs`, all returned (OneNodeProgram).
OpCase OneNodeCase(std::string name, const std::vector<TensorSpec>& inputs, absl::string_view overload,
                   std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outputs,
                   std::vector<std::string> ops, int opset = 20);

// Runs the checks of an OpCase row.
void ExpectConverts(const OpCase& c);

// A family's conversion table as a parameterized suite:
//   using FamilyTest = OpCaseTest;
//   TEST_P(FamilyTest, ConvertsWithInferredShapes) { ExpectConverts(GetParam()); }
//   INSTANTIATE_TEST_SUITE_P(Family, FamilyTest, ::testing::ValuesIn(Cases()), CaseName());
class OpCaseTest : public ::testing::TestWithParam<OpCase> {};

// A row of an error table: ConvertAndCheck(program.Build(), opset) must fail
// with `code` and a message containing `message`.
struct ErrorCase {
  std::string name;
  ProgramBuilder program;
  absl::StatusCode code;
  std::string message;  // substring
  int opset = 20;
};

// Whether `c` is rejected as its row says.
::testing::AssertionResult Rejects(const ErrorCase& c);

// A family's error table as a parameterized suite:
//   using FamilyErrorsTest = ErrorCaseTest;
//   TEST_P(FamilyErrorsTest, Rejected) { EXPECT_TRUE(Rejects(GetParam())); }
//   INSTANTIATE_TEST_SUITE_P(Cases, FamilyErrorsTest, ::testing::ValuesIn(ErrorCases()), CaseName());
class ErrorCaseTest : public ::testing::TestWithParam<ErrorCase> {};

// Names each TestWithParam case after its `name` member:
//   INSTANTIATE_TEST_SUITE_P(Family, FamilyTest, ::testing::ValuesIn(Cases()), CaseName());
struct CaseName {
  template <typename Case>
  std::string operator()(const ::testing::TestParamInfo<Case>& info) const {
    return info.param.name;
  }
};

}  // namespace pt2onnx::testing

#endif  // PT2ONNX_TESTS_TESTING_OP_TEST_UTIL_H_
