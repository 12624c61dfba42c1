// File: translate/context_arguments.cc
// -----------------------------------------------------------------------------
// TranslateContext's readers of non-tensor arguments: ints, floats, bools,
// strings, scalars, dtypes, and int lists or SymInts as tensors. Each refuses
// an argument of the wrong kind by name (Invalid). The rest of the class is in
// translate_context.cc.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "translate/graph_builder.h"
#include "translate/translate_context.h"

namespace pt2onnx::translate {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

double ScalarValue::AsDouble() const {
  switch (kind) {
    case Kind::kInt: return static_cast<double>(i);
    case Kind::kFloat: return f;
    case Kind::kBool: return b ? 1.0 : 0.0;
  }
  return 0;
}

absl::StatusOr<int64_t> TranslateContext::Int(absl::string_view arg) const {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  switch (a.kind) {
    case Kind::kInt:
    case Kind::kScalarType:
    case Kind::kMemoryFormat:
    case Kind::kLayout:
      return a.i;
    case Kind::kBool:
      return a.b ? 1 : 0;
    case Kind::kSymInt:
      if (!a.sym.is_name) return a.sym.int_value;
      return Unsupported(absl::StrCat("argument '", arg, "' is symbolic ('", a.sym.name,
                                      "') where a static value is required"));
    case Kind::kInts:
      if (a.ints.size() == 1) return a.ints[0];
      break;
    default:
      break;
  }
  return Invalid(absl::StrCat("argument '", arg, "' is not an int"));
}

absl::StatusOr<std::optional<int64_t>> TranslateContext::OptionalInt(absl::string_view arg) const {
  if (!Has(arg)) return std::optional<int64_t>();
  PT2ONNX_ASSIGN_OR_RETURN(int64_t v, Int(arg));
  return std::optional<int64_t>(v);
}

absl::StatusOr<std::vector<int64_t>> TranslateContext::Ints(absl::string_view arg) const {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  switch (a.kind) {
    case Kind::kInts:
      return a.ints;
    case Kind::kInt:
      return std::vector<int64_t>{a.i};
    case Kind::kNone:
      return std::vector<int64_t>{};
    case Kind::kSymInts: {
      std::vector<int64_t> values;
      for (const pt2::SymArg& s : a.syms) {
        if (s.is_name) {
          return Unsupported(absl::StrCat("argument '", arg, "' holds symbolic size '", s.name,
                                          "' where static sizes are required"));
        }
        values.push_back(s.int_value);
      }
      return values;
    }
    default:
      return Invalid(absl::StrCat("argument '", arg, "' is not an int list"));
  }
}

absl::StatusOr<std::optional<std::vector<int64_t>>> TranslateContext::OptionalInts(
    absl::string_view arg) const {
  if (!Has(arg)) return std::optional<std::vector<int64_t>>();
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> v, Ints(arg));
  return std::optional<std::vector<int64_t>>(std::move(v));
}

absl::StatusOr<double> TranslateContext::Float(absl::string_view arg) const {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  switch (a.kind) {
    case Kind::kFloat: return a.f;
    case Kind::kInt: return static_cast<double>(a.i);
    case Kind::kBool: return a.b ? 1.0 : 0.0;
    case Kind::kSymFloat:
      if (!a.sym.is_name) return a.sym.float_value;
      return Unsupported(absl::StrCat("argument '", arg, "' is a symbolic float"));
    case Kind::kSymInt:
      if (!a.sym.is_name) return static_cast<double>(a.sym.int_value);
      return Unsupported(absl::StrCat("argument '", arg, "' is symbolic"));
    default:
      return Invalid(absl::StrCat("argument '", arg, "' is not a number"));
  }
}

absl::StatusOr<std::optional<double>> TranslateContext::OptionalFloat(absl::string_view arg) const {
  if (!Has(arg)) return std::optional<double>();
  PT2ONNX_ASSIGN_OR_RETURN(double v, Float(arg));
  return std::optional<double>(v);
}

absl::StatusOr<bool> TranslateContext::Bool(absl::string_view arg) const {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  switch (a.kind) {
    case Kind::kBool: return a.b;
    case Kind::kInt: return a.i != 0;
    case Kind::kSymBool:
      if (!a.sym.is_name) return a.sym.bool_value;
      return Unsupported(absl::StrCat("argument '", arg, "' is a symbolic bool"));
    default:
      return Invalid(absl::StrCat("argument '", arg, "' is not a bool"));
  }
}

