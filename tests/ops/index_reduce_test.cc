// Tests for ops/index_reduce.cc and the grouped / strided writes added
// beside it in their families: every case converts, passes the ONNX checker
// and strict shape inference with the FX shapes and dtypes; bad arguments
// are refused. Numerics: the OpInfo fixtures (tests/e2e/test_opinfo.py).
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/ir/graph.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::testing {
namespace {

void ExpectConvertsWithShapes(const ProgramBuilder& b, bool dims_may_be_unknown = false) {
  pt2::ExportedProgram program = b.Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = dims_may_be_unknown}));
}

ProgramBuilder IndexReduce(std::vector<int64_t> self, int64_t dim, int64_t n, std::vector<int64_t> source,
                           std::string reduce, bool include_self) {
  return OneNodeProgram({{"x", kF32, self}, {"i", kI64, {n}}, {"s", kF32, source}}, "index_reduce.default",
                        {TensorArg("self", "x"), IntArg("dim", dim), TensorArg("index", "i"), TensorArg("source", "s"),
                         StringArg("reduce", reduce), BoolArg("include_self", include_self)},
                        {{"y", kF32, self}});
}

TEST(IndexReduce, EveryModeConverts) {
  for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      SCOPED_TRACE(std::string(reduce) + (include_self ? " with self" : " without self"));
      ExpectConvertsWithShapes(IndexReduce({4, 3}, 0, 5, {5, 3}, reduce, include_self));
      ExpectConvertsWithShapes(IndexReduce({2, 4, 3}, -2, 2, {2, 2, 3}, reduce, include_self));
      ExpectConvertsWithShapes(IndexReduce({}, 0, 1, {}, reduce, include_self));
    }
  }
}

TEST(SegmentReduce, LengthsAndOffsetsConvert) {
  for (const char* reduce : {"sum", "mean", "prod", "max", "min"}) {
    SCOPED_TRACE(reduce);
    ExpectConvertsWithShapes(OneNodeProgram({{"d", kF32, {6, 2}}, {"l", kI64, {3}}}, "segment_reduce.default",
                                            {TensorArg("data", "d"), StringArg("reduce", reduce),
                                             TensorArg("lengths", "l")},
                                            {{"y", kF32, {3, 2}}}),
                             true);
    ExpectConvertsWithShapes(OneNodeProgram({{"d", kF32, {2, 5}}, {"o", kI64, {2, 4}}}, "segment_reduce.default",
                                            {TensorArg("data", "d"), StringArg("reduce", reduce),
                                             TensorArg("offsets", "o"), IntArg("axis", 1), IntArg("initial", 2)},
                                            {{"y", kF32, {2, 3}}}),
                             true);
  }
}

TEST(GroupedWrites, OtherFamiliesConvert) {
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {3, 4, 5}}, {"s", kF32, {4, 2}}}, "diagonal_scatter.default",
                                          {TensorArg("self", "x"), TensorArg("src", "s"), IntArg("offset", -1),
                                           IntArg("dim1", 2), IntArg("dim2", 0)},
                                          {{"y", kF32, {3, 4, 5}}}));
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {2, 3, 5}}}, "im2col.default",
                                          {TensorArg("self", "x"), IntsArg("kernel_size", {2, 3}),
                                           IntsArg("dilation", {1, 2}), IntsArg("padding", {1, 0}),
                                           IntsArg("stride", {2, 1})},
                                          {{"y", kF32, {12, 2}}}),
                           true);
  ExpectConvertsWithShapes(OneNodeProgram({{"a", kF32, {2, 5}}, {"b", kF32, {2, 3, 2}}}, "_chunk_cat.default",
                                          {TensorsArg("tensors", {"a", "b"}), IntArg("dim", 1),
                                           IntArg("num_chunks", 2)},
                                          {{"y", kF32, {2, 2, 7}}}),
                           true);
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {3, 4}}, {"i", kI64, {5}}, {"s", kF32, {5}}}, "put.default",
                                          {TensorArg("self", "x"), TensorArg("index", "i"), TensorArg("source", "s"),
                                           BoolArg("accumulate", true)},
                                          {{"y", kF32, {3, 4}}}));
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {3, 4}}, {"t", kF32, {2, 2}}}, "isin.Tensor_Tensor",
                                          {TensorArg("elements", "x"), TensorArg("test_elements", "t"),
                                           BoolArg("invert", true)},
                                          {{"y", kBool, {3, 4}}}));
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {3, 5}}}, "fft_ifftshift.default",
                                          {TensorArg("self", "x"), IntsArg("dim", {-1})}, {{"y", kF32, {3, 5}}}),
                           true);
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {3, 4}}, {"s", kF32, {2, 2}}}, "as_strided_scatter.default",
                                          {TensorArg("self", "x"), TensorArg("src", "s"), IntsArg("size", {2, 2}),
                                           IntsArg("stride", {4, 2}), IntArg("storage_offset", 1)},
                                          {{"y", kF32, {3, 4}}}));
}

