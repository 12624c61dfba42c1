// File: runtime/npz/npz.h
// -----------------------------------------------------------------------------
// NumPy .npy / .npz files as runtime tensors: the executor's inputs and
// outputs on the command line and in tests. Reads format versions 1-3,
// little-endian, C order, dtypes bool/int8-64/uint8-64/float16/32/64 (npz:
// STORED zips, as np.savez writes). Writes version 1 files in a STORED zip.
// bfloat16 has no NumPy dtype: it is refused (convert to float32 first).
#ifndef PT2ONNX_RUNTIME_NPZ_NPZ_H_
#define PT2ONNX_RUNTIME_NPZ_NPZ_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/bytes.h"
#include "runtime/plan/session.h"

namespace pt2onnx::runtime {

absl::StatusOr<Tensor> ReadNpy(ByteSpan bytes);
absl::StatusOr<std::string> WriteNpy(const Tensor& tensor);

// Arrays in archive order, named without the ".npy" suffix.
absl::StatusOr<std::vector<NamedTensor>> ReadNpz(ByteSpan bytes);
absl::StatusOr<std::string> WriteNpz(const std::vector<NamedTensor>& arrays);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_NPZ_NPZ_H_
