#include "core/pt2/weights.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/archive/zip_reader.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/core/pt2/torch_save_builder.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::pt2 {
namespace {

using testutil::FloatBytes;
using testutil::PickleBuilder;
using testutil::ToFloats;
using testutil::TorchSaveZip;

using ::pt2onnx::testing::HasStatus;
using ::pt2onnx::testing::ReadFixture;

// A whole in-memory buffer as the file slice a weight refers to.
FileSlice SliceOf(ByteSpan bytes) {
  return FileSlice{std::make_shared<MemoryFile>(bytes), FileRange{0, bytes.size()}};
}
FileSlice SliceOf(const std::string& bytes) { return SliceOf(AsBytes(bytes)); }

Weight FloatView(const std::string& storage, std::vector<int64_t> sizes,
                 std::vector<int64_t> strides, int64_t offset = 0) {
  Weight w;
  w.name = "w";
  w.dtype = DataType::kFloat;
  w.sizes = std::move(sizes);
  w.strides = std::move(strides);
  w.storage_offset = offset;
  w.storage = SliceOf(storage);
  return w;
}

PayloadEntry RawEntry(std::string fqn, std::vector<int64_t> sizes,
                      std::vector<int64_t> strides, int64_t offset = 0) {
  PayloadEntry e;
  e.fqn = std::move(fqn);
  e.path_name = "weight_0";
  e.is_param = true;
  e.dtype = DataType::kFloat;
  e.sizes = std::move(sizes);
  e.strides = std::move(strides);
  e.storage_offset = offset;
  return e;
}

const std::string kSix = FloatBytes({0, 1, 2, 3, 4, 5});

TEST(WeightTest, Contiguity) {
  EXPECT_TRUE(FloatView(kSix, {2, 3}, {3, 1}).IsContiguous());
  EXPECT_FALSE(FloatView(kSix, {3, 2}, {1, 3}).IsContiguous());
  // Size-1 dimensions' strides never matter.
  EXPECT_TRUE(FloatView(kSix, {1, 6}, {99, 1}).IsContiguous());
  EXPECT_TRUE(FloatView(kSix, {2, 1, 3}, {3, 7, 1}).IsContiguous());
  EXPECT_TRUE(FloatView(kSix, {}, {}).IsContiguous());
  EXPECT_TRUE(FloatView(kSix, {0, 3}, {5, 5}).IsContiguous());
  EXPECT_FALSE(FloatView(kSix, {3}, {2}).IsContiguous());
  EXPECT_EQ(FloatView(kSix, {2, 3}, {3, 1}).numel(), 6);
}

TEST(WeightTest, ContiguousSliceHonoursTheOffset) {
  const Weight w = FloatView(kSix, {2, 2}, {2, 1}, 2);
  std::optional<FileSlice> slice = w.ContiguousSlice();
  ASSERT_TRUE(slice.has_value());
  EXPECT_EQ(slice->range, (FileRange{2 * sizeof(float), 4 * sizeof(float)}));
  absl::StatusOr<ByteSpan> bytes = slice->file->Read(slice->range);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->data(),
            reinterpret_cast<const uint8_t*>(kSix.data()) + 2 * sizeof(float));  // a view
  EXPECT_EQ(ToFloats(AsStringView(*bytes)), (std::vector<float>{2, 3, 4, 5}));
  EXPECT_FALSE(FloatView(kSix, {3, 2}, {1, 3}).ContiguousSlice().has_value());
}

