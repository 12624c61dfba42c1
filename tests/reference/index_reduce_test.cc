// Reference kernels of grouped and strided writes on hand-computed values:
// index_reduce (with and without self), segment_reduce (lengths, offsets
// with leading dims, initial), im2col, put, as_strided_scatter, quantile
// (every interpolation, float32 ranks), combinations and the masked index
// read / accumulate.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "tests/reference/kernel_runner.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::reference {
namespace {

using ::pt2onnx::testing::BoolArg;
using ::pt2onnx::testing::FloatArg;
using ::pt2onnx::testing::IntArg;
using ::pt2onnx::testing::IntsArg;
using ::pt2onnx::testing::StringArg;
using ::pt2onnx::testing::TensorArg;
using ::pt2onnx::testing::TensorsArg;

KernelRun IndexReduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const std::string& reduce, bool include_self) {
  ValueMap values{{"s", RefValue::OfTensor(self)}, {"i", RefValue::OfTensor(index)},
                  {"src", RefValue::OfTensor(source)}};
  return RunKernel("aten::index_reduce.default",
                   {TensorArg("self", "s"), IntArg("dim", dim), TensorArg("index", "i"), TensorArg("source", "src"),
                    StringArg("reduce", reduce), BoolArg("include_self", include_self)},
                   values);
}

TEST(ReferenceIndexReduce, EveryModeWithAndWithoutSelf) {
  const Tensor self = F32({3}, {1, 2, 3});
  const Tensor index = I64({3}, {0, 0, 2});
  KernelRun r = IndexReduce(self, 0, index, F32({3}, {4, 6, 9}), "mean", true);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3}, {11.0 / 3, 2, 6});
  r = IndexReduce(self, 0, index, F32({3}, {4, 6, 9}), "mean", false);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3}, {5, 2, 9});
  r = IndexReduce(self, 0, index, F32({3}, {-4, -6, 9}), "amax", false);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3}, {-4, 2, 9});
  r = IndexReduce(self, 0, index, F32({3}, {-4, -6, 9}), "amax", true);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3}, {1, 2, 9});
  r = IndexReduce(self, -1, index, F32({3}, {-4, -6, 0}), "amin", false);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3}, {-6, 2, 0});
  // prod along the last dim of a matrix: row o, column 1 gets both source columns.
  r = IndexReduce(F32({2, 2}, {1, 2, 3, 4}), -1, I64({2}, {1, 1}), F32({2, 2}, {2, 3, 5, 7}), "prod", true);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {1, 12, 3, 140});
  r = IndexReduce(self, 0, index, F32({3}, {4, 6, 9}), "sum", true);
  EXPECT_FALSE(r.status.ok());
}

TEST(ReferenceSegmentReduce, LengthsOffsetsAndInitial) {
  ValueMap values{{"d", RefValue::OfTensor(F32({5}, {1, 2, 3, 4, 5}))}, {"l", RefValue::OfTensor(I64({3}, {2, 0, 3}))}};
  KernelRun r = RunKernel("aten::segment_reduce.default",
                          {TensorArg("data", "d"), StringArg("reduce", "prod"), TensorArg("lengths", "l")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3}, {2, 1, 60});
  values = {{"d", RefValue::OfTensor(F32({2, 3}, {1, 2, 3, 4, 5, 6}))},
            {"o", RefValue::OfTensor(I64({2, 3}, {0, 1, 3, 0, 0, 3}))}};
  r = RunKernel("aten::segment_reduce.default",
                {TensorArg("data", "d"), StringArg("reduce", "sum"), TensorArg("offsets", "o"), IntArg("axis", 1),
                 IntArg("initial", 10)},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {11, 15, 10, 25});
  r = RunKernel("aten::segment_reduce.default",
                {TensorArg("data", "d"), StringArg("reduce", "mean"), TensorArg("offsets", "o"), IntArg("axis", 1),
                 IntArg("initial", 1)},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {2, 3, 1, 16.0 / 3});
}

TEST(ReferenceFolding, Im2colBlocksWithPaddingAndStride) {
  std::vector<double> image(9);
  for (size_t i = 0; i < image.size(); ++i) image[i] = static_cast<double>(i + 1);
  ValueMap values{{"x", RefValue::OfTensor(F32({1, 1, 3, 3}, image))}};
  KernelRun r = RunKernel("aten::im2col.default",
                          {TensorArg("self", "x"), IntsArg("kernel_size", {2, 2}), IntsArg("dilation", {1, 1}),
                           IntsArg("padding", {0, 0}), IntsArg("stride", {1, 1})},
                          values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {1, 4, 4}, {1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9});
  r = RunKernel("aten::im2col.default",
                {TensorArg("self", "x"), IntsArg("kernel_size", {2, 2}), IntsArg("dilation", {1, 1}),
                 IntsArg("padding", {1, 1}), IntsArg("stride", {2, 2})},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {1, 4, 4}, {0, 0, 0, 5, 0, 0, 4, 6, 0, 2, 0, 8, 1, 3, 7, 9});
}

TEST(ReferenceWrites, PutAndAsStridedScatter) {
  ValueMap values{{"s", RefValue::OfTensor(F32({2, 2}, {1, 2, 3, 4}))}, {"i", RefValue::OfTensor(I64({3}, {-1, 0, 0}))},
                  {"v", RefValue::OfTensor(F32({3}, {10, 20, 30}))}};
  KernelRun r = RunKernel("aten::put.default",
                          {TensorArg("self", "s"), TensorArg("index", "i"), TensorArg("source", "v"),
                           BoolArg("accumulate", true)},
                          values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {51, 2, 3, 14});
  r = RunKernel("aten::put.default",
                {TensorArg("self", "s"), TensorArg("index", "i"), TensorArg("source", "v"), BoolArg("accumulate", false)},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {30, 2, 3, 10});
  values = {{"s", RefValue::OfTensor(F32({2, 3}, {0, 1, 2, 3, 4, 5}))},
            {"v", RefValue::OfTensor(F32({2, 2}, {10, 11, 12, 13}))}};
  r = RunKernel("aten::as_strided_scatter.default",
                {TensorArg("self", "s"), TensorArg("src", "v"), IntsArg("size", {2, 2}), IntsArg("stride", {3, 1}),
                 IntArg("storage_offset", 1)},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 3}, {0, 10, 11, 3, 12, 13});
}

