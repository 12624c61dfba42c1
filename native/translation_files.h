// File: native/translation_files.h
// -----------------------------------------------------------------------------
// --translations FILE (repeatable) for every CLI mode that converts or
// inspects: the files are read here, their libraries loaded by
// export/translations.h exactly as the JS options.translations are.
#ifndef PT2ONNX_NATIVE_TRANSLATION_FILES_H_
#define PT2ONNX_NATIVE_TRANSLATION_FILES_H_

#include <memory>

#include "absl/status/statusor.h"
#include "export/translations.h"
#include "native/cli_flags.h"

namespace pt2onnx::native {

// The translations of flags.translations (with flags.override_builtins);
// null without any. On failure `exit_code` is 3 (a file cannot be read) or
// 2 (a file is not a library that loads: the message names the file).
absl::StatusOr<std::unique_ptr<Translations>> LoadTranslationFiles(const CliFlags& flags, int& exit_code);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_TRANSLATION_FILES_H_
