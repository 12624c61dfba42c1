// Tests for ops/unique.cc: conversion with data-dependent sizes, and the
// refusals (float unique_dim, dim out of range). Numerics, NaNs included:
// tests/fixtures/ops/{unique,unique_consecutive}.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

ProgramBuilder UniqueDim(DataType dtype, int64_t dim) {
  return OneNodeProgram({{"x", dtype, {4, 3}}}, "unique_dim.default",
                        {TensorArg("self", "x"), IntArg("dim", dim),
                         BoolArg("return_counts", true)},
                        {{"v", dtype, {2, 3}}, {"v_unused_1", kI64, {0}}, {"c", kI64, {2}}});
}

TEST(Unique, ConvertsWithInferredRanks) {
  std::vector<ProgramBuilder> programs = {
      UniqueDim(kI64, 0),
      OneNodeProgram({{"x", kF32, {2, 3}}}, "_unique2.default",
                     {TensorArg("self", "x"), BoolArg("return_inverse", true)},
                     {{"v", kF32, {4}}, {"i", kI64, {2, 3}}, {"c_unused_2", kI64, {0}}}),
      OneNodeProgram({{"x", kI64, {2, 3}}}, "unique_consecutive.default",
                     {TensorArg("self", "x"), BoolArg("return_counts", true), IntArg("dim", 1)},
                     {{"v", kI64, {2, 2}}, {"i_unused_1", kI64, {0}}, {"c", kI64, {2}}}),
  };
  for (const ProgramBuilder& p : programs) {
    pt2::ExportedProgram program = p.Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  }
}

TEST(Unique, Refusals) {
  EXPECT_TRUE(HasStatus(ConvertAndCheck(UniqueDim(kF32, 0).Build()),
                        absl::StatusCode::kUnimplemented,
                        "unique_dim of a floating-point tensor"));
  EXPECT_TRUE(HasStatus(ConvertAndCheck(UniqueDim(kI64, 2).Build()),
                        absl::StatusCode::kInvalidArgument,
                        "dim of aten::unique_dim"));
}

}  // namespace
}  // namespace pt2onnx::testing
