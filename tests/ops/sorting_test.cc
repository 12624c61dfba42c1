// Tests for ops/sorting.cc: graph structure of the stable order (one TopK for
// integer keys, two for float keys, where NaN is a second key), dtypes of the
// outputs, and the error paths. Numerics: tests/fixtures/ops/sort,
// sort_stable, topk, topk_dynamic_k.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

TEST(Sort, IntegerKeysNeedOneTopK) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kI64, {3, 5}}}, "sort.default",
                     {TensorArg("self", "x"), IntArg("dim", 1), BoolArg("descending", true)},
                     {{"values", kI64, {3, 5}}, {"indices", kI64, {3, 5}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, {"TopK", "GatherElements"}));
}

TEST(Sort, FloatKeysOrderNaNWithASecondTopK) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF16, {4}}}, "argsort.stable",
                     {TensorArg("self", "x"), BoolArg("stable", true)}, {{"y", kI64, {4}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, {"Cast", "IsNaN", "Where", "TopK", "Cast", "GatherElements",
                                      "TopK", "GatherElements"}));
}

TEST(Sort, ScalarInputHasIndexZero) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {}}}, "sort.default", {TensorArg("self", "x")},
                     {{"values", kF32, {}}, {"indices", kI64, {}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(Sort, DimOutOfRangeIsInvalid) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kF32, {3}}}, "argsort.default",
                     {TensorArg("self", "x"), IntArg("dim", 1)}, {{"y", kI64, {3}}})
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kInvalidArgument,
                        "dim of aten::argsort.default"));
}

TEST(Sort, UnorderableDtypeIsRefused) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", DataType::kUint64, {3}}}, "msort.default", {TensorArg("self", "x")},
                     {{"y", DataType::kUint64, {3}}})
          .Build();
  EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kUnimplemented,
                        "ordering uint64"));
}

TEST(Topk, KBeyondTheDimensionIsInvalid) {
  for (int64_t k : {-1, 6}) {
    pt2::ExportedProgram program =
        OneNodeProgram({{"x", kF32, {2, 5}}}, "topk.default",
                       {TensorArg("self", "x"), IntArg("k", k)},
                       {{"values", kF32, {2, 5}}, {"indices", kI64, {2, 5}}})
            .Build();
    EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kInvalidArgument,
                          "out of range"))
        << k;
  }
}

TEST(Topk, SmallestThreeOfInt32AlongDimZero) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kI32, {5, 2}}}, "topk.default",
                     {TensorArg("self", "x"), IntArg("k", 3), IntArg("dim", 0),
                      BoolArg("largest", false)},
                     {{"values", kI32, {3, 2}}, {"indices", kI64, {3, 2}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
  EXPECT_TRUE(OpTypesAre(got->model, {"TopK", "GatherElements"}));
}

TEST(Kthvalue, KOutsideOneToSizeIsInvalid) {
  for (int64_t k : {0, 6}) {
    pt2::ExportedProgram program =
        OneNodeProgram({{"x", kF32, {2, 5}}}, "kthvalue.default",
                       {TensorArg("self", "x"), IntArg("k", k)},
                       {{"values", kF32, {2}}, {"indices", kI64, {2}}})
            .Build();
    EXPECT_TRUE(HasStatus(ConvertAndCheck(program), absl::StatusCode::kInvalidArgument,
                          "out of range"))
        << k;
  }
}

TEST(Median, AllElementsGiveAScalar) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kI32, {3, 4}}}, "median.default", {TensorArg("self", "x")},
                     {{"y", kI32, {}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

TEST(Mode, ValuesKeepTheDtypeIndicesAreInt64) {
  pt2::ExportedProgram program =
      OneNodeProgram({{"x", kI32, {3, 6}}}, "mode.default",
                     {TensorArg("self", "x"), IntArg("dim", 0), BoolArg("keepdim", true)},
                     {{"values", kI32, {1, 6}}, {"indices", kI64, {1, 6}}})
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got));
}

}  // namespace
}  // namespace pt2onnx::testing
