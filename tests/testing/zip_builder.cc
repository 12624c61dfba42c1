#include "tests/testing/zip_builder.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/archive/crc32.h"
#include "core/archive/zip_reader.h"

namespace pt2onnx::testutil {
namespace {

void Put16(std::string& out, uint32_t v) {
  out.push_back(static_cast<char>(v & 0xFF));
  out.push_back(static_cast<char>((v >> 8) & 0xFF));
}
void Put32(std::string& out, uint32_t v) {
  Put16(out, v & 0xFFFF);
  Put16(out, v >> 16);
}
void Put64(std::string& out, uint64_t v) {
  Put32(out, static_cast<uint32_t>(v));
  Put32(out, static_cast<uint32_t>(v >> 32));
}

constexpr uint32_t kSaturated32 = 0xFFFFFFFF;

}  // namespace

ZipBuilderOptions ZipBuilderOptions::PyTorch(std::string root) {
  ZipBuilderOptions options;
  options.root = std::move(root);
  options.data_descriptors = true;
  options.alignment = 64;
  options.zip64_eocd = true;
  return options;
}

ZipBuilderOptions ZipBuilderOptions::PythonZipfile() {
  return ZipBuilderOptions();
}

ZipBuilder::ZipBuilder(ZipBuilderOptions options)
    : options_(std::move(options)) {}

ZipBuilder& ZipBuilder::Add(absl::string_view name, absl::string_view data) {
  return AddWithMethod(name, data, 0);
}

ZipBuilder& ZipBuilder::AddWithMethod(absl::string_view name,
                                      absl::string_view data,
                                      uint16_t method) {
  std::string full = options_.root.empty()
                         ? std::string(name)
                         : absl::StrCat(options_.root, "/", name);
  entries_.push_back(Entry{std::move(full), std::string(data), method});
  return *this;
}

ZipImage ZipBuilder::Build() const {
  ZipImage image;
  std::string& out = image.bytes;
  const uint16_t flags = options_.data_descriptors ? 0x0808 : 0;
  std::vector<uint32_t> crcs;

  for (const Entry& e : entries_) {
    const uint32_t crc = archive::Crc32(AsBytes(e.data));
    crcs.push_back(crc);
    image.local_header_offsets.push_back(out.size());
    std::string extra;
    if (options_.alignment > 0) {
      // PyTorchFileWriter's getPadding: the "FB" block is always present,
      // sized so that the data after it starts on an aligned offset.
      const uint64_t start = out.size() + 30 + e.name.size() + 4;
      const uint64_t mod = start % options_.alignment;
      const uint64_t pad = mod == 0 ? 0 : options_.alignment - mod;
      extra = "FB";
      Put16(extra, static_cast<uint32_t>(pad));
      extra.append(pad, 'Z');
    }
    Put32(out, 0x04034b50);
    Put16(out, 20);  // version needed
    Put16(out, flags);
    Put16(out, e.method);
    Put16(out, 0);  // time
    Put16(out, 0x21);  // date (1980-01-01)
    const bool dd = options_.data_descriptors;
    Put32(out, dd ? 0 : crc);
    Put32(out, dd ? 0 : static_cast<uint32_t>(e.data.size()));
    Put32(out, dd ? 0 : static_cast<uint32_t>(e.data.size()));
    Put16(out, static_cast<uint32_t>(e.name.size()));
    Put16(out, static_cast<uint32_t>(extra.size()));
    out += e.name;
    out += extra;
    image.data_offsets.push_back(out.size());
    out += e.data;
    if (dd) {
      Put32(out, 0x08074b50);
      Put32(out, crc);
      Put32(out, static_cast<uint32_t>(e.data.size()));
      Put32(out, static_cast<uint32_t>(e.data.size()));
    }
  }

  image.cd_offset = out.size();
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    std::string extra;
    if (options_.zip64_extras) {
      Put16(extra, 0x0001);
      Put16(extra, 24);
      Put64(extra, e.data.size());  // uncompressed
      Put64(extra, e.data.size());  // compressed
      Put64(extra, image.local_header_offsets[i]);
    }
    const bool z = options_.zip64_extras;
    Put32(out, 0x02014b50);
    Put16(out, 0x031E);  // made by: Unix, 3.0
    Put16(out, z ? 45 : 20);
    Put16(out, flags);
    Put16(out, e.method);
    Put16(out, 0);
    Put16(out, 0x21);
    Put32(out, crcs[i]);
    Put32(out, z ? kSaturated32 : static_cast<uint32_t>(e.data.size()));
    Put32(out, z ? kSaturated32 : static_cast<uint32_t>(e.data.size()));
    Put16(out, static_cast<uint32_t>(e.name.size()));
    Put16(out, static_cast<uint32_t>(extra.size()));
    Put16(out, 0);  // comment length
    Put16(out, 0);  // disk start
    Put16(out, 0);  // internal attributes
    Put32(out, 0);  // external attributes
    Put32(out, z ? kSaturated32
                 : static_cast<uint32_t>(image.local_header_offsets[i]));
    out += e.name;
    out += extra;
  }
  image.cd_size = out.size() - image.cd_offset;

  const uint64_t count = entries_.size();
  bool saturate = false;
  if (options_.zip64_eocd) {
    image.zip64_eocd_offset = out.size();
    Put32(out, 0x06064b50);
    Put64(out, 44);  // size of the rest of this record
    Put16(out, 45);
    Put16(out, 45);
    Put32(out, 0);  // this disk
    Put32(out, 0);  // central directory disk
    Put64(out, count);
    Put64(out, count);
    Put64(out, image.cd_size);
    Put64(out, image.cd_offset);
    Put32(out, 0x07064b50);  // locator
    Put32(out, 0);
    Put64(out, image.zip64_eocd_offset);
    Put32(out, 1);  // total disks
    saturate = options_.saturate_classic_eocd;
  }
  image.eocd_offset = out.size();
  Put32(out, 0x06054b50);
  Put16(out, 0);
  Put16(out, 0);
  Put16(out, saturate ? 0xFFFF : static_cast<uint32_t>(count));
  Put16(out, saturate ? 0xFFFF : static_cast<uint32_t>(count));
  Put32(out, saturate ? kSaturated32 : static_cast<uint32_t>(image.cd_size));
  Put32(out, saturate ? kSaturated32 : static_cast<uint32_t>(image.cd_offset));
  Put16(out, static_cast<uint32_t>(options_.comment.size()));
  out += options_.comment;
  return image;
}

}  // namespace pt2onnx::testutil
