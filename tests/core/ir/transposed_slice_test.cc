#include "core/ir/transposed_slice.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "core/ir/tensor.h"
#include "gtest/gtest.h"

namespace pt2onnx::ir {
namespace {

// A file read by offset only (as the CLI's pread file and the browser's File).
class StreamedFile : public InputFile {
 public:
  explicit StreamedFile(std::string bytes) : bytes_(std::move(bytes)) {}
  uint64_t size() const override { return bytes_.size(); }
  absl::Status ReadInto(uint64_t offset, absl::Span<uint8_t> dst) const override {
    PT2ONNX_RETURN_IF_ERROR(CheckRange({offset, dst.size()}, "read"));
    if (!dst.empty()) std::memcpy(dst.data(), bytes_.data() + offset, dst.size());
    return absl::OkStatus();
  }

 private:
  std::string bytes_;
};

std::string Pattern(size_t n) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<char>((i * 131 + 7) % 251);
  return bytes;
}

// The permuted bytes, element by element.
std::string NaiveTranspose(const std::string& src, const std::vector<int64_t>& dims,
                           const std::vector<int64_t>& perm, int64_t es) {
  const size_t rank = dims.size();
  std::vector<int64_t> src_strides(rank, 1), out_dims(rank);
  for (size_t k = rank; k-- > 1;) src_strides[k - 1] = src_strides[k] * dims[k];
  int64_t numel = 1;
  for (size_t k = 0; k < rank; ++k) {
    out_dims[k] = dims[static_cast<size_t>(perm[k])];
    numel *= dims[k];
  }
  std::string out(static_cast<size_t>(numel * es), '\0');
  std::vector<int64_t> index(rank, 0);
  for (int64_t o = 0; o < numel; ++o) {
    int64_t s = 0;
    for (size_t k = 0; k < rank; ++k) s += index[k] * src_strides[static_cast<size_t>(perm[k])];
    std::memcpy(out.data() + o * es, src.data() + s * es, static_cast<size_t>(es));
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < out_dims[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

struct Case {
  DataType dtype;
  std::vector<int64_t> dims;
  std::vector<int64_t> perm;
};

TEST(TransposedSliceTest, MatchesTheElementwiseTransposeForEveryBufferSize) {
  const std::vector<Case> cases = {
      {DataType::kFloat, {3, 5}, {1, 0}},
      {DataType::kBFloat16, {37, 70}, {1, 0}},
      {DataType::kUint8, {129, 3}, {1, 0}},
      {DataType::kInt64, {2, 3, 4}, {0, 2, 1}},
      {DataType::kFloat16, {2, 3, 4}, {2, 0, 1}},
      {DataType::kFloat, {2, 1, 3, 5}, {0, 3, 1, 2}},
      {DataType::kDouble, {4, 1, 6}, {1, 0, 2}},  // the same order: a copy
      {DataType::kFloat, {300, 2}, {1, 0}},      // output rows longer than a small buffer
      {DataType::kFloat, {2, 300}, {1, 0}},
      {DataType::kComplex64, {5, 7}, {1, 0}},
      {DataType::kFloat, {0, 4}, {1, 0}},
  };
  for (const Case& c : cases) {
    const int64_t es = ElementSize(c.dtype);
    int64_t numel = 1;
    for (int64_t d : c.dims) numel *= d;
    const std::string prefix = "header";
    const std::string src = Pattern(static_cast<size_t>(numel * es));
    const std::string want = NaiveTranspose(src, c.dims, c.perm, es);
    for (bool streamed : {false, true}) {
      std::shared_ptr<const InputFile> file;
      if (streamed) {
        file = std::make_shared<StreamedFile>(prefix + src + "tail");
      } else {
        file = std::make_shared<MemoryFile>(prefix + src + "tail");
      }
      absl::StatusOr<TransposedSlice> t =
          TransposedSlice::Create(c.dtype, c.dims, c.perm, FileSlice{file, {prefix.size(), src.size()}});
      ASSERT_TRUE(t.ok()) << t.status();
      for (uint64_t buffer : {uint64_t{1}, uint64_t{100}, uint64_t{1000}, uint64_t{1} << 20}) {
        StringSink sink;
        ASSERT_TRUE(WriteTransposed(*t, sink, buffer).ok());
        EXPECT_EQ(sink.data(), want) << "dims " << c.dims.size() << " buffer " << buffer;
      }
      // As a tensor: the permuted dims, and bytes() computes the same bytes.
      Tensor tensor = Tensor::Transposed(*t);
      ASSERT_NE(tensor.transposed_slice(), nullptr);
      EXPECT_EQ(tensor.file_slice(), nullptr);
      EXPECT_EQ(tensor.byte_size(), src.size());
      EXPECT_EQ(std::string(reinterpret_cast<const char*>(tensor.bytes().data()), tensor.bytes().size()), want);
    }
  }
}

TEST(TransposedSliceTest, OtherPermutationsAreLeftToTheCaller) {
  auto file = std::make_shared<MemoryFile>(std::string(24 * 4, '\0'));
  absl::StatusOr<TransposedSlice> t =
      TransposedSlice::Create(DataType::kFloat, {2, 3, 4}, {1, 0, 2}, FileSlice{file, {0, 96}});
  EXPECT_EQ(t.status().code(), absl::StatusCode::kUnimplemented) << t.status();
}

TEST(TransposedSliceTest, HostileShapesAndRangesAreRefused) {
  auto file = std::make_shared<MemoryFile>(std::string(64, '\0'));
  auto refused = [&](DataType dtype, std::vector<int64_t> dims, std::vector<int64_t> perm, FileRange range,
                     absl::StatusCode code, const char* words) {
    absl::StatusOr<TransposedSlice> t = TransposedSlice::Create(dtype, dims, perm, FileSlice{file, range});
    EXPECT_EQ(t.status().code(), code) << t.status();
    EXPECT_TRUE(absl::StrContains(t.status().message(), words)) << t.status();
  };
  const absl::StatusCode invalid = absl::StatusCode::kInvalidArgument;
  refused(DataType::kFloat, {4, 4}, {1, 0}, {8, 64}, absl::StatusCode::kOutOfRange, "run past the end");
  refused(DataType::kFloat, {4, 4}, {1, 0}, {UINT64_MAX - 8, 64}, absl::StatusCode::kOutOfRange, "run past");
  refused(DataType::kFloat, {4, 4}, {1, 0}, {0, 60}, invalid, "not numel x element size");
  refused(DataType::kFloat, {4, 4}, {1, 1}, {0, 64}, invalid, "perm");
  refused(DataType::kFloat, {4, 4}, {0, 2}, {0, 64}, invalid, "perm");
  refused(DataType::kFloat, {4, 4}, {-1, 0}, {0, 64}, invalid, "perm");
  refused(DataType::kFloat, {4, 4}, {1}, {0, 64}, invalid, "perm");
  refused(DataType::kFloat, {-4, -4}, {1, 0}, {0, 64}, invalid, "negative");
  refused(DataType::kFloat, {INT64_MAX, 4}, {1, 0}, {0, 64}, invalid, "overflows");
  refused(DataType::kString, {4, 4}, {1, 0}, {0, 64}, invalid, "no fixed size");

  // An empty weight with a huge dim is nothing to write (no product overflows).
  absl::StatusOr<TransposedSlice> empty =
      TransposedSlice::Create(DataType::kFloat, {0, INT64_MAX, 4}, {1, 0, 2}, FileSlice{file, {0, 0}});
  ASSERT_TRUE(empty.ok()) << empty.status();
  StringSink nothing;
  EXPECT_TRUE(WriteTransposed(*empty, nothing).ok());
  EXPECT_TRUE(nothing.data().empty());

  // A hand-built description is checked again when written.
  absl::StatusOr<TransposedSlice> good =
      TransposedSlice::Create(DataType::kFloat, {4, 4}, {1, 0}, FileSlice{file, {0, 64}});
  ASSERT_TRUE(good.ok());
  StringSink sink;
  TransposedSlice past_end = *good;
  past_end.source.range.offset = 32;
  EXPECT_EQ(WriteTransposed(past_end, sink).code(), absl::StatusCode::kOutOfRange);
  TransposedSlice wrong_shape = *good;
  wrong_shape.rows = 8;
  EXPECT_EQ(WriteTransposed(wrong_shape, sink).code(), invalid);
  TransposedSlice overflowing = *good;
  overflowing.rows = INT64_MAX;
  overflowing.cols = INT64_MAX;
  EXPECT_EQ(WriteTransposed(overflowing, sink).code(), invalid);
  EXPECT_TRUE(sink.data().empty());
  // bytes() of a tensor whose source cannot be read is empty; ReadBytes says why.
  Tensor tensor = Tensor::Transposed(past_end);
  EXPECT_TRUE(tensor.bytes().empty());
  EXPECT_EQ(tensor.ReadBytes().status().code(), absl::StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace pt2onnx::ir
