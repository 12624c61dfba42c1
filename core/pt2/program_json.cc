// Public entry points of the torch.export JSON decoder (docs/pt2-format.md
// section 3): the ExportedProgram, its schema version, and PayloadConfig
// records.
//
// Shape: RapidJSON builds a pool-allocated DOM (no string copies of the
// input as a whole, freed in one go on return), then one Read* function per
// schema type walks it. The generic machinery (JSON paths for errors,
// primitives, unions) is in json_decode.h, arguments and value types in
// argument_json.h, graphs and signatures in graph_json.h; this file reads
// the top level of each record.
#include "core/pt2/program_json.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/pt2/argument_json.h"
#include "core/pt2/graph_json.h"
#include "core/pt2/json_decode.h"
#include "core/pt2/json_numbers.h"
#include "core/status_macros.h"
#include "rapidjson/document.h"
#include "rapidjson/memorystream.h"
#include "rapidjson/reader.h"

namespace pt2onnx::pt2 {
namespace {

using internal::CheckJsonNumbers;
using internal::ExpectObject;
using internal::Invalid;
using internal::kParseFlags;
using internal::Member;
using internal::ParseDocument;
using internal::ParseError;
using internal::Path;
using internal::PoolChunkSize;
using internal::ReadFloat;
using internal::ReadGraph;
using internal::ReadInt;
using internal::ReadList;
using internal::ReadMap;
using internal::ReadSignature;
using internal::ReadString;
using internal::ReadStringMap;
using internal::ReadTensorMeta;
using internal::Required;
using internal::TypeError;
using internal::Value;
using internal::View;

// ---- exported program -------------------------------------------------------

// module_call_graph: [{fqn, signature|null}]; only the root (fqn "") matters
// for the user-facing pytree of inputs and outputs.
absl::Status ReadModuleCallGraph(const Value& v, const Path& path,
                                 ExportedProgram* ep) {
  if (!v.IsArray()) return TypeError(path, "an array", v);
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    const Path entry_path = path.Index(i);
    PT2ONNX_RETURN_IF_ERROR(ExpectObject(v[i], entry_path));
    const Value* fqn = Member(v[i], "fqn");
    if (fqn == nullptr || !fqn->IsString() || fqn->GetStringLength() != 0) {
      continue;
    }
    const Value* sig = Member(v[i], "signature");
    if (sig == nullptr) return absl::OkStatus();
    const Path sig_path = entry_path.Field("signature");
    PT2ONNX_RETURN_IF_ERROR(ExpectObject(*sig, sig_path));
    if (const Value* s = Member(*sig, "in_spec")) {
      PT2ONNX_ASSIGN_OR_RETURN(ep->in_spec,
                               ReadString(*s, sig_path.Field("in_spec")));
    }
    if (const Value* s = Member(*sig, "out_spec")) {
      PT2ONNX_ASSIGN_OR_RETURN(ep->out_spec,
                               ReadString(*s, sig_path.Field("out_spec")));
    }
    if (const Value* names = Member(*sig, "forward_arg_names")) {
      PT2ONNX_RETURN_IF_ERROR(
          ReadList(*names, sig_path.Field("forward_arg_names"),
                   &ep->forward_arg_names, ReadString));
    }
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

// A range bound: an int, null (unbounded, current files), or +-infinity as a
// float or "Infinity" string (pre-2.4 files).
absl::StatusOr<std::optional<int64_t>> ReadBound(const Value* v,
                                                 const Path& path) {
  if (v == nullptr) return std::optional<int64_t>();
  if (v->IsString() || (v->IsDouble() && std::isinf(v->GetDouble()))) {
    PT2ONNX_ASSIGN_OR_RETURN(double d, ReadFloat(*v, path));
    if (std::isinf(d)) return std::optional<int64_t>();
    return TypeError(path, "an integer or +-Infinity", *v);
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, ReadInt(*v, path));
  return std::optional<int64_t>(n);
}

absl::StatusOr<RangeConstraint> ReadRange(const Value& v, const Path& path) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  RangeConstraint r;
  PT2ONNX_ASSIGN_OR_RETURN(
      r.min_val, ReadBound(Member(v, "min_val"), path.Field("min_val")));
  PT2ONNX_ASSIGN_OR_RETURN(
      r.max_val, ReadBound(Member(v, "max_val"), path.Field("max_val")));
  return r;
}

// schema_version is {major, minor}; schema-1 files wrote a bare int.
absl::StatusOr<std::pair<int64_t, int64_t>> ReadVersion(const Value& v,
                                                        const Path& path) {
  if (v.IsNumber()) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t major, ReadInt(v, path));
    return std::make_pair(major, int64_t{0});
  }
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* major, Required(v, "major", path));
  std::pair<int64_t, int64_t> out(0, 0);
  PT2ONNX_ASSIGN_OR_RETURN(out.first, ReadInt(*major, path.Field("major")));
  if (const Value* minor = Member(v, "minor")) {
    PT2ONNX_ASSIGN_OR_RETURN(out.second, ReadInt(*minor, path.Field("minor")));
  }
  return out;
}

