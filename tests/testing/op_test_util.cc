#include "ops/all_ops.h"
#include "tests/testing/op_test_util.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/onnx/checker.h"
#include "core/onnx/model_writer.h"
#include "core/pt2/weights.h"
#include "core/status_macros.h"
#include "tests/testing/status_matchers.h"
#include "translate/registry.h"
#include "translate/translator.h"

namespace pt2onnx::testing {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

pt2::NamedArgument Named(std::string arg, Argument value) {
  pt2::NamedArgument named;
  named.name = std::move(arg);
  named.arg = std::move(value);
  named.kind = pt2::ArgumentKind::kPositional;
  return named;
}

// The argument `arg` of `kind`, its value set by `fill(Argument&)`.
template <typename Fill>
pt2::NamedArgument Named(std::string arg, Kind kind, Fill fill) {
  Argument a;
  a.kind = kind;
  fill(a);
  return Named(std::move(arg), std::move(a));
}

pt2::SymInt StaticSize(int64_t v) {
  pt2::SymInt s;
  s.value = v;
  return s;
}

pt2::NamedArgument SymArg(std::string arg, Kind kind, std::string symbol) {
  return Named(std::move(arg), kind, [&](Argument& a) {
    a.sym.is_name = true;
    a.sym.name = std::move(symbol);
  });
}

pt2::SymInt SymbolicSize(const std::string& symbol) {
  pt2::SymInt s;
  s.is_symbolic = true;
  s.has_hint = true;
  s.value = 2;
  s.expr = absl::StrCat("Symbol('", symbol, "', integer=True, positive=True)");
  return s;
}

}  // namespace

void ProgramBuilder::AddMeta(const TensorSpec& spec) {
  pt2::TensorMeta meta;
  meta.dtype = spec.dtype;
  for (size_t i = 0; i < spec.shape.size(); ++i) {
    bool symbolic = i < spec.symbolic.size() && !spec.symbolic[i].empty();
    meta.sizes.push_back(symbolic ? SymbolicSize(spec.symbolic[i]) : StaticSize(spec.shape[i]));
  }
  int64_t stride = 1;
  meta.strides.resize(spec.shape.size());
  for (size_t i = spec.shape.size(); i-- > 0;) {
    meta.strides[i] = StaticSize(stride);
    stride *= spec.shape[i];
  }
  program_.graph.tensor_values[spec.name] = meta;
}

void ProgramBuilder::AddUserInput(const TensorSpec& spec) {
  AddMeta(spec);
  Argument arg;
  arg.kind = Kind::kTensor;
  arg.name = spec.name;
  program_.graph.inputs.push_back(arg);
  pt2::InputSpec input;
  input.kind = pt2::InputSpec::Kind::kUserInput;
  input.arg = arg;
  program_.signature.input_specs.push_back(input);
}

ProgramBuilder& ProgramBuilder::Input(std::string name, DataType dtype, std::vector<int64_t> shape) {
  AddUserInput(TensorSpec{std::move(name), dtype, std::move(shape), {}});
  return *this;
}

ProgramBuilder& ProgramBuilder::SymInput(std::string name, DataType dtype,
                                         std::vector<std::string> dims) {
  TensorSpec spec{name, dtype, {}, {}};
  for (const std::string& d : dims) {
    int64_t v;
    if (absl::SimpleAtoi(d, &v)) {
      spec.shape.push_back(v);
      spec.symbolic.push_back("");
    } else {
      spec.shape.push_back(2);
      spec.symbolic.push_back(d);
      program_.range_constraints[d] = pt2::RangeConstraint{2, std::nullopt};
    }
  }
  AddUserInput(spec);
  return *this;
}

ProgramBuilder& ProgramBuilder::Node(std::string target, std::vector<pt2::NamedArgument> args,
                                     std::vector<TensorSpec> outputs) {
  pt2::Node node;
  node.target = std::move(target);
  node.inputs = std::move(args);
  for (const TensorSpec& out : outputs) {
    Argument arg;
    if (out.name.empty()) {
      arg.kind = Kind::kNone;
    } else {
      arg.kind = Kind::kTensor;
      arg.name = out.name;
      AddMeta(out);
    }
    node.outputs.push_back(arg);
  }
  node.name = outputs.empty() ? "node" : outputs[0].name;
  program_.graph.nodes.push_back(std::move(node));
  return *this;
}

