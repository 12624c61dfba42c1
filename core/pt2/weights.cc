#include "core/pt2/weights.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "core/status_util.h"

namespace pt2onnx::pt2 {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Product of `sizes`; InvalidArgument on a negative size or overflow.
absl::StatusOr<int64_t> CheckedNumel(absl::Span<const int64_t> sizes) {
  int64_t numel = 1;
  for (int64_t s : sizes) {
    if (s < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("negative size in [", absl::StrJoin(sizes, ", "), "]"));
    }
    if (s != 0 && numel > kInt64Max / s) {
      return absl::InvalidArgumentError(absl::StrCat(
          "element count of [", absl::StrJoin(sizes, ", "),
          "] overflows 64 bits"));
    }
    numel *= s;
  }
  return numel;
}

std::vector<int64_t> ContiguousStrides(absl::Span<const int64_t> sizes) {
  std::vector<int64_t> strides(sizes.size());
  int64_t step = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = step;
    step *= sizes[d] > 1 ? sizes[d] : 1;
  }
  return strides;
}

absl::StatusOr<Weight> FromPickledPayload(const PayloadEntry& entry,
                                          const FileSlice& record) {
  PT2ONNX_ASSIGN_OR_RETURN(TorchSaveFile file, TorchSaveFile::Open(record.file, record.range));
  const PickleDocument& doc = file.pickle();
  const PickleValue& top = doc.at(doc.root());
  const PickleTensor* tensor = nullptr;
  if (top.kind == PickleKind::kTensor) {
    tensor = top.tensor.get();
  } else if (top.kind == PickleKind::kDict) {
    // A dict payload: the entry under our FQN, or its only tensor.
    const PickleTensor* only = nullptr;
    int tensors = 0;
    for (size_t i = 0; i + 1 < top.items.size(); i += 2) {
      const PickleValue& value = doc.at(top.items[i + 1]);
      if (value.kind != PickleKind::kTensor) continue;
      ++tensors;
      only = value.tensor.get();
      const PickleValue& key = doc.at(top.items[i]);
      if (key.kind == PickleKind::kString && key.text == entry.fqn) {
        tensor = value.tensor.get();
      }
    }
    if (tensor == nullptr && tensors == 1) tensor = only;
  }
  if (tensor == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pickled payload holds ", doc.DebugString(doc.root(), 2),
        ", expected a tensor"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(StoredTensor stored,
                           file.Resolve(*tensor, entry.fqn));
  if (entry.dtype != DataType::kUndefined && stored.dtype != entry.dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pickled payload is ", DataTypeName(stored.dtype),
        " but its tensor_meta says ", DataTypeName(entry.dtype)));
  }
  if (stored.sizes != entry.sizes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "pickled payload has sizes [", absl::StrJoin(stored.sizes, ", "),
        "] but its tensor_meta says [", absl::StrJoin(entry.sizes, ", "),
        "]"));
  }
  Weight w = WeightFromStored(entry.fqn, stored);
  w.is_param = entry.is_param || stored.is_param;
  return w;
}

absl::StatusOr<Weight> FromRawPayload(const PayloadEntry& entry,
                                      const FileSlice& record) {
  const int64_t elem = ElementSize(entry.dtype);
  if (elem <= 0) {
    return absl::UnimplementedError(absl::StrCat(
        "dtype ", DataTypeName(entry.dtype), " has no fixed element size"));
  }
  if (entry.sizes.size() != entry.strides.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tensor_meta has ", entry.sizes.size(), " sizes but ",
                     entry.strides.size(), " strides"));
  }
  Weight w;
  w.name = entry.fqn;
  w.dtype = entry.dtype;
  w.sizes = entry.sizes;
  w.is_param = entry.is_param;
  if (record.empty()) {
    // torch's _load_state_dict makes zeros(sizes) for a 0-byte record: a
    // fresh contiguous tensor, so tensor_meta's strides/offset don't apply.
    PT2ONNX_ASSIGN_OR_RETURN(int64_t numel, CheckedNumel(w.sizes));
    if (numel > kInt64Max / elem) {
      return absl::InvalidArgumentError("zero tensor byte size overflows");
    }
    w.strides = ContiguousStrides(w.sizes);
    return w;
  }
  if (record.size() % elem != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "record '", entry.path_name, "' has ", record.size(),
        " bytes, not a multiple of the ", elem, "-byte ",
        DataTypeName(entry.dtype)));
  }
  w.strides = entry.strides;
  w.storage_offset = entry.storage_offset;
  w.storage = record;
  PT2ONNX_RETURN_IF_ERROR_WITH_CONTEXT(
      CheckView(w.sizes, w.strides, w.storage_offset,
                static_cast<int64_t>(record.size()) / elem),
      absl::StrCat("record '", entry.path_name, "'"));
  return w;
}

}  // namespace

