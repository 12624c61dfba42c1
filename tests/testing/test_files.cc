#include "tests/testing/test_files.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace pt2onnx::testing {

std::string TestTempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir != nullptr ? dir : "/tmp";
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

}  // namespace pt2onnx::testing