KernelRun QuantileRun(const char* overload, const Tensor& x, double q, const std::string& mode) {
  ValueMap values{{"x", RefValue::OfTensor(x)}};
  return RunKernel(overload, {TensorArg("self", "x"), FloatArg("q", q), BoolArg("keepdim", false),
                              StringArg("interpolation", mode)},
                   values);
}

TEST(ReferenceQuantile, EveryModeInFloat32) {
  // rank = 0.4f * 3 = 1.2 over the sorted values 1, 2, 3, 4.
  const Tensor x = F32({4}, {4, 1, 3, 2});
  const std::vector<std::pair<std::string, double>> want = {
      {"linear", 2.2}, {"lower", 2}, {"higher", 3}, {"nearest", 2}, {"midpoint", 2.5}};
  for (const auto& [mode, value] : want) {
    KernelRun r = QuantileRun("aten::quantile.scalar", x, 0.4, mode);
    ASSERT_TRUE(r.status.ok()) << mode << ": " << r.status;
    ExpectValues(r.results[0], {}, {value});
    r = QuantileRun("aten::nanquantile.scalar", F32({5}, {4, NAN, 1, 3, 2}), 0.4, mode);
    ASSERT_TRUE(r.status.ok()) << mode << ": " << r.status;
    ExpectValues(r.results[0], {}, {value});
  }
  // nearest rounds half to even: rank 1.5 -> 2.
  KernelRun r = QuantileRun("aten::quantile.scalar", x, 0.5, "nearest");
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {}, {3});
  ValueMap values{{"x", RefValue::OfTensor(F32({2, 3}, {1, 5, 3, 6, 4, 2}))}};
  r = RunKernel("aten::quantile.scalar",
                {TensorArg("self", "x"), FloatArg("q", 0.5), IntArg("dim", -1), BoolArg("keepdim", true)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 1}, {3, 4});
}

TEST(ReferenceCombinations, WithAndWithoutReplacement) {
  ValueMap values{{"x", RefValue::OfTensor(F32({3}, {10, 20, 30}))}};
  KernelRun r = RunKernel("aten::combinations.default",
                          {TensorArg("self", "x"), IntArg("r", 2), BoolArg("with_replacement", false)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 2}, {10, 20, 10, 30, 20, 30});
  r = RunKernel("aten::combinations.default",
                {TensorArg("self", "x"), IntArg("r", 2), BoolArg("with_replacement", true)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {6, 2}, {10, 10, 10, 20, 10, 30, 20, 20, 20, 30, 30, 30});
  r = RunKernel("aten::combinations.default",
                {TensorArg("self", "x"), IntArg("r", 4), BoolArg("with_replacement", false)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {0, 4}, {});
}

TEST(ReferenceMaskedIndex, ClampedReadAndMaskedAccumulate) {
  Tensor mask = F32({2, 2}, {1, 0, 1, 1});
  ValueMap values{{"x", RefValue::OfTensor(F32({2, 2}, {1, 2, 3, 4}))},
                  {"m", RefValue::OfTensor(*CastTensor(mask, DataType::kBool))},
                  {"i0", RefValue::OfTensor(I64({2, 1}, {-1, 5}))},
                  {"i1", RefValue::OfTensor(I64({2}, {0, 1}))}};
  KernelRun r = RunKernel("aten::_unsafe_masked_index.default",
                          {TensorArg("self", "x"), TensorArg("mask", "m"), TensorsArg("indices", {"i0", "i1"}),
                           FloatArg("fill", -1)},
                          values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {1, -1, 3, 4});
  values = {{"x", RefValue::OfTensor(F32({2, 2}, {0, 0, 0, 0}))},
            {"m", RefValue::OfTensor(*CastTensor(F32({3}, {1, 1, 0}), DataType::kBool))},
            {"i0", RefValue::OfTensor(I64({3}, {-1, 0, 7}))},
            {"i1", RefValue::OfTensor(I64({3}, {0, 0, 1}))},
            {"v", RefValue::OfTensor(F32({3}, {10, 20, 30}))}};
  r = RunKernel("aten::_unsafe_masked_index_put_accumulate.default",
                {TensorArg("self", "x"), TensorArg("mask", "m"), TensorsArg("indices", {"i0", "i1"}),
                 TensorArg("values", "v")},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {20, 0, 10, 0});
}

TEST(ReferenceGradient, EdgeOrdersAndSpacing) {
  ValueMap values{{"x", RefValue::OfTensor(F32({4}, {1, 4, 9, 16}))}};
  KernelRun r = RunKernel("aten::gradient.scalarint", {TensorArg("self", "x"), IntArg("edge_order", 1)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.results[0].list.size(), 1u);
  ExpectValues(r.results[0].list[0], {4}, {3, 4, 6, 7});
  r = RunKernel("aten::gradient.scalarint",
                {TensorArg("self", "x"), FloatArg("spacing", 2), IntArg("edge_order", 2)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0].list[0], {4}, {1, 2, 3, 4});
}

}  // namespace
}  // namespace pt2onnx::reference
