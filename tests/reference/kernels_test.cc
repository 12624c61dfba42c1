// Reference kernels on one-node programs, against numbers torch 2.15
// computed (CPU, float32): linalg norms, col2im, embedding_bag, the FFT ops,
// antialiased upsampling, the flash SDPA form, backward ops, small bmm's float
// summation order, the FFT cost cap, the refusal of outputs the interpreter
// does not compute, and quantization (ties, clamping, torch's x * (1 / scale)
// where ONNX's x / scale rounds the other way, per channel, dynamic
// parameters, fake quantization).
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "core/aten/op_schema.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"
#include "reference/registry.h"
#include "gtest/gtest.h"
#include "tests/reference/kernel_runner.h"
#include "tests/testing/op_test_util.h"

namespace pt2onnx::reference {
namespace {

using Kind = pt2::Argument::Kind;

using ::pt2onnx::testing::TensorArg;
using ::pt2onnx::testing::IntArg;
using ::pt2onnx::testing::IntsArg;
using ::pt2onnx::testing::FloatArg;
using ::pt2onnx::testing::BoolArg;
using ::pt2onnx::testing::BoolsArg;
using ::pt2onnx::testing::StringArg;

const std::vector<double> kMatrix = {1, -2, 3, 0.5, 0, 4, -1, 2, 2, 1, 1, -3};

TEST(ReferenceNorms, MatrixNormOrders) {
  ValueMap values{{"a", RefValue::OfTensor(F32({3, 4}, kMatrix))}};
  const std::vector<std::pair<std::string, double>> str_cases = {{"nuc", 11.809063}, {"fro", 7.08872366}};
  for (const auto& [ord, want] : str_cases) {
    KernelRun r = RunKernel("aten::linalg_matrix_norm.str_ord", {TensorArg("self", "a"), StringArg("ord", ord)}, values);
    ASSERT_TRUE(r.status.ok()) << r.status;
    ExpectValues(r.results[0], {}, {want});
  }
  const std::vector<std::pair<double, double>> cases = {{2, 5.38193941}, {-2, 2.65197253}, {1, 7.0}, {-INFINITY, 6.5}};
  for (const auto& [ord, want] : cases) {
    KernelRun r = RunKernel("aten::linalg_matrix_norm.default", {TensorArg("self", "a"), FloatArg("ord", ord)}, values);
    ASSERT_TRUE(r.status.ok()) << r.status;
    ExpectValues(r.results[0], {}, {want});
  }
}

TEST(ReferenceNorms, LinalgNormVectorAndWhole) {
  ValueMap values{{"a", RefValue::OfTensor(F32({3, 4}, kMatrix))}};
  KernelRun r = RunKernel("aten::linalg_norm.default", {TensorArg("self", "a"), FloatArg("ord", 3), IntsArg("dim", {1})}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3}, {3.30574465, 4.17933941, 3.33222198});
  r = RunKernel("aten::linalg_norm.default", {TensorArg("self", "a")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {}, {7.08872366});
  r = RunKernel("aten::linalg_matrix_norm.default", {TensorArg("self", "a"), FloatArg("ord", 3)}, values);
  EXPECT_FALSE(r.status.ok());
  EXPECT_NE(std::string(r.status.message()).find("Order 3 not supported"), std::string::npos) << r.status;
}

TEST(ReferenceFolding, Col2imSumsOverlappingBlocks) {
  std::vector<double> cols(32);
  for (size_t i = 0; i < cols.size(); ++i) cols[i] = static_cast<double>(i + 1);
  ValueMap values{{"c", RefValue::OfTensor(F32({1, 8, 4}, cols))}};
  KernelRun r = RunKernel("aten::col2im.default",
                    {TensorArg("self", "c"), IntsArg("output_size", {3, 3}), IntsArg("kernel_size", {2, 2}),
                     IntsArg("dilation", {1, 1}), IntsArg("padding", {0, 0}), IntsArg("stride", {1, 1})},
                    values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {1, 2, 3, 3},
               {1, 7, 6, 12, 34, 22, 11, 27, 16, 17, 39, 22, 44, 98, 54, 27, 59, 32});
  r = RunKernel("aten::col2im.default",
                {TensorArg("self", "c"), IntsArg("output_size", {4, 4}), IntsArg("kernel_size", {2, 2}),
                 IntsArg("dilation", {1, 1}), IntsArg("padding", {0, 0}), IntsArg("stride", {1, 1})},
                values);
  EXPECT_FALSE(r.status.ok());
}

TEST(ReferenceEmbeddingBag, ModesPaddingWeightsAndLastOffset) {
  ValueMap values{{"w", RefValue::OfTensor(F32({4, 2}, {1, 2, 3, -4, 5, 6, -7, 8}))},
                  {"idx", RefValue::OfTensor(I64({6}, {0, 2, 1, 2, 3, 3}))},
                  {"off", RefValue::OfTensor(I64({4}, {0, 3, 3, 5}))},
                  {"psw", RefValue::OfTensor(F32({6}, {1, 0.5, 2, -1, 3, 0.25}))}};
  KernelRun r = RunKernel("aten::embedding_bag.padding_idx",
                    {TensorArg("weight", "w"), TensorArg("indices", "idx"), TensorArg("offsets", "off"),
                     BoolArg("scale_grad_by_freq", false), IntArg("mode", 1), BoolArg("sparse", false),
                     BoolArg("include_last_offset", false), IntArg("padding_idx", 2)},
                    values, 4);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {4, 2}, {2, -1, 0, 0, -7, 8, -7, 8});
  EXPECT_EQ(r.results[1].kind, RefValue::Kind::kUnavailable);
  r = RunKernel("aten::embedding_bag.default",
                {TensorArg("weight", "w"), TensorArg("indices", "idx"), TensorArg("offsets", "off"),
                 IntArg("mode", 2)},
                values, 4);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {4, 2}, {5, 6, 0, 0, 5, 8, -7, 8});
  r = RunKernel("aten::_embedding_bag.default",
                {TensorArg("weight", "w"), TensorArg("indices", "idx"), TensorArg("offsets", "off"),
                 IntArg("mode", 0), TensorArg("per_sample_weights", "psw"), BoolArg("include_last_offset", true)},
                values, 4);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 2}, {9.5, -3, 0, 0, -26, 18});
}

