// Tests for ops/resize.cc: resize_ to the same or fewer elements of a
// contiguous tensor reads the first elements in row-major order; growing
// (uninitialized memory in torch) and non-contiguous inputs are refused.
// Numerics: the OpInfo samples (tests/fixtures/opinfo/resize_, resize_as_).
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

ProgramBuilder Resize(std::vector<int64_t> from, std::vector<int64_t> to) {
  return OneNodeProgram({{"x", kF32, from}}, "resize_.default", {TensorArg("self", "x"), IntsArg("size", to)},
                        {{"y", kF32, to}});
}

TEST(Resize, ShrinksAndReshapes) {
  for (const ProgramBuilder& p : {Resize({5, 5, 5}, {25, 5}), Resize({2, 3}, {4}), Resize({}, {1, 1, 1})}) {
    pt2::ExportedProgram program = p.Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got));
  }
}

TEST(Resize, ResizeAsTakesTheTemplateSizes) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {2, 3}}, {"t", kF32, {3, 2}}}, "resize_as_.default",
                     {TensorArg("self", "x"), TensorArg("the_template", "t")}, {{"y", kF32, {3, 2}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(Resize, GrowingIsRefused) {
  EXPECT_TRUE(Rejects({"grow", Resize({2}, {3}), absl::StatusCode::kUnimplemented, "uninitialized"}));
}

}  // namespace
}  // namespace pt2onnx::testing
