// File: core/pt2/weights.h
// -----------------------------------------------------------------------------
// The weight table the translator reads: FQN → (dtype, strided view of a
// storage span). Entries come from PT2 payload configs (raw storage records,
// torch ≥ 2.9, docs/pt2-format.md 1.3/1.4) or from torch.save state dicts
// (torch_save.h). Bytes are never read here: a Weight refers to its storage
// by file slice, and only a non-contiguous view or an all-zero record needs
// Materialize().
//
//   PT2ONNX_ASSIGN_OR_RETURN(Weight w, WeightFromPayload(entry, record));
//   PT2ONNX_RETURN_IF_ERROR(table.Add(std::move(w)));
//   if (auto slice = table.Find("fc.weight")->ContiguousSlice()) ...
//
// Lifetimes: each Weight shares ownership of the InputFile it points into.
#ifndef PT2ONNX_CORE_PT2_WEIGHTS_H_
#define PT2ONNX_CORE_PT2_WEIGHTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/bytes.h"
#include "core/dtype.h"
#include "core/io/input_file.h"
#include "core/pt2/torch_save.h"

namespace pt2onnx::pt2 {

struct Weight {
  std::string name;  // FQN
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;  // elements
  // The full storage. Empty with numel() > 0 means an all-zero tensor
  // (torch writes a 0-byte record for those, see WeightFromPayload).
  FileSlice storage;
  bool is_param = false;

  int64_t numel() const;
  // Row-major contiguous: strides match sizes, ignoring size-1 dimensions
  // (their stride never matters). Empty tensors are contiguous.
  bool IsContiguous() const;
  // Where the tensor's bytes lie in the file, when they are contiguous and
  // backed by a storage; nullopt otherwise (strided view or all-zero record).
  std::optional<FileSlice> ContiguousSlice() const;
  // A row-major copy with as_strided semantics, read from the file; zeros
  // for an empty storage. InvalidArgument/OutOfRange if the view does not
  // fit the storage (a Weight built by hand; the factories below check).
  absl::StatusOr<std::string> Materialize() const;
};

// CheckView validates a strided view of a storage of `storage_numel`
// elements: equal ranks, no negative size/stride/offset (InvalidArgument),
// and every element inside the storage (OutOfRange). A view with no
// elements needs no storage. Arithmetic cannot overflow.
absl::Status CheckView(absl::Span<const int64_t> sizes,
                       absl::Span<const int64_t> strides,
                       int64_t storage_offset, int64_t storage_numel);

// WeightTable: name → Weight, sorted by name (deterministic output order).
class WeightTable {
 public:
  // AlreadyExists if a weight with that name is present.
  absl::Status Add(Weight weight);
  const Weight* Find(absl::string_view name) const;
  const std::map<std::string, Weight>& all() const { return weights_; }

 private:
  std::map<std::string, Weight> weights_;
};

// One PayloadMeta entry of data/weights/<model>_weights_config.json or
// data/constants/<model>_constants_config.json, decoded by the JSON layer.
struct PayloadEntry {
  std::string fqn;
  std::string path_name;  // "weight_0", "tensor_3"
  bool is_param = false;
  bool use_pickle = false;
  DataType dtype = DataType::kUndefined;  // tensor_meta
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;
};

// WeightFromPayload builds the weight for `entry` from its record bytes
// (data/weights/<path_name> or data/constants/<path_name>), mirroring
// torch's _load_state_dict: raw records are the complete storage,
// numel = size / element size, viewed as_strided(sizes, strides, offset);
// a 0-byte record means zeros(sizes). A use_pickle record is a nested
// torch.save whose top object is the tensor (or a dict holding it under
// the FQN); its dtype and sizes must match tensor_meta. Errors name the FQN.
absl::StatusOr<Weight> WeightFromPayload(const PayloadEntry& entry,
                                         const FileSlice& record);

// WeightFromStored converts a torch.save tensor (legacy state dicts).
Weight WeightFromStored(std::string name, const StoredTensor& tensor);

}  // namespace pt2onnx::pt2

#endif  // PT2ONNX_CORE_PT2_WEIGHTS_H_
