// Structure-aware mutation of a .pt2 archive for the pipeline fuzzer: the
// program JSON (and the weights/constants configs) are parsed, one value is
// changed the way an attacker would (a dim or size set to an extreme, an
// argument retyped, renamed, dropped or repeated, a tensor reference pointed
// at another tensor, the operator swapped for another registered one, a
// tensor's dtype or sizes changed) and the archive is written again with
// correct CRC-32s, so the mutation reaches the translators instead of
// stopping at the CRC check as byte-level mutations of the zip do.
#ifndef PT2ONNX_TESTS_FUZZ_PROGRAM_MUTATOR_H_
#define PT2ONNX_TESTS_FUZZ_PROGRAM_MUTATOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/bytes.h"

namespace pt2onnx::fuzz {

// Byte-level mutation of `data` in place (size, capacity) -> new size: libFuzzer's
// LLVMFuzzerMutate when fuzzing; used on the JSON text for one mutation kind.
using ByteMutator = std::function<size_t(uint8_t* data, size_t size, size_t capacity)>;

// One entry of a stored (uncompressed) zip.
struct ZipFileEntry {
  std::string name;
  std::vector<uint8_t> data;
};

// Entries of a zip in central-directory order (CRCs checked), or false.
bool ReadZipEntries(ByteSpan archive, std::vector<ZipFileEntry>& entries);
// A zip of `entries`, stored, with correct CRC-32s (Python zipfile's layout).
std::vector<uint8_t> WriteZip(const std::vector<ZipFileEntry>& entries);

// "aten::add.Tensor" -> "torch.ops.aten.add.Tensor", "_operator::add" -> "_operator.add".
std::string KeyToTarget(const std::string& key);

// MutateArchive returns `archive` with one structural mutation (see above),
// or an empty vector when `archive` is not a readable .pt2 (the caller then
// mutates bytes). `targets` are node targets to swap in; `bytes` may be empty.
std::vector<uint8_t> MutateArchive(ByteSpan archive, uint32_t seed,
                                   const std::vector<std::string>& targets,
                                   const ByteMutator& bytes);

}  // namespace pt2onnx::fuzz

#endif  // PT2ONNX_TESTS_FUZZ_PROGRAM_MUTATOR_H_
