// File: core/pt2/json_decode.h
// -----------------------------------------------------------------------------
// Internal to //core/pt2:program (listed in its srcs, not hdrs): the generic
// JSON machinery the torch.export decoders share. RapidJSON values are read
// through typed helpers whose errors carry the JSON path of the value (Path),
// unions are read in every encoding torch has written (ReadUnion), and
// documents are parsed with the flags and pool sizing the decoders rely on.
//
//   const Path root;
//   PT2ONNX_ASSIGN_OR_RETURN(const Value* major, Required(v, "major", root));
//   PT2ONNX_ASSIGN_OR_RETURN(int64_t n, ReadInt(*major, root.Field("major")));
//
// Error paths are built lazily: each Read* function receives a `Path` that
// links to its caller's on the stack, and a string is rendered only when an
// error is reported, so the success path allocates nothing for diagnostics.
// Arguments (argument_json.h), graphs (graph_json.h) and the public entry
// points (program_json.h) are decoded on top of this.
#ifndef PT2ONNX_CORE_PT2_JSON_DECODE_H_
#define PT2ONNX_CORE_PT2_JSON_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "rapidjson/document.h"

namespace pt2onnx::pt2::internal {

using Value = rapidjson::Value;

// Iterative parsing keeps deeply nested (possibly hostile) input off the
// call stack, which is small in wasm. Full precision so that e.g. 1e-05
// reads as the same double Python wrote; floats are rare in these files.
// Strings must be valid UTF-8: names and metadata end in ONNX string fields.
inline constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag |
                                        rapidjson::kParseNanAndInfFlag |
                                        rapidjson::kParseFullPrecisionFlag |
                                        rapidjson::kParseValidateEncodingFlag;

// A JSON path as a chain of stack frames: each Read* function passes
// `path.Field("x")` / `path.Index(i)` down. A Path refers to its parent, so a
// derived Path must not outlive the one it came from: pass derived paths as
// call arguments or keep them in locals, never chain-and-store
// (`Path p = a.Field("x").Field("y")` dangles).
class Path {
 public:
  Path() = default;  // the document root

  Path Field(absl::string_view name) const {
    Path p(this);
    p.field_ = name;
    return p;
  }
  Path Index(size_t i) const {
    Path p(this);
    p.index_ = i;
    p.has_index_ = true;
    return p;
  }
  Path Key(absl::string_view key) const {
    Path p(this);
    p.field_ = key;
    p.is_key_ = true;
    return p;
  }
  // nodes[i] of a graph, remembered with the node's FX name and target so
  // messages can say which node (views must outlive the Path; they point
  // into the DOM).
  Path AtNode(size_t i, absl::string_view name,
              absl::string_view target) const {
    Path p = Index(i);
    p.node_name_ = name;
    p.node_target_ = target;
    p.is_node_ = true;
    return p;
  }

  // "node 'add' (torch.ops.aten.add.Tensor) at graph_module.graph.nodes[3]"
  // for paths inside a node (the innermost node), else just the path.
  std::string Describe() const;

 private:
  explicit Path(const Path* parent) : parent_(parent) {}

