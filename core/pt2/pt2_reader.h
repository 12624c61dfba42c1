// File: core/pt2/pt2_reader.h
// -----------------------------------------------------------------------------
// LoadPt2: the bytes of a .pt2 file -> the decoded program and its weights.
// Recognises both layouts torch.export.save has written:
//   * PT2 archive (torch >= 2.8): <root>/archive_format = "pt2",
//     <root>/models/<name>.json, weights as raw records described by
//     data/weights/<name>_weights_config.json (torch >= 2.9) or one pickled
//     data/weights/<name>.pt (torch 2.8); constants likewise.
//   * legacy zip (torch 2.6/2.7): serialized_exported_program.json +
//     serialized_state_dict.pt + serialized_constants.pt.
// Files from torch <= 2.5 (schema < 8) are refused with advice to re-export;
// plain torch.save files and AOTInductor packages are named as such.
//
//   PT2ONNX_ASSIGN_OR_RETURN(LoadedProgram loaded, LoadPt2(file_bytes));
#ifndef PT2ONNX_CORE_PT2_PT2_READER_H_
#define PT2ONNX_CORE_PT2_PT2_READER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/bytes.h"
#include "core/io/input_file.h"
#include "core/pt2/schema.h"
#include "core/pt2/weights.h"

namespace pt2onnx::pt2 {

enum class Layout { kPt2Archive, kLegacyZip };

struct LoadedProgram {
  ExportedProgram program;
  WeightTable weights;  // slices of the input file
  Layout layout = Layout::kPt2Archive;
  std::string root;          // archive root folder ("model/"), "" for legacy
  std::string model_name;    // "model"
  std::vector<std::string> warnings;
};

// `model_name` picks one program of a multi-model archive ("" = the only one,
// or "model"). Only the directory, the program JSON, the configs and pickles
// are read (their CRC-32 checked); weights are located (file slices that
// share ownership of `file`). With `verify_all_crc` every stored entry's
// CRC-32 is checked too, which reads all the weights once (DataLoss names
// the corrupt entry).
absl::StatusOr<LoadedProgram> LoadPt2(std::shared_ptr<const InputFile> file,
                                      absl::string_view model_name = "",
                                      bool verify_all_crc = false);
// Same over bytes in memory, which must outlive the result.
absl::StatusOr<LoadedProgram> LoadPt2(ByteSpan file, absl::string_view model_name = "",
                                      bool verify_all_crc = false);

// Names of the programs in a PT2 archive (models/<name>.json).
absl::StatusOr<std::vector<std::string>> ListPt2Models(ByteSpan file);

}  // namespace pt2onnx::pt2

#endif  // PT2ONNX_CORE_PT2_PT2_READER_H_
