#include "core/ir/transposed_slice.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/checked_math.h"
#include "core/status_macros.h"

namespace pt2onnx::ir {
namespace {

absl::Status Invalid(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm,
                     absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("transposed weight [", absl::StrJoin(dims, ","),
                                                 "] perm [", absl::StrJoin(perm, ","), "]: ", why));
}

// Source element (i, j) of a piece (i < i_count, j < j_count, row stride
// `in_stride` elements) goes to output element (j, i) (row stride
// `out_stride`), in 32 x 32 tiles so both sides stay in cache.
template <int kSize>
void CopyBlock(const uint8_t* in, int64_t in_stride, int64_t i_count, int64_t j_count, uint8_t* out,
               int64_t out_stride, int64_t element_size) {
  constexpr int64_t kTile = 32;
  const int64_t es = kSize > 0 ? kSize : element_size;
  for (int64_t i0 = 0; i0 < i_count; i0 += kTile) {
    const int64_t i1 = std::min(i_count, i0 + kTile);
    for (int64_t j0 = 0; j0 < j_count; j0 += kTile) {
      const int64_t j1 = std::min(j_count, j0 + kTile);
      for (int64_t j = j0; j < j1; ++j) {
        uint8_t* dst = out + (j * out_stride + i0) * es;
        const uint8_t* src = in + (i0 * in_stride + j) * es;
        for (int64_t i = i0; i < i1; ++i, dst += es, src += in_stride * es) std::memcpy(dst, src, es);
      }
    }
  }
}

void CopyTransposed(const uint8_t* in, int64_t in_stride, int64_t i_count, int64_t j_count, uint8_t* out,
                    int64_t out_stride, int64_t element_size) {
  switch (element_size) {
    case 1: return CopyBlock<1>(in, in_stride, i_count, j_count, out, out_stride, 1);
    case 2: return CopyBlock<2>(in, in_stride, i_count, j_count, out, out_stride, 2);
    case 4: return CopyBlock<4>(in, in_stride, i_count, j_count, out, out_stride, 4);
    case 8: return CopyBlock<8>(in, in_stride, i_count, j_count, out, out_stride, 8);
    default: return CopyBlock<0>(in, in_stride, i_count, j_count, out, out_stride, element_size);
  }
}

}  // namespace

absl::StatusOr<TransposedSlice> TransposedSlice::Create(DataType dtype, std::vector<int64_t> source_dims,
                                                        std::vector<int64_t> perm, FileSlice source) {
  const size_t rank = source_dims.size();
  if (perm.size() != rank) return Invalid(source_dims, perm, "perm does not name every axis once");
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || static_cast<uint64_t>(p) >= rank || seen[static_cast<size_t>(p)]) {
      return Invalid(source_dims, perm, "perm does not name every axis once");
    }
    seen[static_cast<size_t>(p)] = true;
  }
  const int element_size = ElementSize(dtype);
  if (element_size <= 0) return Invalid(source_dims, perm, "the element type has no fixed size");
  int64_t numel = 1;
  for (int64_t d : source_dims) {
    std::optional<int64_t> product = d < 0 ? std::nullopt : CheckedMul(numel, d);
    if (!product.has_value()) return Invalid(source_dims, perm, "a dim is negative or the size overflows");
    numel = *product;
  }
  std::optional<int64_t> bytes = CheckedMul(numel, element_size);
  if (!bytes.has_value() || static_cast<uint64_t>(*bytes) != source.range.length) {
    return Invalid(source_dims, perm, absl::StrCat("the source holds ", source.range.length,
                                                   " bytes, not numel x element size"));
  }
  if (source.file == nullptr) return Invalid(source_dims, perm, "no source file");
  PT2ONNX_RETURN_IF_ERROR(source.file->CheckRange(source.range, "transposed weight"));

  TransposedSlice t;
  t.element_size = element_size;
  t.dtype = dtype;
  if (numel == 0) {
    t.batch = 0;  // nothing to write (and the other dims may be huge)
    t.source_dims = std::move(source_dims);
    t.perm = std::move(perm);
    t.source = std::move(source);
    return t;
  }
  // Merge: drop size-1 axes (numbering the rest in source order), then join
  // output-adjacent axes that are adjacent in the source too. What is left
  // must be [R, C] -> [C, R] or [B, R, C] -> [B, C, R].
  std::vector<int64_t> compact(rank, -1);
  int64_t kept = 0;
  for (size_t a = 0; a < rank; ++a) {
    if (source_dims[a] != 1) compact[a] = kept++;
  }
  std::vector<std::pair<int64_t, int64_t>> groups;  // (first compact axis, size), output order
  int64_t last_axis = -2;
  for (int64_t p : perm) {
    const int64_t axis = compact[static_cast<size_t>(p)];
    if (axis < 0) continue;
    const int64_t d = source_dims[static_cast<size_t>(p)];
    if (!groups.empty() && axis == last_axis + 1) {
      groups.back().second *= d;
    } else {
      groups.push_back({axis, d});
    }
    last_axis = axis;
  }
  if (groups.size() <= 1) {
    t.cols = numel;  // the same order: one row copied as it is
  } else {
    std::vector<std::pair<int64_t, int64_t>> by_source = groups;
    std::sort(by_source.begin(), by_source.end());
    const bool swap = groups.size() == 2 && groups[0].first == by_source[1].first;
    const bool batched_swap = groups.size() == 3 && groups[0].first == by_source[0].first &&
                              groups[1].first == by_source[2].first;
    if (!swap && !batched_swap) {
      return absl::UnimplementedError("transposed weight: not one swap of two blocks of axes");
    }
    const size_t r = swap ? 0 : 1;
    if (batched_swap) t.batch = by_source[0].second;
    t.rows = by_source[r].second;
    t.cols = by_source[r + 1].second;
  }
  t.source_dims = std::move(source_dims);
  t.perm = std::move(perm);
  t.source = std::move(source);
  return t;
}

