#include "tests/testing/fixtures.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace pt2onnx::testing {

std::optional<std::string> ReadFixture(absl::string_view name) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const std::string path = absl::StrCat(srcdir != nullptr ? srcdir : ".",
                                        "/pt2onnx/tests/fixtures/", name, "/model.pt2");
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

}  // namespace pt2onnx::testing