TEST(ReferenceFft, RealToComplexAndBack) {
  ValueMap values{{"x", RefValue::OfTensor(F32({5}, {1, 2, -3, 4, 0.5}))}};
  KernelRun r = RunKernel("aten::_fft_r2c.default",
                    {TensorArg("self", "x"), IntsArg("dim", {0}), IntArg("normalization", 0), BoolArg("onesided", true)},
                    values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.results[0].tensor.dtype(), DataType::kComplex64);
  values["r"] = r.results[0];
  KernelRun real = RunKernel("aten::view_as_real.default", {TensorArg("self", "r")}, values);
  ASSERT_TRUE(real.status.ok()) << real.status;
  ExpectValues(real.results[0], {3, 2}, {4.5, 0, 0.963525474, 2.68791199, -0.713525474, -7.53907394});
  KernelRun back = RunKernel("aten::_fft_c2r.default",
                       {TensorArg("self", "r"), IntsArg("dim", {0}), IntArg("normalization", 2), IntArg("last_dim_size", 5)},
                       values);
  ASSERT_TRUE(back.status.ok()) << back.status;
  ExpectValues(back.results[0], {5}, {1, 2, -3, 4, 0.5});
  KernelRun irfft = RunKernel("aten::fft_irfft.default",
                        {TensorArg("self", "r"), IntArg("n", 6), StringArg("norm", "ortho")}, values);
  ASSERT_TRUE(irfft.status.ok()) << irfft.status;
  ExpectValues(irfft.results[0], {6}, {2.04124165, 5.95205975, -5.49651623, 0.467810899, 8.96662617, -0.908519089});
  KernelRun ifft = RunKernel("aten::fft_ifft.default", {TensorArg("self", "r"), IntArg("n", 4)}, values);
  ASSERT_TRUE(ifft.status.ok()) << ifft.status;
  values["i"] = ifft.results[0];
  real = RunKernel("aten::view_as_real.default", {TensorArg("self", "i")}, values);
  ExpectValues(real.results[0], {4, 2},
               {1.1875, -1.21279049, 0.631403327, 2.12564993, 0.705737233, -2.55674648, 1.97535932, 1.64388716});
}