absl::StatusOr<std::string> TranslateContext::String(absl::string_view arg) const {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  if (a.kind != Kind::kString) return Invalid(absl::StrCat("argument '", arg, "' is not a string"));
  return a.s;
}

absl::StatusOr<ScalarValue> TranslateContext::Scalar(absl::string_view arg) const {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  ScalarValue v;
  switch (a.kind) {
    case Kind::kInt:
      v.kind = ScalarValue::Kind::kInt;
      v.i = a.i;
      return v;
    case Kind::kFloat:
      v.kind = ScalarValue::Kind::kFloat;
      v.f = a.f;
      return v;
    case Kind::kBool:
      v.kind = ScalarValue::Kind::kBool;
      v.b = a.b;
      return v;
    case Kind::kSymInt:
      if (a.sym.is_name) break;
      v.kind = ScalarValue::Kind::kInt;
      v.i = a.sym.int_value;
      return v;
    case Kind::kSymFloat:
      if (a.sym.is_name) break;
      v.kind = ScalarValue::Kind::kFloat;
      v.f = a.sym.float_value;
      return v;
    default:
      return Invalid(absl::StrCat("argument '", arg, "' is not a scalar"));
  }
  return Unsupported(absl::StrCat("argument '", arg, "' is a symbolic scalar"));
}

absl::StatusOr<std::optional<DataType>> TranslateContext::OptionalDtype(absl::string_view arg) const {
  if (!Has(arg)) return std::optional<DataType>();
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  if (a.kind != Kind::kScalarType && a.kind != Kind::kInt) {
    return Invalid(absl::StrCat("argument '", arg, "' is not a dtype"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, FromTorchScalarType(a.i));
  return std::optional<DataType>(dtype);
}

bool TranslateContext::IsStaticInts(absl::string_view arg) const {
  absl::StatusOr<Argument> a = Arg(arg);
  if (!a.ok()) return false;
  if (a->kind != Kind::kSymInts) return a->kind == Kind::kInts || a->kind == Kind::kInt;
  for (const pt2::SymArg& s : a->syms) {
    if (s.is_name) return false;
  }
  return true;
}

absl::StatusOr<std::string> TranslateContext::IntsAsTensor(absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  if (a.kind == Kind::kInts) return ConstantInt64s(a.ints);
  if (a.kind == Kind::kInt) return ConstantInt64s({a.i});
  if (a.kind == Kind::kSymInt) {
    PT2ONNX_ASSIGN_OR_RETURN(std::string scalar, SymArgToTensor(a.sym));
    return Op("Reshape", {scalar, ConstantInt64s({1})});
  }
  if (a.kind != Kind::kSymInts) return Invalid(absl::StrCat("argument '", arg, "' is not an int list"));
  // Runs of static sizes become one constant; each symbol is reshaped to 1-D.
  std::vector<std::string> pieces;
  std::vector<int64_t> run;
  auto flush = [&] {
    if (!run.empty()) pieces.push_back(ConstantInt64s(run));
    run.clear();
  };
  for (const pt2::SymArg& s : a.syms) {
    if (!s.is_name) {
      run.push_back(s.int_value);
      continue;
    }
    flush();
    PT2ONNX_ASSIGN_OR_RETURN(std::string scalar, builder_.Lookup(s.name));
    pieces.push_back(Op("Reshape", {scalar, ConstantInt64s({1})}));
  }
  flush();
  if (pieces.size() == 1) return pieces[0];
  if (pieces.empty()) return ConstantInt64s({});
  return Op("Concat", pieces, {ir::Attribute::Int("axis", 0)});
}

absl::StatusOr<std::string> TranslateContext::SymIntAsTensor(absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(Argument a, Arg(arg));
  if (a.kind == Kind::kInt) return ConstantInt64(a.i);
  if (a.kind == Kind::kSymInt) return SymArgToTensor(a.sym);
  if (a.kind == Kind::kTensor) return builder_.Lookup(a.name);
  return Invalid(absl::StrCat("argument '", arg, "' is not an int"));
}

}  // namespace pt2onnx::translate
