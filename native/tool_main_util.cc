#include "native/tool_main_util.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "native/atomic_file.h"
#include "native/mapped_file.h"
#include "native/user_path.h"

namespace pt2onnx::native {

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnimplemented: return 5;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kDataLoss:
    case absl::StatusCode::kResourceExhausted: return 4;
    default: return 1;
  }
}

int ToolMessages::Fail(int code, absl::string_view message) const {
  std::fprintf(stderr, "%s: error: %.*s\n", tool_, static_cast<int>(message.size()), message.data());
  return code;
}

int ToolMessages::ReadNpzFile(const std::string& path, std::vector<NamedTensor>& tensors) const {
  auto file = MappedFile::Open(ResolvePath(path));
  if (!file.ok()) return Fail(3, file.status().message());
  auto read = DecodeNpz(file->bytes());
  if (!read.ok()) return Fail(4, absl::StrCat(path, ": ", read.status().message()));
  tensors = *std::move(read);
  return 0;
}

int ToolMessages::WriteNpzFile(const std::string& path, const std::vector<NamedTensor>& tensors) const {
  auto bytes = EncodeNpz(tensors);
  if (!bytes.ok()) return Fail(ExitCodeFor(bytes.status()), bytes.status().message());
  auto file = AtomicFile::Create(ResolvePath(path));
  if (!file.ok()) return Fail(3, file.status().message());
  absl::Status written = (*file)->Write(AsBytes(*bytes));
  if (written.ok()) written = (*file)->Commit();
  if (!written.ok()) return Fail(3, written.message());
  return 0;
}

void PrintTensorSummaries(const std::vector<NamedTensor>& tensors) {
  for (const NamedTensor& t : tensors) {
    std::printf("%s %s %s\n", t.name.c_str(), std::string(DataTypeName(t.tensor.dtype())).c_str(),
                DimsString(t.tensor.dims()).c_str());
  }
}

}  // namespace pt2onnx::native