absl::Status CheckSchemaMajor(int64_t major, int64_t minor) {
  if (major == 8) return absl::OkStatus();
  if (major < 8) {
    return absl::FailedPreconditionError(absl::StrCat(
        "schema_version: the program was written by an older torch (schema ",
        major, ".", minor, ", torch <= 2.5); re-export with torch >= 2.6"));
  }
  return absl::UnimplementedError(absl::StrCat(
      "schema_version: the program uses a newer schema (", major, ".", minor,
      ") than this converter reads (8.x); export with an older torch or "
      "update pt2onnx"));
}

absl::Status ReadProgram(const Value& root, ExportedProgram* ep) {
  const Path path;
  PT2ONNX_ASSIGN_OR_RETURN(const Value* gm,
                           Required(root, "graph_module", path));
  const Path gm_path = path.Field("graph_module");
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(*gm, gm_path));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* graph, Required(*gm, "graph", gm_path));
  PT2ONNX_RETURN_IF_ERROR(
      ReadGraph(*graph, gm_path.Field("graph"), 0, &ep->graph));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* sig,
                           Required(*gm, "signature", gm_path));
  PT2ONNX_RETURN_IF_ERROR(
      ReadSignature(*sig, gm_path.Field("signature"), &ep->signature));
  if (const Value* metadata = Member(*gm, "metadata")) {
    PT2ONNX_RETURN_IF_ERROR(ReadStringMap(*metadata, gm_path.Field("metadata"),
                                          &ep->module_metadata));
  }
  if (const Value* mcg = Member(*gm, "module_call_graph")) {
    PT2ONNX_RETURN_IF_ERROR(
        ReadModuleCallGraph(*mcg, gm_path.Field("module_call_graph"), ep));
  }
  if (const Value* opset = Member(root, "opset_version")) {
    PT2ONNX_RETURN_IF_ERROR(ReadMap(*opset, path.Field("opset_version"),
                                    &ep->opset_version, ReadInt));
  }
  if (const Value* ranges = Member(root, "range_constraints")) {
    PT2ONNX_RETURN_IF_ERROR(ReadMap(*ranges, path.Field("range_constraints"),
                                    &ep->range_constraints, ReadRange));
    // The map sorts; torch.onnx's metadata lists symbols as the file does.
    std::set<absl::string_view> seen;
    for (const auto& m : ranges->GetObject()) {
      if (seen.insert(View(m.name)).second) ep->range_constraint_order.emplace_back(View(m.name));
    }
  }
  if (const Value* tv = Member(root, "torch_version")) {
    PT2ONNX_ASSIGN_OR_RETURN(ep->torch_version,
                             ReadString(*tv, path.Field("torch_version")));
  }
  return absl::OkStatus();
}

// Finds the value of the top-level key "schema_version" by tracking only
// string boundaries and bracket depth (memchr over string bodies), which is
// several times faster than even a SAX parse: torch writes schema_version
// after graph_module, i.e. after nearly all of the text. Returns the offset of
// the value, or npos. Does not validate the JSON.
size_t FindTopLevelSchemaVersion(absl::string_view json) {
  const char* const begin = json.data();
  const char* const end = begin + json.size();
  int depth = 0;
  for (const char* p = begin; p < end; ++p) {
    const char c = *p;
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == '"') {
      const char* body = p + 1;
      const char* q = body;
      while (true) {  // the closing quote: one preceded by even backslashes
        q = static_cast<const char*>(std::memchr(q, '"', end - q));
        if (q == nullptr) return absl::string_view::npos;
        size_t backslashes = 0;
        // *(q - 1 - backslashes), not q[-1 - backslashes]: a size_t index
        // would wrap (pointer overflow, found by the program_json fuzzer).
        while (q - backslashes > body && *(q - 1 - backslashes) == '\\') {
          ++backslashes;
        }
        if (backslashes % 2 == 0) break;
        ++q;
      }
      p = q;
      if (depth != 1 || absl::string_view(body, q - body) != "schema_version") {
        continue;
      }
      const char* colon = q + 1;
      while (colon < end && (*colon == ' ' || *colon == '\n' ||
                             *colon == '\t' || *colon == '\r')) {
        ++colon;
      }
      if (colon < end && *colon == ':') return colon + 1 - begin;
    }
  }
  return absl::string_view::npos;
}