ProgramBuilder& ProgramBuilder::ListNode(std::string target, std::vector<pt2::NamedArgument> args,
                                         std::vector<TensorSpec> outputs) {
  pt2::Node node;
  node.target = std::move(target);
  node.inputs = std::move(args);
  Argument list;
  list.kind = Kind::kTensors;
  for (const TensorSpec& out : outputs) {
    list.names.push_back(out.name);
    AddMeta(out);
  }
  node.outputs.push_back(list);
  node.name = outputs.empty() ? "node" : outputs[0].name + "_list";
  program_.graph.nodes.push_back(std::move(node));
  return *this;
}

ProgramBuilder& ProgramBuilder::SymNode(std::string target, std::vector<pt2::NamedArgument> args,
                                        std::string name) {
  pt2::Node node;
  node.target = std::move(target);
  node.inputs = std::move(args);
  Argument out;
  out.kind = Kind::kSymInt;
  out.sym.is_name = true;
  out.sym.name = name;
  node.outputs.push_back(out);
  node.name = name;
  program_.graph.sym_int_values[name] = SymbolicSize(name);
  program_.graph.nodes.push_back(std::move(node));
  return *this;
}

ProgramBuilder& ProgramBuilder::Output(std::string name) {
  Argument arg;
  if (program_.graph.sym_int_values.count(name)) {
    arg.kind = Kind::kSymInt;
    arg.sym.is_name = true;
    arg.sym.name = name;
  } else {
    arg.kind = Kind::kTensor;
    arg.name = name;
  }
  program_.graph.outputs.push_back(arg);
  pt2::OutputSpec spec;
  spec.kind = pt2::OutputSpec::Kind::kUserOutput;
  spec.arg = arg;
  program_.signature.output_specs.push_back(spec);
  return *this;
}

pt2::NamedArgument TensorArg(std::string arg, std::string value) {
  return Named(std::move(arg), Kind::kTensor, [&](Argument& a) { a.name = std::move(value); });
}

pt2::NamedArgument IntArg(std::string arg, int64_t v) {
  return Named(std::move(arg), Kind::kInt, [&](Argument& a) { a.i = v; });
}

pt2::NamedArgument IntsArg(std::string arg, std::vector<int64_t> v) {
  return Named(std::move(arg), Kind::kInts, [&](Argument& a) { a.ints = std::move(v); });
}

pt2::NamedArgument FloatArg(std::string arg, double v) {
  return Named(std::move(arg), Kind::kFloat, [&](Argument& a) { a.f = v; });
}

pt2::NamedArgument BoolArg(std::string arg, bool v) {
  return Named(std::move(arg), Kind::kBool, [&](Argument& a) { a.b = v; });
}

pt2::NamedArgument BoolsArg(std::string arg, std::vector<bool> v) {
  return Named(std::move(arg), Kind::kBools, [&](Argument& a) { a.bools = std::move(v); });
}

pt2::NamedArgument StringArg(std::string arg, std::string v) {
  return Named(std::move(arg), Kind::kString, [&](Argument& a) { a.s = std::move(v); });
}

pt2::NamedArgument NoneArg(std::string arg) { return Named(std::move(arg), Argument{}); }

pt2::NamedArgument TensorsArg(std::string arg, std::vector<std::string> values) {
  return Named(std::move(arg), Kind::kTensors, [&](Argument& a) { a.names = std::move(values); });
}

pt2::NamedArgument DtypeArg(std::string arg, DataType dtype) {
  static const std::pair<DataType, int> kCodes[] = {
      {DataType::kUint8, 1},  {DataType::kInt8, 2},     {DataType::kInt16, 3},
      {DataType::kInt32, 4},  {DataType::kInt64, 5},    {DataType::kFloat16, 6},
      {DataType::kFloat, 7},  {DataType::kDouble, 8},   {DataType::kBool, 12},
      {DataType::kBFloat16, 13}};
  Argument a;
  a.kind = Kind::kScalarType;
  for (const auto& [d, code] : kCodes) {
    if (d == dtype) a.i = code;
  }
  return Named(std::move(arg), a);
}

pt2::NamedArgument SymIntsArg(std::string arg, std::vector<std::string> values) {
  Argument a;
  a.kind = Kind::kSymInts;
  for (const std::string& v : values) {
    pt2::SymArg s;
    int64_t i;
    if (absl::SimpleAtoi(v, &i)) {
      s.int_value = i;
    } else {
      s.is_name = true;
      s.name = v;
    }
    a.syms.push_back(s);
  }
  return Named(std::move(arg), a);
}

pt2::NamedArgument SymIntArg(std::string arg, std::string symbol) {
  return SymArg(std::move(arg), Kind::kSymInt, std::move(symbol));
}

