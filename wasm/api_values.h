// File: wasm/api_values.h
// -----------------------------------------------------------------------------
// What the embind API functions (convert_api.cc, weights_api.cc) share: the
// options they read the same way, the error object js/pt2onnx.mjs turns into
// a ConversionError, and the output as Blob parts.
#ifndef PT2ONNX_WASM_API_VALUES_H_
#define PT2ONNX_WASM_API_VALUES_H_

#include <memory>
#include <string>
#include <vector>

#include <emscripten/val.h>

#include "absl/status/status.h"
#include "export/converter.h"
#include "export/export.h"
#include "export/translations.h"
#include "wasm/parts_sink.h"

namespace pt2onnx::wasm {

// Whether `object[key]` is set (neither undefined nor null).
bool Has(const emscripten::val& object, const char* key);

// The JS-side options, already type-checked by js/pt2onnx.mjs: Export()'s,
// and the translation libraries they point at (heap-held: `exported` points
// at them and ApiOptions moves).
struct ApiOptions {
  ExportOptions exported;
  std::unique_ptr<Translations> translations;
};

// An export's report for JavaScript: its lines kept, each stage passed to
// `callback(stage, fraction)` (undefined: none).
class JsProgress : public ExportProgress {
 public:
  explicit JsProgress(emscripten::val callback) : callback_(std::move(callback)) {}
  void Line(absl::string_view line) override { lines_.emplace_back(line); }
  void Stage(absl::string_view stage, double fraction) override {
    if (!callback_.isUndefined()) callback_(std::string(stage), fraction);
  }
  std::vector<std::string>& lines() { return lines_; }

 private:
  emscripten::val callback_;
  std::vector<std::string> lines_;
};

// The ConvertOptions of pt2onnx.d.ts (ReadConvertOptions, externalData,
// includeWeights, weightsAsInputs, outputName, inputName) and the
// translations (a Uint8Array per library, overrideBuiltins,
// translationsAsFunctions), loaded by export/translations.h as the CLI's.
// InvalidArgument for a library that does not load (exit 2).
absl::StatusOr<ApiOptions> ReadExportOptions(const emscripten::val& js);

// opset, inputNames, outputNames, dimNames, modelName and optimize, already
// type-checked by js/pt2onnx.mjs, into `options`.
void ReadConvertOptions(const emscripten::val& js, ConvertOptions& options);

// externalData: "always", "never", else (also when absent) "auto".
onnx_writer::WriteOptions::ExternalData ReadExternalData(const emscripten::val& js);

// { ok: false, exitCode, code, message, unsupportedOps }.
emscripten::val ErrorValue(int exit_code, const absl::Status& status);

// One output (the model or its data) as Blob parts for JavaScript: a
// PartsSink whose full chunks become Blobs as they fill (the last one stays
// bytes, so a small model's result builds no Blob until it is read).
class JsParts {
 public:
  explicit JsParts(const InputFile* input);
  JsParts(const JsParts&) = delete;
  JsParts& operator=(const JsParts&) = delete;
  PartsSink& sink() { return sink_; }
  const PartsSink& sink() const { return sink_; }
  // { chunks: (Blob | Uint8Array)[], parts: Float64Array }: the written
  // bytes, copied out of wasm memory (which the next call may reuse): full
  // chunks as Blobs, the last as a Uint8Array; and per part the
  // triple (-1 for a slice of the input else its chunk's index, offset,
  // length). js/pt2onnx.mjs turns them into Blob parts.
  emscripten::val Value();

 private:
  PartsSink sink_;
  emscripten::val chunks_;
};

// Export's output as Blob parts: bytes, and slices of `input` for weights
// used as they are.
class PartsSinks : public ExportSinks {
 public:
  explicit PartsSinks(const InputFile* input) : model_(input), data_(input) {}
  absl::Status Open(const OutputPlan&, const ConversionSummary&) override { return absl::OkStatus(); }
  ByteSink& model() override { return model_.sink(); }
  ByteSink& data() override { return data_.sink(); }
  JsParts& model_parts() { return model_; }
  JsParts& data_parts() { return data_; }

 private:
  JsParts model_;
  JsParts data_;
};

}  // namespace pt2onnx::wasm

#endif  // PT2ONNX_WASM_API_VALUES_H_
