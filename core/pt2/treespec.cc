#include "core/pt2/treespec.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "rapidjson/document.h"

namespace pt2onnx::pt2 {
namespace {

using Value = rapidjson::Value;

// Iterative: a hostile spec cannot nest deep enough to exhaust the stack.
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
// Bounds the recursion over the spec tree and over a context object.
constexpr int kMaxDepth = 64;

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("pytree spec: ", what));
}

// The attribute path of each tensor reference {"_t": "tensor", "i": k} in an
// object's serialized state, by k.
absl::Status CollectTensorRefs(const Value& v, LeafPath& path, std::map<int, LeafPath>& refs, int depth) {
  if (depth > kMaxDepth) return Invalid("context nested too deeply");
  if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      path.push_back(absl::StrCat(i));
      PT2ONNX_RETURN_IF_ERROR(CollectTensorRefs(v[i], path, refs, depth + 1));
      path.pop_back();
    }
    return absl::OkStatus();
  }
  if (!v.IsObject()) return absl::OkStatus();
  auto tag = v.FindMember("_t");
  if (tag != v.MemberEnd() && tag->value.IsString()) {
    const absl::string_view t(tag->value.GetString(), tag->value.GetStringLength());
    if (t == "tensor") {
      auto i = v.FindMember("i");
      if (i != v.MemberEnd() && i->value.IsInt()) refs.emplace(i->value.GetInt(), path);
      return absl::OkStatus();
    }
    auto state = v.FindMember("s");  // an object's attributes
    if (t == "obj" && state != v.MemberEnd()) return CollectTensorRefs(state->value, path, refs, depth + 1);
    return absl::OkStatus();
  }
  for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
    path.emplace_back(it->name.GetString(), it->name.GetStringLength());
    PT2ONNX_RETURN_IF_ERROR(CollectTensorRefs(it->value, path, refs, depth + 1));
    path.pop_back();
  }
  return absl::OkStatus();
}

// The key of each child of `node`, from its context (see the header).
absl::StatusOr<std::vector<std::string>> ChildKeys(const Value& node, rapidjson::SizeType count) {
  std::vector<std::string> keys;
  for (rapidjson::SizeType i = 0; i < count; ++i) keys.push_back(absl::StrCat(i));
  auto context = node.FindMember("context");
  if (context == node.MemberEnd() || !context->value.IsString()) return keys;
  rapidjson::Document parsed;
  parsed.Parse<kParseFlags>(context->value.GetString(), context->value.GetStringLength());
  if (parsed.HasParseError()) return keys;  // not JSON: a type name, say
  if (parsed.IsArray() && parsed.Size() == count) {
    bool all_strings = true;
    for (const Value& k : parsed.GetArray()) all_strings = all_strings && k.IsString();
    if (all_strings) {
      for (rapidjson::SizeType i = 0; i < count; ++i) keys[i] = parsed[i].GetString();
    }
    return keys;
  }
  if (parsed.IsObject()) {
    std::map<int, LeafPath> refs;
    LeafPath path;
    PT2ONNX_RETURN_IF_ERROR(CollectTensorRefs(parsed, path, refs, 0));
    for (const auto& [i, ref] : refs) {
      if (i >= 0 && static_cast<rapidjson::SizeType>(i) < count && !ref.empty()) {
        keys[i] = absl::StrJoin(ref, ".");
      }
    }
  }
  return keys;
}

absl::Status Walk(const Value& node, LeafPath& path, std::vector<LeafPath>& leaves, int depth) {
  if (depth > kMaxDepth) return Invalid("nested too deeply");
  if (!node.IsObject()) return Invalid("a node is not an object");
  auto type = node.FindMember("type");
  auto children = node.FindMember("children_spec");
  if (type == node.MemberEnd() || type->value.IsNull()) {  // a leaf
    leaves.push_back(path);
    return absl::OkStatus();
  }
  if (children == node.MemberEnd() || !children->value.IsArray()) {
    return Invalid(absl::StrCat("node '", path.empty() ? "<root>" : absl::StrJoin(path, "."),
                                "' has no children_spec"));
  }
  const Value& list = children->value;
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> keys, ChildKeys(node, list.Size()));
  for (rapidjson::SizeType i = 0; i < list.Size(); ++i) {
    path.push_back(keys[i]);
    PT2ONNX_RETURN_IF_ERROR(Walk(list[i], path, leaves, depth + 1));
    path.pop_back();
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<LeafPath>> TreeSpecLeafPaths(absl::string_view serialized) {
  rapidjson::Document doc;
  doc.Parse<kParseFlags>(serialized.data(), serialized.size());
  if (doc.HasParseError()) return Invalid("not JSON");
  if (!doc.IsArray() || doc.Size() != 2 || !doc[0].IsInt()) {
    return Invalid("expected [protocol, tree] as torch's treespec_dumps writes");
  }
  if (doc[0].GetInt() != 1) {
    return Invalid(absl::StrCat("protocol ", doc[0].GetInt(), " is not known (1 is)"));
  }
  std::vector<LeafPath> leaves;
  LeafPath path;
  PT2ONNX_RETURN_IF_ERROR(Walk(doc[1], path, leaves, 0));
  return leaves;
}

}  // namespace pt2onnx::pt2