pt2::NamedArgument SymFloatArg(std::string arg, std::string symbol) {
  return SymArg(std::move(arg), Kind::kSymFloat, std::move(symbol));
}

pt2::NamedArgument SymBoolArg(std::string arg, std::string symbol) {
  return SymArg(std::move(arg), Kind::kSymBool, std::move(symbol));
}

std::string Aten(absl::string_view overload) { return absl::StrCat("torch.ops.aten.", overload); }

ProgramBuilder OneNodeProgram(const std::vector<TensorSpec>& inputs, absl::string_view overload,
                              std::vector<pt2::NamedArgument> args,
                              std::vector<TensorSpec> outputs) {
  ProgramBuilder b;
  for (const TensorSpec& in : inputs) {
    if (in.symbolic.empty()) {
      b.Input(in.name, in.dtype, in.shape);
      continue;
    }
    std::vector<std::string> dims;
    for (size_t i = 0; i < in.shape.size(); ++i) {
      bool symbolic = i < in.symbolic.size() && !in.symbolic[i].empty();
      dims.push_back(symbolic ? in.symbolic[i] : absl::StrCat(in.shape[i]));
    }
    b.SymInput(in.name, in.dtype, dims);
  }
  b.Node(Aten(overload), std::move(args), outputs);
  for (const TensorSpec& out : outputs) {
    if (!absl::StrContains(out.name, "_unused_")) b.Output(out.name);
  }
  return b;
}

absl::StatusOr<Converted> ConvertAndCheck(const pt2::ExportedProgram& program, int opset) {
  translate::OpRegistry registry = ops::CreateDefaultRegistry();
  translate::TranslateOptions options;
  options.opset = opset;
  pt2::WeightTable weights;
  PT2ONNX_ASSIGN_OR_RETURN(ir::Model model, translate::TranslateProgram(program, weights, registry, options));
  PT2ONNX_RETURN_IF_ERROR(ir::Verify(model.graph));
  Converted result;
  ::onnx::ModelProto proto = onnx_writer::ToModelProto(model);
  // Drop declared output shapes and value_info so what we read back is what
  // ONNX inferred from the nodes alone.
  proto.mutable_graph()->clear_value_info();
  // (The checker requires a shape field on outputs, so keep the rank and
  // blank every dimension.)
  for (auto& out : *proto.mutable_graph()->mutable_output()) {
    for (auto& dim : *out.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      dim.clear_dim_value();
      dim.clear_dim_param();
    }
  }
  if (opset <= onnx_writer::CheckerMaxOpset()) {
    PT2ONNX_RETURN_IF_ERROR(onnx_writer::CheckModel(proto));
  }
  for (const auto& out : proto.graph().output()) {
    std::vector<int64_t> shape;
    const auto& type = out.type().tensor_type();
    if (type.has_shape()) {
      for (const auto& dim : type.shape().dim()) {
        shape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
      }
    } else {
      shape.push_back(-2);  // rank unknown
    }
    result.output_shapes.push_back(shape);
    result.output_dtypes.push_back(static_cast<DataType>(type.elem_type()));
  }
  result.model = std::move(model);
  return result;
}

std::vector<std::string> OpTypes(const ir::Model& model) {
  std::vector<std::string> types;
  for (const ir::Node& node : model.graph.nodes) {
    if (node.op_type != "Constant") types.push_back(node.op_type);
  }
  return types;
}

const ir::Node* FindNode(const ir::Model& model, absl::string_view op_type) {
  for (const ir::Node& node : model.graph.nodes) {
    if (node.op_type == op_type) return &node;
  }
  return nullptr;
}

