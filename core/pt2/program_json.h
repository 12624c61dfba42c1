// File: core/pt2/program_json.h
// -----------------------------------------------------------------------------
// Decoding the JSON records of a torch.export file into the structs of
// core/pt2/schema.h:
//   - the serialized ExportedProgram (`models/<name>.json` in a PT2 archive,
//     `serialized_exported_program.json` in a legacy 2.6/2.7 zip),
//   - the PayloadConfig records (`data/weights/<name>_weights_config.json`,
//     `data/constants/<name>_constants_config.json`, torch >= 2.9).
// The encoding is described in docs/pt2-format.md section 3.
//
//   PT2ONNX_ASSIGN_OR_RETURN(pt2::ExportedProgram ep,
//                            pt2::ParseExportedProgramJson(json_text));
//   for (const pt2::Node& node : ep.graph.nodes) ...
//
// Tolerance policy (what torch's own reader does, made forgiving where that
// costs nothing): unknown object keys are ignored, because every schema minor
// adds fields; an unknown union tag is an InvalidArgument error, because it
// means a value we cannot represent. Both union encodings are read: the
// single-key form `{"as_tensor": {...}}` (torch >= 2.3) and the older form
// listing every member with the unset ones `null`. Floats accept JSON
// numbers (ints too) and the strings "Infinity", "-Infinity" and "NaN".
//
// Errors name the JSON path of the offending value, and for values inside a
// node the node's FX name and target, e.g.
//   node 'add_3' (torch.ops.aten.add.Tensor) at
//   graph_module.graph.nodes[12].inputs[1].arg: unknown Argument tag 'as_foo'
//   (file from a newer torch?)
// Malformed JSON gives InvalidArgument with the byte offset.
//
// Nothing here touches the OS; the input is a view the caller keeps alive
// only for the duration of the call (results own all their strings).
#ifndef PT2ONNX_CORE_PT2_PROGRAM_JSON_H_
#define PT2ONNX_CORE_PT2_PROGRAM_JSON_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/pt2/schema.h"

namespace pt2onnx::pt2 {

// ParseExportedProgramJson decodes a serialized ExportedProgram.
//
// Requires schema_version.major == 8 (any minor: minors only add fields):
//   major <= 7 -> FailedPrecondition ("written by an older torch ... re-export
//                 with torch >= 2.6"),
//   major > 8  -> Unimplemented ("newer schema").
// Malformed JSON, wrong value types, missing required fields and unknown union
// tags -> InvalidArgument naming the path. Valid but unsupported content
// (sparse/mkldnn layouts, complex32) -> Unimplemented.
//
// Memory: the JSON is parsed into a RapidJSON DOM (pool allocated, about
// twice the size of the text), decoded, and the DOM is freed before
// returning; the input is never copied as a whole. Peak memory is therefore
// DOM + result: the result is currently the larger part (about 3.4x the
// text, mostly sizeof(Argument) = 504 B (x86-64) per argument, and node
// metadata).
absl::StatusOr<ExportedProgram> ParseExportedProgramJson(
    absl::string_view json);

// ParseSchemaVersion reads only the top-level `schema_version` {major, minor}
// (or the bare int of schema-1 files, as {n, 0}). It scans for the key
// tracking only strings and brackets, builds no DOM and parses just the
// value (about 10x faster than a full parse), so it does not validate the
// rest of the text.
// For layout detection and messages; it does not apply the major == 8 rule.
absl::StatusOr<std::pair<int64_t, int64_t>> ParseSchemaVersion(
    absl::string_view json);

// One entry of a PayloadConfig (schema.py PayloadMeta, torch >= 2.9): where
// the bytes of one state_dict / constants entry live. See pt2-format.md 1.3
// and 1.4 for how a reader turns this into a tensor.
struct PayloadMeta {
  std::string path_name;  // record name inside data/weights/ or data/constants/
  bool is_param = false;  // the original was an nn.Parameter
  bool use_pickle = false;  // the record is a torch.save zip, not raw bytes
  std::optional<TensorMeta> tensor_meta;  // nullopt for custom objects
};

// ParsePayloadConfig decodes `{"config": {"<fqn>": PayloadMeta, ...}}` and
// returns the entries in file order. Errors as for ParseExportedProgramJson,
// with paths like "config['linear.weight'].tensor_meta.dtype".
absl::StatusOr<std::vector<std::pair<std::string, PayloadMeta>>>
ParsePayloadConfig(absl::string_view json);

}  // namespace pt2onnx::pt2

#endif  // PT2ONNX_CORE_PT2_PROGRAM_JSON_H_
