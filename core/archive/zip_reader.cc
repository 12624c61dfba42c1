#include "core/archive/crc32.h"
#include "core/archive/zip_reader.h"
#include "core/archive/zip_records.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace pt2onnx::archive {
namespace {

// Replaces 0xFFFFFFFF fields with the values of the ZIP64 extra block
// (tag 0x0001), which lists only the saturated fields, in this order.
absl::Status ApplyZip64Extra(ByteSpan extra, uint64_t record_offset,
                             ZipEntry& entry) {
  const bool need_usize = entry.uncompressed_size == 0xFFFFFFFF;
  const bool need_csize = entry.compressed_size == 0xFFFFFFFF;
  const bool need_offset = entry.local_header_offset == 0xFFFFFFFF;
  if (!need_usize && !need_csize && !need_offset) return absl::OkStatus();
  size_t pos = 0;
  while (pos + 4 <= extra.size()) {
    const uint16_t tag = Le16(extra.data() + pos);
    const uint16_t len = Le16(extra.data() + pos + 2);
    pos += 4;
    if (len > extra.size() - pos) break;
    if (tag == kZip64ExtraTag) {
      const size_t needed =
          8 * (int{need_usize} + int{need_csize} + int{need_offset});
      if (len < needed) {
        return Malformed(absl::StrCat("entry '", entry.name,
                                      "': ZIP64 extra field has ", len,
                                      " bytes, needs ", needed),
                         record_offset);
      }
      const uint8_t* q = extra.data() + pos;
      if (need_usize) {
        entry.uncompressed_size = Le64(q);
        q += 8;
      }
      if (need_csize) {
        entry.compressed_size = Le64(q);
        q += 8;
      }
      if (need_offset) entry.local_header_offset = Le64(q);
      return absl::OkStatus();
    }
    pos += len;
  }
  return Malformed(absl::StrCat("entry '", entry.name,
                                "' has 32-bit sizes or offset saturated but no "
                                "ZIP64 extra field"),
                   record_offset);
}

// Decodes the record at `offset` in `cd`, the central directory, which
// starts at `cd_base` in the zip (for error offsets).
absl::StatusOr<ZipEntry> ReadCentralHeader(ByteSpan cd, uint64_t offset,
                                           uint64_t cd_base, uint64_t index) {
  const uint64_t limit = cd.size();
  if (!InRange(offset, kCentralHeaderSize, limit)) {
    return Malformed(absl::StrCat("central directory truncated in entry ",
                                  index),
                     cd_base + offset);
  }
  const uint8_t* p = cd.data() + offset;
  if (Le32(p) != kCentralHeaderSig) {
    return Malformed(absl::StrCat("bad signature for central directory entry ",
                                  index),
                     cd_base + offset);
  }
  const uint16_t name_len = Le16(p + 28);
  const uint16_t extra_len = Le16(p + 30);
  const uint16_t comment_len = Le16(p + 32);
  if (!InRange(offset + kCentralHeaderSize,
               uint64_t{name_len} + extra_len + comment_len, limit)) {
    return Malformed(absl::StrCat("central directory truncated in entry ",
                                  index, "'s name/extra/comment"),
                     cd_base + offset);
  }
  ZipEntry entry;
  entry.flags = Le16(p + 8);
  entry.method = Le16(p + 10);
  entry.crc32 = Le32(p + 16);
  entry.compressed_size = Le32(p + 20);
  entry.uncompressed_size = Le32(p + 24);
  entry.local_header_offset = Le32(p + 42);
  entry.central_header_offset = cd_base + offset;
  entry.name.assign(reinterpret_cast<const char*>(p + kCentralHeaderSize),
                    name_len);
  const ByteSpan extra = cd.subspan(offset + kCentralHeaderSize + name_len,
                                       extra_len);
  PT2ONNX_RETURN_IF_ERROR(ApplyZip64Extra(extra, cd_base + offset, entry));
  return entry;
}

}  // namespace

absl::StatusOr<ZipArchive> ZipArchive::Open(ByteSpan bytes) {
  return Open(std::make_shared<MemoryFile>(bytes));
}

absl::StatusOr<ZipArchive> ZipArchive::Open(std::shared_ptr<const InputFile> file) {
  const FileRange all{0, file->size()};
  return Open(std::move(file), all);
}

