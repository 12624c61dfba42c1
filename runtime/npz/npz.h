// File: runtime/npz/npz.h
// -----------------------------------------------------------------------------
// NumPy .npy / .npz files as runtime tensors: the executor's inputs and
// outputs on the command line and in tests. Reads format versions 1-3,
// little-endian, C order, dtypes bool/int8-64/uint8-64/float16/32/64 (npz:
// STORED zips, as np.savez writes). Writes version 1 files in a STORED zip.
// bfloat16, which NumPy lacks, is written as ml_dtypes' bfloat16 arrays are by
// numpy.save: descr '<V2', two raw little-endian bytes per value (np.load
// returns dtype |V2; `.view(ml_dtypes.bfloat16)` gives the numbers, and
// torch.from_numpy(a.view(np.int16)).view(torch.bfloat16) the tensor). Read
// back, '<V2' and '|V2' are bfloat16. float8 ('<V1' in numpy.save) is refused:
// one byte does not say which of the four float8 formats it holds.
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
