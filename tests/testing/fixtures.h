// File: tests/testing/fixtures.h
// -----------------------------------------------------------------------------
// The one way tests reach the committed torch fixtures (tests/fixtures/): the
// test's runfiles tree, so a cc_test needs
//   data = ["//tests/fixtures:pt2_files"]
// Natively and under node alike (the WebAssembly test binaries link with
// NODERAWFS, tools/toolchain/wasm/node_test.bzl): a fixture that cannot be read
// is an error the test asserts on, never a reason to skip.
#ifndef PT2ONNX_TESTS_TESTING_FIXTURES_H_
#define PT2ONNX_TESTS_TESTING_FIXTURES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pt2onnx::testing {

// Bytes of tests/fixtures/<name>/model.pt2, or NotFound naming the path tried
// (a test built without the data, a wasm test linked without NODERAWFS).
absl::StatusOr<std::string> ReadFixture(absl::string_view name);

}  // namespace pt2onnx::testing

#endif  // PT2ONNX_TESTS_TESTING_FIXTURES_H_
