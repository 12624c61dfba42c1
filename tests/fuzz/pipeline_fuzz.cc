// Fuzz target: the whole conversion of a mutated .pt2 (read, translate,
// optimize, verify, the CLI's structural checks with ONNX's shape inference,
// serialize), with every CRC checked as the CLI does.
// Seeded from tests/fixtures (small .pt2 files, see tests/fuzz/README.md).
// Its mutator is structure-aware (program_mutator.h): it edits the program
// JSON and re-zips with correct CRCs; one call in eight, or when the input is
// no readable .pt2, libFuzzer's byte mutations run on the whole archive.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "export/converter.h"
#include "core/onnx/checker.h"
#include "core/onnx/model_writer.h"
#include "ops/all_ops.h"
#include "tests/fuzz/program_mutator.h"
#include "translate/registry.h"

namespace {

class NullSink : public pt2onnx::onnx_writer::ByteSink {
 public:
  absl::Status Write(pt2onnx::ByteSpan) override { return absl::OkStatus(); }
};

const pt2onnx::translate::OpRegistry& Registry() {
  static const pt2onnx::translate::OpRegistry* const registry =
      new pt2onnx::translate::OpRegistry(pt2onnx::ops::CreateDefaultRegistry());
  return *registry;
}

}  // namespace

// libFuzzer's byte mutator; absent (null) in the replay build.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size) __attribute__((weak));

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  static const std::vector<std::string>* const targets = [] {
    auto* list = new std::vector<std::string>();
    for (const std::string& key : Registry().Keys()) list->push_back(pt2onnx::fuzz::KeyToTarget(key));
    return list;
  }();
  std::vector<uint8_t> mutated;
  if (seed % 8 != 0) {
    pt2onnx::fuzz::ByteMutator bytes;
    if (LLVMFuzzerMutate != nullptr) bytes = LLVMFuzzerMutate;
    mutated = pt2onnx::fuzz::MutateArchive(pt2onnx::ByteSpan(data, size), seed / 8, *targets, bytes);
  }
  if (mutated.empty() || mutated.size() > max_size) {
    return LLVMFuzzerMutate != nullptr ? LLVMFuzzerMutate(data, size, max_size) : size;
  }
  std::memcpy(data, mutated.data(), mutated.size());
  return mutated.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pt2onnx::ConvertOptions options;
  options.registry = &Registry();
  options.verify_weight_crc = true;
  absl::StatusOr<pt2onnx::Conversion> conversion =
      pt2onnx::ConvertPt2(pt2onnx::ByteSpan(data, size), options, nullptr);
  if (!conversion.ok()) return 0;
  // The checks the CLI and the browser run on every result before writing.
  if (!pt2onnx::onnx_writer::CheckArity(conversion->model).ok()) return 0;
  if (!pt2onnx::onnx_writer::CheckInferredShapes(conversion->model).ok()) return 0;
  NullSink model, weights;
  pt2onnx::onnx_writer::WriteOptions write;
  (void)pt2onnx::onnx_writer::WriteModel(conversion->model, write, model, &weights);
  return 0;
}
