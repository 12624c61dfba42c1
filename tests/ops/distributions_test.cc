// Tests for ops/distributions.cc, ops/fractional_pooling.cc and
// empty_permuted (ops/creation.cc): every overload converts, passes the ONNX
// checker and strict shape inference with the FX shapes and dtypes, and
// draws (RandomUniformLike / RandomNormalLike) where torch draws; bad
// parameters are refused as torch refuses them. The draws' distributions:
// distribution_draws_test.cc.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/ir/graph.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

struct DrawCase {
  std::string name;
  ProgramBuilder program;
  std::string draw;  // the draw op expected in the graph ("" for none)
};

ProgramBuilder OnSelf(std::string overload, std::vector<pt2::NamedArgument> args, DataType dtype = kF32,
                      std::vector<int64_t> shape = {3, 4}) {
  args.insert(args.begin(), TensorArg("self", "x"));
  return OneNodeProgram({{"x", dtype, shape}}, overload, std::move(args), {{"y", dtype, shape}});
}

std::vector<DrawCase> DrawCases() {
  const char* kU = "RandomUniformLike";
  const char* kN = "RandomNormalLike";
  return {
      {"bernoulli", OnSelf("bernoulli.default", {}), kU},
      {"bernoulli_0d", OnSelf("bernoulli.default", {}, kF32, {}), kU},
      {"bernoulli_empty", OnSelf("bernoulli.default", {}, kF32, {0, 3}), kU},
      {"bernoulli_p", OnSelf("bernoulli.p", {FloatArg("p", 0.3)}, kF64), kU},
      {"bernoulli_inplace_float", OnSelf("bernoulli_.float", {FloatArg("p", 0.3)}), kU},
      {"bernoulli_inplace_default_p", OnSelf("bernoulli_.float", {}), kU},
      {"bernoulli_tensor",
       OneNodeProgram({{"x", kF32, {3, 4}}, {"p", kF32, {4}}}, "bernoulli.Tensor",
                      {TensorArg("self", "x"), TensorArg("p", "p")}, {{"y", kF32, {3, 4}}}),
       kU},
      {"bernoulli_inplace_tensor_int",
       OneNodeProgram({{"x", kI64, {3, 4}}, {"p", kF32, {3, 4}}}, "bernoulli_.Tensor",
                      {TensorArg("self", "x"), TensorArg("p", "p")}, {{"y", kI64, {3, 4}}}),
       kU},
      {"uniform_", OnSelf("uniform_.default", {FloatArg("from", -1), FloatArg("to", 2)}), kU},
      {"uniform_f16", OnSelf("uniform_.default", {}, kF16), kU},
      {"normal_", OnSelf("normal_.default", {FloatArg("mean", 1), FloatArg("std", 2)}), kN},
      {"normal_defaults", OnSelf("normal_.default", {}, kF64), kN},
      {"normal_functional", OnSelf("normal_functional.default", {FloatArg("mean", 1)}), kN},
      {"log_normal_", OnSelf("log_normal_.default", {FloatArg("mean", 0), FloatArg("std", 0.25)}), kN},
      {"cauchy_", OnSelf("cauchy_.default", {FloatArg("median", 0), FloatArg("sigma", 0.5)}), kU},
      {"cauchy", OnSelf("cauchy.default", {}), kU},
      {"exponential_", OnSelf("exponential_.default", {FloatArg("lambd", 1.5)}), kU},
      {"exponential_f64_defaults", OnSelf("exponential_.default", {}, kF64), kU},
      {"geometric_", OnSelf("geometric_.default", {FloatArg("p", 0.2)}), kU},
      {"geometric_int", OnSelf("geometric_.default", {FloatArg("p", 0.2)}, kI64), kU},
      {"normal_tensor_tensor",
       OneNodeProgram({{"m", kF32, {3, 1}}, {"s", kF32, {4}}}, "normal.Tensor_Tensor",
                      {TensorArg("mean", "m"), TensorArg("std", "s")}, {{"y", kF32, {3, 4}}}),
       kN},
      {"normal_tensor_float",
       OneNodeProgram({{"m", kF32, {4, 3}}}, "normal.Tensor_float", {TensorArg("mean", "m"), FloatArg("std", 2.7)},
                      {{"y", kF32, {4, 3}}}),
       kN},
      {"normal_float_tensor",
       OneNodeProgram({{"s", kF64, {2, 5}}}, "normal.float_Tensor", {FloatArg("mean", 1), TensorArg("std", "s")},
                      {{"y", kF64, {2, 5}}}),
       kN},
      {"normal_float_float",
       OneNodeProgram({}, "normal.float_float",
                      {FloatArg("mean", 0.3), FloatArg("std", 1.6), IntsArg("size", {2, 3}), DtypeArg("dtype", kF32)},
                      {{"y", kF32, {2, 3}}}),
       kN},
      {"multinomial_1d",
       OneNodeProgram({{"w", kF32, {10}}}, "multinomial.default", {TensorArg("self", "w"), IntArg("num_samples", 3)},
                      {{"y", kI64, {3}}}),
       kU},
      {"multinomial_2d_replacement",
       OneNodeProgram({{"w", kF32, {3, 10}}}, "multinomial.default",
                      {TensorArg("self", "w"), IntArg("num_samples", 25), BoolArg("replacement", true)},
                      {{"y", kI64, {3, 25}}}),
       kU},
      {"rrelu_training",
       OnSelf("rrelu.default", {FloatArg("lower", 0), FloatArg("upper", 1), BoolArg("training", true)}), kU},
      {"rrelu_training_0d", OnSelf("rrelu.default", {BoolArg("training", true)}, kF32, {}), kU},
      {"rrelu_eval", OnSelf("rrelu.default", {}), ""},
      {"empty_permuted",
       OneNodeProgram({}, "empty_permuted.default",
                      {IntsArg("size", {2, 3, 4}), IntsArg("physical_layout", {0, 2, 1}), DtypeArg("dtype", kF32)},
                      {{"y", kF32, {2, 3, 4}}}),
       ""},
      {"empty_permuted_0d",
       OneNodeProgram({}, "empty_permuted.default",
                      {IntsArg("size", {}), IntsArg("physical_layout", {}), DtypeArg("dtype", kF32)},
                      {{"y", kF32, {}}}),
       ""},
      {"fractional_max_pool2d",
       OneNodeProgram({{"x", kF32, {1, 3, 9, 9}}, {"r", kF32, {1, 3, 2}}}, "fractional_max_pool2d.default",
                      {TensorArg("self", "x"), IntsArg("kernel_size", {3, 3}), IntsArg("output_size", {2, 3}),
                       TensorArg("random_samples", "r")},
                      {{"y", kF32, {1, 3, 2, 3}}, {"i", kI64, {1, 3, 2, 3}}}),
       ""},
      {"fractional_max_pool2d_unbatched_out1",
       OneNodeProgram({{"x", kF64, {3, 7, 6}}, {"r", kF64, {1, 3, 2}}}, "fractional_max_pool2d.default",
                      {TensorArg("self", "x"), IntsArg("kernel_size", {2, 2}), IntsArg("output_size", {1, 4}),
                       TensorArg("random_samples", "r")},
                      {{"y", kF64, {3, 1, 4}}, {"i_unused_0", kI64, {3, 1, 4}}}),
       ""},
      {"fractional_max_pool3d",
       OneNodeProgram({{"x", kF32, {2, 3, 5, 5, 5}}, {"r", kF32, {2, 3, 3}}}, "fractional_max_pool3d.default",
                      {TensorArg("self", "x"), IntsArg("kernel_size", {2, 2, 2}), IntsArg("output_size", {2, 3, 2}),
                       TensorArg("random_samples", "r")},
                      {{"y", kF32, {2, 3, 2, 3, 2}}, {"i", kI64, {2, 3, 2, 3, 2}}}),
       ""},
  };
}

