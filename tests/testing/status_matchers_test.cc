#include "tests/testing/status_matchers.h"

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace pt2onnx::testing {
namespace {

TEST(HasStatusTest, NeedsTheCodeAndTheSubstring) {
  const absl::Status s = absl::UnimplementedError("aten::foo.default has no translation");
  EXPECT_TRUE(HasStatus(s, absl::StatusCode::kUnimplemented, "aten::foo"));
  EXPECT_FALSE(HasStatus(s, absl::StatusCode::kInvalidArgument, "aten::foo"));
  EXPECT_FALSE(HasStatus(s, absl::StatusCode::kUnimplemented, "aten::bar"));
}

TEST(HasStatusTest, OkIsNotAnError) {
  EXPECT_FALSE(HasStatus(absl::OkStatus(), absl::StatusCode::kUnknown, ""));
  EXPECT_FALSE(HasStatus(absl::StatusOr<int>(3), absl::StatusCode::kInvalidArgument, ""));
}

TEST(HasStatusTest, StatusOrUsesItsStatus) {
  absl::StatusOr<std::string> got = absl::NotFoundError("no entry 'data/0'");
  EXPECT_TRUE(HasStatus(got, absl::StatusCode::kNotFound, "'data/0'"));
  ::testing::AssertionResult r = HasStatus(got, absl::StatusCode::kOutOfRange, "data");
  EXPECT_FALSE(r);
  EXPECT_EQ(std::string(r.message()),
            "got NOT_FOUND: no entry 'data/0'; want OUT_OF_RANGE containing 'data'");
}

}  // namespace
}  // namespace pt2onnx::testing