  const Path* parent_ = nullptr;
  absl::string_view field_;
  size_t index_ = 0;
  bool has_index_ = false;
  bool is_key_ = false;
  bool is_node_ = false;
  absl::string_view node_name_;
  absl::string_view node_target_;
};

// ---- errors -----------------------------------------------------------------

// InvalidArgument "<path>: <what>".
absl::Status Invalid(const Path& path, absl::string_view what);

// Prefixes a status produced elsewhere (e.g. FromTorchScalarType) with the
// path, keeping its code.
absl::Status AtPath(const Path& path, const absl::Status& status);

// The characters of a string value (a view into the DOM).
absl::string_view View(const Value& v);

// "<path>: expected <expected>, got <what `got` is>".
absl::Status TypeError(const Path& path, absl::string_view expected,
                       const Value& got);

// "<path>: unknown <union_name> tag '<tag>' (file from a newer torch?)".
absl::Status UnknownTag(const Path& path, absl::string_view union_name,
                        absl::string_view tag);

// InvalidArgument for text RapidJSON rejected: `what` ("program JSON"), the
// byte offset, RapidJSON's reason and an excerpt around the offset.
absl::Status ParseError(absl::string_view what, absl::string_view json,
                        rapidjson::ParseErrorCode code, size_t offset);

// ---- JSON primitives --------------------------------------------------------

// The member, or nullptr when absent or null (null = Python None = default).
const Value* Member(const Value& obj, const char* key);

// The member; InvalidArgument naming `key` when absent or null.
absl::StatusOr<const Value*> Required(const Value& obj, const char* key,
                                      const Path& path);

absl::Status ExpectObject(const Value& v, const Path& path);

absl::StatusOr<int64_t> ReadInt(const Value& v, const Path& path);
// Python's float is written as a JSON number, or as "Infinity"/"-Infinity"
// (allow_nan=False); "NaN" is what the C++ serializer accepts too.
absl::StatusOr<double> ReadFloat(const Value& v, const Path& path);
absl::StatusOr<bool> ReadBool(const Value& v, const Path& path);
absl::StatusOr<std::string> ReadString(const Value& v, const Path& path);

// Reads a JSON array into `out`, one `read(item, path.Index(i))` per item;
// `read` returns absl::StatusOr<T>.
template <typename T, typename ReadFn>
absl::Status ReadList(const Value& v, const Path& path, std::vector<T>* out,
                      ReadFn read) {
  if (!v.IsArray()) return TypeError(path, "an array", v);
  out->clear();
  out->reserve(v.Size());
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    auto item = read(v[i], path.Index(i));
    if (!item.ok()) return item.status();
    out->push_back(*std::move(item));
  }
  return absl::OkStatus();
}

// A `read` for ReadList that itself reads a list of T (lists of lists).
template <typename T, typename ReadFn>
auto ListReader(ReadFn read) {
  return [read](const Value& v,
                const Path& path) -> absl::StatusOr<std::vector<T>> {
    std::vector<T> out;
    PT2ONNX_RETURN_IF_ERROR(ReadList(v, path, &out, read));
    return out;
  };
}

// Reads a JSON object {key: T} into a std::map (a repeated key: last wins,
// as with Python's json.loads).
template <typename T, typename ReadFn>
absl::Status ReadMap(const Value& v, const Path& path,
                     std::map<std::string, T>* out, ReadFn read) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  for (const auto& m : v.GetObject()) {
    absl::string_view key = View(m.name);
    auto item = read(m.value, path.Key(key));
    if (!item.ok()) return item.status();
    (*out)[std::string(key)] = *std::move(item);
  }
  return absl::OkStatus();
}

// ReadMap of strings (node and module metadata).
absl::Status ReadStringMap(const Value& v, const Path& path,
                           std::map<std::string, std::string>* out);

// ---- unions -----------------------------------------------------------------

// One member of a union value: its tag and (a pointer into the DOM) value.
struct UnionValue {
  absl::string_view tag;
  const Value* value = nullptr;
};

// Accepts the single-key form {"tag": value} (torch >= 2.3), the all-members
// form with unset members null (<= 2.2: the unique non-null member wins), and
// the {"$type", "$value"} form of 2024 development builds.
absl::StatusOr<UnionValue> ReadUnion(const Value& v, const Path& path,
                                     absl::string_view union_name);

// ---- documents --------------------------------------------------------------

// Parses `json` into `doc` with kParseFlags; ParseError naming `what` if
// the text is malformed.
absl::Status ParseDocument(absl::string_view json, absl::string_view what,
                           rapidjson::Document* doc);

// Pool chunks sized to the input: few mallocs for a tens-of-MB program, no
// big reservation for a 200-byte config.
size_t PoolChunkSize(size_t json_size);

}  // namespace pt2onnx::pt2::internal

#endif  // PT2ONNX_CORE_PT2_JSON_DECODE_H_