TEST(GroupedWrites, Refusals) {
  std::vector<ErrorCase> cases = {
      {"index_reduce_sum", IndexReduce({4}, 0, 2, {2}, "sum", true), absl::StatusCode::kInvalidArgument, "prod"},
      {"as_strided_scatter_overlap",
       OneNodeProgram({{"x", kF32, {3, 4}}, {"s", kF32, {2, 2}}}, "as_strided_scatter.default",
                      {TensorArg("self", "x"), TensorArg("src", "s"), IntsArg("size", {2, 2}),
                       IntsArg("stride", {1, 1})},
                      {{"y", kF32, {3, 4}}}),
       absl::StatusCode::kUnimplemented, "overlapping"},
      {"as_strided_scatter_outside",
       OneNodeProgram({{"x", kF32, {3, 4}}, {"s", kF32, {2, 2}}}, "as_strided_scatter.default",
                      {TensorArg("self", "x"), TensorArg("src", "s"), IntsArg("size", {2, 2}),
                       IntsArg("stride", {12, 1})},
                      {{"y", kF32, {3, 4}}}),
       absl::StatusCode::kUnimplemented, "outside"},
  };
  for (const ErrorCase& c : cases) EXPECT_TRUE(Rejects(c)) << c.name;
}

TEST(Quantile, ModesDimsAndKeepdimConvert) {
  for (const char* overload : {"quantile.scalar", "nanquantile.scalar"}) {
    for (const char* mode : {"linear", "lower", "higher", "nearest", "midpoint"}) {
      SCOPED_TRACE(std::string(overload) + " " + mode);
      ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {3, 4}}}, overload,
                                              {TensorArg("self", "x"), FloatArg("q", 0.3), IntArg("dim", -1),
                                               BoolArg("keepdim", false), StringArg("interpolation", mode)},
                                              {{"y", kF32, {3}}}),
                               true);
    }
    ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {3, 4}}}, overload,
                                            {TensorArg("self", "x"), FloatArg("q", 0.3), NoneArg("dim"),
                                             BoolArg("keepdim", true)},
                                            {{"y", kF32, {1, 1}}}),
                             true);
    ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {3, 4}}}, overload,
                                            {TensorArg("self", "x"), FloatArg("q", 1.0), IntArg("dim", 0),
                                             BoolArg("keepdim", true)},
                                            {{"y", kF32, {1, 4}}}),
                             true);
  }
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {5}}}, "combinations.default",
                                          {TensorArg("self", "x"), IntArg("r", 3), BoolArg("with_replacement", true)},
                                          {{"y", kF32, {35, 3}}}));
}

TEST(MaskedIndex, ReadAndAccumulateConvert) {
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {5, 4, 3}}, {"m", kBool, {6, 2, 1}}, {"a", kI64, {6, 1}},
                                           {"b", kI64, {2}}},
                                          "_unsafe_masked_index.default",
                                          {TensorArg("self", "x"), TensorArg("mask", "m"),
                                           TensorsArg("indices", {"a", "b"}), FloatArg("fill", 0.5)},
                                          {{"y", kF32, {6, 2, 3}}}),
                           true);
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {5, 4}}, {"m", kBool, {6, 2}}, {"a", kI64, {6, 1}},
                                           {"b", kI64, {2}}, {"v", kF32, {6, 2}}},
                                          "_unsafe_masked_index_put_accumulate.default",
                                          {TensorArg("self", "x"), TensorArg("mask", "m"),
                                           TensorsArg("indices", {"a", "b"}), TensorArg("values", "v")},
                                          {{"y", kF32, {5, 4}}}));
}

