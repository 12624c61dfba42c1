// The browser's output path, run natively: a streamed InputFile (no mmap,
// every byte read is counted) and a PartsSink (weights become file slices).
// Resolving the parts against the file must give exactly the bytes the CLI's
// path writes, and no weight byte may be read on the way.
#include "wasm/parts_sink.h"

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "export/converter.h"
#include "core/pt2/weights.h"
#include "export/output_plan.h"
#include "core/onnx/model_writer.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace pt2onnx::wasm {
namespace {

using onnx_writer::StringSink;
using ExternalData = onnx_writer::WriteOptions::ExternalData;

// An InputFile that, like a browser File, is not addressable: every access
// is a counted copy.
class StreamedFile : public InputFile {
 public:
  // With `fail_at` >= 0, that read (counting from 0) fails as a File that
  // was removed mid-conversion would.
  explicit StreamedFile(std::string bytes, int fail_at = -1)
      : bytes_(std::move(bytes)), fail_at_(fail_at) {}
  uint64_t size() const override { return bytes_.size(); }
  absl::Status ReadInto(uint64_t offset, absl::Span<uint8_t> dst) const override {
    absl::Status in_range = CheckRange({offset, dst.size()}, "read");
    if (!in_range.ok()) return in_range;
    if (static_cast<int>(reads_.size()) == fail_at_) {
      reads_.push_back({offset, 0});
      return absl::UnavailableError("NotReadableError: the file was removed");
    }
    if (!dst.empty()) std::memcpy(dst.data(), bytes_.data() + offset, dst.size());
    bytes_read_ += dst.size();
    reads_.push_back({offset, dst.size()});
    return absl::OkStatus();
  }
  uint64_t bytes_read() const { return bytes_read_; }
  const std::vector<FileRange>& reads() const { return reads_; }