std::vector<int64_t> TransposedSlice::Dims() const {
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(source_dims[static_cast<size_t>(p)]);
  return dims;
}

absl::Status WriteTransposed(const TransposedSlice& t, ByteSink& sink, uint64_t buffer_bytes) {
  if (t.source.file == nullptr) return absl::InvalidArgumentError("transposed weight: no source file");
  PT2ONNX_RETURN_IF_ERROR(t.source.file->CheckRange(t.source.range, "transposed weight"));
  const int64_t es = t.element_size;
  std::optional<int64_t> total = CheckedProduct({t.batch, t.rows, t.cols, es});
  if (es <= 0 || t.batch < 0 || t.rows <= 0 || t.cols <= 0 || !total.has_value() ||
      static_cast<uint64_t>(*total) != t.source.range.length) {
    if (t.batch == 0 && t.source.range.length == 0) return absl::OkStatus();
    return absl::InvalidArgumentError("transposed weight: its shape does not match its source bytes");
  }
  // Elements per buffer, at least one source row piece and one output row piece.
  const int64_t capacity = std::max<int64_t>(64, static_cast<int64_t>(std::min<uint64_t>(buffer_bytes, 1u << 30)) / es);
  const std::optional<ByteSpan> in_memory = t.source.file->InMemory();
  std::vector<uint8_t> out(static_cast<size_t>(std::min(capacity, *total / es) * es));
  std::vector<uint8_t> in(in_memory.has_value() ? 0 : out.size());
  // Output rows j (each `rows` long) go out in bands of `band` rows, or, when
  // one row is longer than the buffer, in parts of `part` elements.
  const int64_t band = std::max<int64_t>(1, std::min(t.cols, capacity / t.rows));
  const int64_t part = std::min(t.rows, capacity);
  for (int64_t b = 0; b < t.batch; ++b) {
    const uint64_t base = t.source.range.offset + static_cast<uint64_t>(b * t.rows * t.cols * es);
    for (int64_t j0 = 0; j0 < t.cols; j0 += band) {
      const int64_t j_count = std::min(band, t.cols - j0);
      for (int64_t i0 = 0; i0 < t.rows; i0 += part) {
        const int64_t i_count = std::min(part, t.rows - i0);
        // Source rows [ia, ia + h) read as one span from (ia, j0) to (ia + h - 1, j0 + j_count).
        const int64_t h_max = 1 + (capacity - j_count) / t.cols;
        for (int64_t ia = i0; ia < i0 + i_count;) {
          const int64_t h = std::min(h_max, i0 + i_count - ia);
          const uint64_t offset = base + static_cast<uint64_t>((ia * t.cols + j0) * es);
          const size_t length = static_cast<size_t>(((h - 1) * t.cols + j_count) * es);
          const uint8_t* piece;
          if (in_memory.has_value()) {
            piece = in_memory->data() + offset;
          } else {
            PT2ONNX_RETURN_IF_ERROR(t.source.file->ReadInto(offset, absl::MakeSpan(in.data(), length)));
            piece = in.data();
          }
          CopyTransposed(piece, t.cols, h, j_count, out.data() + (ia - i0) * es, i_count, es);
          ia += h;
        }
        PT2ONNX_RETURN_IF_ERROR(sink.Write(ByteSpan(out.data(), static_cast<size_t>(j_count * i_count * es))));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadTransposed(const TransposedSlice& transposed) {
  StringSink sink;
  if (transposed.source.range.length > sink.mutable_data().max_size()) {
    return absl::OutOfRangeError("transposed weight: too big for this build's memory");
  }
  sink.mutable_data().reserve(static_cast<size_t>(transposed.source.range.length));
  PT2ONNX_RETURN_IF_ERROR(WriteTransposed(transposed, sink));
  return std::move(sink.mutable_data());
}

}  // namespace pt2onnx::ir
