// Tests for ops/linear_algebra.cc: each case is a one-node program; it must
// convert, pass the ONNX checker and shape inference, infer the FX output
// shapes and dtypes, and emit the expected op types (Constants skipped).
// Numerics are checked end to end against torch (tests/fixtures/ops/{linear,
// addmm,mm,bmm,matmul,baddbmm,einsum}).
#include <cstdint>
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

using Case = OpCase;

// Inputs -> one node -> its outputs.
Case One(std::string name, std::vector<TensorSpec> inputs, std::string target,
         std::vector<pt2::NamedArgument> args, std::vector<TensorSpec> outs,
         std::vector<std::string> ops) {
  return OneNodeCase(std::move(name), inputs, target, std::move(args), std::move(outs), std::move(ops));
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  auto add = [&](Case c) { cases.push_back(std::move(c)); };
  const TensorSpec x36{"x", kF32, {3, 6}}, x236{"x", kF32, {2, 3, 6}};
  const TensorSpec w56{"w", kF32, {5, 6}}, b5{"b", kF32, {5}};
  const std::vector<pt2::NamedArgument> lin = {TensorArg("input", "x"), TensorArg("weight", "w"),
                                               TensorArg("bias", "b")};

  // linear: Gemm for 2-D, MatMul + Add otherwise.
  add(One("linear_2d", {x36, w56, b5}, "linear.default", lin, {{"y", kF32, {3, 5}}}, {"Gemm"}));
  add(One("linear_2d_no_bias", {x36, w56}, "linear.default",
          {TensorArg("input", "x"), TensorArg("weight", "w")}, {{"y", kF32, {3, 5}}}, {"Gemm"}));
  add(One("linear_3d", {x236, w56, b5}, "linear.default", lin, {{"y", kF32, {2, 3, 5}}},
          {"Transpose", "MatMul", "Add"}));
  add(One("linear_1d_input", {{"x", kF32, {6}}, w56, b5}, "linear.default", lin,
          {{"y", kF32, {5}}}, {"Transpose", "MatMul", "Add"}));
  add(One("linear_fp16_3d", {{"x", kF16, {2, 3, 6}}, {"w", kF16, {5, 6}}}, "linear.default",
          {TensorArg("input", "x"), TensorArg("weight", "w")}, {{"y", kF16, {2, 3, 5}}},
          {"Transpose", "MatMul"}));
  add(One("linear_1d_weight", {x36, {"w", kF32, {6}}}, "linear.default",
          {TensorArg("input", "x"), TensorArg("weight", "w")}, {{"y", kF32, {3}}}, {"MatMul"}));

  // addmm family: Gemm carries beta/alpha; beta=0 drops C.
  const TensorSpec a34{"a", kF32, {3, 4}}, m45{"m", kF32, {4, 5}}, c35{"c", kF32, {3, 5}};
  const std::vector<pt2::NamedArgument> mm_args = {TensorArg("self", "c"),
                                                   TensorArg("mat1", "a"), TensorArg("mat2", "m")};
  add(One("addmm", {c35, a34, m45}, "addmm.default", mm_args, {{"y", kF32, {3, 5}}}, {"Gemm"}));
  {
    std::vector<pt2::NamedArgument> args = mm_args;
    args.push_back(FloatArg("beta", 0.5));
    args.push_back(IntArg("alpha", 2));
    add(One("addmm_beta_alpha", {c35, a34, m45}, "addmm.default", args, {{"y", kF32, {3, 5}}},
            {"Gemm"}));
  }
  add(One("addmm_broadcast_bias", {{"c", kF32, {5}}, a34, m45}, "addmm.default", mm_args,
          {{"y", kF32, {3, 5}}}, {"Gemm"}));
  {
    std::vector<pt2::NamedArgument> args = mm_args;
    args.push_back(IntArg("beta", 0));
    add(One("addmm_beta_zero", {c35, a34, m45}, "addmm.default", args, {{"y", kF32, {3, 5}}},
            {"Gemm"}));
  }
  add(One("addmm_int64", {{"c", kI64, {3, 5}}, {"a", kI64, {3, 4}}, {"m", kI64, {4, 5}}},
          "addmm.default", mm_args, {{"y", kI64, {3, 5}}}, {"MatMul", "Add"}));
  {
    std::vector<pt2::NamedArgument> args = {
        TensorArg("self", "c"), TensorArg("batch1", "p"), TensorArg("batch2", "q"),
        FloatArg("beta", 0.5), IntArg("alpha", 2)};
    add(One("baddbmm", {{"c", kF32, {2, 3, 5}}, {"p", kF32, {2, 3, 4}}, {"q", kF32, {2, 4, 5}}},
            "baddbmm.default", args, {{"y", kF32, {2, 3, 5}}}, {"MatMul", "Mul", "Mul", "Add"}));
    add(One("addbmm", {{"c", kF32, {3, 5}}, {"p", kF32, {2, 3, 4}}, {"q", kF32, {2, 4, 5}}},
            "addbmm.default", args, {{"y", kF32, {3, 5}}},
            {"MatMul", "ReduceSum", "Mul", "Mul", "Add"}));
  }
  add(One("addmv", {{"c", kF32, {3}}, a34, {"v", kF32, {4}}}, "addmv.default",
          {TensorArg("self", "c"), TensorArg("mat", "a"), TensorArg("vec", "v")},
          {{"y", kF32, {3}}}, {"MatMul", "Add"}));
  add(One("addr", {c35, {"u", kF32, {3}}, {"v", kF32, {5}}}, "addr.default",
          {TensorArg("self", "c"), TensorArg("vec1", "u"), TensorArg("vec2", "v")},
          {{"y", kF32, {3, 5}}}, {"Unsqueeze", "Mul", "Add"}));

  // Plain products are MatMul, whatever the ranks.
  add(One("mm", {a34, m45}, "mm.default", {TensorArg("self", "a"), TensorArg("mat2", "m")},
          {{"y", kF32, {3, 5}}}, {"MatMul"}));
  add(One("bmm", {{"a", kF32, {2, 3, 4}}, {"m", kF32, {2, 4, 5}}}, "bmm.default",
          {TensorArg("self", "a"), TensorArg("mat2", "m")}, {{"y", kF32, {2, 3, 5}}}, {"MatMul"}));
  add(One("mm_out_dtype", {{"a", kF16, {3, 4}}, {"m", kF16, {4, 5}}}, "mm.dtype",
          {TensorArg("self", "a"), TensorArg("mat2", "m"), DtypeArg("out_dtype", kF32)},
          {{"y", kF32, {3, 5}}}, {"Cast", "Cast", "MatMul"}));
  struct MatmulShapes {
    const char* name;
    std::vector<int64_t> a, b, out;
  };
  for (const MatmulShapes& s : std::vector<MatmulShapes>{{"2d_2d", {3, 4}, {4, 5}, {3, 5}},
                                                         {"3d_2d", {2, 3, 4}, {4, 5}, {2, 3, 5}},
                                                         {"1d_2d", {4}, {4, 5}, {5}},
                                                         {"2d_1d", {3, 4}, {4}, {3}},
                                                         {"1d_1d", {4}, {4}, {}},
                                                         {"4d_3d", {2, 2, 3, 4}, {2, 4, 5},
                                                          {2, 2, 3, 5}}}) {
    add(One(std::string("matmul_") + s.name, {{"a", kF32, s.a}, {"b", kF32, s.b}},
            "matmul.default", {TensorArg("self", "a"), TensorArg("other", "b")},
            {{"y", kF32, s.out}}, {"MatMul"}));
  }
  add(One("mv", {a34, {"v", kF32, {4}}}, "mv.default",
          {TensorArg("self", "a"), TensorArg("vec", "v")}, {{"y", kF32, {3}}}, {"MatMul"}));
  add(One("dot", {{"u", kF32, {4}}, {"v", kF32, {4}}}, "dot.default",
          {TensorArg("self", "u"), TensorArg("tensor", "v")}, {{"y", kF32, {}}}, {"MatMul"}));
  add(One("outer", {{"u", kF32, {3}}, {"v", kF32, {5}}}, "outer.default",
          {TensorArg("self", "u"), TensorArg("vec2", "v")}, {{"y", kF32, {3, 5}}},
          {"Unsqueeze", "Mul"}));
  add(One("linalg_vecdot", {{"u", kF32, {2, 4}}, {"v", kF32, {2, 4}}}, "linalg_vecdot.default",
          {TensorArg("x", "u"), TensorArg("y", "v")}, {{"r", kF32, {2}}}, {"Mul", "ReduceSum"}));

  // Einsum-based contractions.
  add(One("einsum_bmm", {{"a", kF32, {2, 3, 4}}, {"b", kF32, {2, 4, 5}}}, "einsum.default",
          {StringArg("equation", "bij, bjk -> bik"), TensorsArg("tensors", {"a", "b"})},
          {{"y", kF32, {2, 3, 5}}}, {"Einsum"}));
  add(One("einsum_implicit", {{"a", kF32, {3, 4}}}, "einsum.default",
          {StringArg("equation", "ij"), TensorsArg("tensors", {"a"})}, {{"y", kF32, {3, 4}}},
          {"Einsum"}));
  add(One("einsum_mixed_dtypes", {{"a", kF16, {3, 4}}, {"b", kF32, {4, 5}}}, "einsum.default",
          {StringArg("equation", "ij,jk->ik"), TensorsArg("tensors", {"a", "b"})},
          {{"y", kF32, {3, 5}}}, {"Cast", "Einsum"}));
  add(One("tensordot", {{"a", kF32, {2, 3, 4}}, {"b", kF32, {4, 3, 5}}}, "tensordot.default",
          {TensorArg("self", "a"), TensorArg("other", "b"), IntsArg("dims_self", {1, 2}),
           IntsArg("dims_other", {1, 0})},
          {{"y", kF32, {2, 5}}}, {"Einsum"}));
  // A contracted pair of sizes 1 and 2: torch sums the 2 alone (own Einsum letters).
  add(One("tensordot_size_one_pair", {{"a", kF32, {1, 1, 1}}, {"b", kF32, {2, 1, 2}}}, "tensordot.default",
          {TensorArg("self", "a"), TensorArg("other", "b"), IntsArg("dims_self", {0, 1}),
           IntsArg("dims_other", {2, 0})},
          {{"y", kF32, {1, 1}}}, {"Einsum"}));
  add(One("inner", {{"a", kF32, {2, 4}}, {"b", kF32, {3, 4}}}, "inner.default",
          {TensorArg("self", "a"), TensorArg("other", "b")}, {{"y", kF32, {2, 3}}}, {"Einsum"}));
  add(One("bilinear", {{"p", kF32, {2, 3}}, {"q", kF32, {2, 4}}, {"w", kF32, {5, 3, 4}}, b5},
          "bilinear.default",
          {TensorArg("input1", "p"), TensorArg("input2", "q"), TensorArg("weight", "w"),
           TensorArg("bias", "b")},
          {{"y", kF32, {2, 5}}}, {"Einsum", "Add"}));
  // An empty batch is the empty result itself (ONNX Runtime's Einsum crashes on it).
  add(One("bilinear_empty_batch", {{"p", kF32, {0, 3}}, {"q", kF32, {0, 4}}, {"w", kF32, {5, 3, 4}}, b5},
          "bilinear.default",
          {TensorArg("input1", "p"), TensorArg("input2", "q"), TensorArg("weight", "w"),
           TensorArg("bias", "b")},
          {{"y", kF32, {0, 5}}}, {}));
  return cases;
}

