// File: export/translations.h
// -----------------------------------------------------------------------------
// The translations a conversion uses: the built-in table, alone or joined by
// user ONNX function libraries (CLI --translations FILE, JS
// options.translations). One loader for every front end, so a library is
// accepted or refused alike, with the same message, in the CLI and in the
// browser. The front end reads the files; this sees their bytes only.
//
//   std::vector<TranslationLibrary> libraries = {{"mylib.onnx", bytes}};
//   PT2ONNX_ASSIGN_OR_RETURN(std::unique_ptr<Translations> t,
//                            Translations::Load(libraries, /*override_builtins=*/false));
//   t->ApplyTo(options.convert, /*as_local_functions=*/false);   // t outlives the conversion
#ifndef PT2ONNX_EXPORT_TRANSLATIONS_H_
#define PT2ONNX_EXPORT_TRANSLATIONS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/bytes.h"
#include "export/converter.h"
#include "translate/custom_translations.h"
#include "translate/registry.h"

namespace pt2onnx {

// The built-in translations, built on first use and kept for the process's
// life: a page, a hub or a batch converts many models and the table never
// changes. Immutable, so sharing it is safe.
const translate::OpRegistry& SharedDefaultRegistry();

// One user library: `name` as the user gave it (a path, "translations[0]"),
// for messages; `bytes` must stay alive during Load only.
struct TranslationLibrary {
  std::string name;
  ByteSpan bytes;
};

// The built-in translations plus the functions of the libraries.
class Translations {
 public:
  // InvalidArgument (or AlreadyExists for a built-in key without
  // `override_builtins`) as "NAME: why" when a library is not an ONNX
  // function library or its functions do not fit (translate/custom_translations.h).
  static absl::StatusOr<std::unique_ptr<Translations>> Load(absl::Span<const TranslationLibrary> libraries,
                                                            bool override_builtins);

  // Points `options` at these translations; they must outlive every use of
  // `options`. `as_local_functions`: keep the library functions as
  // model-local ONNX functions instead of inlining them.
  void ApplyTo(ConvertOptions& options, bool as_local_functions) const;

  const translate::OpRegistry& registry() const { return registry_; }

 private:
  Translations() = default;
  translate::OpRegistry registry_;
  translate::CustomFunctionTable functions_;
};

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_TRANSLATIONS_H_
