// File: core/pt2/torch_save.h
// -----------------------------------------------------------------------------
// Reading torch.save files (docs/pt2-format.md section 4): a ZIP whose root
// folder has any name ("archive/" when saved to a buffer, as inside every
// .pt2), holding data.pkl (a protocol-2 pickle), one data/<key> record per
// storage, and byteorder. Inside .pt2 archives these are the torch 2.6/2.7
// serialized_state_dict.pt / serialized_constants.pt, torch 2.8's
// data/weights/model.pt, use_pickle payloads and data/sample_inputs/*.pt.
//
//   PT2ONNX_ASSIGN_OR_RETURN(TorchSaveDict sd, ReadTorchSaveDict(record));
//   for (const auto& [fqn, t] : sd.tensors) ... t.storage ...
//
// Storages are located, not read: StoredTensor::storage is a slice of the
// shared InputFile, so a nested torch.save inside a .pt2 costs no copies.
#ifndef PT2ONNX_CORE_PT2_TORCH_SAVE_H_
#define PT2ONNX_CORE_PT2_TORCH_SAVE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/archive/zip_reader.h"
#include "core/bytes.h"
#include "core/dtype.h"
#include "core/io/input_file.h"
#include "core/pt2/pickle_reader.h"

namespace pt2onnx::pt2 {

// A tensor whose storage bytes have been located: a strided view (sizes,
// strides, storage_offset in elements of dtype) of `storage`.
struct StoredTensor {
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;  // in elements
  FileSlice storage;           // the whole storage (its zip record)
  std::string storage_key;     // shared storages share a key
  bool is_param = false;
  bool requires_grad = false;
};

// An opened torch.save file: its zip, root folder and decoded pickle.
// Checks byteorder on Open (big-endian files are Unimplemented).
class TorchSaveFile {
 public:
  // Opens the torch.save zip held in `range` of `file` (a record nested in a
  // .pt2), or all of `bytes` (which must outlive the result).
  static absl::StatusOr<TorchSaveFile> Open(std::shared_ptr<const InputFile> file,
                                            FileRange range);
  static absl::StatusOr<TorchSaveFile> Open(ByteSpan bytes);

  const archive::ZipArchive& zip() const { return zip_; }
  const PickleDocument& pickle() const { return pickle_; }
  // Entry-name prefix of the records: "archive/" or "" (no root folder).
  const std::string& prefix() const { return prefix_; }

  // Resolve finds `tensor`'s storage record and checks that the view stays
  // inside it. `what` (e.g. the FQN) prefixes error messages. NotFound for a
  // missing record, OutOfRange for a short record or an out-of-bounds view.
  absl::StatusOr<StoredTensor> Resolve(const PickleTensor& tensor,
                                       absl::string_view what) const;

 private:
  explicit TorchSaveFile(archive::ZipArchive zip) : zip_(std::move(zip)) {}

  archive::ZipArchive zip_;
  std::string prefix_;
  PickleDocument pickle_;
};

struct TorchSaveDict {
  std::map<std::string, StoredTensor> tensors;  // FQN → tensor
  std::vector<std::string> skipped;  // keys whose values are not tensors
};

// ReadTorchSaveDict reads a file whose top object is a dict or OrderedDict
// of string keys. Tensor and Parameter values go to `tensors`; other values
// that the allow-listed unpickler can decode (numbers, containers, None) are
// skipped and listed. InvalidArgument if the top object is not a dict.
absl::StatusOr<TorchSaveDict> ReadTorchSaveDict(std::shared_ptr<const InputFile> file,
                                                FileRange range);
absl::StatusOr<TorchSaveDict> ReadTorchSaveDict(ByteSpan bytes);

// ReadTorchSaveTensor reads a file whose top object is a single tensor (what
// torch.export writes for a use_pickle payload). InvalidArgument otherwise.
absl::StatusOr<StoredTensor> ReadTorchSaveTensor(ByteSpan bytes);

}  // namespace pt2onnx::pt2

#endif  // PT2ONNX_CORE_PT2_TORCH_SAVE_H_
