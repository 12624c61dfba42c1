// File: core/pt2/schema.h
// -----------------------------------------------------------------------------
// The decoded torch.export program (torch/_export/serde/schema.py, schema
// major 8): plain structs filled by program_json.cc and read by the
// translator. Only what a converter needs is kept; unknown JSON keys are
// ignored when decoding, unknown union tags are errors.
//
// Value names (TensorArgument.name, SymIntArgument.as_name, ...) are the FX
// node names, unique within one Graph; they are the keys into
// Graph::tensor_values and into the translator's value map.
#ifndef PT2ONNX_CORE_PT2_SCHEMA_H_
#define PT2ONNX_CORE_PT2_SCHEMA_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.h"

namespace pt2onnx::pt2 {

struct Graph;

// A SymInt: a concrete int or a symbolic expression (sympy srepr text since
// torch 2.6, e.g. "Symbol('s0', integer=True, positive=True)") with an
// optional example value.
struct SymInt {
  bool is_symbolic = false;
  int64_t value = 0;        // the int, or the hint when has_hint
  bool has_hint = false;
  std::string expr;         // srepr / str of the expression when symbolic
  double float_value = 0;   // sym_float_values only: the float, or its hint
};

struct Device {
  std::string type = "cpu";
  std::optional<int64_t> index;
};

struct TensorMeta {
  DataType dtype = DataType::kUndefined;
  std::vector<SymInt> sizes;
  std::vector<SymInt> strides;
  SymInt storage_offset;
  bool requires_grad = false;
  Device device;
};

// An element of a SymInt/SymBool/SymFloat list argument: either a constant or
// the name of a sym value produced by another node (or a graph input).
struct SymArg {
  bool is_name = false;
  std::string name;
  int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
};

// One Argument union value (schema.py `Argument`). `kind` says which member
// is set; the remaining fields are unused.
struct Argument {
  enum class Kind {
    kNone,
    kTensor,            // name
    kTensors,           // names
    kInt,               // i
    kInts,              // ints
    kFloat,             // f
    kFloats,            // floats
    kString,            // s
    kStrings,           // strings
    kSymInt,            // sym
    kSymInts,           // syms
    kScalarType,        // i (serialized ScalarType code)
    kMemoryFormat,      // i
    kLayout,            // i
    kDevice,            // device
    kBool,              // b
    kBools,             // bools
    kSymBool,           // sym
    kSymBools,          // syms
    kSymFloat,          // sym
    kSymFloats,         // syms
    kGraph,             // s = subgraph attribute name, graph
    kOptionalTensors,   // optional_names
    kOptionalTensor,    // b = a tensor is present; name when b
    kCustomObj,         // name, s = class_fqn
    kOperator,          // s = target
    kComplex,           // floats = {real, imag}
    kIntLists,          // int_lists
    kFloatLists,        // float_lists
    kNestedTensors,     // nested_names
    kStringToArgument,  // named
  };
  Kind kind = Kind::kNone;
  std::string name;
  std::vector<std::string> names;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<bool> bools;
  std::vector<std::string> strings;
  SymArg sym;
  std::vector<SymArg> syms;
  Device device;
  std::shared_ptr<const Graph> graph;
  std::vector<std::optional<std::string>> optional_names;
  std::vector<std::vector<int64_t>> int_lists;
  std::vector<std::vector<double>> float_lists;
  std::vector<std::vector<std::string>> nested_names;
  std::vector<std::pair<std::string, Argument>> named;
};

// Applies `f` to every value name `a` reads or defines (tensors, optional
// tensors, symbolic ints, nested lists and named entries). Subgraph arguments
// are closed scopes and are left alone.
void ForEachValueName(Argument& a, const std::function<void(std::string&)>& f);

enum class ArgumentKind { kUnknown = 0, kPositional = 1, kKeyword = 2 };

struct NamedArgument {
  std::string name;  // ATen schema argument name; "" for HOP positionals
  Argument arg;
  ArgumentKind kind = ArgumentKind::kUnknown;
};

struct Node {
  std::string target;  // e.g. "torch.ops.aten.addmm.default"
  std::vector<NamedArgument> inputs;
  std::vector<Argument> outputs;
  std::map<std::string, std::string> metadata;  // stack_trace, nn_module_stack, ...
  std::string name;  // FX node name when the file has it (schema >= 8.17)
};

struct Graph {
  std::vector<Argument> inputs;
  std::vector<Argument> outputs;
  std::vector<Node> nodes;
  std::map<std::string, TensorMeta> tensor_values;
  std::map<std::string, SymInt> sym_int_values;
  std::map<std::string, SymInt> sym_bool_values;   // value 0/1 when concrete
  std::map<std::string, SymInt> sym_float_values;  // expr only
  bool is_single_tensor_return = false;
};

struct InputSpec {
  enum class Kind {
    kUserInput,
    kParameter,
    kBuffer,
    kTensorConstant,
    kCustomObj,
    kToken,
    kConstantInput,
  };
  Kind kind = Kind::kUserInput;
  Argument arg;         // placeholder (as_tensor / as_sym_int / ... / as_none)
  std::string target;   // parameter_name / buffer_name / tensor_constant_name
                        // / custom_obj_name / constant_input name
  bool persistent = true;  // buffers only
  Argument value;       // constant_input's ConstantValue (as an Argument)
};

struct OutputSpec {
  enum class Kind {
    kUserOutput,
    kLossOutput,
    kBufferMutation,
    kParameterMutation,
    kGradientToParameter,
    kGradientToUserInput,
    kUserInputMutation,
    kToken,
  };
  Kind kind = Kind::kUserOutput;
  Argument arg;
  std::string target;  // buffer_name / user_input_name / ... when present
};

struct GraphSignature {
  std::vector<InputSpec> input_specs;
  std::vector<OutputSpec> output_specs;
};

struct RangeConstraint {
  std::optional<int64_t> min_val;  // nullopt: unbounded
  std::optional<int64_t> max_val;
};

struct ExportedProgram {
  Graph graph;
  GraphSignature signature;
  std::map<std::string, RangeConstraint> range_constraints;  // symbol -> range
  std::vector<std::string> range_constraint_order;           // its keys, in file order
  std::map<std::string, int64_t> opset_version;              // {"aten": 10}
  int64_t schema_major = 0;
  int64_t schema_minor = 0;
  std::string torch_version;  // "2.9.0+cpu"; "" when absent
  std::map<std::string, std::string> module_metadata;  // GraphModule.metadata
  // module_call_graph[0] (fqn "") in/out treespec strings, when present.
  std::string in_spec;
  std::string out_spec;
  std::vector<std::string> forward_arg_names;
};

// Short names for messages: "input_spec" kinds as torch prints them
// ("USER_INPUT", "PARAMETER", ...), used in metadata too.
const char* InputKindName(InputSpec::Kind kind);
const char* OutputKindName(OutputSpec::Kind kind);

}  // namespace pt2onnx::pt2

#endif  // PT2ONNX_CORE_PT2_SCHEMA_H_
