// File: export/model_folder.h
// -----------------------------------------------------------------------------
// A model library's export folder in, an ONNX folder out. transformers'
// exporters (DynamoExporter().export_for_generation(...).save_pretrained(dir))
// write one .pt2 per component (prefill.pt2, decode.pt2) and a manifest,
// export.json, naming each component's file and the pytree specs of its
// inputs and outputs. ExportFolder converts every component with Export() and
// writes what transformers' own OnnxExporter writes, so its loader
// (ExportedModel.from_pretrained) takes the result:
//
//   <component>.onnx       I/O named from the specs as transformers names them
//                          (input_ids, position_ids, logits,
//                          past_key_values.layers.N.keys; a name both taken
//                          and returned gets "input." / "output.")
//   <component>.onnx.data  that component's weights; a weight an earlier
//                          component already wrote is referenced in that one's
//                          file, not written again (equal bytes, whatever its name)
//   export.json            the manifest, "export_format": "onnx"
//
// Front ends supply the folder's files (FolderInput) and where the output goes
// (FolderSinks); nothing is opened for writing until every component converted.
//
//   PT2ONNX_ASSIGN_OR_RETURN(FolderManifest manifest, ParseFolderManifest(json));
//   FolderExportResult result = ExportFolder(manifest, input, options, sinks, progress);
//   if (!result.status.ok()) return result.exit_code;
#ifndef PT2ONNX_EXPORT_MODEL_FOLDER_H_
#define PT2ONNX_EXPORT_MODEL_FOLDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/io/byte_sink.h"
#include "core/io/input_file.h"
#include "export/export.h"

namespace pt2onnx {

// The manifest's file name in an export folder.
inline constexpr char kFolderManifestFile[] = "export.json";

struct FolderComponent {
  std::string name;  // "prefill"
  std::string file;  // as the manifest names it: "prefill.pt2"
  // transformers' ONNX names of the flat inputs and outputs, in program order.
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
};

struct FolderManifest {
  int64_t schema_version = 1;
  std::string export_format;  // "dynamo" for .pt2 components
  std::vector<FolderComponent> components;  // in the manifest's order
  std::string text;  // the manifest as read (rewritten for the output)
};

// InvalidArgument naming what is wrong: not JSON, a missing field, an
// unknown export_format (only "dynamo" folders hold .pt2 files) or a schema
// version newer than this build reads (1), a component file outside the
// folder, a spec that is not a pytree spec.
absl::StatusOr<FolderManifest> ParseFolderManifest(absl::string_view json);

// The folder's files, by the name the manifest gives.
class FolderInput {
 public:
  virtual ~FolderInput() = default;
  // NotFound when the folder has no such file (other errors: I/O).
  virtual absl::StatusOr<std::shared_ptr<const InputFile>> Open(const std::string& file) = 0;
};

// Where the output folder's files go. Open is called once, with every file
// name, after all components converted; Commit only after every byte was
// written (a front end that writes temporaries renames them then).
class FolderSinks {
 public:
  virtual ~FolderSinks() = default;
  virtual absl::Status Open(const std::vector<std::string>& files) = 0;
  virtual ByteSink& File(const std::string& name) = 0;
  virtual absl::Status Commit() = 0;
};

struct FolderComponentResult {
  std::string name;
  std::string file;       // the component's .pt2, as the manifest names it
  std::string onnx_file;  // "prefill.onnx"
  std::string data_file;  // "prefill.onnx.data"
  onnx_writer::WriteSummary written;
  std::optional<ConversionSummary> summary;
  // Its .pt2 and what its export gave (the program read, the converted
  // model): what --verify checks after the folder is written.
  std::shared_ptr<const InputFile> input;
  ExportResult exported;
};

struct FolderExportResult {
  absl::Status status;  // messages name the component file at fault
  int exit_code = 0;    // export/exit_codes.h
  std::string failed_file;  // the component (or manifest) file at fault
  std::vector<FolderComponentResult> components;
  uint64_t shared_bytes = 0;    // weight bytes referenced instead of written again
  int64_t shared_tensors = 0;
};

// `options` applies to every component (opset, optimization, checks);
// its names, dim names, output name and external-data choice are the
// folder's own. Progress lines name the component.
FolderExportResult ExportFolder(const FolderManifest& manifest, FolderInput& input, const ExportOptions& options,
                                FolderSinks& sinks, ExportProgress& progress);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_MODEL_FOLDER_H_