// Expected values: numpy.fft (hfft2 and ihfft2 composed from its 1-D
// transforms as ATen composes them, SpectralOps.cpp).
TEST(ReferenceFft, NDimensionalAndHermitianTransforms) {
  ValueMap values{{"x", RefValue::OfTensor(F32({2, 3}, {1, 2, -3, 4, 0.5, -1}))}};
  auto as_real = [&](const KernelRun& run) {
    values["c"] = run.results[0];
    return RunKernel("aten::view_as_real.default", {TensorArg("self", "c")}, values);
  };
  KernelRun r = RunKernel("aten::fft_irfft2.default",
                          {TensorArg("self", "x"), IntsArg("s", {2, 4}), IntsArg("dim", {-2, -1})}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 4}, {0.75, 1.125, -0.5, 1.125, -0.25, -0.125, -1.0, -0.125});
  r = RunKernel("aten::fft_hfft2.default",
                {TensorArg("self", "x"), IntsArg("s", {2, 4}), IntsArg("dim", {-2, -1}), StringArg("norm", "ortho")},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 4},
               {2.12132034, 3.18198052, -1.41421356, 3.18198052, -0.707106781, -0.353553391, -2.82842712, -0.353553391});
  r = RunKernel("aten::fft_ihfft2.default", {TensorArg("self", "x"), IntsArg("dim", {-2, -1})}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(as_real(r).results[0], {2, 2, 2},
               {0.583333333, 0, 0.958333333, 0.938194187, -0.583333333, 0, -0.458333333, 0.505181486});
  r = RunKernel("aten::fft_fftn.default", {TensorArg("self", "x"), IntsArg("s", {3}), StringArg("norm", "forward")},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(as_real(r).results[0], {2, 3, 2},
               {0, 0, 0.5, -1.44337567, 0.5, 1.44337567, 1.16666667, 0, 1.41666667, -0.433012702, 1.41666667,
                0.433012702});
}

TEST(ReferenceFft, StftOfAWindowedSignal) {
  ValueMap values{{"x", RefValue::OfTensor(F32({8}, {1, 2, -3, 4, 0.5, -1, 2, 0.25}))},
                  {"w", RefValue::OfTensor(F32({2}, {0.5, 1.0}))}};
  KernelRun r = RunKernel("aten::stft.default",
                          {TensorArg("self", "x"), IntArg("n_fft", 4), IntArg("hop_length", 2), IntArg("win_length", 2),
                           TensorArg("window", "w"), BoolArg("normalized", true), BoolArg("return_complex", false)},
                          values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {3, 3, 2},
               {-1.0, 0, 1.25, 0, 0.75, 0, 1.5, -0.5, -0.25, -1.0, -1.0, 0.25, -2.0, 0, -0.75, 0, 1.25, 0});
}

TEST(ReferenceResample, AntialiasedDownsampling) {
  std::vector<double> img(16);
  for (int i = 0; i < 16; ++i) img[i] = std::pow(static_cast<double>(i), 1.5);
  ValueMap values{{"x", RefValue::OfTensor(F32({1, 1, 4, 4}, img))}};
  KernelRun r = RunKernel("aten::_upsample_bilinear2d_aa.default",
                    {TensorArg("self", "x"), IntsArg("output_size", {2, 3}), BoolArg("align_corners", false)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {1, 1, 2, 3}, {7.38592815, 10.5528498, 14.3717346, 30.0359974, 35.679409, 41.6559525});
  r = RunKernel("aten::_upsample_bicubic2d_aa.default",
                {TensorArg("self", "x"), IntsArg("output_size", {3, 2}), BoolArg("align_corners", false)}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {1, 1, 3, 2}, {2.01753116, 5.89146185, 17.1730499, 24.6514683, 40.7435684, 50.5198822});
}

// The CUDA flash form aligns its causal mask bottom-right when L < S
// (torch's numbers: F.scaled_dot_product_attention with that mask).
TEST(ReferenceAttention, FlashCausalBottomRightAndUnavailableOutputs) {
  ValueMap values{{"q", RefValue::OfTensor(F32({1, 1, 2, 2}, {1, 0, 0, 1}))},
                  {"k", RefValue::OfTensor(F32({1, 1, 3, 2}, {1, 1, 0, 2, -1, 0.5}))},
                  {"v", RefValue::OfTensor(F32({1, 1, 3, 2}, {1, 2, 3, 4, 5, -6}))}};
  KernelRun r = RunKernel("aten::_scaled_dot_product_flash_attention.default",
                    {TensorArg("query", "q"), TensorArg("key", "k"), TensorArg("value", "v"), BoolArg("is_causal", true)},
                    values, 9);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {1, 1, 2, 2}, {1.66047692, 2.66047692, 2.84032869, 1.58146083});
  EXPECT_EQ(r.results[4].kind, RefValue::Kind::kInt);
  EXPECT_EQ(r.results[5].i, 3);
  ASSERT_EQ(r.results[6].kind, RefValue::Kind::kUnavailable);
  // A node reading an output the interpreter does not compute is refused, naming it.
  values["rng"] = r.results[6];
  KernelRun read = RunKernel("aten::clone.default", {TensorArg("self", "rng")}, values);
  EXPECT_EQ(read.status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(std::string(read.status.message()).find("rng_state"), std::string::npos) << read.status;
}

std::vector<pt2::NamedArgument> ConvBackwardArgs(bool transposed, int64_t stride, std::vector<int64_t> bias) {
  return {TensorArg("grad_output", "g"), TensorArg("input", "x"), TensorArg("weight", "w"),
          IntsArg("bias_sizes", std::move(bias)), IntsArg("stride", {stride}), IntsArg("padding", {0}),
          IntsArg("dilation", {1}), BoolArg("transposed", transposed), IntsArg("output_padding", {0}),
          IntArg("groups", 1), BoolsArg("output_mask", {true, true, true})};
}

TEST(ReferenceBackward, ConvolutionAndTransposed) {
  ValueMap values{{"x", RefValue::OfTensor(F32({1, 1, 5}, {1, 2, -1, 0.5, 3}))},
                  {"w", RefValue::OfTensor(F32({2, 1, 2}, {1, -1, 0.5, 2}))},
                  {"g", RefValue::OfTensor(F32({1, 2, 2}, {1, 2, -1, 0.5}))}};
  KernelRun r = RunKernel("aten::convolution_backward.default", ConvBackwardArgs(false, 2, {2}), values, 3);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {1, 1, 5}, {0.5, -3.0, 2.25, -1.0, 0.0});
  ExpectValues(r.results[1], {2, 1, 2}, {-1.0, 3.0, -1.5, -1.75});
  ExpectValues(r.results[2], {2}, {3.0, -0.5});
  values = {{"x", RefValue::OfTensor(F32({1, 1, 2}, {1, -2}))},
            {"w", RefValue::OfTensor(F32({1, 1, 3}, {1, 2, -1}))},
            {"g", RefValue::OfTensor(F32({1, 1, 5}, {0.5, 1, -1, 2, 3}))}};
  r = RunKernel("aten::convolution_backward.default", ConvBackwardArgs(true, 2, {1}), values, 3);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {1, 1, 2}, {3.5, 0.0});
  ExpectValues(r.results[1], {1, 1, 3}, {2.5, -3.0, -7.0});
  ExpectValues(r.results[2], {1}, {5.5});
}

