// File: tests/testing/fixtures.h
// -----------------------------------------------------------------------------
// The one way tests reach the committed torch fixtures (tests/fixtures/): the
// test's runfiles tree, so a cc_test needs
//   data = ["//tests/fixtures:pt2_files"]
#ifndef PT2ONNX_TESTS_TESTING_FIXTURES_H_
#define PT2ONNX_TESTS_TESTING_FIXTURES_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace pt2onnx::testing {

// Bytes of tests/fixtures/<name>/model.pt2, or nullopt when the file is not
// in the runfiles (a test built without the data, or run under node).
std::optional<std::string> ReadFixture(absl::string_view name);

}  // namespace pt2onnx::testing

#endif  // PT2ONNX_TESTS_TESTING_FIXTURES_H_
