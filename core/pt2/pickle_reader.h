// File: core/pt2/pickle_reader.h
// -----------------------------------------------------------------------------
// An allow-listed unpickler for the data.pkl record of torch.save files
// (docs/pt2-format.md section 4). It never runs code: the few callables torch
// pickles (_rebuild_tensor_v2, OrderedDict, ...) are interpreted here and
// become typed values; any other GLOBAL, and any opcode outside the set torch
// writes at protocol 2, is rejected with InvalidArgument.
//
// The result is a PickleDocument: every value lives in one arena and refers to
// its children by PickleId. Sharing through the memo (BINGET) is therefore an
// index copy, and self-referencing containers, which a hostile pickle can
// build, cannot leak or recurse: nothing here walks the graph recursively
// except DebugString, which has a depth cap.
//
//   PT2ONNX_ASSIGN_OR_RETURN(PickleDocument doc, ReadPickle(data_pkl));
//   const PickleValue& top = doc.at(doc.root());
//   if (top.kind == PickleKind::kDict) ... doc.at(top.items[1]).tensor ...
//
// Lifetimes: the document owns copies of all strings; it keeps no reference
// to the input bytes. Tensors only name their storage record (key); reading
// the record is torch_save.h's job.
#ifndef PT2ONNX_CORE_PT2_PICKLE_READER_H_
#define PT2ONNX_CORE_PT2_PICKLE_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/bytes.h"
#include "core/dtype.h"

namespace pt2onnx::pt2 {

enum class PickleKind : uint8_t {
  kNone,
  kBool,
  kInt,
  kFloat,
  kString,   // str (UTF-8 as pickled)
  kBytes,    // bytes (via _codecs.encode / bytearray under protocol 2)
  kTuple,    // also torch.Size
  kList,
  kDict,     // dict and collections.OrderedDict
  kSet,
  kGlobal,   // an allow-listed GLOBAL not (yet) called, e.g. torch.float32
  kStorage,  // a persistent-id storage reference
  kTensor,   // the result of a tensor / parameter rebuild
  kObject,   // an allow-listed call kept opaque: torch.device, complex, layout
};

absl::string_view PickleKindName(PickleKind kind);

using PickleId = uint32_t;

// A storage named by a persistent id ("storage", <class>, key, location,
// numel). Typed storages (torch.FloatStorage...) count numel in elements of
// their dtype; torch.UntypedStorage counts bytes and has dtype kUint8.
struct PickleStorage {
  DataType dtype = DataType::kUndefined;
  bool untyped = false;
  std::string key;       // record "data/<key>" in the torch.save zip
  std::string location;  // "cpu", "cuda:0", ... (informational)
  int64_t numel = 0;
};

// A tensor as _rebuild_tensor_v2/_v3 describe it: a strided view of
// `storage`, offset and strides in elements of `dtype`.
struct PickleTensor {
  PickleStorage storage;
  DataType dtype = DataType::kUndefined;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t storage_offset = 0;
  bool requires_grad = false;
  bool is_param = false;  // rebuilt through _rebuild_parameter*
};

// One value. Which fields mean something depends on `kind`; the rest stay
// default. Containers hold child ids: tuple/list/set elements in order, a
// dict's entries flattened as key0, value0, key1, value1, ... in insertion
// order (a repeated key is kept twice; like Python, readers let the later
// one win).
struct PickleValue {
  PickleKind kind = PickleKind::kNone;
  bool bool_value = false;
  int64_t int_value = 0;
  double float_value = 0;
  // kString/kBytes: the data; kGlobal: "module.name"; kObject: the callable's
  // "module.name".
  std::string text;
  std::vector<PickleId> items;  // containers; kObject: the call's arguments
  bool ordered = false;         // kDict made by collections.OrderedDict
  std::shared_ptr<const PickleStorage> storage;  // kStorage
  std::shared_ptr<const PickleTensor> tensor;    // kTensor
};

// Resource limits; a pickle over any of them is rejected (InvalidArgument)
// rather than allowed to consume memory without bound.
struct PickleLimits {
  size_t max_memo_entries = size_t{1} << 22;
  size_t max_mark_depth = 1024;  // nesting of MARK-delimited groups
  size_t max_values = size_t{1} << 22;  // ~110 bytes each
};

class PickleDocument {
 public:
  PickleId root() const { return root_; }
  // `id` must come from this document (root() or an items entry).
  const PickleValue& at(PickleId id) const { return values_[id]; }
  size_t size() const { return values_.size(); }

  // A Python-like rendering for messages and tests, nested at most
  // `max_depth` levels and 16 elements per container ("..." beyond).
  std::string DebugString(PickleId id, int max_depth = 8) const;

 private:
  friend absl::StatusOr<PickleDocument> ReadPickle(ByteSpan,
                                                   const PickleLimits&);
  std::vector<PickleValue> values_;
  PickleId root_ = 0;
};

// ReadPickle decodes `data` (one pickle, up to its STOP). InvalidArgument
// names the opcode and byte offset for unknown opcodes, forbidden globals,
// truncation, memo misuse and malformed tensor arguments; Unimplemented for
// valid but unsupported content (a tensor subclass, an unsupported dtype).
absl::StatusOr<PickleDocument> ReadPickle(ByteSpan data);
absl::StatusOr<PickleDocument> ReadPickle(ByteSpan data,
                                          const PickleLimits& limits);

}  // namespace pt2onnx::pt2

#endif  // PT2ONNX_CORE_PT2_PICKLE_READER_H_
