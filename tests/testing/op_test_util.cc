#include "tests/testing/op_test_util.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/onnx/checker.h"
#include "core/onnx/model_writer.h"
#include "core/pt2/weights.h"
#include "core/status_macros.h"
#include "ops/registry.h"
#include "ops/translator.h"

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

pt2::SymInt StaticSize(int64_t v) {
  pt2::SymInt s;
  s.value = v;
  return s;
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

ProgramBuilder& ProgramBuilder::Input(std::string name, DataType dtype, std::vector<int64_t> shape) {
  AddMeta(TensorSpec{name, dtype, std::move(shape), {}});
  Argument arg;
  arg.kind = Kind::kTensor;
  arg.name = name;
  program_.graph.inputs.push_back(arg);
  pt2::InputSpec spec;
  spec.kind = pt2::InputSpec::Kind::kUserInput;
  spec.arg = arg;
  program_.signature.input_specs.push_back(spec);
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
  AddMeta(spec);
  Argument arg;
  arg.kind = Kind::kTensor;
  arg.name = name;
  program_.graph.inputs.push_back(arg);
  pt2::InputSpec input;
  input.kind = pt2::InputSpec::Kind::kUserInput;
  input.arg = arg;
  program_.signature.input_specs.push_back(input);
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
  Argument a;
  a.kind = Kind::kTensor;
  a.name = std::move(value);
  return Named(std::move(arg), a);
}

pt2::NamedArgument IntArg(std::string arg, int64_t v) {
  Argument a;
  a.kind = Kind::kInt;
  a.i = v;
  return Named(std::move(arg), a);
}

pt2::NamedArgument IntsArg(std::string arg, std::vector<int64_t> v) {
  Argument a;
  a.kind = Kind::kInts;
  a.ints = std::move(v);
  return Named(std::move(arg), a);
}

pt2::NamedArgument FloatArg(std::string arg, double v) {
  Argument a;
  a.kind = Kind::kFloat;
  a.f = v;
  return Named(std::move(arg), a);
}

pt2::NamedArgument BoolArg(std::string arg, bool v) {
  Argument a;
  a.kind = Kind::kBool;
  a.b = v;
  return Named(std::move(arg), a);
}

pt2::NamedArgument StringArg(std::string arg, std::string v) {
  Argument a;
  a.kind = Kind::kString;
  a.s = std::move(v);
  return Named(std::move(arg), a);
}

pt2::NamedArgument NoneArg(std::string arg) { return Named(std::move(arg), Argument{}); }

pt2::NamedArgument TensorsArg(std::string arg, std::vector<std::string> values) {
  Argument a;
  a.kind = Kind::kTensors;
  a.names = std::move(values);
  return Named(std::move(arg), a);
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

absl::StatusOr<Converted> ConvertAndCheck(const pt2::ExportedProgram& program, int opset) {
  ops::OpRegistry registry = ops::CreateDefaultRegistry();
  ops::TranslateOptions options;
  options.opset = opset;
  pt2::WeightTable weights;
  PT2ONNX_ASSIGN_OR_RETURN(ir::Model model, ops::TranslateProgram(program, weights, registry, options));
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

}  // namespace pt2onnx::testing