TEST(ReferenceBackward, LayerNormFromSavedStatistics) {
  ValueMap values{{"x", RefValue::OfTensor(F32({2, 3}, {1, 2, 4, 0, -1, 3}))},
                  {"w", RefValue::OfTensor(F32({3}, {1, 0.5, 2}))},
                  {"b", RefValue::OfTensor(F32({3}, {0, 0, 0}))},
                  {"g", RefValue::OfTensor(F32({2, 3}, {1, -1, 0.5, 2, 0, 1}))}};
  KernelRun fwd = RunKernel("aten::native_layer_norm.default",
                            {TensorArg("input", "x"), IntsArg("normalized_shape", {3}), TensorArg("weight", "w"),
                             TensorArg("bias", "b"), FloatArg("eps", 1e-5)},
                            values, 3);
  ASSERT_TRUE(fwd.status.ok()) << fwd.status;
  values["mean"] = fwd.results[1];
  values["rstd"] = fwd.results[2];
  KernelRun r = RunKernel("aten::native_layer_norm_backward.default",
                          {TensorArg("grad_out", "g"), TensorArg("input", "x"), IntsArg("normalized_shape", {3}),
                           TensorArg("mean", "mean"), TensorArg("rstd", "rstd"), TensorArg("weight", "w"),
                           TensorArg("bias", "b"), BoolsArg("output_mask", {true, true, false})},
                          values, 3);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 3}, {0.515429974, -0.773146212, 0.257716238, 0.54308939, -0.407318681, -0.135770649});
  ExpectValues(r.results[1], {3}, {-1.85350442, 0.267260313, 2.0409615});
  EXPECT_EQ(r.results[2].kind, RefValue::Kind::kNone);
}

