#include "native/inspect_command.h"

#include <cstdio>
#include <memory>

#include "core/io/input_file.h"
#include "export/exit_codes.h"
#include "export/inspect.h"
#include "native/mapped_file.h"
#include "native/translation_files.h"

namespace pt2onnx::native {

int RunInspect(const CliFlags& flags, const std::string& input_path) {
  auto fail = [](int code, const absl::Status& status) {
    std::fprintf(stderr, "pt2onnx: error: %s\n", std::string(status.message()).c_str());
    return code;
  };
  // Operators a library translates are supported, as in a conversion.
  int exit_code = kExitOk;
  absl::StatusOr<std::unique_ptr<Translations>> translations = LoadTranslationFiles(flags, exit_code);
  if (!translations.ok()) return fail(exit_code, translations.status());
  absl::StatusOr<MappedFile> file = MappedFile::Open(input_path);
  if (!file.ok()) return fail(kExitIo, file.status());
  InspectOptions options;
  options.opset = flags.opset;
  options.model_name = flags.model_name;
  if (*translations != nullptr) options.registry = &(*translations)->registry();
  absl::StatusOr<Inspection> inspection =
      InspectPt2(std::make_shared<MemoryFile>(file->bytes()), options);
  if (!inspection.ok()) return fail(ExitCodeForConversion(inspection.status()), inspection.status());
  const std::string out =
      flags.json ? InspectionJson(*inspection) : InspectionText(*inspection, flags.input);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? kExitOk : kExitIo;
}

}  // namespace pt2onnx::native