TEST(WeightTest, MaterializeTransposedView) {
  // The (2, 3) storage seen as its transpose (3, 2).
  absl::StatusOr<std::string> out =
      FloatView(kSix, {3, 2}, {1, 3}).Materialize();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(ToFloats(*out), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(WeightTest, MaterializeViewWithOffsetAndGaps) {
  const std::string ten = FloatBytes({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  absl::StatusOr<std::string> every_other =
      FloatView(ten, {2, 2}, {4, 2}, 1).Materialize();
  ASSERT_TRUE(every_other.ok()) << every_other.status();
  EXPECT_EQ(ToFloats(*every_other), (std::vector<float>{1, 3, 5, 7}));

  absl::StatusOr<std::string> rows =
      FloatView(ten, {2, 3}, {4, 1}, 2).Materialize();
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(ToFloats(*rows), (std::vector<float>{2, 3, 4, 6, 7, 8}));

  // Broadcast-style zero stride (expand) repeats elements.
  absl::StatusOr<std::string> expanded =
      FloatView(ten, {2, 3}, {0, 1}, 7).Materialize();
  ASSERT_TRUE(expanded.ok()) << expanded.status();
  EXPECT_EQ(ToFloats(*expanded), (std::vector<float>{7, 8, 9, 7, 8, 9}));
}

TEST(WeightTest, MaterializeRejectsHandBuiltViewOutsideStorage) {
  const Weight bad = FloatView(kSix, {2, 3}, {3, 1}, 1);
  EXPECT_TRUE(HasStatus(bad.Materialize().status(),
                        absl::StatusCode::kOutOfRange, "weight 'w'"));
}

TEST(WeightTest, PayloadRawRecordStridedViews) {
  const std::string ten = FloatBytes({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  // Like strided_weights' view_b: sizes [2, 3], strides [3, 1], offset 4.
  absl::StatusOr<Weight> w =
      WeightFromPayload(RawEntry("view_b", {2, 2}, {3, 1}, 4), SliceOf(ten));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->name, "view_b");
  EXPECT_TRUE(w->is_param);
  EXPECT_EQ(w->storage.range, (FileRange{0, ten.size()}));
  EXPECT_FALSE(w->IsContiguous());
  absl::StatusOr<std::string> bytes = w->Materialize();
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(ToFloats(*bytes), (std::vector<float>{4, 5, 7, 8}));
}

TEST(WeightTest, PayloadZeroByteRecordMeansZeros) {
  absl::StatusOr<Weight> w =
      WeightFromPayload(RawEntry("zeros", {2, 3}, {1, 2}, 5), SliceOf(ByteSpan()));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(w->storage.empty());
  EXPECT_EQ(w->strides, (std::vector<int64_t>{3, 1}));  // zeros() is fresh
  EXPECT_EQ(w->storage_offset, 0);
  EXPECT_FALSE(w->ContiguousSlice().has_value());
  absl::StatusOr<std::string> bytes = w->Materialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(ToFloats(*bytes), std::vector<float>(6, 0.0f));
}

TEST(WeightTest, PayloadErrorsNameTheWeight) {
  const std::string ten = FloatBytes({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_TRUE(HasStatus(
      WeightFromPayload(RawEntry("fc.weight", {3, 4}, {4, 1}), SliceOf(ten))
          .status(),
      absl::StatusCode::kOutOfRange, "weight 'fc.weight': record 'weight_0'"));
  EXPECT_TRUE(HasStatus(
      WeightFromPayload(RawEntry("odd", {1}, {1}), SliceOf(AsBytes(ten).first(7)))
          .status(),
      absl::StatusCode::kInvalidArgument, "not a multiple of the 4-byte"));
  EXPECT_TRUE(HasStatus(
      WeightFromPayload(RawEntry("neg", {2}, {-1}, 1), SliceOf(ten)).status(),
      absl::StatusCode::kInvalidArgument, "negative stride"));
}

TEST(WeightTest, PayloadPickledRecordTopLevelTensorOrDict) {
  PickleBuilder tensor;
  tensor.Tensor({"FloatStorage", "0", 6}, 0, {3, 2}, {1, 3}).Stop();
  const std::string file = TorchSaveZip(tensor.bytes(), {{"0", kSix}});
  PayloadEntry entry = RawEntry("sub", {3, 2}, {1, 3});
  entry.use_pickle = true;
  absl::StatusOr<Weight> w = WeightFromPayload(entry, SliceOf(file));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->strides, (std::vector<int64_t>{1, 3}));
  absl::StatusOr<std::string> bytes = w->Materialize();
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(ToFloats(*bytes), (std::vector<float>{0, 3, 1, 4, 2, 5}));

  PickleBuilder dict;
  dict.EmptyDict().Str("sub").Tensor({"FloatStorage", "0", 6}, 0, {3, 2},
                                     {2, 1});
  dict.SetItem().Stop();
  const std::string dict_file = TorchSaveZip(dict.bytes(), {{"0", kSix}});
  absl::StatusOr<Weight> from_dict =
      WeightFromPayload(entry, SliceOf(dict_file));
  ASSERT_TRUE(from_dict.ok()) << from_dict.status();
  EXPECT_TRUE(from_dict->IsContiguous());

  entry.sizes = {6};
  EXPECT_TRUE(HasStatus(WeightFromPayload(entry, SliceOf(file)).status(),
                        absl::StatusCode::kInvalidArgument,
                        "weight 'sub': pickled payload has sizes [3, 2]"));
}

TEST(WeightTableTest, AddFindAndDuplicates) {
  WeightTable table;
  ASSERT_TRUE(table.Add(FloatView(kSix, {6}, {1})).ok());
  Weight other = FloatView(kSix, {2}, {1});
  other.name = "b";
  ASSERT_TRUE(table.Add(other).ok());
  EXPECT_TRUE(HasStatus(table.Add(FloatView(kSix, {6}, {1})),
                        absl::StatusCode::kAlreadyExists, "weight 'w'"));
  ASSERT_NE(table.Find("b"), nullptr);
  EXPECT_EQ(table.Find("b")->sizes, (std::vector<int64_t>{2}));
  EXPECT_EQ(table.Find("c"), nullptr);
  EXPECT_EQ(table.all().size(), 2u);
  EXPECT_EQ(table.all().begin()->first, "b");  // sorted by name
}

// strided_weights (torch 2.15): w_t = randn(3, 5).t() and two views of one
// 20-element buffer storage; entries as in its model_weights_config.json.
TEST(WeightFixtureTest, StridedPayloadsMatchAsStrided) {
  absl::StatusOr<std::string> bytes = ReadFixture("strided_weights");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<archive::ZipArchive> zip =
      archive::ZipArchive::Open(AsBytes(*bytes));
  ASSERT_TRUE(zip.ok()) << zip.status();
  struct Case {
    const char* fqn;
    const char* path;
    std::vector<int64_t> sizes, strides;
    int64_t offset;
  };
  const Case cases[] = {{"w_t", "weight_0", {5, 3}, {1, 5}, 0},
                        {"view_a", "weight_4", {2, 3}, {3, 1}, 2},
                        {"view_b", "weight_4", {2, 3}, {3, 1}, 10}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fqn);
    const std::string name = absl::StrCat("model/data/weights/", c.path);
    absl::StatusOr<ByteSpan> record = zip->Read(name);
    ASSERT_TRUE(record.ok()) << record.status();
    absl::StatusOr<FileRange> range = zip->Locate(*zip->Find(name));
    ASSERT_TRUE(range.ok()) << range.status();
    PayloadEntry entry = RawEntry(c.fqn, c.sizes, c.strides, c.offset);
    entry.path_name = c.path;
    absl::StatusOr<Weight> w = WeightFromPayload(entry, FileSlice{zip->file(), *range});
    ASSERT_TRUE(w.ok()) << w.status();
    EXPECT_EQ(w->storage.range, *range);  // located, not copied
    EXPECT_EQ(w->IsContiguous(), c.strides[1] == 1);
    absl::StatusOr<std::string> dense = w->Materialize();
    ASSERT_TRUE(dense.ok()) << dense.status();
    const std::vector<float> storage = ToFloats(AsStringView(*record));
    std::vector<float> expected;
    for (int64_t i = 0; i < c.sizes[0]; ++i) {
      for (int64_t j = 0; j < c.sizes[1]; ++j) {
        expected.push_back(
            storage[c.offset + i * c.strides[0] + j * c.strides[1]]);
      }
    }
    EXPECT_EQ(ToFloats(*dense), expected);
  }
}

}  // namespace
}  // namespace pt2onnx::pt2
