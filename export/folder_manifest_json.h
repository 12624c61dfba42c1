// File: export/folder_manifest_json.h
// -----------------------------------------------------------------------------
// The JSON side of export/model_folder.h: the fields of a transformers
// exporters manifest (export.json) as read, and the manifest written for the
// converted folder: the source's, with "export_format": "onnx", each
// component's file "<component>.onnx" and its export_config's format "onnx";
// every other field (architecture, kwargs, specs, packages) kept, plus a
// "converted_by" entry saying which pt2onnx wrote it from what.
#ifndef PT2ONNX_EXPORT_FOLDER_MANIFEST_JSON_H_
#define PT2ONNX_EXPORT_FOLDER_MANIFEST_JSON_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "export/model_folder.h"

namespace pt2onnx {

struct FolderManifestFields {
  struct Component {
    std::string name;
    std::string file;
    std::string in_spec;   // "" when the metadata has none
    std::string out_spec;
  };
  int64_t schema_version = 1;
  std::string export_format;
  std::vector<Component> components;
};

// InvalidArgument naming the missing or mistyped field.
absl::StatusOr<FolderManifestFields> ReadFolderManifestFields(absl::string_view json);

// The converted folder's export.json (see the file comment).
absl::StatusOr<std::string> RenderOnnxFolderManifest(const FolderManifest& manifest);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_FOLDER_MANIFEST_JSON_H_
