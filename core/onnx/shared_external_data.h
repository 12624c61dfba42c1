// File: core/onnx/shared_external_data.h
// -----------------------------------------------------------------------------
// SharedExternalData: the external data of several models written together
// (the components of one export, e.g. a language model's prefill and decode
// steps, which carry the same weights). WriteModel, given one through
// WriteOptions::shared_data, points a tensor whose bytes an earlier model
// already wrote at them (in that model's data file) instead of writing them
// again; only the others go to this model's data file. Sharing is found by
// content, whatever the tensors are called: dtype, dims and a hash pick a
// candidate, then the bytes are compared in full.
//
//   SharedExternalData shared;
//   options.shared_data = &shared;
//   options.external_data_location = "prefill.onnx.data";
//   WriteModel(prefill, options, prefill_sink, &prefill_data);
//   options.external_data_location = "decode.onnx.data";
//   WriteModel(decode, options, decode_sink, &decode_data);  // shared weights: in prefill.onnx.data
//   shared.reused_bytes();                                    // what decode did not write
#ifndef PT2ONNX_CORE_ONNX_SHARED_EXTERNAL_DATA_H_
#define PT2ONNX_CORE_ONNX_SHARED_EXTERNAL_DATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/ir/tensor.h"

namespace pt2onnx::onnx_writer {

class SharedExternalData {
 public:
  SharedExternalData() = default;
  SharedExternalData(const SharedExternalData&) = delete;
  SharedExternalData& operator=(const SharedExternalData&) = delete;

  struct Place {
    std::string location;  // the data file, as the models name it
    uint64_t offset = 0;
  };
  struct Match {
    std::string key;             // dtype, dims, content hash
    std::optional<Place> place;  // of an equal tensor already written, if any
  };
  // Where a tensor equal to `tensor` (dtype, dims, bytes) was written.
  // Errors are read errors of a tensor's bytes.
  absl::StatusOr<Match> Find(const ir::Tensor& tensor) const;
  // Records that `tensor` (looked up as `match`) is written at `place`. A
  // copy of the tensor is kept (it shares the bytes: a view's must stay
  // valid as long as this object is used).
  void Add(const Match& match, const ir::Tensor& tensor, Place place);
  // Tensor bytes not written again because an equal tensor was there.
  uint64_t reused_bytes() const { return reused_bytes_; }
  int64_t reused_tensors() const { return reused_tensors_; }
  void CountReuse(uint64_t bytes) {
    reused_bytes_ += bytes;
    ++reused_tensors_;
  }

 private:
  struct Entry {
    ir::Tensor tensor;
    Place place;
  };
  absl::flat_hash_map<std::string, std::vector<Entry>> by_key_;  // key: dtype, dims, content hash
  uint64_t reused_bytes_ = 0;
  int64_t reused_tensors_ = 0;
};

}  // namespace pt2onnx::onnx_writer

#endif  // PT2ONNX_CORE_ONNX_SHARED_EXTERNAL_DATA_H_
