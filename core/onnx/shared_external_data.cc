#include "core/onnx/shared_external_data.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"

namespace pt2onnx::onnx_writer {
namespace {

// Weights in the input file are read in pieces of this size, so comparing
// two multi-GB exports holds no weight in memory.
constexpr uint64_t kChunkBytes = uint64_t{1} << 20;

// Calls `fn` on consecutive pieces of the tensor's bytes.
absl::Status ForEachChunk(const ir::Tensor& tensor, const std::function<void(ByteSpan)>& fn) {
  if (const FileSlice* slice = tensor.file_slice()) {
    std::string buffer;
    for (uint64_t done = 0; done < slice->size();) {
      const uint64_t n = std::min(kChunkBytes, slice->size() - done);
      buffer.resize(n);
      PT2ONNX_RETURN_IF_ERROR(slice->file->ReadInto(
          slice->range.offset + done, absl::Span<uint8_t>(reinterpret_cast<uint8_t*>(buffer.data()), n)));
      fn(AsBytes(buffer));
      done += n;
    }
    return absl::OkStatus();
  }
  PT2ONNX_ASSIGN_OR_RETURN(ByteSpan bytes, tensor.ReadBytes());
  fn(bytes);
  return absl::OkStatus();
}

// FNV-1a: a candidate filter only (equal bytes are checked in full).
absl::StatusOr<uint64_t> ContentHash(const ir::Tensor& tensor) {
  uint64_t hash = 14695981039346656037ull;
  PT2ONNX_RETURN_IF_ERROR(ForEachChunk(tensor, [&hash](ByteSpan bytes) {
    for (uint8_t b : bytes) hash = (hash ^ b) * 1099511628211ull;
  }));
  return hash;
}

absl::StatusOr<std::string> Key(const ir::Tensor& tensor) {
  PT2ONNX_ASSIGN_OR_RETURN(uint64_t hash, ContentHash(tensor));
  return absl::StrCat(static_cast<int>(tensor.dtype()), ":", absl::StrJoin(tensor.dims(), ","), ":", hash);
}

// Byte equality of two tensors of the same size, a piece at a time.
absl::StatusOr<bool> SameBytes(const ir::Tensor& a, const ir::Tensor& b) {
  std::string a_bytes;  // `a` whole only when it is small or already in memory
  if (a.file_slice() == nullptr) {
    PT2ONNX_ASSIGN_OR_RETURN(ByteSpan bytes, a.ReadBytes());
    uint64_t at = 0;
    bool same = true;
    PT2ONNX_RETURN_IF_ERROR(ForEachChunk(b, [&](ByteSpan piece) {
      same = same && at + piece.size() <= bytes.size() && std::memcmp(bytes.data() + at, piece.data(), piece.size()) == 0;
      at += piece.size();
    }));
    return same && at == bytes.size();
  }
  if (b.file_slice() == nullptr) return SameBytes(b, a);
  // Two slices: compare chunk by chunk.
  const FileSlice& sa = *a.file_slice();
  const FileSlice& sb = *b.file_slice();
  if (sa.file == sb.file && sa.range.offset == sb.range.offset) return true;
  std::string pa, pb;
  for (uint64_t done = 0; done < sa.size();) {
    const uint64_t n = std::min(kChunkBytes, sa.size() - done);
    pa.resize(n);
    pb.resize(n);
    PT2ONNX_RETURN_IF_ERROR(
        sa.file->ReadInto(sa.range.offset + done, absl::Span<uint8_t>(reinterpret_cast<uint8_t*>(pa.data()), n)));
    PT2ONNX_RETURN_IF_ERROR(
        sb.file->ReadInto(sb.range.offset + done, absl::Span<uint8_t>(reinterpret_cast<uint8_t*>(pb.data()), n)));
    if (pa != pb) return false;
    done += n;
  }
  return true;
}

}  // namespace

absl::StatusOr<SharedExternalData::Match> SharedExternalData::Find(const ir::Tensor& tensor) const {
  Match match;
  PT2ONNX_ASSIGN_OR_RETURN(match.key, Key(tensor));
  auto it = by_key_.find(match.key);
  if (it == by_key_.end()) return match;
  for (const Entry& entry : it->second) {
    if (entry.tensor.byte_size() != tensor.byte_size()) continue;
    PT2ONNX_ASSIGN_OR_RETURN(bool same, SameBytes(entry.tensor, tensor));
    if (same) {
      match.place = entry.place;
      break;
    }
  }
  return match;
}

void SharedExternalData::Add(const Match& match, const ir::Tensor& tensor, Place place) {
  by_key_[match.key].push_back(Entry{tensor, std::move(place)});
}

}  // namespace pt2onnx::onnx_writer