int64_t Weight::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

bool Weight::IsContiguous() const {
  if (sizes.size() != strides.size()) return false;
  int64_t expected = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 0) return true;  // no elements: any strides will do
  }
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

std::optional<FileSlice> Weight::ContiguousSlice() const {
  if (!IsContiguous()) return std::nullopt;
  const int64_t n = numel();
  if (n == 0) return storage.Sub(0, 0);
  const uint64_t elem = ElementSize(dtype);
  const uint64_t begin = static_cast<uint64_t>(storage_offset) * elem;
  const uint64_t length = static_cast<uint64_t>(n) * elem;
  if (storage_offset < 0 || begin > storage.size() ||
      length > storage.size() - begin) {
    return std::nullopt;  // all-zero record, or a hand-built bad view
  }
  return storage.Sub(begin, length);
}

absl::StatusOr<std::string> Weight::Materialize() const {
  const int64_t elem = ElementSize(dtype);
  if (elem <= 0) {
    return absl::UnimplementedError(absl::StrCat(
        "weight '", name, "': dtype ", DataTypeName(dtype),
        " has no fixed element size"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t n, CheckedNumel(sizes));
  if (n > kInt64Max / elem ||
      static_cast<uint64_t>(n * elem) > std::numeric_limits<size_t>::max()) {
    return absl::OutOfRangeError(
        absl::StrCat("weight '", name, "' is too large to materialize"));
  }
  std::string out(static_cast<size_t>(n * elem), '\0');
  if (n == 0 || storage.empty()) return out;  // empty storage = zeros
  PT2ONNX_RETURN_IF_ERROR_WITH_CONTEXT(
      CheckView(sizes, strides, storage_offset,
                static_cast<int64_t>(storage.size()) / elem),
      absl::StrCat("weight '", name, "'"));
  if (std::optional<FileSlice> slice = ContiguousSlice()) {
    PT2ONNX_RETURN_IF_ERROR(slice->file->ReadInto(
        slice->range.offset, absl::MakeSpan(reinterpret_cast<uint8_t*>(out.data()), out.size())));
    return out;
  }
  // A strided view: read only the byte window it touches, from its first to
  // its last element (a temporary copy when the file is streamed; a small
  // view of a huge storage must not pull in the whole storage), then gather.
  // CheckView above bounds `last` inside the storage, so nothing overflows.
  int64_t last = storage_offset;
  for (size_t d = 0; d < sizes.size(); ++d) last += (sizes[d] - 1) * strides[d];
  const uint64_t window_begin = static_cast<uint64_t>(storage_offset) * elem;
  const uint64_t window_length = static_cast<uint64_t>(last + 1) * elem - window_begin;
  if (window_length > std::numeric_limits<size_t>::max()) {
    return absl::OutOfRangeError(absl::StrCat(
        "weight '", name, "': its strided view spans ", window_length,
        " bytes, more than this build can hold in memory"));
  }
  std::string window_copy;
  ByteSpan window;
  if (std::optional<ByteSpan> all = storage.file->InMemory()) {
    window = all->subspan(storage.range.offset + window_begin, window_length);
  } else {
    window_copy.resize(static_cast<size_t>(window_length));
    PT2ONNX_RETURN_IF_ERROR(storage.file->ReadInto(
        storage.range.offset + window_begin,
        absl::MakeSpan(reinterpret_cast<uint8_t*>(window_copy.data()), window_copy.size())));
    window = AsBytes(window_copy);
  }
  // Odometer over all but the last dimension; the last one is a run of
  // sizes.back() elements `strides.back()` apart (a memcpy when that is 1).
  const size_t rank = sizes.size();
  const int64_t run = sizes[rank - 1];
  const int64_t run_stride = strides[rank - 1];
  std::vector<int64_t> index(rank - 1, 0);
  char* dst = out.data();
  for (;;) {
    int64_t base = storage_offset;
    for (size_t d = 0; d + 1 < rank; ++d) base += index[d] * strides[d];
    const uint8_t* src = window.data() + (base - storage_offset) * elem;
    if (run_stride == 1) {
      std::memcpy(dst, src, static_cast<size_t>(run * elem));
      dst += run * elem;
    } else {
      for (int64_t i = 0; i < run; ++i, dst += elem) {
        std::memcpy(dst, src + i * run_stride * elem,
                    static_cast<size_t>(elem));
      }
    }
    size_t d = rank - 1;
    while (d-- > 0) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) break;
  }
  return out;
}

absl::Status CheckView(absl::Span<const int64_t> sizes,
                       absl::Span<const int64_t> strides,
                       int64_t storage_offset, int64_t storage_numel) {
  if (sizes.size() != strides.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        sizes.size(), " sizes but ", strides.size(), " strides"));
  }
  if (storage_offset < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("negative storage_offset ", storage_offset));
  }
  PT2ONNX_ASSIGN_OR_RETURN(int64_t numel, CheckedNumel(sizes));
  // The last element sits at offset + sum((size - 1) * stride); accumulate
  // it with overflow checks (a hostile file can pick any int64 values).
  int64_t last = storage_offset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (strides[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "negative stride in [", absl::StrJoin(strides, ", "),
          "]; torch does not store negative strides"));
    }
    if (sizes[d] == 0) continue;
    const int64_t span = sizes[d] - 1;
    if (span != 0 && strides[d] > (kInt64Max - last) / span) {
      last = kInt64Max;
      break;
    }
    last += span * strides[d];
  }
  if (numel == 0) return absl::OkStatus();
  if (last >= storage_numel) {
    return absl::OutOfRangeError(absl::StrCat(
        "view (sizes [", absl::StrJoin(sizes, ", "), "], strides [",
        absl::StrJoin(strides, ", "), "], offset ", storage_offset,
        ") reaches element ", last, " of a ", storage_numel,
        "-element storage"));
  }
  return absl::OkStatus();
}

