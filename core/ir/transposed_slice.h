// File: core/ir/transposed_slice.h
// -----------------------------------------------------------------------------
// A weight of the input file stored transposed, described instead of
// computed: "these bytes of the file, under this permutation". Constant
// folding turns Transpose(weight) into one (a Linear layer's W^T), and the
// writers compute it piece by piece as they write, through buffers of a few
// MiB, so a multi-GB model's transposed weights are never all in memory.
//
//   PT2ONNX_ASSIGN_OR_RETURN(TransposedSlice t, TransposedSlice::Create(dtype, dims, perm, slice));
//   PT2ONNX_RETURN_IF_ERROR(WriteTransposed(t, sink));
#ifndef PT2ONNX_CORE_IR_TRANSPOSED_SLICE_H_
#define PT2ONNX_CORE_IR_TRANSPOSED_SLICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/dtype.h"
#include "core/io/byte_sink.h"
#include "core/io/input_file.h"

namespace pt2onnx::ir {

struct TransposedSlice {
  // InvalidArgument unless `perm` permutes the axes of `source_dims`, the
  // dims are non-negative, `dtype` has a fixed element size, numel times it
  // is the slice's length (overflow checked) and the slice lies inside its
  // file; Unimplemented for permutations that are not one swap of two
  // blocks of axes after merging (the caller then computes it eagerly).
  static absl::StatusOr<TransposedSlice> Create(DataType dtype, std::vector<int64_t> source_dims,
                                                std::vector<int64_t> perm, FileSlice source);

  // The dims after the permutation.
  std::vector<int64_t> Dims() const;

  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> source_dims;
  std::vector<int64_t> perm;
  FileSlice source;
  // The merged form: `batch` blocks of [rows, cols] become [cols, rows].
  int64_t batch = 1, rows = 1, cols = 1, element_size = 1;
};

// Writes the permuted bytes to `sink`: reads the source in pieces of at
// most `buffer_bytes` (one source row, or an output row's part, per piece
// at least) and writes each output piece when full. Checks the slice against
// its file again (OutOfRange), so a hand-built TransposedSlice is refused too.
absl::Status WriteTransposed(const TransposedSlice& transposed, ByteSink& sink,
                             uint64_t buffer_bytes = uint64_t{8} << 20);

// All the permuted bytes in memory (for passes and runtimes that read values).
absl::StatusOr<std::string> ReadTransposed(const TransposedSlice& transposed);

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_TRANSPOSED_SLICE_H_