absl::StatusOr<ZipArchive> ZipArchive::Open(std::shared_ptr<const InputFile> file,
                                            FileRange window) {
  PT2ONNX_RETURN_IF_ERROR(file->CheckRange(window, "zip archive"));
  const WindowReader reader(*file, window);
  PT2ONNX_ASSIGN_OR_RETURN(EndRecord end, ReadEndRecord(reader));
  PT2ONNX_ASSIGN_OR_RETURN(ByteSpan cd, reader.Read(end.cd_offset, end.cd_size));
  ZipArchive zip;
  zip.file_ = std::move(file);
  zip.window_ = window;
  zip.entries_.reserve(end.entry_count);
  uint64_t offset = 0;
  for (uint64_t i = 0; i < end.entry_count; ++i) {
    PT2ONNX_ASSIGN_OR_RETURN(ZipEntry entry,
                             ReadCentralHeader(cd, offset, end.cd_offset, i));
    const uint8_t* p = cd.data() + offset;
    offset += kCentralHeaderSize + Le16(p + 28) + Le16(p + 30) + Le16(p + 32);
    zip.entries_.push_back(std::move(entry));
  }

  zip.by_name_.resize(zip.entries_.size());
  for (uint32_t i = 0; i < zip.by_name_.size(); ++i) zip.by_name_[i] = i;
  const std::vector<ZipEntry>& entries = zip.entries_;
  std::stable_sort(zip.by_name_.begin(), zip.by_name_.end(),
                   [&](uint32_t a, uint32_t b) {
                     return entries[a].name < entries[b].name;
                   });
  // Readers disagree on which duplicate wins (Python: last, miniz: first),
  // so an archive with duplicates is ambiguous; refuse it.
  for (size_t i = 1; i < zip.by_name_.size(); ++i) {
    const ZipEntry& e = entries[zip.by_name_[i]];
    if (e.name == entries[zip.by_name_[i - 1]].name) {
      return Malformed(absl::StrCat("duplicate entry name '", e.name, "'"),
                       e.central_header_offset);
    }
  }
  return zip;
}

const ZipEntry* ZipArchive::Find(absl::string_view name) const {
  auto it = std::lower_bound(
      by_name_.begin(), by_name_.end(), name,
      [&](uint32_t i, absl::string_view n) { return entries_[i].name < n; });
  if (it == by_name_.end() || entries_[*it].name != name) return nullptr;
  return &entries_[*it];
}

absl::StatusOr<uint64_t> ZipArchive::DataOffset(const ZipEntry& entry) const {
  const uint64_t offset = entry.local_header_offset;
  if (!InRange(offset, kLocalHeaderSize, window_.length)) {
    return Malformed(absl::StrCat("local header of entry '", entry.name,
                                  "' is past the end of the file"),
                     offset);
  }
  // One read of the header and the name the central directory expects, into
  // a local buffer, not InputFile::Read: a model has one header per weight,
  // and a streamed file would keep a copy of each.
  const uint64_t wanted = std::min<uint64_t>(kLocalHeaderSize + entry.name.size(),
                                             window_.length - offset);
  std::string header(static_cast<size_t>(wanted), '\0');
  PT2ONNX_RETURN_IF_ERROR(file_->ReadInto(
      window_.offset + offset, absl::MakeSpan(reinterpret_cast<uint8_t*>(header.data()), header.size())));
  const uint8_t* p = reinterpret_cast<const uint8_t*>(header.data());
  if (Le32(p) != kLocalHeaderSig) {
    return Malformed(
        absl::StrCat("bad local header signature for entry '", entry.name, "'"),
        offset);
  }
  const uint16_t name_len = Le16(p + 26);
  const uint16_t extra_len = Le16(p + 28);
  if (name_len != entry.name.size() || header.size() != kLocalHeaderSize + name_len ||
      absl::string_view(header).substr(kLocalHeaderSize) != entry.name) {
    return Malformed(absl::StrCat("local header name differs from central "
                                  "directory name '",
                                  entry.name, "'"),
                     offset);
  }
  return offset + kLocalHeaderSize + name_len + extra_len;
}

absl::StatusOr<FileRange> ZipArchive::Locate(const ZipEntry& entry) const {
  if (entry.method != 0) {
    return absl::UnimplementedError(absl::StrCat(
        "entry '", entry.name, "' is compressed (method ", entry.method,
        "); pt2onnx reads the uncompressed archives torch.export.save writes; "
        "re-save with torch.export.save"));
  }
  if (entry.flags & kFlagEncrypted) {
    return absl::UnimplementedError(
        absl::StrCat("entry '", entry.name, "' is encrypted"));
  }
  if (entry.compressed_size != entry.uncompressed_size) {
    return Malformed(absl::StrCat("stored entry '", entry.name,
                                  "' has compressed size ",
                                  entry.compressed_size,
                                  " != uncompressed size ",
                                  entry.uncompressed_size),
                     entry.central_header_offset);
  }
  PT2ONNX_ASSIGN_OR_RETURN(uint64_t data, DataOffset(entry));
  if (!InRange(data, entry.compressed_size, window_.length)) {
    return absl::OutOfRangeError(absl::StrCat(
        "zip entry '", entry.name, "': ", entry.compressed_size,
        " bytes of data at offset ", data, " run past the end of the ",
        window_.length, "-byte file (truncated download?)"));
  }
  return FileRange{window_.offset + data, entry.compressed_size};
}

absl::StatusOr<ByteSpan> ZipArchive::Read(const ZipEntry& entry) const {
  PT2ONNX_ASSIGN_OR_RETURN(FileRange range, Locate(entry));
  PT2ONNX_ASSIGN_OR_RETURN(ByteSpan data, file_->Read(range));
  PT2ONNX_RETURN_IF_ERROR(CheckCrc(entry, Crc32(data)));
  return data;
}

absl::StatusOr<ByteSpan> ZipArchive::Read(absl::string_view name) const {
  const ZipEntry* entry = Find(name);
  if (entry == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("zip archive has no entry '", name, "'"));
  }
  return Read(*entry);
}

}  // namespace pt2onnx::archive
