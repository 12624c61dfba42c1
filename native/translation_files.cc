#include "native/translation_files.h"

#include <string>
#include <vector>

#include "export/exit_codes.h"
#include "native/mapped_file.h"
#include "native/user_path.h"

namespace pt2onnx::native {

absl::StatusOr<std::unique_ptr<Translations>> LoadTranslationFiles(const CliFlags& flags, int& exit_code) {
  if (flags.translations.empty()) return std::unique_ptr<Translations>();
  std::vector<MappedFile> files;  // alive while the libraries load
  std::vector<TranslationLibrary> libraries;
  for (const std::string& path : flags.translations) {
    absl::StatusOr<MappedFile> file = MappedFile::Open(ResolvePath(path));
    if (!file.ok()) {
      exit_code = kExitIo;
      return file.status();
    }
    files.push_back(*std::move(file));
    libraries.push_back({path, files.back().bytes()});
  }
  absl::StatusOr<std::unique_ptr<Translations>> loaded = Translations::Load(libraries, flags.override_builtins);
  if (!loaded.ok()) exit_code = kExitUsage;
  return loaded;
}

}  // namespace pt2onnx::native
