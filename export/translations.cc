// File: export/translations.cc
#include "export/translations.h"

#include "core/onnx/model_reader.h"
#include "core/status_macros.h"
#include "core/status_util.h"
#include "ops/all_ops.h"

namespace pt2onnx {

const translate::OpRegistry& SharedDefaultRegistry() {
  static const translate::OpRegistry* const registry = new translate::OpRegistry(ops::CreateDefaultRegistry());
  return *registry;
}

absl::StatusOr<std::unique_ptr<Translations>> Translations::Load(absl::Span<const TranslationLibrary> libraries,
                                                                 bool override_builtins) {
  std::unique_ptr<Translations> loaded(new Translations());
  loaded->registry_ = ops::CreateDefaultRegistry();
  for (const TranslationLibrary& library : libraries) {
    absl::StatusOr<std::vector<ir::Function>> functions = onnx_reader::ReadFunctionLibrary(library.bytes);
    absl::Status added = functions.ok() ? translate::AddCustomTranslations(*functions, override_builtins,
                                                                     loaded->registry_, loaded->functions_)
                                        : functions.status();
    if (!added.ok()) return AnnotateStatus(added, library.name);
  }
  return loaded;
}

void Translations::ApplyTo(ConvertOptions& options, bool as_local_functions) const {
  options.registry = &registry_;
  options.translate.custom_functions = &functions_;
  options.translate.custom_functions_as_local = as_local_functions;
}

}  // namespace pt2onnx
