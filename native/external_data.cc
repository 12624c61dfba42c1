#include "native/external_data.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace pt2onnx::native {

absl::StatusOr<std::string> ExternalDataFiles::Read(const std::string& file, uint64_t offset, uint64_t length) {
  if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..") {
    return absl::InvalidArgumentError(absl::StrCat("external data '", file, "' is outside the model's folder"));
  }
  std::shared_ptr<FdInputFile>& data = opened_[file];
  if (data == nullptr) {
    absl::StatusOr<std::shared_ptr<FdInputFile>> open =
        FdInputFile::Open(folder_.empty() ? file : absl::StrCat(folder_, "/", file));
    if (!open.ok()) return open.status();
    data = *std::move(open);
  }
  if (offset > data->size() || length > data->size() - offset) {
    return absl::OutOfRangeError(
        absl::StrCat(file, " holds ", data->size(), " bytes; the model reads ", length, " at ", offset));
  }
  std::string bytes(length, '\0');
  absl::Status read = data->ReadInto(offset, absl::Span<uint8_t>(reinterpret_cast<uint8_t*>(bytes.data()), length));
  if (!read.ok()) return read;
  return bytes;
}

std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace pt2onnx::native
