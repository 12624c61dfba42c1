#include "core/aten/op_schema.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"

namespace pt2onnx::aten {
namespace {

using pt2::Argument;

// Splits `text` at commas outside brackets, parentheses and quotes.
std::vector<absl::string_view> SplitTopLevel(absl::string_view text) {
  std::vector<absl::string_view> parts;
  int depth = 0;
  bool in_quote = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"' || c == '\'') in_quote = !in_quote;
    if (in_quote) continue;
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(absl::StripAsciiWhitespace(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  absl::string_view last = absl::StripAsciiWhitespace(text.substr(start));
  if (!last.empty()) parts.push_back(last);
  return parts;
}

// "int[2]" -> 2, "int[]" / "int" -> 0.
int FixedListSize(absl::string_view type) {
  size_t open = type.find('[');
  if (open == absl::string_view::npos) return 0;
  int n = 0;
  if (!absl::SimpleAtoi(type.substr(open + 1, type.find(']') - open - 1), &n)) return 0;
  return n;
}

absl::string_view BaseType(absl::string_view type) {
  size_t cut = type.find_first_of("[?(");
  return cut == absl::string_view::npos ? type : type.substr(0, cut);
}

bool IsListType(absl::string_view type) { return absl::StrContains(type, '['); }

absl::StatusOr<double> ParseFloat(absl::string_view text) {
  if (text == "inf") return HUGE_VAL;
  if (text == "-inf") return -HUGE_VAL;
  double v;
  if (!absl::SimpleAtod(text, &v)) {
    return absl::InvalidArgumentError(absl::StrCat("bad float default '", text, "'"));
  }
  return v;
}

absl::StatusOr<int64_t> ParseInt(absl::string_view text) {
  // Symbolic defaults used by ATen (at::Reduction and friends).
  if (text == "Mean") return 1;
  if (text == "Sum") return 2;
  if (text == "None") return 0;
  int64_t v;
  if (!absl::SimpleAtoi(text, &v)) {
    return absl::InvalidArgumentError(absl::StrCat("bad int default '", text, "'"));
  }
  return v;
}

absl::StatusOr<Argument> ParseDefault(absl::string_view type, absl::string_view text) {
  Argument arg;
  if (text == "None") return arg;  // Kind::kNone
  absl::string_view base = BaseType(type);
  if (IsListType(type)) {
    std::vector<absl::string_view> items;
    if (absl::ConsumePrefix(&text, "[")) {
      absl::ConsumeSuffix(&text, "]");
      items = SplitTopLevel(text);
    } else {
      // "int[2] stride=1" means [1, 1].
      int n = FixedListSize(type);
      for (int i = 0; i < (n > 0 ? n : 1); ++i) items.push_back(text);
    }
    if (base == "bool") {
      arg.kind = Argument::Kind::kBools;
      for (absl::string_view item : items) arg.bools.push_back(item == "True");
    } else if (base == "float") {
      arg.kind = Argument::Kind::kFloats;
      for (absl::string_view item : items) {
        PT2ONNX_ASSIGN_OR_RETURN(double v, ParseFloat(item));
        arg.floats.push_back(v);
      }
    } else {
      arg.kind = Argument::Kind::kInts;
      for (absl::string_view item : items) {
        PT2ONNX_ASSIGN_OR_RETURN(int64_t v, ParseInt(item));
        arg.ints.push_back(v);
      }
    }
    return arg;
  }
  if (base == "bool") {
    arg.kind = Argument::Kind::kBool;
    arg.b = (text == "True");
  } else if (base == "int" || base == "SymInt") {
    arg.kind = Argument::Kind::kInt;
    PT2ONNX_ASSIGN_OR_RETURN(arg.i, ParseInt(text));
  } else if (base == "float" || base == "SymFloat") {
    arg.kind = Argument::Kind::kFloat;
    PT2ONNX_ASSIGN_OR_RETURN(arg.f, ParseFloat(text));
  } else if (base == "Scalar") {
    int64_t i;
    if (absl::SimpleAtoi(text, &i)) {
      arg.kind = Argument::Kind::kInt;
      arg.i = i;
    } else if (text == "True" || text == "False") {
      arg.kind = Argument::Kind::kBool;
      arg.b = (text == "True");
    } else {
      arg.kind = Argument::Kind::kFloat;
      PT2ONNX_ASSIGN_OR_RETURN(arg.f, ParseFloat(text));
    }
  } else if (base == "str") {
    arg.kind = Argument::Kind::kString;
    arg.s = std::string(absl::StripSuffix(absl::StripPrefix(text, "\""), "\""));
    if (arg.s.size() == text.size()) {
      arg.s = std::string(absl::StripSuffix(absl::StripPrefix(text, "'"), "'"));
    }
  } else if (base == "ScalarType") {
    // "ScalarType? dtype=4": the generated table writes c10's code (4 is
    // long), c10's schema text the name; either becomes the code a .pt2 file
    // would hold (torch/_export/serde/schema.py's ScalarType, LONG = 5), which
    // FromTorchScalarType reads.
    struct Code {
      absl::string_view name;
      int64_t c10, serialized;
    };
    static constexpr Code kCodes[] = {{"byte", 0, 1},   {"char", 1, 2},  {"short", 2, 3},   {"int", 3, 4},
                                      {"long", 4, 5},   {"half", 5, 6},  {"float", 6, 7},   {"double", 7, 8},
                                      {"bool", 11, 12}, {"bfloat16", 15, 13}};
    int64_t c10 = -1;
    const bool numeric = absl::SimpleAtoi(text, &c10);
    const auto* code = std::find_if(std::begin(kCodes), std::end(kCodes), [&](const Code& entry) {
      return numeric ? entry.c10 == c10 : entry.name == text;
    });
    if (code == std::end(kCodes)) {
      return absl::InvalidArgumentError(absl::StrCat("bad ScalarType default '", text, "'"));
    }
    arg.kind = Argument::Kind::kScalarType;
    arg.i = code->serialized;
  } else {
    // MemoryFormat=contiguous_format, Layout=strided, ...: kept as text.
    arg.kind = Argument::Kind::kString;
    arg.s = std::string(text);
  }
  return arg;
}

}  // namespace

const SchemaArgument* OpSchema::FindArgument(absl::string_view arg_name) const {
  for (const SchemaArgument& a : arguments) {
    if (a.name == arg_name) return &a;
  }
  return nullptr;
}

std::string OpSchema::Key() const { return absl::StrCat(name, ".", overload); }

absl::StatusOr<OpSchema> ParseOpSchema(absl::string_view text) {
  auto error = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot parse operator schema '", text, "': ", why));
  };
  size_t open = text.find('(');
  size_t arrow = text.rfind("->");
  if (open == absl::string_view::npos || arrow == absl::string_view::npos || arrow < open) {
    return error("expected 'name(args) -> returns'");
  }
  size_t close = text.rfind(')', arrow);
  if (close == absl::string_view::npos || close < open) return error("unbalanced parentheses");

  OpSchema schema;
  absl::string_view full_name = absl::StripAsciiWhitespace(text.substr(0, open));
  size_t dot = full_name.find('.');
  schema.name = std::string(full_name.substr(0, dot));
  schema.overload = dot == absl::string_view::npos ? "default" : std::string(full_name.substr(dot + 1));
  if (schema.overload.empty()) schema.overload = "default";

  bool kwarg_only = false;
  for (absl::string_view part : SplitTopLevel(text.substr(open + 1, close - open - 1))) {
    if (part == "*") {
      kwarg_only = true;
      continue;
    }
    if (part == "...") continue;  // varargs (aten::format): no named argument
    SchemaArgument arg;
    arg.kwarg_only = kwarg_only;
    absl::string_view decl = part;
    size_t eq = std::string::npos;
    // '=' outside quotes starts the default.
    bool in_quote = false;
    for (size_t i = 0; i < part.size(); ++i) {
      if (part[i] == '"' || part[i] == '\'') in_quote = !in_quote;
      if (!in_quote && part[i] == '=') {
        eq = i;
        break;
      }
    }
    absl::string_view default_text;
    if (eq != std::string::npos) {
      decl = absl::StripAsciiWhitespace(part.substr(0, eq));
      default_text = absl::StripAsciiWhitespace(part.substr(eq + 1));
    }
    size_t space = decl.rfind(' ');
    if (space == absl::string_view::npos) return error(absl::StrCat("argument '", part, "' has no name"));
    arg.name = std::string(decl.substr(space + 1));
    arg.type = std::string(absl::StripAsciiWhitespace(decl.substr(0, space)));
    if (eq != std::string::npos) {
      absl::StatusOr<Argument> value = ParseDefault(arg.type, default_text);
      if (!value.ok()) return error(value.status().message());
      arg.default_value = *std::move(value);
    }
    schema.arguments.push_back(std::move(arg));
  }

  absl::string_view returns = absl::StripAsciiWhitespace(text.substr(arrow + 2));
  if (absl::ConsumePrefix(&returns, "(")) {
    absl::ConsumeSuffix(&returns, ")");
    schema.num_returns = static_cast<int>(SplitTopLevel(returns).size());
  } else {
    schema.num_returns = returns.empty() ? 0 : 1;
  }
  return schema;
}

namespace {

// The key ParseOpSchema(text)->Key() gives, read without parsing the
// arguments; empty when the text has no argument list.
std::string KeyOfSchemaText(absl::string_view text) {
  size_t open = text.find('(');
  if (open == absl::string_view::npos) return "";
  absl::string_view full_name = absl::StripAsciiWhitespace(text.substr(0, open));
  size_t dot = full_name.find('.');
  absl::string_view overload = dot == absl::string_view::npos ? "" : full_name.substr(dot + 1);
  return absl::StrCat(full_name.substr(0, dot), ".", overload.empty() ? "default" : overload);
}

}  // namespace

SchemaTable::SchemaTable(const std::vector<absl::string_view>& texts) {
  for (absl::string_view text : texts) {
    absl::StatusOr<OpSchema> schema = ParseOpSchema(text);
    if (!schema.ok()) {
      ++num_rejected_;
      continue;
    }
    std::string key = schema->Key();
    if (parsed_.emplace(std::move(key), std::make_unique<OpSchema>(*std::move(schema))).second) ++size_;
  }
}

SchemaTable::SchemaTable(const std::vector<absl::string_view>& texts, LazyTag) {
  for (absl::string_view text : texts) {
    std::string key = KeyOfSchemaText(text);
    if (key.empty()) {
      ++num_rejected_;
      continue;
    }
    if (unparsed_.emplace(std::move(key), text).second) ++size_;
  }
}

size_t SchemaTable::num_rejected() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return num_rejected_;
}

const OpSchema* SchemaTable::FindExact(absl::string_view key) const {
  auto it = parsed_.find(key);
  if (it != parsed_.end()) return it->second.get();
  auto text = unparsed_.find(key);
  if (text == unparsed_.end()) return nullptr;
  absl::StatusOr<OpSchema> schema = ParseOpSchema(text->second);
  std::unique_ptr<OpSchema>& entry = parsed_[key];
  if (schema.ok()) {
    entry = std::make_unique<OpSchema>(*std::move(schema));
  } else {
    ++num_rejected_;
  }
  unparsed_.erase(text);
  return entry.get();
}

const OpSchema* SchemaTable::Find(absl::string_view key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (const OpSchema* schema = FindExact(key)) return schema;
  // In-place overloads ("aten::add_.Tensor") are not in the generated table
  // (it keeps functional schemas only) but take the same arguments as their
  // functional twin; ATen names the mutated tensor of every in-place
  // overload `self`.
  size_t dot = key.find('.');
  if (dot == absl::string_view::npos || dot == 0 || key[dot - 1] != '_') return nullptr;
  auto renamed = renamed_in_place_.find(key);
  if (renamed != renamed_in_place_.end()) return renamed->second.get();
  const OpSchema* functional = FindExact(absl::StrCat(key.substr(0, dot - 1), key.substr(dot)));
  if (functional == nullptr || functional->arguments.empty() || functional->arguments[0].name == "self" ||
      !absl::StartsWith(functional->arguments[0].type, "Tensor")) {
    return functional;
  }
  auto in_place = std::make_unique<OpSchema>(*functional);
  in_place->name += "_";
  in_place->arguments[0].name = "self";
  return (renamed_in_place_[key] = std::move(in_place)).get();
}

std::vector<absl::string_view> SchemaTable::DefaultTexts() {
  static const char* const kTexts[] = {
#include "core/aten/aten_schemas.inc"
  };
  return std::vector<absl::string_view>(std::begin(kTexts), std::end(kTexts));
}

const SchemaTable& SchemaTable::Default() {
  static const SchemaTable* const table = new SchemaTable(DefaultTexts(), LazyTag{});
  return *table;
}

}  // namespace pt2onnx::aten
