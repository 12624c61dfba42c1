// Reference kernels on hand-checked values: NumPy's splits, nonzero_numpy,
// resize_, hash_tensor (XOR of the 64-bit patterns), histogram and
// histogramdd, torch.nn's chunked linear cross-entropy and the regularized
// incomplete gamma functions.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "reference/ref_tensor.h"
#include "tests/reference/kernel_runner.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::reference {
namespace {

using ::pt2onnx::testing::BoolArg;
using ::pt2onnx::testing::IntArg;
using ::pt2onnx::testing::IntsArg;
using ::pt2onnx::testing::NoneArg;
using ::pt2onnx::testing::StringArg;
using ::pt2onnx::testing::TensorArg;
using ::pt2onnx::testing::TensorsArg;

TEST(ReferenceLayout, HsplitVsplitDsplit) {
  ValueMap values{{"x", RefValue::OfTensor(F32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}))}};
  KernelRun h = RunKernel("aten::hsplit.int", {TensorArg("self", "x"), IntArg("sections", 2)}, values);
  ASSERT_TRUE(h.status.ok()) << h.status;
  ASSERT_EQ(h.results[0].list.size(), 2u);
  ExpectValues(h.results[0].list[1], {2, 2}, {2, 3, 6, 7});
  KernelRun v = RunKernel("aten::vsplit.array", {TensorArg("self", "x"), IntsArg("indices", {1})}, values);
  ASSERT_TRUE(v.status.ok()) << v.status;
  ExpectValues(v.results[0].list[0], {1, 4}, {0, 1, 2, 3});
  KernelRun d = RunKernel("aten::dsplit.int", {TensorArg("self", "x"), IntArg("sections", 2)}, values);
  EXPECT_FALSE(d.status.ok());  // needs 3 dims
  KernelRun odd = RunKernel("aten::hsplit.int", {TensorArg("self", "x"), IntArg("sections", 3)}, values);
  EXPECT_FALSE(odd.status.ok());  // 4 is not divisible by 3
}

TEST(ReferenceLayout, TensorSplitByIndicesTensor) {
  ValueMap values{{"x", RefValue::OfTensor(F32({5}, {0, 1, 2, 3, 4}))},
                  {"i", RefValue::OfTensor(I64({2}, {1, 3}))}};
  KernelRun r = RunKernel("aten::tensor_split.tensor_indices_or_sections",
                          {TensorArg("self", "x"), TensorArg("tensor_indices_or_sections", "i"), IntArg("dim", 0)},
                          values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.results[0].list.size(), 3u);
  ExpectValues(r.results[0].list[1], {2}, {1, 2});
  ExpectValues(r.results[0].list[2], {2}, {3, 4});
}