using LinearAlgebraOpsTest = OpCaseTest;

TEST_P(LinearAlgebraOpsTest, ConvertsWithInferredShapes) { ExpectConverts(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, LinearAlgebraOpsTest, ::testing::ValuesIn(Cases()), CaseName());

TEST(LinearAlgebraOpsErrorsTest, LinalgEigvalsStaysUnsupported) {
  // The unsupported_aten_op fixture relies on linalg_eigvals having no translation.
  Case c = One("linalg_eigvals", {{"a", kF32, {3, 3}}}, "linalg_eigvals.default",
               {TensorArg("self", "a")}, {{"y", DataType::kComplex64, {3}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "aten::linalg_eigvals.default"));
}

TEST(LinearAlgebraOpsErrorsTest, AddmmOnBoolIsUnsupported) {
  Case c = One("addmm", {{"c", kBool, {3, 5}}, {"a", kBool, {3, 4}}, {"m", kBool, {4, 5}}},
               "addmm.default",
               {TensorArg("self", "c"), TensorArg("mat1", "a"), TensorArg("mat2", "m")},
               {{"y", kBool, {3, 5}}}, {});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(c.program.Build()), absl::StatusCode::kUnimplemented,
                        "bool operands"));
}

std::vector<ErrorCase> ErrorCases() {
  const TensorSpec a{"a", kF32, {2, 3, 4}}, b{"b", kF32, {4, 3, 2}};
  auto tensordot = [&](std::vector<int64_t> da, std::vector<int64_t> db) {
    return One("t", {a, b}, "tensordot.default",
               {TensorArg("self", "a"), TensorArg("other", "b"), IntsArg("dims_self", da),
                IntsArg("dims_other", db)},
               {{"y", kF32, {2, 2}}}, {})
        .program;
  };
  const TensorSpec c1{"c", DataType::kComplex64, {3, 4}}, c2{"d", DataType::kComplex64, {4, 5}};
  return {
      {"tensordot_lengths_differ", tensordot({1, 2}, {1}), absl::StatusCode::kInvalidArgument,
       "different lengths"},
      {"tensordot_dim_out_of_range", tensordot({1, 3}, {1, 0}), absl::StatusCode::kInvalidArgument,
       "dims_self: dimension"},
      {"tensordot_dim_repeated", tensordot({1, 2}, {0, 0}), absl::StatusCode::kInvalidArgument,
       "dims_other: dimension"},
      {"tensordot_sizes_differ", tensordot({2}, {2}), absl::StatusCode::kInvalidArgument,
       "contracted dimensions need to match, but first has size 4 in dim 2 and second has size 2"},
      {"vecdot_dim_out_of_range",
       One("v", {{"x", kF32, {3, 4}}, {"z", kF32, {3, 4}}}, "linalg_vecdot.default",
           {TensorArg("x", "x"), TensorArg("y", "z"), IntArg("dim", 2)}, {{"y", kF32, {3}}}, {})
           .program,
       absl::StatusCode::kInvalidArgument, "dim: dimension"},
      {"mm_complex",
       One("m", {c1, c2}, "mm.default", {TensorArg("self", "c"), TensorArg("mat2", "d")},
           {{"y", DataType::kComplex64, {3, 5}}}, {})
           .program,
       absl::StatusCode::kUnimplemented, "complex operands"},
      {"chain_matmul_empty",
       One("c", {}, "chain_matmul.default", {TensorsArg("matrices", {})}, {{"y", kF32, {1, 1}}},
           {})
           .program,
       absl::StatusCode::kInvalidArgument, "at least one matrix"},
      {"linear_weight_rank_three",
       One("l", {{"x", kF32, {3, 6}}, {"w", kF32, {1, 5, 6}}}, "linear.default",
           {TensorArg("input", "x"), TensorArg("weight", "w")}, {{"y", kF32, {3, 5}}}, {})
           .program,
       absl::StatusCode::kInvalidArgument, "weight has rank 3, expected 2"},
      // torch 2.15 cannot trace baddbmm.dtype, so it has no translation.
      {"baddbmm_dtype_not_registered",
       One("b", {{"c", kF32, {2, 3, 5}}, {"p", kF16, {2, 3, 8}}, {"q", kF16, {2, 8, 5}}},
           "baddbmm.dtype",
           {TensorArg("self", "c"), TensorArg("batch1", "p"), TensorArg("batch2", "q"),
            DtypeArg("out_dtype", kF32)},
           {{"y", kF32, {2, 3, 5}}}, {})
           .program,
       absl::StatusCode::kUnimplemented, "aten::baddbmm.dtype"},
  };
}

using LinearAlgebraOpsRejectedTest = ErrorCaseTest;

TEST_P(LinearAlgebraOpsRejectedTest, Rejected) { EXPECT_TRUE(Rejects(GetParam())); }

INSTANTIATE_TEST_SUITE_P(Cases, LinearAlgebraOpsRejectedTest, ::testing::ValuesIn(ErrorCases()),
                         CaseName());

}  // namespace
}  // namespace pt2onnx::testing
