// File: export/exit_codes.h
// -----------------------------------------------------------------------------
// One error classification for every front end: the CLI exits with these
// codes and the WebAssembly API throws errors carrying the same code and its
// name, so scripts and pages can tell a bad file from an unsupported model.
#ifndef PT2ONNX_EXPORT_EXIT_CODES_H_
#define PT2ONNX_EXPORT_EXIT_CODES_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pt2onnx {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitIo = 3;
inline constexpr int kExitInvalidInput = 4;
inline constexpr int kExitUnsupported = 5;

// The exit code for a failed conversion: Unimplemented (valid but not
// convertible yet) → 5, Internal → 1, anything else about the input → 4.
// Reading and writing files is the front end's business (kExitIo).
inline int ExitCodeForConversion(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnimplemented: return kExitUnsupported;
    case absl::StatusCode::kInternal: return kExitInternal;
    default: return kExitInvalidInput;
  }
}

// "ok", "internal", "usage", "io", "invalid_input", "unsupported".
inline absl::string_view ExitCodeName(int code) {
  switch (code) {
    case kExitOk: return "ok";
    case kExitUsage: return "usage";
    case kExitIo: return "io";
    case kExitInvalidInput: return "invalid_input";
    case kExitUnsupported: return "unsupported";
    default: return "internal";
  }
}

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_EXIT_CODES_H_
