#include "core/archive/crc32.h"
#include "core/archive/zip_reader.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/zip_builder.h"

namespace pt2onnx::archive {
namespace {

using testutil::ZipBuilder;
using testutil::ZipBuilderOptions;
using testutil::ZipImage;

using ::pt2onnx::testing::HasStatus;
using ::pt2onnx::testing::ReadFixture;

void SetLe32(std::string& bytes, uint64_t offset, uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    bytes[offset + i] = static_cast<char>(v >> (8 * i));
  }
}
void SetLe16(std::string& bytes, uint64_t offset, uint16_t v) {
  bytes[offset] = static_cast<char>(v);
  bytes[offset + 1] = static_cast<char>(v >> 8);
}

// Two entries with distinct contents, one of them empty.
ZipImage TwoEntries(const ZipBuilderOptions& options) {
  return ZipBuilder(options)
      .Add("data.pkl", "pickle-bytes")
      .Add("data/0", std::string(100, '\x7f'))
      .Add("empty", "")
      .Build();
}

TEST(ZipReaderTest, ReadsPyTorchWriterLayoutWithoutCopying) {
  const ZipImage image = TwoEntries(ZipBuilderOptions::PyTorch("archive"));
  absl::StatusOr<ZipArchive> zip = ZipArchive::Open(image.span());
  ASSERT_TRUE(zip.ok()) << zip.status();
  ASSERT_EQ(zip->entries().size(), 3u);
  EXPECT_EQ(zip->entries()[0].name, "archive/data.pkl");
  EXPECT_EQ(zip->entries()[0].flags, 0x0808);
  EXPECT_EQ(zip->entries()[1].uncompressed_size, 100u);

  absl::StatusOr<ByteSpan> data = zip->Read("archive/data/0");
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(AsStringView(*data), std::string(100, '\x7f'));
  // Zero copy: the span points into the input at the data offset.
  EXPECT_EQ(data->data(), image.span().data() + image.data_offsets[1]);

  for (const ZipEntry& e : zip->entries()) {
    absl::StatusOr<uint64_t> offset = zip->DataOffset(e);
    ASSERT_TRUE(offset.ok()) << offset.status();
    EXPECT_EQ(*offset % 64, 0u) << e.name;  // FB padding alignment
    EXPECT_TRUE(zip->VerifyCrc32(e).ok()) << e.name;
  }
  absl::StatusOr<ByteSpan> empty = zip->Read("archive/empty");
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->empty());
  EXPECT_EQ(AsStringView(*zip->Read("archive/data.pkl")), "pickle-bytes");
}

TEST(ZipReaderTest, ReadsPythonZipfileLayout) {
  const ZipImage image = TwoEntries(ZipBuilderOptions::PythonZipfile());
  absl::StatusOr<ZipArchive> zip = ZipArchive::Open(image.span());
  ASSERT_TRUE(zip.ok()) << zip.status();
  ASSERT_EQ(zip->entries().size(), 3u);
  EXPECT_EQ(zip->entries()[0].name, "data.pkl");
  EXPECT_EQ(zip->entries()[0].flags, 0);
  absl::StatusOr<ByteSpan> data = zip->Read("data.pkl");
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(AsStringView(*data), "pickle-bytes");
  EXPECT_EQ(data->data(), image.span().data() + image.data_offsets[0]);
  EXPECT_EQ(*zip->DataOffset(zip->entries()[0]), 30u + 8u);  // no padding
}

TEST(ZipReaderTest, UsesZip64RecordsAndPerEntryExtras) {
  ZipBuilderOptions options = ZipBuilderOptions::PyTorch("model");
  options.saturate_classic_eocd = true;  // only the ZIP64 EOCD is truthful
  options.zip64_extras = true;           // sizes/offsets only in extras
  const ZipImage image = TwoEntries(options);
  absl::StatusOr<ZipArchive> zip = ZipArchive::Open(image.span());
  ASSERT_TRUE(zip.ok()) << zip.status();
  ASSERT_EQ(zip->entries().size(), 3u);
  const ZipEntry* entry = zip->Find("model/data/0");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->compressed_size, 100u);
  EXPECT_EQ(entry->local_header_offset, image.local_header_offsets[1]);
  absl::StatusOr<ByteSpan> data = zip->Read(*entry);
  ASSERT_TRUE(data.ok()) << data.status();
  EXPECT_EQ(data->data(), image.span().data() + image.data_offsets[1]);
}

TEST(ZipReaderTest, ToleratesArchiveComment) {
  ZipBuilderOptions options = ZipBuilderOptions::PythonZipfile();
  // A comment that itself contains an EOCD signature must not fool the scan.
  options.comment = std::string("PK\x05\x06", 4) + "trailing comment";
  absl::StatusOr<ZipArchive> zip =
      ZipArchive::Open(TwoEntries(options).span());
  ASSERT_TRUE(zip.ok()) << zip.status();
  EXPECT_EQ(zip->entries().size(), 3u);
}