TEST(ReferenceLayout, NonzeroNumpyColumns) {
  ValueMap values{{"x", RefValue::OfTensor(F32({2, 2}, {0, 1, 1, 0}))}};
  KernelRun r = RunKernel("aten::nonzero_numpy.default", {TensorArg("self", "x")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.results[0].list.size(), 2u);
  ExpectValues(r.results[0].list[0], {2}, {0, 1});
  ExpectValues(r.results[0].list[1], {2}, {1, 0});
}

TEST(ReferenceLayout, ResizeKeepsTheLeadingElements) {
  ValueMap values{{"x", RefValue::OfTensor(F32({2, 3}, {0, 1, 2, 3, 4, 5}))}};
  KernelRun r = RunKernel("aten::resize_.default", {TensorArg("self", "x"), IntsArg("size", {2, 2})}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {0, 1, 2, 3});
  KernelRun grow = RunKernel("aten::resize_.default", {TensorArg("self", "x"), IntsArg("size", {7})}, values);
  EXPECT_FALSE(grow.status.ok());
}

TEST(ReferenceLayout, HashTensorXorsDoubleBits) {
  ValueMap values{{"x", RefValue::OfTensor(F32({2}, {1.0, -2.5}))}};
  KernelRun r = RunKernel("aten::hash_tensor.default",
                          {TensorArg("self", "x"), IntsArg("dim", {}), BoolArg("keepdim", false), IntArg("mode", 0)},
                          values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  const double a = 1.0, b = -2.5;
  uint64_t ba, bb, got;
  std::memcpy(&ba, &a, 8);
  std::memcpy(&bb, &b, 8);
  ASSERT_EQ(r.results[0].tensor.dtype(), DataType::kUint64);
  std::memcpy(&got, r.results[0].tensor.raw(), 8);
  EXPECT_EQ(got, ba ^ bb);
}

TEST(ReferenceLayout, HistogramBinsAndDensity) {
  ValueMap values{{"x", RefValue::OfTensor(F32({5}, {0, 1, 1, 3, 4}))}};
  KernelRun r = RunKernel("aten::histogram.bin_ct",
                          {TensorArg("self", "x"), IntArg("bins", 4), NoneArg("range"), NoneArg("weight"),
                           BoolArg("density", false)},
                          values, 2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {4}, {1, 2, 0, 2});  // the last edge closes the last bin
  ExpectValues(r.results[1], {5}, {0, 1, 2, 3, 4});
  ValueMap one{{"x", RefValue::OfTensor(F32({}, {2}))}};
  KernelRun d = RunKernel("aten::histogram.bin_ct",
                          {TensorArg("self", "x"), IntArg("bins", 1), NoneArg("range"), NoneArg("weight"),
                           BoolArg("density", true)},
                          one, 2);
  ASSERT_TRUE(d.status.ok()) << d.status;
  ExpectValues(d.results[0], {1}, {1});
  ExpectValues(d.results[1], {2}, {1.5, 2.5});  // an empty range widens by 0.5
}

TEST(ReferenceLayout, HistogramddWithEdgeTensors) {
  ValueMap values{{"x", RefValue::OfTensor(F32({3, 2}, {0, 0, 1, 5, 2, 9}))},
                  {"e0", RefValue::OfTensor(F32({3}, {0, 1, 2}))},
                  {"e1", RefValue::OfTensor(F32({2}, {0, 6}))}};
  KernelRun r = RunKernel("aten::histogramdd.TensorList_bins",
                          {TensorArg("self", "x"), TensorsArg("bins", {"e0", "e1"}), NoneArg("range"),
                           NoneArg("weight"), BoolArg("density", false)},
                          values, 2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 1}, {1, 1});  // (2, 9) lies outside the second dim's edges
}

TEST(ReferenceLayout, LinearCrossEntropyChunked) {
  // One class row of zeros: logits (0, 0), so every row's loss is log 2.
  ValueMap values{{"x", RefValue::OfTensor(F32({3, 1}, {1, 2, 3}))},
                  {"w", RefValue::OfTensor(F32({2, 1}, {0, 0}))},
                  {"t", RefValue::OfTensor(I64({3}, {0, 1, -100}))}};
  KernelRun r = RunKernel("torch_nn::_linear_cross_entropy_batch_chunked.default",
                          {TensorArg("input", "x"), TensorArg("linear_weight", "w"), TensorArg("target", "t"),
                           NoneArg("linear_bias"), NoneArg("weight"), StringArg("reduction", "mean"),
                           IntArg("ignore_index", -100)},
                          values, 4);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {}, {std::log(2.0)});
  KernelRun none = RunKernel("torch_nn::_linear_cross_entropy_batch_chunked_no_reduction.default",
                             {TensorArg("input", "x"), TensorArg("linear_weight", "w"), TensorArg("target", "t"),
                              NoneArg("linear_bias"), NoneArg("weight"), IntArg("ignore_index", -100)},
                             values);
  ASSERT_TRUE(none.status.ok()) << none.status;
  ExpectValues(none.results[0], {3}, {std::log(2.0), std::log(2.0), 0});
}

TEST(ReferenceLayout, IncompleteGammaValues) {
  // P(1, x) = 1 - e^-x; P(2, x) = 1 - (1 + x) e^-x; torch's boundaries.
  ValueMap values{{"a", RefValue::OfTensor(F32({6}, {1, 1, 2, 2, 0, -1}))},
                  {"x", RefValue::OfTensor(F32({6}, {0.5, 4, 1, 6, 2, 1}))}};
  KernelRun p = RunKernel("aten::igamma.default", {TensorArg("self", "a"), TensorArg("other", "x")}, values);
  ASSERT_TRUE(p.status.ok()) << p.status;
  const std::vector<double> got = ToDoubles(p.results[0].tensor);
  const std::vector<double> want = {1 - std::exp(-0.5), 1 - std::exp(-4.0), 1 - 2 * std::exp(-1.0),
                                    1 - 7 * std::exp(-6.0), 1};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
  EXPECT_TRUE(std::isnan(got[5]));
  KernelRun q = RunKernel("aten::igammac.default", {TensorArg("self", "a"), TensorArg("other", "x")}, values);
  ASSERT_TRUE(q.status.ok()) << q.status;
  EXPECT_NEAR(ToDoubles(q.results[0].tensor)[3], 7 * std::exp(-6.0), 1e-6);
}

}  // namespace
}  // namespace pt2onnx::reference
