#include "core/pt2/json_decode.h"
#include "core/pt2/json_numbers.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "rapidjson/error/en.h"

namespace pt2onnx::pt2::internal {
namespace {

// "string 'abc'", "number 1.5", "array", ... for type errors.
std::string DescribeValue(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
      return "false";
    case rapidjson::kTrueType:
      return "true";
    case rapidjson::kObjectType:
      return "an object";
    case rapidjson::kArrayType:
      return "an array";
    case rapidjson::kStringType: {
      absl::string_view s = View(v);
      if (s.size() > 40) {
        return absl::StrCat("string '", s.substr(0, 40), "...'");
      }
      return absl::StrCat("string '", s, "'");
    }
    case rapidjson::kNumberType:
      if (v.IsInt64()) return absl::StrCat("number ", v.GetInt64());
      if (v.IsUint64()) return absl::StrCat("number ", v.GetUint64());
      return absl::StrCat("number ", v.GetDouble());
  }
  return "a value";
}

}  // namespace

std::string Path::Describe() const {
  std::vector<const Path*> chain;
  for (const Path* p = this; p != nullptr; p = p->parent_) chain.push_back(p);
  std::string out;
  const Path* node = nullptr;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Path& p = **it;
    if (p.parent_ == nullptr) continue;  // root
    if (p.is_key_) {
      absl::StrAppend(&out, "['", p.field_, "']");
    } else if (p.has_index_) {
      absl::StrAppend(&out, "[", p.index_, "]");
    } else {
      absl::StrAppend(&out, out.empty() ? "" : ".", p.field_);
    }
    if (p.is_node_ && !p.node_target_.empty()) node = &p;
  }
  if (out.empty()) out = "JSON top level";
  if (node == nullptr) return out;
  std::string who = node->node_name_.empty()
                        ? absl::StrCat("node ", node->node_target_)
                        : absl::StrCat("node '", node->node_name_, "' (",
                                       node->node_target_, ")");
  return absl::StrCat(who, " at ", out);
}

// ---- errors -----------------------------------------------------------------

absl::Status Invalid(const Path& path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path.Describe(), ": ", what));
}

absl::Status AtPath(const Path& path, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(path.Describe(), ": ", status.message()));
}

absl::string_view View(const Value& v) {
  return absl::string_view(v.GetString(), v.GetStringLength());
}

absl::Status TypeError(const Path& path, absl::string_view expected,
                       const Value& got) {
  return Invalid(path, absl::StrCat("expected ", expected, ", got ",
                                    DescribeValue(got)));
}

absl::Status UnknownTag(const Path& path, absl::string_view union_name,
                        absl::string_view tag) {
  return Invalid(path, absl::StrCat("unknown ", union_name, " tag '", tag,
                                    "' (file from a newer torch?)"));
}

absl::Status ParseError(absl::string_view what, absl::string_view json,
                        rapidjson::ParseErrorCode code, size_t offset) {
  // A short excerpt helps find the spot in a one-line multi-MB file.
  size_t begin = offset > 16 ? offset - 16 : 0;
  std::string excerpt(json.substr(std::min(begin, json.size()), 32));
  for (char& c : excerpt) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return absl::InvalidArgumentError(absl::StrCat(
      what, ": malformed JSON at offset ", offset, ": ",
      rapidjson::GetParseError_En(code), " (near '", excerpt, "')"));
}
// ---- JSON primitives --------------------------------------------------------

const Value* Member(const Value& obj, const char* key) {
  Value::ConstMemberIterator it = obj.FindMember(key);
  if (it == obj.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

absl::StatusOr<const Value*> Required(const Value& obj, const char* key,
                                      const Path& path) {
  const Value* v = Member(obj, key);
  if (v == nullptr) {
    return Invalid(path, absl::StrCat("missing required field '", key, "'"));
  }
  return v;
}

absl::Status ExpectObject(const Value& v, const Path& path) {
  if (!v.IsObject()) return TypeError(path, "an object", v);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ReadInt(const Value& v, const Path& path) {
  if (v.IsInt64()) return v.GetInt64();
  if (v.IsUint64()) {
    return Invalid(path, absl::StrCat("integer ", v.GetUint64(),
                                      " does not fit int64"));
  }
  if (v.IsDouble() && std::isfinite(v.GetDouble()) &&
      v.GetDouble() == std::floor(v.GetDouble()) &&
      std::fabs(v.GetDouble()) >= 9223372036854775808.0) {  // 2^63
    return Invalid(path, absl::StrCat("integer ", v.GetDouble(),
                                      " does not fit int64"));
  }
  return TypeError(path, "an integer", v);
}

absl::StatusOr<double> ReadFloat(const Value& v, const Path& path) {
  if (v.IsNumber()) return v.GetDouble();
  if (v.IsString()) {
    absl::string_view s = View(v);
    if (s == "Infinity") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  return TypeError(path, "a float", v);
}

absl::StatusOr<bool> ReadBool(const Value& v, const Path& path) {
  if (v.IsBool()) return v.GetBool();
  return TypeError(path, "a bool", v);
}

absl::StatusOr<std::string> ReadString(const Value& v, const Path& path) {
  if (v.IsString()) return std::string(View(v));
  return TypeError(path, "a string", v);
}

absl::Status ReadStringMap(const Value& v, const Path& path,
                           std::map<std::string, std::string>* out) {
  return ReadMap(v, path, out, ReadString);
}

// ---- unions -----------------------------------------------------------------

// Accepts the single-key form {"tag": value} (torch >= 2.3), the all-members
// form with unset members null (<= 2.2: the unique non-null member wins), and
// the {"$type", "$value"} form of 2024 development builds.
absl::StatusOr<UnionValue> ReadUnion(const Value& v, const Path& path,
                                     absl::string_view union_name) {
  if (!v.IsObject()) {
    return TypeError(
        path, absl::StrCat(union_name, " union (a single-key object)"), v);
  }
  if (v.MemberCount() == 1) {
    const auto& m = *v.MemberBegin();
    return UnionValue{View(m.name), &m.value};
  }
  const Value* type = Member(v, "$type");
  const Value* value = Member(v, "$value");
  if (type != nullptr && type->IsString() && value != nullptr) {
    return UnionValue{View(*type), value};
  }
  UnionValue found;
  for (const auto& m : v.GetObject()) {
    if (m.value.IsNull()) continue;
    if (found.value != nullptr) {
      return Invalid(path, absl::StrCat(union_name,
                                        " union has several members set ('",
                                        found.tag, "', '", View(m.name), "')"));
    }
    found = UnionValue{View(m.name), &m.value};
  }
  if (found.value == nullptr) {
    return Invalid(path, absl::StrCat(union_name, " union has no member set"));
  }
  return found;
}

// ---- documents --------------------------------------------------------------

absl::Status ParseDocument(absl::string_view json, absl::string_view what,
                           rapidjson::Document* doc) {
  PT2ONNX_RETURN_IF_ERROR(CheckJsonNumbers(json, what));
  doc->Parse<kParseFlags>(json.data(), json.size());
  if (doc->HasParseError()) {
    return ParseError(what, json, doc->GetParseError(), doc->GetErrorOffset());
  }
  return absl::OkStatus();
}

size_t PoolChunkSize(size_t json_size) {
  return std::clamp<size_t>(json_size / 4, size_t{64} << 10, size_t{4} << 20);
}

}  // namespace pt2onnx::pt2::internal
