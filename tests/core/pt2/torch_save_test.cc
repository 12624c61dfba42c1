#include "core/pt2/torch_save.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
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
#include "tests/testing/zip_builder.h"

namespace pt2onnx::pt2 {
namespace {

// The bytes a located storage refers to.
absl::string_view Contents(const FileSlice& slice) {
  absl::StatusOr<ByteSpan> bytes = slice.file->Read(slice.range);
  return bytes.ok() ? AsStringView(*bytes) : absl::string_view("<unreadable>");
}

using testutil::FloatBytes;
using testutil::PickleBuilder;
using testutil::StorageSpec;
using testutil::TorchSaveZip;

using ::pt2onnx::testing::HasStatus;
using ::pt2onnx::testing::ReadFixture;

const std::vector<float> kTen = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};

// {'a': storage0[0:6].view(2, 3), 'b': storage0[4::2] (3 elements)}: two
// tensors sharing one FloatStorage, the second reached through the memo the
// way torch re-emits a shared storage tuple.
std::string SharedStorageDict() {
  PickleBuilder p;
  p.EmptyDict().Put(0).Mark();
  p.Str("a").Global("torch._utils", "_rebuild_tensor_v2").Put(1).Mark();
  p.Mark().Str("storage").Global("torch", "FloatStorage").Put(2);
  p.Str("0").Str("cpu").Int(10).Tuple().Put(3).BinPersId();
  p.Int(0).IntTuple({2, 3}).IntTuple({3, 1}).Bool(false).OrderedDict();
  p.Tuple().Reduce();
  p.Str("b").Get(1).Mark().Get(3).BinPersId();
  p.Int(4).IntTuple({3}).IntTuple({2}).Bool(false).OrderedDict();
  p.Tuple().Reduce();
  p.SetItems().Stop();
  return p.bytes();
}

TEST(TorchSaveTest, ReadsDictWithSharedStorageWithoutCopying) {
  const std::string file =
      TorchSaveZip(SharedStorageDict(), {{"0", FloatBytes(kTen)}});
  absl::StatusOr<TorchSaveDict> dict = ReadTorchSaveDict(AsBytes(file));
  ASSERT_TRUE(dict.ok()) << dict.status();
  ASSERT_EQ(dict->tensors.size(), 2u);
  EXPECT_TRUE(dict->skipped.empty());

  const StoredTensor& a = dict->tensors.at("a");
  EXPECT_EQ(a.dtype, DataType::kFloat);
  EXPECT_EQ(a.sizes, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.strides, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(a.storage_offset, 0);
  EXPECT_EQ(a.storage.size(), 40u);
  EXPECT_EQ(Contents(a.storage), FloatBytes(kTen));
  EXPECT_FALSE(a.is_param);
  // Located in the file, not copied.
  EXPECT_LE(a.storage.range.end(), file.size());

  const StoredTensor& b = dict->tensors.at("b");
  EXPECT_EQ(b.sizes, (std::vector<int64_t>{3}));
  EXPECT_EQ(b.strides, (std::vector<int64_t>{2}));
  EXPECT_EQ(b.storage_offset, 4);
  EXPECT_EQ(b.storage.range, a.storage.range);  // same storage
  EXPECT_EQ(b.storage_key, "0");
}

TEST(TorchSaveTest, ReadsOrderedDictOfParametersAndSkipsOtherValues) {
  PickleBuilder p;
  p.OrderedDict().Mark();
  p.Str("fc.weight").Parameter({"FloatStorage", "0", 6}, 0, {3, 2}, {2, 1});
  p.Str("fc.bias").Tensor({"DoubleStorage", "1", 3}, 0, {3}, {1}, true);
  p.Str("version").Int(3);
  p.Str("cfg").None();
  p.SetItems();
  p.EmptyDict().Str("_metadata").OrderedDict().SetItem().Build().Stop();
  const std::string file = TorchSaveZip(
      p.bytes(), {{"0", FloatBytes({1, 2, 3, 4, 5, 6})},
                  {"1", std::string(24, '\0')}},
      "model");
  absl::StatusOr<TorchSaveDict> dict = ReadTorchSaveDict(AsBytes(file));
  ASSERT_TRUE(dict.ok()) << dict.status();
  ASSERT_EQ(dict->tensors.size(), 2u);
  EXPECT_EQ(dict->skipped, (std::vector<std::string>{"version", "cfg"}));
  const StoredTensor& w = dict->tensors.at("fc.weight");
  EXPECT_TRUE(w.is_param);
  EXPECT_TRUE(w.requires_grad);
  EXPECT_EQ(Contents(w.storage), FloatBytes({1, 2, 3, 4, 5, 6}));
  const StoredTensor& b = dict->tensors.at("fc.bias");
  EXPECT_EQ(b.dtype, DataType::kDouble);
  EXPECT_FALSE(b.is_param);
  EXPECT_TRUE(b.requires_grad);
  EXPECT_EQ(b.storage.size(), 24u);
}

TEST(TorchSaveTest, ReadsArchiveWithoutRootFolder) {
  // Python-zipfile style container around the same records.
  testutil::ZipBuilder zip(testutil::ZipBuilderOptions::PythonZipfile());
  zip.Add("data.pkl", SharedStorageDict());
  zip.Add("data/0", FloatBytes(kTen));
  const std::string file = zip.Build().bytes;
  absl::StatusOr<TorchSaveDict> dict = ReadTorchSaveDict(AsBytes(file));
  ASSERT_TRUE(dict.ok()) << dict.status();
  EXPECT_EQ(dict->tensors.size(), 2u);
}

TEST(TorchSaveTest, ReadsTopLevelTensor) {
  PickleBuilder p;
  p.Tensor({"LongStorage", "0", 2}, 1, {}, {}).Stop();  // a 0-d view
  std::string longs(16, '\0');
  longs[8] = 42;
  const std::string file = TorchSaveZip(p.bytes(), {{"0", longs}});
  absl::StatusOr<StoredTensor> t = ReadTorchSaveTensor(AsBytes(file));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype, DataType::kInt64);
  EXPECT_TRUE(t->sizes.empty());
  EXPECT_EQ(t->storage_offset, 1);

  EXPECT_TRUE(HasStatus(ReadTorchSaveDict(AsBytes(file)).status(),
                        absl::StatusCode::kInvalidArgument,
                        "holds a tensor, expected a dict"));
}

TEST(TorchSaveTest, ViewOutsideStorageIsOutOfRangeNamingTheTensor) {
  PickleBuilder p;
  p.EmptyDict().Str("layer.w");
  p.Tensor({"FloatStorage", "0", 10}, 5, {2, 3}, {3, 1});  // needs 11
  p.SetItem().Stop();
  const std::string file = TorchSaveZip(p.bytes(), {{"0", FloatBytes(kTen)}});
  EXPECT_TRUE(HasStatus(ReadTorchSaveDict(AsBytes(file)).status(),
                        absl::StatusCode::kOutOfRange,
                        "tensor 'layer.w' (storage 'archive/data/0')"));
}

TEST(TorchSaveTest, ShortStorageRecordIsOutOfRange) {
  PickleBuilder p;
  p.EmptyDict().Str("w").Tensor({"FloatStorage", "0", 12}, 0, {12}, {1});
  p.SetItem().Stop();
  const std::string file = TorchSaveZip(p.bytes(), {{"0", FloatBytes(kTen)}});
  EXPECT_TRUE(HasStatus(ReadTorchSaveDict(AsBytes(file)).status(),
                        absl::StatusCode::kOutOfRange,
                        "tensor 'w': storage 'archive/data/0' has 40 bytes"));
}

TEST(TorchSaveTest, MissingStorageRecordIsNotFound) {
  PickleBuilder p;
  p.EmptyDict().Str("w").Tensor({"FloatStorage", "7", 1}, 0, {1}, {1});
  p.SetItem().Stop();
  const std::string file = TorchSaveZip(p.bytes(), {});
  EXPECT_TRUE(HasStatus(ReadTorchSaveDict(AsBytes(file)).status(),
                        absl::StatusCode::kNotFound,
                        "storage record 'archive/data/7' is missing"));
}

TEST(TorchSaveTest, ForbiddenGlobalIsReportedWithTheRecord) {
  PickleBuilder p;
  p.Global("os", "system").Str("rm").TupleN(1).Reduce().Stop();
  const std::string file = TorchSaveZip(p.bytes(), {});
  const absl::Status status = ReadTorchSaveDict(AsBytes(file)).status();
  EXPECT_TRUE(HasStatus(status, absl::StatusCode::kInvalidArgument,
                        "archive/data.pkl: pickle global 'os.system'"));
}

TEST(TorchSaveTest, BigEndianFileIsUnimplemented) {
  testutil::ZipBuilder zip(testutil::ZipBuilderOptions::PyTorch("archive"));
  zip.Add("data.pkl", PickleBuilder().EmptyDict().Stop().bytes());
  zip.Add("byteorder", "big");
  const std::string file = zip.Build().bytes;
  EXPECT_TRUE(HasStatus(ReadTorchSaveDict(AsBytes(file)).status(),
                        absl::StatusCode::kUnimplemented, "big-endian"));
}

TEST(TorchSaveTest, ZipWithoutDataPklIsNotATorchSaveFile) {
  testutil::ZipBuilder zip(testutil::ZipBuilderOptions::PyTorch("archive"));
  zip.Add("version", "3\n");
  const std::string file = zip.Build().bytes;
  EXPECT_TRUE(HasStatus(ReadTorchSaveDict(AsBytes(file)).status(),
                        absl::StatusCode::kInvalidArgument,
                        "not a torch.save file"));
}

TEST(TorchSaveTest, TruncatedPickleIsInvalidArgument) {
  std::string pickle = SharedStorageDict();
  pickle.resize(pickle.size() / 2);
  const std::string file = TorchSaveZip(pickle, {{"0", FloatBytes(kTen)}});
  EXPECT_TRUE(HasStatus(ReadTorchSaveDict(AsBytes(file)).status(),
                        absl::StatusCode::kInvalidArgument, "truncated"));
}

// Every prefix and every single-byte corruption of a valid file must give
// a result or an error, never a crash or a read outside the input (this
// test is most useful under -fsanitize=address).
TEST(TorchSaveTest, SurvivesTruncationAndCorruption) {
  const std::string file =
      TorchSaveZip(SharedStorageDict(), {{"0", FloatBytes(kTen)}});
  for (size_t n = 0; n < file.size(); ++n) {
    const std::string prefix = file.substr(0, n);
    EXPECT_FALSE(ReadTorchSaveDict(AsBytes(prefix)).ok()) << n;
  }
  for (size_t i = 0; i < file.size(); ++i) {
    for (uint8_t x : {0x01, 0x80, 0xFF}) {
      std::string bad = file;
      bad[i] = static_cast<char>(bad[i] ^ x);
      absl::StatusOr<TorchSaveDict> dict = ReadTorchSaveDict(AsBytes(bad));
      if (dict.ok()) {
        for (const auto& [fqn, t] : dict->tensors) {
          EXPECT_LE(t.storage.range.end(), bad.size());
        }
      }
    }
  }
}

// torch 2.8 stores the state dict as data/weights/model.pt, torch 2.7 as
// serialized_state_dict.pt, torch 2.15 as raw records; all three fixtures
// hold the same weights (tests/fixtures/README.md).
TEST(TorchSaveFixtureTest, StateDictsOfTorch27And28MatchRawPayload) {
  absl::StatusOr<std::string> pt28 = ReadFixture("cnn_torch28");
  absl::StatusOr<std::string> pt27 = ReadFixture("cnn_torch27");
  absl::StatusOr<std::string> pt215 = ReadFixture("cnn");
  ASSERT_TRUE(pt28.ok()) << pt28.status();
  ASSERT_TRUE(pt27.ok()) << pt27.status();
  ASSERT_TRUE(pt215.ok()) << pt215.status();
  absl::StatusOr<archive::ZipArchive> zip28 =
      archive::ZipArchive::Open(AsBytes(*pt28));
  absl::StatusOr<archive::ZipArchive> zip27 =
      archive::ZipArchive::Open(AsBytes(*pt27));
  absl::StatusOr<archive::ZipArchive> zip215 =
      archive::ZipArchive::Open(AsBytes(*pt215));
  ASSERT_TRUE(zip28.ok() && zip27.ok() && zip215.ok());
  absl::StatusOr<TorchSaveDict> sd28 =
      ReadTorchSaveDict(*zip28->Read("model/data/weights/model.pt"));
  absl::StatusOr<TorchSaveDict> sd27 =
      ReadTorchSaveDict(*zip27->Read("serialized_state_dict.pt"));
  ASSERT_TRUE(sd28.ok()) << sd28.status();
  ASSERT_TRUE(sd27.ok()) << sd27.status();
  ASSERT_EQ(sd28->tensors.size(), 15u);
  ASSERT_EQ(sd27->tensors.size(), 15u);

  const StoredTensor& conv = sd28->tensors.at("conv1.weight");
  EXPECT_EQ(conv.dtype, DataType::kFloat);
  EXPECT_EQ(conv.sizes, (std::vector<int64_t>{8, 3, 3, 3}));
  EXPECT_EQ(conv.strides, (std::vector<int64_t>{27, 9, 3, 1}));
  EXPECT_TRUE(conv.is_param);
  const StoredTensor& tracked = sd28->tensors.at("bn1.num_batches_tracked");
  EXPECT_EQ(tracked.dtype, DataType::kInt64);
  EXPECT_TRUE(tracked.sizes.empty());
  EXPECT_FALSE(tracked.is_param);

  for (const auto& [fqn, t28] : sd28->tensors) {
    const StoredTensor& t27 = sd27->tensors.at(fqn);
    EXPECT_EQ(t27.sizes, t28.sizes) << fqn;
    EXPECT_EQ(Contents(t27.storage), Contents(t28.storage)) << fqn;
  }
  // weight_0 of the 2.15 archive is conv1.weight's raw storage.
  EXPECT_EQ(AsStringView(*zip215->Read("model/data/weights/weight_0")),
            Contents(conv.storage));
}

TEST(TorchSaveFixtureTest, SampleInputsAreArgsKwargsTuple) {
  absl::StatusOr<std::string> bytes = ReadFixture("mlp_dict_list");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<archive::ZipArchive> zip =
      archive::ZipArchive::Open(AsBytes(*bytes));
  ASSERT_TRUE(zip.ok());
  absl::StatusOr<TorchSaveFile> file =
      TorchSaveFile::Open(*zip->Read("model/data/sample_inputs/model.pt"));
  ASSERT_TRUE(file.ok()) << file.status();
  const PickleDocument& doc = file->pickle();
  EXPECT_EQ(doc.DebugString(doc.root()),
            "(({'a': tensor(float32, sizes=[2, 8], strides=[8, 1], offset=0, "
            "key='0'), 'b': tensor(float32, sizes=[2, 8], strides=[8, 1], "
            "offset=0, key='1')}, [tensor(float32, sizes=[2, 8], strides=[8, "
            "1], offset=0, key='2'), tensor(float32, sizes=[2, 8], "
            "strides=[8, 1], offset=0, key='3')]), {'bias': tensor(float32, "
            "sizes=[16], strides=[1], offset=0, key='4')})");
}

}  // namespace
}  // namespace pt2onnx::pt2