absl::StatusOr<PayloadMeta> ReadPayloadMeta(const Value& v, const Path& path) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  PayloadMeta meta;
  PT2ONNX_ASSIGN_OR_RETURN(const Value* name, Required(v, "path_name", path));
  PT2ONNX_ASSIGN_OR_RETURN(meta.path_name,
                           ReadString(*name, path.Field("path_name")));
  if (const Value* p = Member(v, "is_param")) {
    PT2ONNX_ASSIGN_OR_RETURN(meta.is_param,
                             ReadBool(*p, path.Field("is_param")));
  }
  if (const Value* p = Member(v, "use_pickle")) {
    PT2ONNX_ASSIGN_OR_RETURN(meta.use_pickle,
                             ReadBool(*p, path.Field("use_pickle")));
  }
  if (const Value* tm = Member(v, "tensor_meta")) {
    PT2ONNX_ASSIGN_OR_RETURN(meta.tensor_meta,
                             ReadTensorMeta(*tm, path.Field("tensor_meta")));
  }
  return meta;
}

}  // namespace

absl::StatusOr<ExportedProgram> ParseExportedProgramJson(
    absl::string_view json) {
  // Declared before the document so it is destroyed after it.
  rapidjson::MemoryPoolAllocator<> pool(PoolChunkSize(json.size()));
  rapidjson::Document doc(&pool);
  PT2ONNX_RETURN_IF_ERROR(ParseDocument(json, "program JSON", &doc));
  const Path root;
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(doc, root));
  const Value* version = Member(doc, "schema_version");
  if (version == nullptr) {
    return Invalid(root, "missing 'schema_version' (not a torch.export "
                         "program JSON?)");
  }
  PT2ONNX_ASSIGN_OR_RETURN(auto major_minor,
                           ReadVersion(*version, root.Field("schema_version")));
  PT2ONNX_RETURN_IF_ERROR(
      CheckSchemaMajor(major_minor.first, major_minor.second));
  ExportedProgram ep;
  ep.schema_major = major_minor.first;
  ep.schema_minor = major_minor.second;
  PT2ONNX_RETURN_IF_ERROR(ReadProgram(doc, &ep));
  return ep;
}

absl::StatusOr<std::pair<int64_t, int64_t>> ParseSchemaVersion(
    absl::string_view json) {
  const Path root;
  const size_t at = FindTopLevelSchemaVersion(json);
  if (at == absl::string_view::npos) {
    // Say what is wrong with the text if it is not JSON at all (slow path).
    PT2ONNX_RETURN_IF_ERROR(CheckJsonNumbers(json, "program JSON"));
    rapidjson::MemoryStream stream(json.data(), json.size());
    rapidjson::BaseReaderHandler<> ignore;
    rapidjson::Reader reader;
    rapidjson::ParseResult result = reader.Parse<kParseFlags>(stream, ignore);
    if (result.IsError()) {
      return ParseError("program JSON", json, result.Code(), result.Offset());
    }
    return Invalid(root, "missing 'schema_version' (not a torch.export "
                         "program JSON?)");
  }
  // Parse just the value ({"major": 8, "minor": 20}, or a bare int).
  absl::string_view rest = json.substr(at);
  PT2ONNX_RETURN_IF_ERROR(CheckJsonNumbers(json, "program JSON", at,
                                           /*first_value_only=*/true));
  rapidjson::Document doc;
  doc.Parse<kParseFlags | rapidjson::kParseStopWhenDoneFlag>(rest.data(),
                                                             rest.size());
  if (doc.HasParseError()) {
    return ParseError("program JSON", json, doc.GetParseError(),
                      at + doc.GetErrorOffset());
  }
  return ReadVersion(doc, root.Field("schema_version"));
}

absl::StatusOr<std::vector<std::pair<std::string, PayloadMeta>>>
ParsePayloadConfig(absl::string_view json) {
  rapidjson::MemoryPoolAllocator<> pool(PoolChunkSize(json.size()));
  rapidjson::Document doc(&pool);
  PT2ONNX_RETURN_IF_ERROR(ParseDocument(json, "payload config JSON", &doc));
  const Path root;
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(doc, root));
  PT2ONNX_ASSIGN_OR_RETURN(const Value* config, Required(doc, "config", root));
  const Path config_path = root.Field("config");
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(*config, config_path));
  std::vector<std::pair<std::string, PayloadMeta>> out;
  out.reserve(config->MemberCount());
  for (const auto& m : config->GetObject()) {
    absl::string_view fqn = View(m.name);
    PT2ONNX_ASSIGN_OR_RETURN(PayloadMeta meta,
                             ReadPayloadMeta(m.value, config_path.Key(fqn)));
    out.emplace_back(std::string(fqn), std::move(meta));
  }
  return out;
}

}  // namespace pt2onnx::pt2