TEST(ZipReaderTest, FindIsExactAndReadByNameReportsMissing) {
  const ZipImage image = TwoEntries(ZipBuilderOptions::PyTorch("archive"));
  absl::StatusOr<ZipArchive> zip = ZipArchive::Open(image.span());
  ASSERT_TRUE(zip.ok());
  EXPECT_NE(zip->Find("archive/data.pkl"), nullptr);
  EXPECT_EQ(zip->Find("data.pkl"), nullptr);
  EXPECT_EQ(zip->Find("archive/data"), nullptr);
  EXPECT_TRUE(HasStatus(zip->Read("archive/nope").status(),
                        absl::StatusCode::kNotFound, "'archive/nope'"));
}

TEST(ZipReaderTest, RejectsEmptyAndNonZipInput) {
  EXPECT_TRUE(HasStatus(ZipArchive::Open(ByteSpan()).status(),
                        absl::StatusCode::kInvalidArgument, "not a zip"));
  std::string noise(4096, '\0');
  uint32_t x = 12345;
  for (char& c : noise) {
    x = x * 1103515245 + 12345;  // a fixed LCG: reproducible "random" bytes
    c = static_cast<char>(x >> 16);
  }
  EXPECT_TRUE(HasStatus(ZipArchive::Open(AsBytes(noise)).status(),
                        absl::StatusCode::kInvalidArgument,
                        "no end-of-central-directory record"));
}

TEST(ZipReaderTest, RejectsTruncatedCentralDirectory) {
  ZipImage image = TwoEntries(ZipBuilderOptions::PythonZipfile());
  // The end record now claims a directory shorter than its 3 entries.
  SetLe32(image.bytes, image.eocd_offset + 12,
          static_cast<uint32_t>(image.cd_size - 10));
  EXPECT_TRUE(HasStatus(ZipArchive::Open(image.span()).status(),
                        absl::StatusCode::kInvalidArgument,
                        "central directory truncated in entry 2"));

  // A file cut in the middle of its central directory has no end record.
  const ZipImage whole = TwoEntries(ZipBuilderOptions::PythonZipfile());
  const std::string cut = whole.bytes.substr(0, whole.cd_offset + 20);
  EXPECT_TRUE(HasStatus(ZipArchive::Open(AsBytes(cut)).status(),
                        absl::StatusCode::kInvalidArgument, "not a zip"));
}

TEST(ZipReaderTest, RejectsEndRecordPointingPastTheEnd) {
  ZipImage image = TwoEntries(ZipBuilderOptions::PythonZipfile());
  SetLe32(image.bytes, image.eocd_offset + 16, 0x7FFFFFF0);
  EXPECT_TRUE(HasStatus(ZipArchive::Open(image.span()).status(),
                        absl::StatusCode::kInvalidArgument,
                        "runs past the end records"));

  ZipImage z64 = TwoEntries(ZipBuilderOptions::PyTorch("archive"));
  SetLe32(z64.bytes, z64.eocd_offset - 20 + 8, 0x7FFFFFF0);  // locator
  EXPECT_TRUE(HasStatus(ZipArchive::Open(z64.span()).status(),
                        absl::StatusCode::kInvalidArgument, "ZIP64 locator"));
}

TEST(ZipReaderTest, EntryDataPastTheEndIsOutOfRange) {
  ZipImage image = TwoEntries(ZipBuilderOptions::PythonZipfile());
  // Central record of entry 1: sizes at +20 / +24.
  const uint64_t record = image.cd_offset + 46 + 8;  // after entry 0's name
  SetLe32(image.bytes, record + 20, 1 << 20);
  SetLe32(image.bytes, record + 24, 1 << 20);
  absl::StatusOr<ZipArchive> zip = ZipArchive::Open(image.span());
  ASSERT_TRUE(zip.ok()) << zip.status();
  EXPECT_TRUE(HasStatus(zip->Read("data/0").status(),
                        absl::StatusCode::kOutOfRange, "'data/0'"));
}

TEST(ZipReaderTest, CompressedEntryIsUnimplemented) {
  const ZipImage image = ZipBuilder(ZipBuilderOptions::PythonZipfile())
                             .AddWithMethod("weights", "xx", 8)
                             .Build();
  absl::StatusOr<ZipArchive> zip = ZipArchive::Open(image.span());
  ASSERT_TRUE(zip.ok()) << zip.status();
  EXPECT_EQ(zip->entries()[0].method, 8);
  const absl::Status status = zip->Read("weights").status();
  EXPECT_TRUE(HasStatus(status, absl::StatusCode::kUnimplemented,
                        "entry 'weights' is compressed (method 8)"));
  EXPECT_TRUE(HasStatus(status, absl::StatusCode::kUnimplemented,
                        "re-save with torch.export.save"));
}

