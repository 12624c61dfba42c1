// File: native/folder_command.h
// -----------------------------------------------------------------------------
// The CLI's two commands over export folders (export/model_folder.h):
//   pt2onnx DIR -o OUTDIR          a transformers.exporters folder (export.json
//                                  + one .pt2 per component) to an ONNX folder
//   pt2onnx verify-generation OUTDIR --tokens N [--prompt IDS] [--expect IDS]
//                                  greedy generation through the executor
// They read and write files and print; the work is export/'s. The output
// folder appears whole or not at all: every file goes to a temporary beside
// its destination and is renamed once all are written, and a folder this
// command created is removed again when the conversion fails.
#ifndef PT2ONNX_NATIVE_FOLDER_COMMAND_H_
#define PT2ONNX_NATIVE_FOLDER_COMMAND_H_

#include <functional>
#include <string>

#include "export/converter.h"
#include "native/cli_flags.h"

namespace pt2onnx::native {

// Whether `path` is a folder (a conversion's input is then an export folder).
bool IsFolder(const std::string& path);

// The exit code (export/exit_codes.h).
// `on_converted` sees each component's conversion before it is checked and
// written (main.cc passes the --verify test seam, native/test_hooks.h).
int RunFolder(const CliFlags& flags, const std::function<void(Conversion&)>& on_converted);
int RunVerifyGeneration(const CliFlags& flags);
// `pt2onnx DIR --inspect`: the components, their files and ONNX I/O names.
int RunFolderInspect(const CliFlags& flags);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_FOLDER_COMMAND_H_
