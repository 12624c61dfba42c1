// In-process native timing of what the WebAssembly API does per call: read a
// .pt2, convert it and write the ONNX bytes to memory (no disk, no process
// start-up), so tools/bench/wasm_vs_native.mjs compares like with like.
//
//   convert_bench RUNS file.pt2 [file.pt2 ...]
// prints one line per file: "<path> <median seconds>".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "export/converter.h"
#include "export/output_plan.h"
#include "core/onnx/checker.h"
#include "core/onnx/model_writer.h"
#include "native/mapped_file.h"
#include "ops/all_ops.h"
#include "translate/registry.h"

namespace {

// One conversion, as wasm/convert_api.cc does it (the registry built once,
// the same checks);
// false on failure.
bool ConvertOnce(pt2onnx::ByteSpan bytes) {
  using namespace pt2onnx;
  static const translate::OpRegistry* const registry = new translate::OpRegistry(ops::CreateDefaultRegistry());
  ConvertOptions options;
  options.registry = registry;
  absl::StatusOr<Conversion> conversion = ConvertPt2(bytes, options);
  if (!conversion.ok()) return false;
  // The checks the CLI and the wasm API always run (export/export.h checks).
  if (!onnx_writer::CheckArity(conversion->model).ok()) return false;
  if (!onnx_writer::CheckInferredShapes(conversion->model).ok()) return false;
  absl::StatusOr<OutputPlan> plan = PlanOutput(
      conversion->summary, onnx_writer::WriteOptions::ExternalData::kAuto, "model.onnx");
  if (!plan.ok()) return false;
  onnx_writer::StringSink model, data;
  return onnx_writer::WriteModel(conversion->model, plan->write, model, &data).ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: convert_bench RUNS file.pt2 [file.pt2 ...]\n");
    return 2;
  }
  const int runs = std::atoi(argv[1]);
  for (int f = 2; f < argc; ++f) {
    absl::StatusOr<pt2onnx::native::MappedFile> file = pt2onnx::native::MappedFile::Open(argv[f]);
    if (!file.ok() || !ConvertOnce(file->bytes())) {  // also the warm-up run
      std::fprintf(stderr, "convert_bench: cannot convert %s\n", argv[f]);
      return 1;
    }
    std::vector<double> seconds;
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      ConvertOnce(file->bytes());
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    std::printf("%s %.6f\n", argv[f], seconds[seconds.size() / 2]);
  }
  return 0;
}
