#include "runtime/npz/npz.h"

#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/archive/crc32.h"
#include "core/archive/zip_reader.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

struct Descr {
  const char* text;
  DataType dtype;
};
constexpr Descr kDescrs[] = {
    {"|b1", DataType::kBool},    {"|i1", DataType::kInt8},     {"|u1", DataType::kUint8},
    {"<i2", DataType::kInt16},   {"<u2", DataType::kUint16},   {"<i4", DataType::kInt32},
    {"<u4", DataType::kUint32},  {"<i8", DataType::kInt64},    {"<u8", DataType::kUint64},
    {"<f2", DataType::kFloat16}, {"<f4", DataType::kFloat},    {"<f8", DataType::kDouble},
    // ml_dtypes.bfloat16 as numpy.save writes it (npz.h).
    {"<V2", DataType::kBFloat16},
};

absl::Status Bad(const std::string& what) { return absl::InvalidArgumentError("npy: " + what); }

// The value text of `key` in the header dict ("{'descr': '<f4', ...}").
absl::StatusOr<std::string> DictValue(absl::string_view header, absl::string_view key) {
  std::string quoted = absl::StrCat("'", key, "':");
  size_t at = header.find(quoted);
  if (at == absl::string_view::npos) return Bad(absl::StrCat("header has no '", key, "'"));
  absl::string_view rest = absl::StripLeadingAsciiWhitespace(header.substr(at + quoted.size()));
  size_t end;
  if (!rest.empty() && rest[0] == '(') end = rest.find(')') + 1;
  else if (!rest.empty() && rest[0] == '\'') end = rest.find('\'', 1) + 1;
  else end = rest.find_first_of(",}");
  if (end == 0 || end == absl::string_view::npos) return Bad("malformed header");
  return std::string(rest.substr(0, end));
}

uint32_t Crc32(const uint8_t* data, size_t n) {
  static uint32_t table[256];
  static bool ready = false;
  if (!ready) {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
    ready = true;
  }
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

void Put16(std::string& s, uint32_t v) { s.push_back(v & 0xFF); s.push_back((v >> 8) & 0xFF); }
void Put32(std::string& s, uint32_t v) { Put16(s, v & 0xFFFF); Put16(s, v >> 16); }

}  // namespace

absl::StatusOr<Tensor> ReadNpy(ByteSpan bytes) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) return Bad("not a .npy file");
  const int major = bytes[6];
  size_t header_len, offset;
  if (major == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Bad("truncated header");
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | (static_cast<size_t>(bytes[11]) << 24);
    offset = 12;
  } else {
    return Bad(absl::StrCat("unsupported format version ", major));
  }
  if (header_len > bytes.size() - offset) return Bad("truncated header");
  absl::string_view header = AsStringView(bytes.subspan(offset, header_len));
  PT2ONNX_ASSIGN_OR_RETURN(std::string descr, DictValue(header, "descr"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string fortran, DictValue(header, "fortran_order"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape_text, DictValue(header, "shape"));
  if (fortran != "False") return Bad("Fortran-order arrays are not supported");
  DataType dtype = DataType::kUndefined;
  std::string d = absl::StrCat(absl::StripPrefix(absl::StripSuffix(descr, "'"), "'"));
  if (d.size() == 3 && d[0] == '=') d[0] = '<';
  if (d == "<b1" || d == "=b1") d = "|b1";
  if (d == "<i1") d = "|i1";
  if (d == "<u1") d = "|u1";
  if (d == "|V2") d = "<V2";  // np.load's view of a saved bfloat16 array, saved again
  if (d == "<V1" || d == "|V1") {
    return Bad("1-byte raw values ('" + d + "', how numpy.save writes ml_dtypes float8 arrays) do not say which "
               "float8 format they hold; save them as float32");
  }
  for (const Descr& e : kDescrs) if (d == e.text) dtype = e.dtype;
  if (dtype == DataType::kUndefined) return Bad("unsupported dtype '" + d + "' (big-endian, structured or object)");
  Dims dims;
  absl::string_view inner = absl::StripSuffix(absl::StripPrefix(shape_text, "("), ")");
  for (absl::string_view part : absl::StrSplit(inner, ',', absl::SkipWhitespace())) {
    int64_t v;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &v) || v < 0) return Bad("bad shape " + shape_text);
    dims.push_back(v);
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, dims, nullptr));
  const size_t data_at = offset + header_len;
  if (bytes.size() - data_at != t.byte_size()) {
    return Bad(absl::StrCat("data holds ", bytes.size() - data_at, " bytes, shape ", DimsString(dims), " needs ",
                            t.byte_size()));
  }
  if (t.byte_size() > 0) std::memcpy(t.raw(), bytes.data() + data_at, t.byte_size());
  return t;
}