class DistributionTest : public ::testing::TestWithParam<DrawCase> {};

TEST_P(DistributionTest, ConvertsWithFxShapesAndDtypes) {
  const DrawCase& c = GetParam();
  pt2::ExportedProgram program = c.program.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  if (c.draw.empty()) {
    EXPECT_EQ(FindNode(got->model, "RandomUniformLike"), nullptr);
    EXPECT_EQ(FindNode(got->model, "RandomNormalLike"), nullptr);
  } else {
    EXPECT_NE(FindNode(got->model, c.draw), nullptr) << c.draw;
  }
}

INSTANTIATE_TEST_SUITE_P(Distributions, DistributionTest, ::testing::ValuesIn(DrawCases()),
                         [](const ::testing::TestParamInfo<DrawCase>& info) { return info.param.name; });

std::vector<ErrorCase> BadParameters() {
  return {
      {"bernoulli_p_above_one", OnSelf("bernoulli.p", {FloatArg("p", 1.5)}), absl::StatusCode::kInvalidArgument,
       "0 <= p <= 1"},
      {"uniform_reversed", OnSelf("uniform_.default", {FloatArg("from", 2), FloatArg("to", 1)}),
       absl::StatusCode::kInvalidArgument, "from=2 > to=1"},
      {"uniform_int", OnSelf("uniform_.default", {}, kI64), absl::StatusCode::kUnimplemented, "int64"},
      {"normal_negative_std", OnSelf("normal_.default", {FloatArg("std", -1)}), absl::StatusCode::kInvalidArgument,
       "std >= 0.0"},
      {"log_normal_zero_std", OnSelf("log_normal_.default", {FloatArg("std", 0)}),
       absl::StatusCode::kInvalidArgument, "std > 0.0"},
      {"cauchy_zero_sigma", OnSelf("cauchy_.default", {FloatArg("sigma", 0)}), absl::StatusCode::kInvalidArgument,
       "sigma > 0.0"},
      {"exponential_negative", OnSelf("exponential_.default", {FloatArg("lambd", -1)}),
       absl::StatusCode::kInvalidArgument, "lambda > 0.0"},
      {"geometric_one", OnSelf("geometric_.default", {FloatArg("p", 1)}), absl::StatusCode::kInvalidArgument,
       "(0, 1)"},
      {"multinomial_3d",
       OneNodeProgram({{"w", kF32, {2, 2, 3}}}, "multinomial.default",
                      {TensorArg("self", "w"), IntArg("num_samples", 1)}, {{"y", kI64, {2, 2, 1}}}),
       absl::StatusCode::kInvalidArgument, "1 or 2 dim"},
      {"multinomial_too_many",
       OneNodeProgram({{"w", kF32, {3}}}, "multinomial.default", {TensorArg("self", "w"), IntArg("num_samples", 4)},
                      {{"y", kI64, {4}}}),
       absl::StatusCode::kInvalidArgument, "without replacement"},
      {"rrelu_reversed_bounds", OnSelf("rrelu.default", {FloatArg("lower", 0.5), FloatArg("upper", 0.1)}),
       absl::StatusCode::kInvalidArgument, "lower bound"},
      {"empty_permuted_bad_layout",
       OneNodeProgram({}, "empty_permuted.default", {IntsArg("size", {2, 3}), IntsArg("physical_layout", {0, 0})},
                      {{"y", kF32, {2, 3}}}),
       absl::StatusCode::kInvalidArgument, "permutation"},
      {"fractional_pool_too_large",
       OneNodeProgram({{"x", kF32, {1, 1, 4, 4}}, {"r", kF32, {1, 1, 2}}}, "fractional_max_pool2d.default",
                      {TensorArg("self", "x"), IntsArg("kernel_size", {3, 3}), IntsArg("output_size", {3, 3}),
                       TensorArg("random_samples", "r")},
                      {{"y", kF32, {1, 1, 3, 3}}, {"i", kI64, {1, 1, 3, 3}}}),
       absl::StatusCode::kInvalidArgument, "do not fit"},
  };
}

class DistributionErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(DistributionErrorTest, IsRefused) { EXPECT_TRUE(Rejects(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Distributions, DistributionErrorTest, ::testing::ValuesIn(BadParameters()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

}  // namespace
}  // namespace pt2onnx::testing
