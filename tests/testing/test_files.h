// File: tests/testing/test_files.h
// -----------------------------------------------------------------------------
// Scratch files for the tests of OS-facing code (tests/native/): the folder
// Bazel gives each test, and a whole file read back.
#ifndef PT2ONNX_TESTS_TESTING_TEST_FILES_H_
#define PT2ONNX_TESTS_TESTING_TEST_FILES_H_

#include <string>

namespace pt2onnx::testing {

// $TEST_TMPDIR, or /tmp outside Bazel.
std::string TestTempDir();

// The bytes of the file at `path`; empty when it cannot be read.
std::string ReadWholeFile(const std::string& path);

}  // namespace pt2onnx::testing

#endif  // PT2ONNX_TESTS_TESTING_TEST_FILES_H_