absl::StatusOr<std::string> WriteNpy(const Tensor& tensor) {
  const char* descr = nullptr;
  for (const Descr& e : kDescrs) if (e.dtype == tensor.dtype()) descr = e.text;
  if (descr == nullptr) {
    return absl::UnimplementedError(absl::StrCat("npy: cannot write dtype ", DataTypeName(tensor.dtype()),
                                                 " (no NumPy form); cast the output to float32 in the model"));
  }
  std::string shape = "(";
  for (int64_t d : tensor.dims()) absl::StrAppend(&shape, d, ", ");
  if (tensor.rank() > 1) shape.resize(shape.size() - 2);
  if (tensor.rank() == 1) shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Pad so the data starts at a multiple of 64 bytes, ending with '\n'.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  Put16(out, static_cast<uint32_t>(header.size()));
  out += header;
  out.append(reinterpret_cast<const char*>(tensor.raw()), tensor.byte_size());
  return out;
}

absl::StatusOr<std::vector<NamedTensor>> ReadNpz(ByteSpan bytes) {
  auto zip = archive::ZipArchive::Open(bytes);
  if (!zip.ok()) return absl::InvalidArgumentError(absl::StrCat("npz: ", zip.status().message()));
  std::vector<NamedTensor> arrays;
  for (const archive::ZipEntry& entry : zip->entries()) {
    auto data = zip->Read(entry);
    if (!data.ok()) return absl::InvalidArgumentError(absl::StrCat("npz: ", data.status().message()));
    auto t = ReadNpy(*data);
    if (!t.ok()) return absl::Status(t.status().code(), absl::StrCat(entry.name, ": ", t.status().message()));
    arrays.push_back({std::string(absl::StripSuffix(entry.name, ".npy")), std::move(*t)});
  }
  return arrays;
}

absl::StatusOr<std::string> WriteNpz(const std::vector<NamedTensor>& arrays) {
  std::string out, central;
  for (const NamedTensor& a : arrays) {
    auto npy = WriteNpy(a.tensor);
    if (!npy.ok()) return absl::Status(npy.status().code(), absl::StrCat(a.name, ": ", npy.status().message()));
    const std::string name = a.name + ".npy";
    if (npy->size() >= 0xFFFFFFFFu || out.size() >= 0xFFFFFFFFu) {
      return absl::UnimplementedError("npz: arrays over 4 GiB need ZIP64, not written");
    }
    const uint32_t crc = Crc32(reinterpret_cast<const uint8_t*>(npy->data()), npy->size());
    const uint32_t local_offset = static_cast<uint32_t>(out.size());
    auto header = [&](std::string& s, bool central_record) {
      Put32(s, central_record ? 0x02014b50 : 0x04034b50);
      if (central_record) Put16(s, 20);  // version made by
      Put16(s, 20);                      // version needed
      Put16(s, 0);                       // flags
      Put16(s, 0);                       // STORED
      Put16(s, 0);                       // time
      Put16(s, 0x21);                    // date (1980-01-01)
      Put32(s, crc);
      Put32(s, static_cast<uint32_t>(npy->size()));
      Put32(s, static_cast<uint32_t>(npy->size()));
      Put16(s, static_cast<uint32_t>(name.size()));
      Put16(s, 0);  // extra
      if (central_record) {
        Put16(s, 0);  // comment
        Put16(s, 0);  // disk
        Put16(s, 0);  // internal attrs
        Put32(s, 0);  // external attrs
        Put32(s, local_offset);
      }
      s += name;
    };
    header(out, false);
    out += *npy;
    header(central, true);
  }
  const uint32_t central_offset = static_cast<uint32_t>(out.size());
  out += central;
  Put32(out, 0x06054b50);
  Put16(out, 0);
  Put16(out, 0);
  Put16(out, static_cast<uint32_t>(arrays.size()));
  Put16(out, static_cast<uint32_t>(arrays.size()));
  Put32(out, static_cast<uint32_t>(central.size()));
  Put32(out, central_offset);
  Put16(out, 0);
  return out;
}

}  // namespace pt2onnx::runtime