absl::Status WeightTable::Add(Weight weight) {
  std::string name = weight.name;
  auto [it, inserted] = weights_.emplace(std::move(name), std::move(weight));
  if (!inserted) {
    return absl::AlreadyExistsError(
        absl::StrCat("weight '", it->first, "' is defined twice"));
  }
  return absl::OkStatus();
}

const Weight* WeightTable::Find(absl::string_view name) const {
  auto it = weights_.find(std::string(name));
  return it == weights_.end() ? nullptr : &it->second;
}

absl::StatusOr<Weight> WeightFromPayload(const PayloadEntry& entry,
                                         const FileSlice& record) {
  absl::StatusOr<Weight> w = entry.use_pickle
                                 ? FromPickledPayload(entry, record)
                                 : FromRawPayload(entry, record);
  if (!w.ok()) {
    return AnnotateStatus(w.status(), absl::StrCat("weight '", entry.fqn, "'"));
  }
  return w;
}

Weight WeightFromStored(std::string name, const StoredTensor& tensor) {
  Weight w;
  w.name = std::move(name);
  w.dtype = tensor.dtype;
  w.sizes = tensor.sizes;
  w.strides = tensor.strides;
  w.storage_offset = tensor.storage_offset;
  w.storage = tensor.storage;
  w.is_param = tensor.is_param;
  return w;
}

}  // namespace pt2onnx::pt2