TEST(ReferenceBackward, EmbeddingDenseScaledByFrequencySkipsPadding) {
  ValueMap values{{"g", RefValue::OfTensor(F32({3, 2}, {1, 2, 3, 4, 5, 6}))},
                  {"i", RefValue::OfTensor(I64({3}, {1, 3, 1}))}};
  KernelRun r = RunKernel("aten::embedding_dense_backward.default",
                          {TensorArg("grad_output", "g"), TensorArg("indices", "i"), IntArg("num_weights", 4),
                           IntArg("padding_idx", 3), BoolArg("scale_grad_by_freq", true)},
                          values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {4, 2}, {0, 0, 3, 4, 0, 0, 0, 0});
}

// cdist's matrix-product form of a zero distance, |x|^2 + |x|^2 - 2 x.x: torch's
// small float32 bmm sums in float, k ascending, and leaves exactly 0 (summed
// exactly and rounded once it would be -6.3e-8).
TEST(ReferenceProducts, SmallFloatBmmCancelsAsTorch) {
  const std::vector<float> x = {0.1f, 0.7f, -1.3f, 2.9f};
  float squares = 0;
  for (float v : x) squares += v * v;
  std::vector<double> row, column;
  for (float v : x) row.push_back(-2.0f * v);
  for (float v : x) column.push_back(v);
  row.insert(row.end(), {squares, 1.0});
  column.insert(column.end(), {1.0, squares});
  ValueMap values{{"a", RefValue::OfTensor(F32({1, 1, 6}, row))}, {"b", RefValue::OfTensor(F32({1, 6, 1}, column))},
                  {"c", RefValue::OfTensor(F32({1, 1, 1}, {0.5}))}};
  KernelRun r = RunKernel("aten::bmm.default", {TensorArg("self", "a"), TensorArg("mat2", "b")}, values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(ToDoubles(r.results[0].tensor), std::vector<double>{0.0});
  // baddbmm: beta * self + alpha * product, in float as well (torch: 1.0).
  r = RunKernel("aten::baddbmm.default", {TensorArg("self", "c"), TensorArg("batch1", "a"), TensorArg("batch2", "b"),
                                          FloatArg("beta", 2), FloatArg("alpha", 3)},
                values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(ToDoubles(r.results[0].tensor), std::vector<double>{1.0});
}

// The direct DFT's cost cap: a length whose n^2 sum would hold the interpreter
// for minutes is refused, also before a huge `n` pads the signal.
TEST(ReferenceFft, RefusesTransformsOverTheCostCap) {
  ValueMap values{{"long", RefValue::OfTensor(*NewTensor(DataType::kFloat, {int64_t{1} << 17}))},
                  {"short", RefValue::OfTensor(F32({4}, {1, 2, 3, 4}))}};
  KernelRun r = RunKernel("aten::fft_fft.default", {TensorArg("self", "long")}, values);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(r.status.message().find("a DFT of length 131072 over 1 line(s) needs 17179869184 multiply-adds"),
            std::string::npos) << r.status;
  EXPECT_NE(r.status.message().find("kMaxReferenceDftTerms"), std::string::npos);
  r = RunKernel("aten::fft_ifft.default", {TensorArg("self", "short"), IntArg("n", int64_t{1} << 31)}, values);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kResourceExhausted) << r.status;
  r = RunKernel("aten::fft_irfft.default", {TensorArg("self", "short"), IntArg("n", int64_t{1} << 30)}, values);
  EXPECT_EQ(r.status.code(), absl::StatusCode::kResourceExhausted) << r.status;
}

pt2::NamedArgument Dtype(const char* name, DataType dtype) { return ::pt2onnx::testing::DtypeArg(name, dtype); }

TEST(ReferenceQuantize, PerTensorTiesClampAndTorchsInverseScale) {
  // torch 2.15: quantize_per_tensor(x, 0.5, 1, -5, 6, torch.int8).
  ValueMap values{{"x", RefValue::OfTensor(F32({8}, {-1.25, -0.75, -0.25, 0.25, 0.75, 1.25, 100.0, -0.3}))}};
  KernelRun r = RunKernel("quantized_decomposed::quantize_per_tensor.default",
                          {TensorArg("input", "x"), FloatArg("scale", 0.5), IntArg("zero_point", 1),
                           IntArg("quant_min", -5), IntArg("quant_max", 6), Dtype("dtype", DataType::kInt8)},
                          values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.results[0].tensor.dtype(), DataType::kInt8);
  EXPECT_EQ(ToDoubles(r.results[0].tensor), (std::vector<double>{-1, -1, 1, 1, 3, 3, 6, 0}));
  // -1.665 (float32) * float(1 / 0.03) rounds to -55 in torch; -1.665 / 0.03f gives -56 (QuantizeLinear).
  ValueMap one{{"x", RefValue::OfTensor(F32({1}, {-1.6649999618530273}))}};
  KernelRun q = RunKernel("quantized_decomposed::quantize_per_tensor.default",
                          {TensorArg("input", "x"), FloatArg("scale", 0.03), IntArg("zero_point", 0),
                           IntArg("quant_min", -128), IntArg("quant_max", 127), Dtype("dtype", DataType::kInt8)},
                          one);
  ASSERT_TRUE(q.status.ok()) << q.status;
  EXPECT_EQ(ToDoubles(q.results[0].tensor), (std::vector<double>{-55}));
}

TEST(ReferenceQuantize, DequantizePerChannelAlongAxis1) {
  Tensor w = *FromInts(DataType::kInt8, {2, 3}, std::vector<int64_t>{5, -3, 127, -127, 0, 64});
  ValueMap values{{"w", RefValue::OfTensor(w)}, {"s", RefValue::OfTensor(F32({3}, {0.5, 0.25, 0.1}))},
                  {"z", RefValue::OfTensor(I64({3}, {1, 0, -2}))}};
  KernelRun r = RunKernel("quantized_decomposed::dequantize_per_channel.default",
                          {TensorArg("input", "w"), TensorArg("scales", "s"), TensorArg("zero_points", "z"),
                           IntArg("axis", 1), IntArg("quant_min", -127), IntArg("quant_max", 127),
                           Dtype("dtype", DataType::kInt8)},
                          values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 3}, {2.0, -0.75, 12.90000057220459, -64.0, 0.0, 6.599999904632568}, 0);
}