TEST(ZipReaderTest, RejectsBadLocalHeader) {
  ZipImage image = TwoEntries(ZipBuilderOptions::PyTorch("archive"));
  SetLe32(image.bytes, image.local_header_offsets[1], 0xDEADBEEF);
  absl::StatusOr<ZipArchive> zip = ZipArchive::Open(image.span());
  ASSERT_TRUE(zip.ok()) << zip.status();
  EXPECT_TRUE(HasStatus(zip->Read("archive/data/0").status(),
                        absl::StatusCode::kInvalidArgument,
                        absl::StrCat("bad local header signature for entry "
                                     "'archive/data/0' at offset ",
                                     image.local_header_offsets[1])));
}

TEST(ZipReaderTest, RejectsDuplicateNames) {
  const ZipImage image = ZipBuilder(ZipBuilderOptions::PythonZipfile())
                             .Add("a", "1")
                             .Add("a", "2")
                             .Build();
  EXPECT_TRUE(HasStatus(ZipArchive::Open(image.span()).status(),
                        absl::StatusCode::kInvalidArgument,
                        "duplicate entry name 'a'"));
}

TEST(ZipReaderTest, MultiDiskIsUnimplemented) {
  ZipImage image = TwoEntries(ZipBuilderOptions::PythonZipfile());
  SetLe16(image.bytes, image.eocd_offset + 4, 1);
  EXPECT_TRUE(HasStatus(ZipArchive::Open(image.span()).status(),
                        absl::StatusCode::kUnimplemented, "multi-disk"));
}

TEST(ZipReaderTest, VerifyCrc32DetectsCorruption) {
  ZipImage image = TwoEntries(ZipBuilderOptions::PyTorch("archive"));
  image.bytes[image.data_offsets[0]] ^= 1;
  absl::StatusOr<ZipArchive> zip = ZipArchive::Open(image.span());
  ASSERT_TRUE(zip.ok());
  EXPECT_TRUE(HasStatus(zip->VerifyCrc32(zip->entries()[0]),
                        absl::StatusCode::kDataLoss, "CRC-32"));
}

TEST(ZipReaderTest, Crc32MatchesReferenceValue) {
  EXPECT_EQ(Crc32(AsBytes("123456789")), 0xCBF43926u);
  EXPECT_EQ(Crc32(AsBytes("6789"), Crc32(AsBytes("12345"))), 0xCBF43926u);
  EXPECT_EQ(Crc32(ByteSpan()), 0u);
}

// Long spans take the carry-less-multiply path where the CPU has it: every
// length and misalignment around its block sizes, and pieces fed in turn,
// must give the bit-by-bit definition's value.
TEST(ZipReaderTest, Crc32OfLongSpansMatchesBitwiseDefinition) {
  auto bitwise = [](const uint8_t* p, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
      crc ^= p[i];
      for (int k = 0; k < 8; ++k) crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
    return ~crc;
  };
  std::vector<uint8_t> data(5000);
  uint32_t state = 12345;
  for (uint8_t& b : data) {
    state = state * 1103515245u + 12345u;
    b = static_cast<uint8_t>(state >> 16);
  }
  for (size_t offset : {0, 1, 7, 15}) {
    for (size_t length = 0; length < 300; ++length) {
      ASSERT_EQ(Crc32(ByteSpan(data.data() + offset, length)), bitwise(data.data() + offset, length))
          << "offset " << offset << " length " << length;
    }
    const size_t length = data.size() - offset;
    EXPECT_EQ(Crc32(ByteSpan(data.data() + offset, length)), bitwise(data.data() + offset, length));
  }
  const uint32_t first = Crc32(ByteSpan(data.data(), 1003));
  EXPECT_EQ(Crc32(ByteSpan(data.data() + 1003, data.size() - 1003), first),
            bitwise(data.data(), data.size()));
}

TEST(ZipReaderFixtureTest, OpensTorchWrittenArchives) {
  struct Case {
    const char* fixture;
    const char* marker;  // an entry that identifies the container
    bool aligned;        // PyTorchFileWriter (64-byte data) vs Python zipfile
  };
  const Case cases[] = {{"cnn", "model/archive_format", true},
                        {"strided_weights", "model/archive_format", true},
                        {"cnn_torch28", "model/archive_format", true},
                        {"cnn_torch27", "version", false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.fixture);
    absl::StatusOr<std::string> bytes = ReadFixture(c.fixture);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    absl::StatusOr<ZipArchive> zip = ZipArchive::Open(AsBytes(*bytes));
    ASSERT_TRUE(zip.ok()) << zip.status();
    const ZipEntry* marker = zip->Find(c.marker);
    ASSERT_NE(marker, nullptr);
    if (c.aligned) {
      EXPECT_EQ(AsStringView(*zip->Read(*marker)), "pt2");
      EXPECT_EQ(marker->flags, 0x0808);
    }
    for (const ZipEntry& e : zip->entries()) {
      absl::StatusOr<uint64_t> offset = zip->DataOffset(e);
      ASSERT_TRUE(offset.ok()) << offset.status();
      if (c.aligned) {
        EXPECT_EQ(*offset % 64, 0u) << e.name;
      }
      EXPECT_TRUE(zip->VerifyCrc32(e).ok()) << e.name;
    }
  }
}

}  // namespace
}  // namespace pt2onnx::archive
