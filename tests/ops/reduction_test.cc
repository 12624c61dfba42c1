// Tests for ops/reduction.cc: each case is a one-node program; it must convert,
// pass the ONNX checker and shape inference, infer the FX output shapes and
// dtypes, and (where given) emit the expected op types.
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

struct Case {
  std::string name;
  ProgramBuilder program;
  std::vector<std::string> ops;  // expected op types (Constants skipped); empty: unchecked
  bool symbolic = false;         // ONNX may infer computed static sizes as unknown
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// A `Scalar` argument holding a float (ord=inf, correction=0.5, ...).
pt2::NamedArgument ScalarArg(std::string arg, double v) { return FloatArg(std::move(arg), v); }

// x -> one node -> its outputs.
Case Unary(std::string name, TensorSpec in, std::string target,
           std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outs,
           std::vector<std::string> ops) {
  args.insert(args.begin(), TensorArg("self", in.name));
  return Case{std::move(name), OneNodeProgram({in}, target, std::move(args), std::move(outs)),
              std::move(ops)};
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  TensorSpec x234{"x", kF32, {2, 3, 4}};
  TensorSpec x23{"x", kF32, {2, 3}};

  // sum / mean / prod
  add(Unary("sum_dim", x234, "sum.dim_IntList", {IntsArg("dim", {1})}, {{"y", kF32, {2, 4}}},
            {"ReduceSum"}));
  add(Unary("sum_dim_none_keepdim", x234, "sum.dim_IntList",
            {NoneArg("dim"), BoolArg("keepdim", true)}, {{"y", kF32, {1, 1, 1}}},
            {"ReduceSum"}));
  add(Unary("sum_empty_dims", x234, "sum.dim_IntList", {IntsArg("dim", {})},
            {{"y", kF32, {}}}, {"ReduceSum"}));
  add(Unary("sum_int32_to_int64", {"x", kI32, {2, 3}}, "sum.default", {}, {{"y", kI64, {}}},
            {"Cast", "ReduceSum"}));
  add(Unary("sum_bool", {"x", kBool, {2, 3}}, "sum.dim_IntList", {IntsArg("dim", {-1})},
            {{"y", kI64, {2}}}, {"Cast", "ReduceSum"}));
  add(Unary("sum_dtype", x23, "sum.default", {DtypeArg("dtype", DataType::kDouble)},
            {{"y", DataType::kDouble, {}}}, {"Cast", "ReduceSum"}));
  add(Unary("sum_scalar_input", {"x", kF32, {}}, "sum.dim_IntList", {IntsArg("dim", {0})},
            {{"y", kF32, {}}}, {"ReduceSum"}));
  add(Unary("mean", x234, "mean.default", {}, {{"y", kF32, {}}}, {"ReduceMean"}));
  add(Unary("mean_dim_keepdim", x234, "mean.dim",
            {IntsArg("dim", {-1, -2}), BoolArg("keepdim", true)}, {{"y", kF32, {2, 1, 1}}},
            {"ReduceMean"}));
  add(Unary("prod", {"x", kI64, {2, 3}}, "prod.default", {}, {{"y", kI64, {}}},
            {"ReduceProd"}));
  add(Unary("prod_dim", x23, "prod.dim_int", {IntArg("dim", 0)}, {{"y", kF32, {3}}},
            {"ReduceProd"}));

  // amax / amin / max / min / argmax / argmin
  add(Unary("amax", x234, "amax.default", {IntsArg("dim", {0, 2}), BoolArg("keepdim", true)},
            {{"y", kF32, {1, 3, 1}}}, {"ReduceMax"}));
  add(Unary("amax_all", x234, "amax.default", {}, {{"y", kF32, {}}}, {"ReduceMax"}));
  add(Unary("amin_bool", {"x", kBool, {2, 3}}, "amin.default", {IntsArg("dim", {1})},
            {{"y", kBool, {2}}}, {"Cast", "ReduceMin", "Cast"}));
  add(Unary("max", x23, "max.default", {}, {{"y", kF32, {}}}, {"ReduceMax"}));
  add(Unary("min", x23, "min.default", {}, {{"y", kF32, {}}}, {"ReduceMin"}));
  add(Unary("max_dim", x23, "max.dim", {IntArg("dim", 1)},
            {{"values", kF32, {2}}, {"indices", kI64, {2}}}, {"ReduceMax", "ArgMax"}));
  add(Unary("min_dim_keepdim", x23, "min.dim", {IntArg("dim", -2), BoolArg("keepdim", true)},
            {{"values", kF32, {1, 3}}, {"indices", kI64, {1, 3}}}, {"ReduceMin", "ArgMin"}));
  add(Unary("argmax_dim", x23, "argmax.default", {IntArg("dim", -1), BoolArg("keepdim", true)},
            {{"y", kI64, {2, 1}}}, {"ArgMax"}));
  add(Unary("argmax_flat", x23, "argmax.default", {}, {{"y", kI64, {}}},
            {"Reshape", "ArgMax"}));
  add(Unary("argmin_flat_keepdim", x23, "argmin.default", {BoolArg("keepdim", true)},
            {{"y", kI64, {1, 1}}}, {"Reshape", "ArgMin", "Reshape"}));

  // var / std
  add(Unary("var_correction", x23, "var.correction",
            {IntsArg("dim", {1}), ScalarArg("correction", 0)}, {{"y", kF32, {2}}},
            {"ReduceMean", "Sub", "Mul", "ReduceSum", "Sub", "Max", "Div"}));
  add(Unary("var_default_all", x23, "var.correction", {}, {{"y", kF32, {}}}, {}));
  add(Unary("var_dim_unbiased", x234, "var.dim",
            {IntsArg("dim", {0, 2}), BoolArg("unbiased", false), BoolArg("keepdim", true)},
            {{"y", kF32, {1, 3, 1}}}, {}));
  add(Unary("std_correction", x23, "std.correction", {IntsArg("dim", {0})},
            {{"y", kF32, {3}}}, {"ReduceMean", "Sub", "Mul", "ReduceSum", "Sub", "Max", "Div",
                                 "Sqrt"}));
  add(Unary("var_mean", x234, "var_mean.correction", {IntsArg("dim", {1})},
            {{"var", kF32, {2, 4}}, {"mean", kF32, {2, 4}}}, {}));
  add(Unary("std_mean_keepdim", x23, "std_mean.correction",
            {IntsArg("dim", {1}), BoolArg("keepdim", true)},
            {{"std", kF32, {2, 1}}, {"mean", kF32, {2, 1}}}, {}));
  {
    Case c = Unary("var_symbolic_count", {"x", kF32, {2, 4}, {"s0", ""}}, "var.correction",
                   {IntsArg("dim", {0})}, {{"y", kF32, {4}}},
                   {"ReduceMean", "Sub", "Mul", "ReduceSum", "Shape", "Gather", "ReduceProd",
                    "Cast", "Sub", "Max", "Div"});
    c.symbolic = true;
    add(c);
  }

  // all / any
  add(Unary("all", {"x", kBool, {2, 3}}, "all.default", {}, {{"y", kBool, {}}},
            {"Cast", "ReduceMin", "Cast"}));
  add(Unary("all_dim", x23, "all.dim", {IntArg("dim", 1)}, {{"y", kBool, {2}}},
            {"Cast", "Cast", "ReduceMin", "Cast"}));
  add(Unary("any_dim_keepdim", {"x", kBool, {2, 3}}, "any.dim",
            {IntArg("dim", -1), BoolArg("keepdim", true)}, {{"y", kBool, {2, 1}}},
            {"Cast", "ReduceMax", "Greater"}));
  add(Unary("any_dims", {"x", kBool, {2, 3, 4}}, "any.dims", {IntsArg("dim", {0, 2})},
            {{"y", kBool, {3}}}, {"Cast", "ReduceMax", "Greater"}));
  add(Unary("any_uint8", {"x", DataType::kUint8, {2, 3}}, "any.default", {},
            {{"y", DataType::kUint8, {}}}, {"Cast", "Cast", "ReduceMax", "Greater", "Cast"}));

  // cumsum / logsumexp / norms / count_nonzero
  add(Unary("cumsum", x23, "cumsum.default", {IntArg("dim", -1)}, {{"y", kF32, {2, 3}}},
            {"CumSum"}));
  add(Unary("cumsum_int32", {"x", kI32, {2, 3}}, "cumsum.default", {IntArg("dim", 0)},
            {{"y", kI64, {2, 3}}}, {"Cast", "CumSum"}));
  add(Unary("logsumexp", x234, "logsumexp.default", {IntsArg("dim", {1})},
            {{"y", kF32, {2, 4}}}, {"ReduceLogSumExp"}));
  add(Unary("vector_norm_2", x234, "linalg_vector_norm.default",
            {IntsArg("dim", {-1}), BoolArg("keepdim", true)}, {{"y", kF32, {2, 3, 1}}},
            {"ReduceL2"}));
  add(Unary("vector_norm_1_all", x23, "linalg_vector_norm.default", {ScalarArg("ord", 1)},
            {{"y", kF32, {}}}, {"ReduceL1"}));
  add(Unary("vector_norm_inf", x23, "linalg_vector_norm.default",
            {ScalarArg("ord", std::numeric_limits<double>::infinity()), IntsArg("dim", {1})},
            {{"y", kF32, {2}}}, {"Abs", "ReduceMax"}));
  add(Unary("vector_norm_3", x23, "linalg_vector_norm.default",
            {ScalarArg("ord", 3), IntsArg("dim", {1})}, {{"y", kF32, {2}}},
            {"Abs", "Pow", "ReduceSum", "Pow"}));
  add(Unary("vector_norm_0", x23, "linalg_vector_norm.default", {ScalarArg("ord", 0)},
            {{"y", kF32, {}}}, {"Equal", "Not", "Cast", "ReduceSum"}));
  add(Unary("norm_scalar_opt_dim", x23, "norm.ScalarOpt_dim", {NoneArg("p"), IntsArg("dim", {1})},
            {{"y", kF32, {2}}}, {"ReduceL2"}));
  add(Unary("count_nonzero", x23, "count_nonzero.dim_IntList", {IntsArg("dim", {0})},
            {{"y", kI64, {3}}}, {"Cast", "Cast", "ReduceSum"}));
  add(Unary("count_nonzero_all", x23, "count_nonzero.default", {}, {{"y", kI64, {}}},
            {"Cast", "Cast", "ReduceSum"}));
  return cases;
}

class ReductionOpsTest : public ::testing::TestWithParam<Case> {};

TEST_P(ReductionOpsTest, ConvertsWithInferredShapes) {
  const Case& c = GetParam();
  ConvertAndExpect(c.program.Build(), c.ops,
                   {20, {/*static_dims_may_be_unknown=*/c.symbolic}, /*empty_ops_unchecked=*/true});
}

INSTANTIATE_TEST_SUITE_P(Reduction, ReductionOpsTest, ::testing::ValuesIn(Cases()), CaseName());

std::vector<ErrorCase> ErrorCases() {
  const TensorSpec x{"x", kF32, {2, 3}};
  return {
      {"sum_dim_out_of_range",
       Unary("s", x, "sum.dim_IntList", {IntsArg("dim", {2})}, {{"y", kF32, {2}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "dim: dimension"},
      {"var_dim_repeated",
       Unary("v", x, "var.correction", {IntsArg("dim", {1, -1})}, {{"y", kF32, {2}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "dim: dimension"},
      {"std_mean_dim_out_of_range",
       Unary("s", x, "std_mean.dim", {IntsArg("dim", {-3})},
             {{"y", kF32, {3}}, {"m", kF32, {3}}}, {})
           .program,
       absl::StatusCode::kInvalidArgument, "dim: dimension"},
      {"norm_dim_out_of_range",
       Unary("n", x, "norm.ScalarOpt_dim", {ScalarArg("p", 2), IntsArg("dim", {5})},
             {{"y", kF32, {2}}}, {})
           .program,
       absl::StatusCode::kInvalidArgument, "dim: dimension"},
      {"count_nonzero_dim_out_of_range",
       Unary("c", x, "count_nonzero.default", {IntArg("dim", 2)}, {{"y", kI64, {2}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "dim: dimension"},
      {"max_dim_out_of_range",
       Unary("m", x, "max.dim", {IntArg("dim", 2)}, {{"v", kF32, {2}}, {"i", kI64, {2}}}, {})
           .program,
       absl::StatusCode::kInvalidArgument, "dim"},
      {"cumsum_dim_out_of_range",
       Unary("c", x, "cumsum.default", {IntArg("dim", -3)}, {{"y", kF32, {2, 3}}}, {}).program,
       absl::StatusCode::kInvalidArgument, "dim"},
      {"all_dims_out_of_range",
       Unary("a", {"b", kBool, {2, 3}}, "all.dims", {IntsArg("dim", {0, 4})}, {{"y", kBool, {}}},
             {})
           .program,
       absl::StatusCode::kInvalidArgument, "dim: dimension"},
  };
}

using ReductionOpsRejectedTest = ErrorCaseTest;

TEST_P(ReductionOpsRejectedTest, Rejected) { EXPECT_TRUE(Rejects(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Reduction, ReductionOpsRejectedTest, ::testing::ValuesIn(ErrorCases()),
                         CaseName());

// The opset-18 boundary: axes travel as an input from 18 on, for every opset
// this converter emits.
TEST(ReductionOpsOpsets, AxesInputAtEveryOpset) {
  for (int opset : {18, 19, 20, 21, 22}) {
    Case c = Unary("amax", {"x", kF32, {2, 3}}, "amax.default", {IntsArg("dim", {1})},
                   {{"y", kF32, {2}}}, {});
    absl::StatusOr<Converted> got = ConvertAndCheck(c.program.Build(), opset);
    ASSERT_TRUE(got.ok()) << "opset " << opset << ": " << got.status();
    EXPECT_EQ(got->output_shapes[0], std::vector<int64_t>{2}) << "opset " << opset;
  }
}

}  // namespace
}  // namespace pt2onnx::testing
