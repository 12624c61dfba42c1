// File: tests/testing/status_matchers.h
// -----------------------------------------------------------------------------
// Status checks for tests, shaped like absl's `StatusIs(code, HasSubstr(...))`
// (absl/status/status_matchers.h, which post-dates our abseil pin) but as
// ::testing::AssertionResult predicates, because we build googletest without
// gmock. Upgrading is mechanical:
//   EXPECT_TRUE(HasStatus(s, code, "needle"))
//   -> EXPECT_THAT(s, StatusIs(code, HasSubstr("needle")))
//
//   absl::StatusOr<Converted> got = ConvertAndCheck(program);
//   EXPECT_TRUE(HasStatus(got, absl::StatusCode::kUnimplemented, "aten::foo"));
//
// There is deliberately no "not OK" predicate (the house rule for tests): an
// error test names the code it expects and a piece of the message, so a test
// that starts failing for another reason does not keep passing.
#ifndef PT2ONNX_TESTS_TESTING_STATUS_MATCHERS_H_
#define PT2ONNX_TESTS_TESTING_STATUS_MATCHERS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"

namespace pt2onnx::testing {

// HasStatus(status, code, needle) succeeds when `status` has `code` and its
// message contains `needle`; the failure message shows the status it got.
inline ::testing::AssertionResult HasStatus(const absl::Status& status, absl::StatusCode code,
                                            absl::string_view needle) {
  if (status.code() == code && absl::StrContains(status.message(), needle)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << status << "; want "
                                       << absl::StatusCodeToString(code) << " containing '"
                                       << needle << "'";
}

// The same for the status of a StatusOr (an OK one fails unless `code` is kOk).
template <typename T>
::testing::AssertionResult HasStatus(const absl::StatusOr<T>& status_or, absl::StatusCode code,
                                     absl::string_view needle) {
  return HasStatus(status_or.status(), code, needle);
}

}  // namespace pt2onnx::testing

#endif  // PT2ONNX_TESTS_TESTING_STATUS_MATCHERS_H_
