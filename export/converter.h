// File: export/converter.h
// -----------------------------------------------------------------------------
// The whole conversion, bytes in, IR model out: read the .pt2, translate the
// program, optimize. Writing is separate (core/onnx/model_writer.h) so each
// front end (CLI, wasm, an embedding library) picks its own sinks.
//
//   PT2ONNX_ASSIGN_OR_RETURN(Conversion c, ConvertPt2(file_bytes, options));
//   PT2ONNX_ASSIGN_OR_RETURN(auto summary, onnx_writer::WriteModel(c.model, ...));
#ifndef PT2ONNX_EXPORT_CONVERTER_H_
#define PT2ONNX_EXPORT_CONVERTER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/bytes.h"
#include "core/io/input_file.h"
#include "core/ir/graph.h"
#include "core/pt2/pt2_reader.h"
#include "core/pt2/schema.h"
#include "passes/pass_manager.h"
#include "passes/static_kv_cache.h"
#include "translate/registry.h"
#include "translate/translator.h"

namespace pt2onnx {

// The key/value cache form of decode-step programs (--kv-cache).
enum class KvCacheForm {
  kDynamic,         // as the program: caches grow by concatenation
  kStatic,          // fixed-size buffers written by TensorScatter (passes/static_kv_cache.h);
                    // a program without a growing cache is refused
  kStaticIfPresent  // static where the program has a cache (export folders)
};

struct ConvertOptions {
  translate::TranslateOptions translate;
  KvCacheForm kv_cache = KvCacheForm::kDynamic;
  bool optimize = true;
  // Which passes, folding limits, verification, the clock for statistics.
  passes::PipelineOptions passes;
  std::string model_name;  // program in a multi-model archive ("" = default)
  // Translations to use; null builds ops::CreateDefaultRegistry() for this
  // call. Front ends that convert many models (a hub, the wasm module) build
  // it once and pass it here; it must outlive the call.
  const translate::OpRegistry* registry = nullptr;
  // Check the CRC-32 of every stored entry, weights included (reads all of
  // them once). The CLI turns it on unless --no-crc; the browser build leaves
  // it off so weights stay unread. Program JSON and pickles are always checked.
  bool verify_weight_crc = false;
};

// Called at each stage ("read", "translate", "optimize") with the fraction of
// the stage done; lets long conversions report progress.
using ProgressFn = std::function<void(absl::string_view stage, double fraction)>;

// A symbolic dim of the graph's inputs/outputs, for the report.
struct SymbolicDimSummary {
  std::string symbol;     // as in the program: "s27", "2*s27"
  std::string onnx_name;  // its dim_param after --dim-name renames
  std::optional<pt2::RangeConstraint> range;
};

struct ConversionSummary {
  std::string layout;          // "PT2 archive" / "legacy zip (torch 2.6/2.7)"
  std::string torch_version;   // from the program, "" if absent
  int64_t schema_major = 0;
  int64_t schema_minor = 0;
  int64_t fx_nodes = 0;
  int64_t onnx_nodes = 0;
  int64_t onnx_nodes_before_optimize = 0;  // as translated
  int64_t parameters = 0;      // elements in initializers
  uint64_t initializer_bytes = 0;
  std::map<std::string, int64_t> op_histogram;  // ONNX op_type -> count
  // By first appearance in the user inputs, then the user outputs.
  std::vector<SymbolicDimSummary> symbolic_dims;
  // --kv-cache static: what became buffers (empty groups: the default form).
  passes::StaticKvCacheLayout kv_cache;
};

struct Conversion {
  ir::Model model;  // initializers share the input file (slices of it)
  ConversionSummary summary;
  std::vector<std::string> warnings;
  std::vector<passes::PassStats> pass_stats;  // empty without optimization
  // The program as read (its weights are slices of the input file): --verify
  // and the report use it, so the .pt2 is parsed once.
  std::shared_ptr<const pt2::LoadedProgram> program;
};

// The first stage of ConvertPt2 alone: the .pt2 read ("read" progress). A
// front end that reports on a failed translation (the report lists the
// program's unsupported operators) reads first, then converts.
absl::StatusOr<std::shared_ptr<const pt2::LoadedProgram>> ReadPt2(std::shared_ptr<const InputFile> file,
                                                                   const ConvertOptions& options,
                                                                   const ProgressFn& progress = nullptr);

// The other stages: translate and optimize what ReadPt2 read from a file of
// `file_size` bytes (the bound on bytes a translation may materialize).
absl::StatusOr<Conversion> ConvertProgram(std::shared_ptr<const pt2::LoadedProgram> loaded, uint64_t file_size,
                                          const ConvertOptions& options, const ProgressFn& progress = nullptr);

absl::StatusOr<Conversion> ConvertPt2(std::shared_ptr<const InputFile> file,
                                      const ConvertOptions& options,
                                      const ProgressFn& progress = nullptr);
// Same over bytes in memory, which must outlive the result.
absl::StatusOr<Conversion> ConvertPt2(ByteSpan file, const ConvertOptions& options,
                                      const ProgressFn& progress = nullptr);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_CONVERTER_H_