TEST(ReferenceQuantize, DynamicParametersAsTorchChoosesThem) {
  ValueMap values{{"x", RefValue::OfTensor(F32({5}, {-0.7, 0.2, 1.9, 0.05, -0.31}))},
                  {"a", RefValue::OfTensor(F32({2, 4}, {-0.7, 0.2, 1.9, 0.05, 0.3, 0.6, 0.1, 0.2}))}};
  KernelRun r = RunKernel("quantized_decomposed::choose_qparams.tensor",
                          {TensorArg("input", "x"), IntArg("quant_min", 0), IntArg("quant_max", 255),
                           FloatArg("eps", 1.1920928955078125e-07), Dtype("dtype", DataType::kUint8)},
                          values, 2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.results[0].tensor.dtype(), DataType::kDouble);
  EXPECT_EQ(ToDoubles(r.results[0].tensor), (std::vector<double>{0.010196077637374401}));
  EXPECT_EQ(ToDoubles(r.results[1].tensor), (std::vector<double>{69}));
  KernelRun t = RunKernel("quantized_decomposed::choose_qparams_per_token_asymmetric.default",
                          {TensorArg("input", "a"), Dtype("dtype", DataType::kInt8)}, values, 2);
  ASSERT_TRUE(t.status.ok()) << t.status;
  EXPECT_EQ(ToDoubles(t.results[0].tensor), (std::vector<double>{0.010196077637374401, 0.0023529413156211376}));
  EXPECT_EQ(ToDoubles(t.results[1].tensor), (std::vector<double>{-59, -128}));
}

TEST(ReferenceQuantize, FakeQuantizePerChannel) {
  Tensor zp = *FromInts(DataType::kInt32, {2}, std::vector<int64_t>{2, 0});
  ValueMap values{{"x", RefValue::OfTensor(F32({2, 2}, {0.33, -1.0, 2.0, 0.07}))},
                  {"s", RefValue::OfTensor(F32({2}, {0.1, 0.3}))}, {"z", RefValue::OfTensor(zp)}};
  KernelRun r = RunKernel("aten::fake_quantize_per_channel_affine.default",
                          {TensorArg("self", "x"), TensorArg("scale", "s"), TensorArg("zero_point", "z"),
                           IntArg("axis", 0), IntArg("quant_min", 0), IntArg("quant_max", 15)},
                          values);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ExpectValues(r.results[0], {2, 2}, {0.30000001192092896, -0.20000000298023224, 2.1000001430511475, 0.0}, 0);
}

}  // namespace
}  // namespace pt2onnx::reference
