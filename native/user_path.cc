#include "native/user_path.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace pt2onnx::native {

std::string ResolvePath(const std::string& path) {
  const char* cwd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (cwd == nullptr || path.empty() || path[0] == '/') return path;
  return absl::StrCat(cwd, "/", path);
}

}  // namespace pt2onnx::native
