#include "tests/testing/fixtures.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pt2onnx::testing {

absl::StatusOr<std::string> ReadFixture(absl::string_view name) {
  // Bazel runs a test in $TEST_SRCDIR/<workspace>. Emscripten's getenv does not
  // see node's environment, so there the path is relative to that folder (the
  // working directory NODERAWFS passes through).
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const std::string path = srcdir != nullptr
                               ? absl::StrCat(srcdir, "/pt2onnx/tests/fixtures/", name, "/model.pt2")
                               : absl::StrCat("tests/fixtures/", name, "/model.pt2");
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(absl::StrCat("cannot read fixture ", path,
                                            ": add //tests/fixtures:pt2_files to the test's data"));
  }
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

}  // namespace pt2onnx::testing
