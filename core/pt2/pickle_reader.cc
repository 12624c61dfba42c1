// ReadPickle and the PickleDocument helpers (pickle_reader.h). The unpickling
// itself is the internal Unpickler: unpickler.cc interprets the opcodes,
// unpickler_calls.cc holds the GLOBAL allow-list and the tensor rebuilds.
#include "core/pt2/pickle_reader.h"

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/pt2/unpickler.h"
#include "core/status_macros.h"

namespace pt2onnx::pt2 {

using internal::Unpickler;

absl::string_view PickleKindName(PickleKind kind) {
  // Python's type names, indexed by PickleKind.
  constexpr absl::string_view kNames[] = {
      "None", "bool", "int",    "float",  "str",     "bytes",  "tuple",
      "list", "dict", "set",    "global", "storage", "tensor", "object"};
  const size_t i = static_cast<size_t>(kind);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "?";
}

std::string PickleDocument::DebugString(PickleId id, int max_depth) const {
  constexpr size_t kMaxShown = 16;  // elements per container in the text
  const PickleValue& v = at(id);
  auto join = [&](absl::string_view open, absl::string_view close) {
    if (max_depth <= 0) return absl::StrCat(open, "...", close);
    const size_t step = v.kind == PickleKind::kDict ? 2 : 1;
    std::vector<std::string> parts;
    for (size_t i = 0; i + step <= v.items.size(); i += step) {
      if (parts.size() == kMaxShown) {
        parts.push_back("...");
        break;
      }
      parts.push_back(DebugString(v.items[i], max_depth - 1));
      if (step == 2) {
        absl::StrAppend(&parts.back(), ": ",
                        DebugString(v.items[i + 1], max_depth - 1));
      }
    }
    if (v.kind == PickleKind::kTuple && parts.size() == 1) parts[0] += ",";
    return absl::StrCat(open, absl::StrJoin(parts, ", "), close);
  };
  switch (v.kind) {
    case PickleKind::kNone: return "None";
    case PickleKind::kBool: return v.bool_value ? "True" : "False";
    case PickleKind::kInt: return absl::StrCat(v.int_value);
    case PickleKind::kFloat: return absl::StrCat(v.float_value);
    case PickleKind::kString: return absl::StrCat("'", v.text, "'");
    case PickleKind::kBytes: return absl::StrCat("b<", v.text.size(), ">");
    case PickleKind::kTuple: return join("(", ")");
    case PickleKind::kList: return join("[", "]");
    case PickleKind::kSet: return join("{", "}");
    case PickleKind::kDict: return join("{", "}");
    case PickleKind::kObject: return join(absl::StrCat(v.text, "("), ")");
    case PickleKind::kGlobal: return v.text;
    case PickleKind::kStorage:
      return absl::StrCat("storage(", DataTypeName(v.storage->dtype), ", key='",
                          v.storage->key, "', numel=", v.storage->numel, ")");
    case PickleKind::kTensor: {
      const PickleTensor& t = *v.tensor;
      return absl::StrCat(t.is_param ? "parameter(" : "tensor(",
                          DataTypeName(t.dtype), ", sizes=[",
                          absl::StrJoin(t.sizes, ", "), "], strides=[",
                          absl::StrJoin(t.strides, ", "), "], offset=",
                          t.storage_offset, ", key='", t.storage.key, "')");
    }
  }
  return "?";
}

absl::StatusOr<PickleDocument> ReadPickle(ByteSpan data) {
  return ReadPickle(data, PickleLimits());
}

absl::StatusOr<PickleDocument> ReadPickle(ByteSpan data,
                                          const PickleLimits& limits) {
  Unpickler unpickler(data, limits);
  PT2ONNX_ASSIGN_OR_RETURN(PickleId root, unpickler.Run());
  PickleDocument doc;
  doc.values_ = unpickler.TakeValues();
  doc.root_ = root;
  return doc;
}

}  // namespace pt2onnx::pt2