// Tests for ops/incomplete_gamma.cc: igamma / igammac (and their in-place
// and special_ forms) convert to two float64 Loops (series, continued
// fraction) with the broadcast shape. Numerics: the OpInfo samples
// (tests/fixtures/opinfo/igamma, igammac) and the reference kernel tests.
#include <string>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

TEST(IncompleteGamma, Converts) {
  for (std::string overload : {"igamma.default", "igammac.default", "special_gammaincc.default"}) {
    pt2::ExportedProgram program =
        OneNodeProgram({{"a", kF32, {5, 1}}, {"x", kF32, {5}}}, overload,
                       {TensorArg("self", "a"), TensorArg("other", "x")}, {{"y", kF32, {5, 5}}})
            .Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << overload << ": " << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got)) << overload;
    EXPECT_NE(FindNode(got->model, "Loop"), nullptr);
  }
}

}  // namespace
}  // namespace pt2onnx::testing