 private:
  std::string bytes_;
  int fail_at_;
  mutable uint64_t bytes_read_ = 0;
  mutable std::vector<FileRange> reads_;
};

// The first read that touches a byte of a sliced part, if any.
std::optional<FileRange> ReadOfSlicedBytes(const StreamedFile& file, const PartsSink& sink) {
  for (const OutputPart& part : sink.parts()) {
    if (!part.is_slice) continue;
    for (const FileRange& read : file.reads()) {
      if (read.offset < part.range.end() && part.range.offset < read.end()) return read;
    }
  }
  return std::nullopt;
}

std::string Resolve(const PartsSink& sink, const std::string& file, uint64_t* sliced) {
  std::string out;
  for (const OutputPart& part : sink.parts()) {
    if (part.is_slice) {
      out.append(file, part.range.offset, part.range.length);
      *sliced += part.range.length;
    } else {
      out.append(sink.chunks()[part.chunk], part.range.offset, part.range.length);
    }
  }
  return out;
}

TEST(PartsSinkTest, MergesNeighboursAndCopiesForeignSlices) {
  auto input = std::make_shared<MemoryFile>(std::string("0123456789"));
  auto other = std::make_shared<MemoryFile>(std::string("abcdef"));
  PartsSink sink(input.get());
  ASSERT_TRUE(sink.Write(AsBytes("he")).ok());
  ASSERT_TRUE(sink.Write(AsBytes("ad")).ok());
  ASSERT_TRUE(sink.WriteSlice(FileSlice{input, {2, 3}}).ok());
  ASSERT_TRUE(sink.WriteSlice(FileSlice{input, {5, 2}}).ok());  // continues 2..5
  ASSERT_TRUE(sink.WriteSlice(FileSlice{input, {0, 0}}).ok());  // nothing
  ASSERT_TRUE(sink.WriteSlice(FileSlice{other, {1, 2}}).ok());  // not the input: copied
  ASSERT_TRUE(sink.WriteSlice(FileSlice{input, {9, 1}}).ok());
  ASSERT_EQ(sink.parts().size(), 4u);
  // Written bytes are ranges of one chunk.
  ASSERT_EQ(sink.chunks().size(), 1u);
  EXPECT_EQ(sink.chunks()[0], "headbc");
  EXPECT_FALSE(sink.parts()[0].is_slice);
  EXPECT_EQ(sink.parts()[0].range, (FileRange{0, 4}));
  EXPECT_TRUE(sink.parts()[1].is_slice);
  EXPECT_EQ(sink.parts()[1].range, (FileRange{2, 5}));
  EXPECT_FALSE(sink.parts()[2].is_slice);
  EXPECT_EQ(sink.parts()[2].range, (FileRange{4, 2}));
  EXPECT_EQ(sink.parts()[3].range, (FileRange{9, 1}));
  EXPECT_EQ(sink.size(), 4u + 5 + 2 + 1);
  EXPECT_EQ(sink.sliced_bytes(), 5u + 1);
}

// Whichever read fails (the first included), the conversion reports an I/O
// error naming the cause, never "not a .pt2 file" and never a crash. Without
// the optimizer: its folding skips a constant it cannot read (the output
// then keeps the unfolded node and stays right).
// Written bytes fill chunks of a fixed size; a full chunk is handed over
// (and may be moved out) before the next one starts, the last one stays.
TEST(PartsSinkTest, SplitsWrittenBytesIntoChunksAndHandsOverFullOnes) {
  auto input = std::make_shared<MemoryFile>(std::string("0123456789"));
  PartsSink sink(input.get(), /*chunk_bytes=*/4);
  std::vector<std::string> handed;
  sink.SetChunkDone([&](size_t index, std::string& chunk) {
    EXPECT_EQ(index, handed.size());
    handed.push_back(std::move(chunk));
    chunk.clear();
  });
  ASSERT_TRUE(sink.Write(AsBytes("abcdefghij")).ok());  // 4 + 4 + 2
  ASSERT_TRUE(sink.WriteSlice(FileSlice{input, {1, 2}}).ok());
  ASSERT_TRUE(sink.Write(AsBytes("kl")).ok());  // fills the third chunk
  ASSERT_TRUE(sink.Write(AsBytes("m")).ok());
  EXPECT_EQ(handed, (std::vector<std::string>{"abcd", "efgh", "ijkl"}));
  ASSERT_EQ(sink.chunks().size(), 4u);
  EXPECT_EQ(sink.chunks()[3], "m");
  ASSERT_EQ(sink.parts().size(), 6u);
  EXPECT_EQ(sink.parts()[0].chunk, 0u);
  EXPECT_EQ(sink.parts()[1].chunk, 1u);
  EXPECT_EQ(sink.parts()[2].chunk, 2u);
  EXPECT_EQ(sink.parts()[2].range, (FileRange{0, 2}));
  EXPECT_TRUE(sink.parts()[3].is_slice);
  EXPECT_EQ(sink.parts()[4].range, (FileRange{2, 2}));
  EXPECT_EQ(sink.parts()[5].chunk, 3u);
  EXPECT_EQ(sink.size(), 10u + 2 + 2 + 1);
}

TEST(StreamedInputTest, AFailedReadIsAnIoErrorWhereverItHappens) {
  ConvertOptions no_optimize;
  no_optimize.optimize = false;
  for (const char* fixture : {"cnn", "cnn_torch27", "cnn_torch28", "strided_weights"}) {
    absl::StatusOr<std::string> bytes = testing::ReadFixture(fixture);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    const size_t reads = [&] {
      auto file = std::make_shared<StreamedFile>(*bytes);
      EXPECT_TRUE(ConvertPt2(file, no_optimize).ok());
      return file->reads().size();
    }();
    ASSERT_GT(reads, 3u);
    for (size_t k = 0; k < reads; ++k) {
      absl::StatusOr<Conversion> c = ConvertPt2(std::make_shared<StreamedFile>(*bytes, k), no_optimize);
      ASSERT_FALSE(c.ok()) << fixture << " read " << k;
      EXPECT_EQ(c.status().code(), absl::StatusCode::kUnavailable) << fixture << " read " << k << ": "
                                                                   << c.status();
      EXPECT_NE(c.status().message().find("the file was removed"), absl::string_view::npos);
    }
  }
}

// A small strided view of a big storage reads only the bytes it spans.
TEST(StreamedInputTest, MaterializeReadsOnlyTheViewsWindow) {
  std::string storage(4 << 20, '\0');  // 1 Mi floats
  for (int i = 0; i < 16; ++i) {
    const float v = static_cast<float>(i);
    std::memcpy(storage.data() + (100 + i) * sizeof(float), &v, sizeof(float));
  }
  auto file = std::make_shared<StreamedFile>(storage);
  pt2::Weight w;
  w.name = "w";
  w.dtype = DataType::kFloat;
  w.sizes = {2, 2};
  w.strides = {4, 2};  // elements 100, 102, 104, 106
  w.storage_offset = 100;
  w.storage = FileSlice{file, {0, storage.size()}};
  absl::StatusOr<std::string> dense = w.Materialize();
  ASSERT_TRUE(dense.ok()) << dense.status();
  float values[4];
  std::memcpy(values, dense->data(), sizeof(values));
  EXPECT_EQ(std::vector<float>(values, values + 4), (std::vector<float>{0, 2, 4, 6}));
  EXPECT_EQ(file->bytes_read(), 7 * sizeof(float));  // elements 100..106
}

struct Case {
  const char* fixture;
  ExternalData external;
  bool has_strided_weights;  // those are materialized, so read
};

class StreamedConversionTest : public ::testing::TestWithParam<Case> {};

// The browser's path writes the CLI's bytes. Without the optimizer no byte of
// a spliced weight is read; with it, folding and deduplication read only small
// constants (passes/constant_folding.cc, initializer_deduplication.cc), so
// what is read stays a fraction of the file.
void CheckStreamedConversion(const Case& c, bool optimize) {
  ConvertOptions options;
  options.optimize = optimize;
  absl::StatusOr<std::string> bytes = testing::ReadFixture(c.fixture);
  ASSERT_TRUE(bytes.ok()) << bytes.status();

  // The CLI's path: the file in memory, written to plain byte sinks.
  absl::StatusOr<Conversion> native = ConvertPt2(AsBytes(*bytes), options);
  ASSERT_TRUE(native.ok()) << native.status();
  absl::StatusOr<OutputPlan> plan = PlanOutput(native->summary, c.external, "model.onnx");
  ASSERT_TRUE(plan.ok()) << plan.status();
  StringSink native_model, native_data;
  ASSERT_TRUE(onnx_writer::WriteModel(native->model, plan->write, native_model, &native_data).ok());

  // The browser's path.
  auto streamed = std::make_shared<StreamedFile>(*bytes);
  absl::StatusOr<Conversion> browser = ConvertPt2(streamed, options);
  ASSERT_TRUE(browser.ok()) << browser.status();
  PartsSink model(streamed.get()), data(streamed.get());
  ASSERT_TRUE(onnx_writer::WriteModel(browser->model, plan->write, model, &data).ok());
  uint64_t sliced = 0;
  EXPECT_EQ(Resolve(model, *bytes, &sliced), native_model.data());
  EXPECT_EQ(Resolve(data, *bytes, &sliced), native_data.data());
  EXPECT_EQ(plan->external, !native_data.data().empty());

  EXPECT_GT(sliced, 0u) << "weights should be spliced as slices";
  if (!c.has_strided_weights && !optimize) {
    // No byte of a spliced weight was read, and what was read (directory,
    // program JSON, pickles) is a fraction of the file.
    for (const PartsSink* sink : {&model, &data}) {
      std::optional<FileRange> read = ReadOfSlicedBytes(*streamed, *sink);
      EXPECT_FALSE(read.has_value()) << "read " << read->length << " bytes at " << read->offset;
    }
  }
  EXPECT_LT(streamed->bytes_read(), bytes->size());
}

TEST_P(StreamedConversionTest, SameBytesAsTheCliWithoutReadingWeights) {
  CheckStreamedConversion(GetParam(), /*optimize=*/false);
}

TEST_P(StreamedConversionTest, SameBytesAsTheCliReadingOnlySmallConstantsWhenOptimizing) {
  CheckStreamedConversion(GetParam(), /*optimize=*/true);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, StreamedConversionTest,
    ::testing::Values(Case{"cnn", ExternalData::kAuto, false},
                      Case{"cnn", ExternalData::kAlways, false},
                      Case{"resnet18_shaped", ExternalData::kAuto, false},
                      Case{"gpt_block", ExternalData::kAlways, false},
                      Case{"dynamic_batch_seq", ExternalData::kAuto, false},
                      Case{"mlp_dict_list", ExternalData::kAuto, false},
                      Case{"strided_weights", ExternalData::kAuto, true},
                      Case{"cnn_torch28", ExternalData::kAuto, false},   // pickled payload
                      Case{"cnn_torch27", ExternalData::kAlways, false}),  // legacy zip
    [](const ::testing::TestParamInfo<Case>& info) {
      return absl::StrCat(info.param.fixture,
                          info.param.external == ExternalData::kAlways ? "_external" : "");
    });

}  // namespace
}  // namespace pt2onnx::wasm