TEST(Gradient, EveryDimAndEdgeOrderConverts) {
  for (int64_t edge_order : {1, 2}) {
    pt2::ExportedProgram program =
        ProgramBuilder()
            .Input("x", kF32, {3, 4})
            .ListNode(Aten("gradient.scalarint"),
                      {TensorArg("self", "x"), FloatArg("spacing", 0.5), IntArg("edge_order", edge_order)},
                      {{"g0", kF32, {3, 4}}, {"g1", kF32, {3, 4}}})
            .Output("g0")
            .Output("g1")
            .Build();
    absl::StatusOr<Converted> got = ConvertAndCheck(program);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  }
}

// Uneven adaptive max pooling with indices (ops/adaptive_pooling.cc): every
// rank converts with both outputs' shapes inferred.
TEST(AdaptiveMaxPool, UnevenWithIndicesConverts) {
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {2, 3, 7}}}, "adaptive_max_pool1d.default",
                                          {TensorArg("self", "x"), IntsArg("output_size", {3})},
                                          {{"y", kF32, {2, 3, 3}}, {"i", kI64, {2, 3, 3}}}),
                           true);
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {1, 2, 5, 5}}}, "adaptive_max_pool2d.default",
                                          {TensorArg("self", "x"), IntsArg("output_size", {3, 2})},
                                          {{"y", kF32, {1, 2, 3, 2}}, {"i", kI64, {1, 2, 3, 2}}}),
                           true);
  ExpectConvertsWithShapes(OneNodeProgram({{"x", kF32, {2, 5, 4, 7}}}, "adaptive_max_pool3d.default",
                                          {TensorArg("self", "x"), IntsArg("output_size", {3, 3, 2})},
                                          {{"y", kF32, {2, 3, 3, 2}}, {"i", kI64, {2, 3, 3, 2}}}),
                           true);
}

// Training batch norm with running statistics: a later reader of
// running_mean sees the updated statistics, not the graph input.
TEST(BatchNormTraining, LaterReadersSeeUpdatedRunningStats) {
  pt2::ExportedProgram program =
      ProgramBuilder()
          .Input("x", kF32, {4, 3, 5})
          .Input("rm", kF32, {3})
          .Input("rv", kF32, {3})
          .Node(Aten("native_batch_norm.default"),
                {TensorArg("input", "x"), NoneArg("weight"), NoneArg("bias"), TensorArg("running_mean", "rm"),
                 TensorArg("running_var", "rv"), BoolArg("training", true), FloatArg("momentum", 0.1),
                 FloatArg("eps", 1e-5)},
                {{"y", kF32, {4, 3, 5}}, {"m", kF32, {3}}, {"s", kF32, {3}}})
          .Node(Aten("add.Tensor"), {TensorArg("self", "rm"), TensorArg("other", "rv")}, {{"z", kF32, {3}}})
          .Output("y")
          .Output("z")
          .Build();
  absl::StatusOr<Converted> got = ConvertAndCheck(program);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(OutputsMatchProgram(program, *got, {.static_dims_may_be_unknown = true}));
  const ir::Node* add = nullptr;
  for (const ir::Node& node : got->model.graph.nodes) {
    if (node.op_type == "Add" && !node.outputs.empty() && node.outputs[0] == "z") add = &node;
  }
  ASSERT_NE(add, nullptr);
  EXPECT_NE(add->inputs[0], "rm");
  EXPECT_NE(add->inputs[1], "rv");
}

TEST(BatchNormTraining, FunctionalFormReturnsUpdatedStats) {
  ExpectConvertsWithShapes(
      OneNodeProgram({{"x", kF32, {4, 3, 5}}, {"rm", kF32, {3}}, {"rv", kF32, {3}}},
                     "_native_batch_norm_legit_functional.default",
                     {TensorArg("input", "x"), NoneArg("weight"), NoneArg("bias"), TensorArg("running_mean", "rm"),
                      TensorArg("running_var", "rv"), BoolArg("training", true), FloatArg("momentum", 0.1),
                      FloatArg("eps", 1e-5)},
                     {{"y", kF32, {4, 3, 5}}, {"m", kF32, {3}}, {"s", kF32, {3}}, {"rm2", kF32, {3}},
                      {"rv2", kF32, {3}}}),
      true);
}

}  // namespace
}  // namespace pt2onnx::testing
