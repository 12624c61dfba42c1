// File: native/inspect_command.h
// -----------------------------------------------------------------------------
// `pt2onnx MODEL.pt2 --inspect [--json]`: describe the program on stdout
// (export/inspect.h) without converting it, the operators of --translations
// libraries counted as supported (as the JS inspect() does). Exits 0 even
// when operators are unsupported; unreadable or invalid files, and libraries
// that do not load, fail as a conversion would.
#ifndef PT2ONNX_NATIVE_INSPECT_COMMAND_H_
#define PT2ONNX_NATIVE_INSPECT_COMMAND_H_

#include <string>

#include "native/cli_flags.h"

namespace pt2onnx::native {

// `input_path` is flags.input resolved against the user's directory.
int RunInspect(const CliFlags& flags, const std::string& input_path);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_INSPECT_COMMAND_H_