namespace {

// What an FX output should convert to: its dims (nullopt: symbolic) and dtype.
struct ExpectedOutput {
  std::vector<std::optional<int64_t>> dims;
  DataType dtype = DataType::kUndefined;
};

absl::StatusOr<ExpectedOutput> ExpectedFor(const pt2::ExportedProgram& program,
                                           const Argument& output) {
  ExpectedOutput want;
  switch (output.kind) {
    case Kind::kTensor: {
      auto it = program.graph.tensor_values.find(output.name);
      if (it == program.graph.tensor_values.end()) {
        return absl::NotFoundError(absl::StrCat("no tensor_values entry for '", output.name, "'"));
      }
      for (const pt2::SymInt& size : it->second.sizes) {
        want.dims.push_back(size.is_symbolic ? std::nullopt : std::optional<int64_t>(size.value));
      }
      want.dtype = it->second.dtype;
      return want;
    }
    // Symbolic scalars are 0-d values (ops/symbolic.cc).
    case Kind::kSymInt:
      want.dtype = DataType::kInt64;
      return want;
    case Kind::kSymFloat:
      want.dtype = DataType::kFloat;
      return want;
    case Kind::kSymBool:
      want.dtype = DataType::kBool;
      return want;
    default:
      return absl::UnimplementedError(
          absl::StrCat("output kind ", static_cast<int>(output.kind), " is not checked"));
  }
}

std::string DimsText(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

}  // namespace

::testing::AssertionResult OutputsMatchProgram(const pt2::ExportedProgram& program,
                                               const Converted& converted,
                                               OutputCheckOptions options) {
  const std::vector<Argument>& outputs = program.graph.outputs;
  if (converted.output_shapes.size() != outputs.size() ||
      converted.output_dtypes.size() != outputs.size()) {
    return ::testing::AssertionFailure()
           << "converted " << converted.output_shapes.size() << " outputs, the program has "
           << outputs.size();
  }
  std::vector<std::string> mismatches;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name =
        outputs[i].kind == Kind::kTensor ? outputs[i].name : outputs[i].sym.name;
    const std::string where = absl::StrCat("output ", i, " '", name, "'");
    absl::StatusOr<ExpectedOutput> want = ExpectedFor(program, outputs[i]);
    if (!want.ok()) {
      mismatches.push_back(absl::StrCat(where, ": ", want.status().ToString()));
      continue;
    }
    const std::vector<int64_t>& inferred = converted.output_shapes[i];
    if (inferred.size() != want->dims.size()) {
      mismatches.push_back(absl::StrCat(where, ": inferred ", DimsText(inferred), ", FX rank ",
                                        want->dims.size()));
    } else {
      for (size_t d = 0; d < inferred.size(); ++d) {
        const std::optional<int64_t>& dim = want->dims[d];
        if (!dim.has_value()) {
          if (inferred[d] != -1) {
            mismatches.push_back(absl::StrCat(where, " dim ", d, ": inferred ", inferred[d],
                                              ", FX dim is symbolic (want -1)"));
          }
        } else if (inferred[d] != *dim &&
                   !(options.static_dims_may_be_unknown && inferred[d] == -1)) {
          mismatches.push_back(
              absl::StrCat(where, " dim ", d, ": inferred ", inferred[d], ", FX has ", *dim));
        }
      }
    }
    if (converted.output_dtypes[i] != want->dtype) {
      mismatches.push_back(absl::StrCat(where, ": dtype ", DataTypeName(converted.output_dtypes[i]),
                                        ", FX has ", DataTypeName(want->dtype)));
    }
  }
  if (mismatches.empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << absl::StrJoin(mismatches, "\n");
}

::testing::AssertionResult OpTypesAre(const ir::Model& model,
                                      const std::vector<std::string>& want) {
  std::vector<std::string> got = OpTypes(model);
  if (got == want) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got ops [" << absl::StrJoin(got, ", ") << "], want ["
                                       << absl::StrJoin(want, ", ") << "]";
}

std::optional<Converted> ConvertAndExpect(const pt2::ExportedProgram& program,
                                          const std::vector<std::string>& ops,
                                          const ConvertExpectations& expect) {
  absl::StatusOr<Converted> got = ConvertAndCheck(program, expect.opset);
  if (!got.ok()) {
    ADD_FAILURE() << got.status();
    return std::nullopt;
  }
  EXPECT_TRUE(OutputsMatchProgram(program, *got, expect.outputs));
  if (!ops.empty() || !expect.empty_ops_unchecked) {
    EXPECT_TRUE(OpTypesAre(got->model, ops));
  }
  return *std::move(got);
}

OpCase OneNodeCase(std::string name, const std::vector<TensorSpec>& inputs, absl::string_view overload,
                   std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outputs,
                   std::vector<std::string> ops, int opset) {
  return OpCase{std::move(name), OneNodeProgram(inputs, overload, std::move(args), std::move(outputs)),
                std::move(ops), opset};
}

void ExpectConverts(const OpCase& c) {
  std::optional<Converted> got = ConvertAndExpect(c.program.Build(), c.ops, {c.opset});
  if (got && c.check) c.check(got->model);
}

::testing::AssertionResult Rejects(const ErrorCase& c) {
  return HasStatus(ConvertAndCheck(c.program.Build(), c.opset), c.code, c.message);
}

}  // namespace pt2onnx::testing
