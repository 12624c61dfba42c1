// Tests for ops/fft_nd.cc and ops/stft.cc: torch.fft's n-dimensional and
// Hermitian transforms and stft convert, and the dims ONNX shape inference
// knows are torch's (a complex result as its view_as_real, [..., 2]):
// s and dim as torch canonicalizes them. Numerics: the OpInfo samples
// (tests/e2e/test_opinfo.py) against torch and the reference kernels.
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "gtest/gtest.h"
#include "tests/testing/op_test_util.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::testing {
namespace {

constexpr DataType kC64 = DataType::kComplex64;

struct ShapeCase {
  std::string name;
  std::string overload;
  std::vector<pt2::NamedArgument> args;  // after self
  DataType out_dtype;
  std::vector<int64_t> out_shape;  // torch's
};

std::vector<ShapeCase> Cases() {
  return {
      {"fftn_s_dim", "fft_fftn.default", {IntsArg("s", {3, 10}), IntsArg("dim", {1, 2}), StringArg("norm", "ortho")},
       kC64, {5, 3, 10}},
      {"fftn_all", "fft_fftn.default", {}, kC64, {5, 6, 7}},
      {"fftn_s_only", "fft_fftn.default", {IntsArg("s", {8})}, kC64, {5, 6, 8}},
      {"fft2_s", "fft_fft2.default", {IntsArg("s", {6, 8}), IntsArg("dim", {-2, -1})}, kC64, {5, 6, 8}},
      {"ifftn_keep", "fft_ifftn.default", {IntsArg("s", {-1, 4}), IntsArg("dim", {0, 2})}, kC64, {5, 6, 4}},
      {"rfftn_s_dim", "fft_rfftn.default", {IntsArg("s", {3, 10}), IntsArg("dim", {1, 2})}, kC64, {5, 3, 6}},
      {"rfft2", "fft_rfft2.default", {IntsArg("dim", {-2, -1})}, kC64, {5, 6, 4}},
      {"irfftn_all", "fft_irfftn.default", {}, kF32, {5, 6, 12}},
      {"irfft2_s", "fft_irfft2.default", {IntsArg("s", {6, 8}), IntsArg("dim", {-2, -1})}, kF32, {5, 6, 8}},
      {"hfftn_s_dim", "fft_hfftn.default", {IntsArg("s", {3, 10}), IntsArg("dim", {1, 2})}, kF32, {5, 3, 10}},
      {"hfft2", "fft_hfft2.default", {IntsArg("dim", {-2, -1})}, kF32, {5, 6, 12}},
      {"hfft_n", "fft_hfft.default", {IntArg("n", 10), IntArg("dim", 1)}, kF32, {5, 10, 7}},
      {"ihfft", "fft_ihfft.default", {IntArg("dim", -1)}, kC64, {5, 6, 4}},
      {"ihfftn_s", "fft_ihfftn.default", {IntsArg("s", {8})}, kC64, {5, 6, 5}},
      {"ihfft2_s", "fft_ihfft2.default", {IntsArg("s", {3, 10}), IntsArg("dim", {1, 2})}, kC64, {5, 3, 6}},
      {"irfft_real", "fft_irfft.default", {IntArg("dim", 1)}, kF32, {5, 10, 7}},
  };
}

class FftNdTest : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(FftNdTest, ConvertsWithTorchShapes) {
  const ShapeCase& c = GetParam();
  std::vector<pt2::NamedArgument> args = {TensorArg("self", "x")};
  for (const auto& a : c.args) args.push_back(a);
  ProgramBuilder p = OneNodeProgram({{"x", kF32, {5, 6, 7}}}, c.overload, args, {{"y", c.out_dtype, c.out_shape}});
  absl::StatusOr<Converted> got = ConvertAndCheck(p.Build());
  ASSERT_TRUE(got.ok()) << got.status();
  std::vector<int64_t> want = c.out_shape;
  if (c.out_dtype == kC64) want.push_back(2);
  // The c2r forms size their result through Shape arithmetic, which shape
  // inference may leave unknown (-1); a known dim must be torch's.
  ASSERT_EQ(got->output_shapes[0].size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (got->output_shapes[0][i] != -1) EXPECT_EQ(got->output_shapes[0][i], want[i]) << "dim " << i;
  }
  EXPECT_EQ(got->output_dtypes[0], kF32);
}

INSTANTIATE_TEST_SUITE_P(FftNd, FftNdTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<ShapeCase>& info) { return info.param.name; });

TEST(FftNd, MismatchedSAndDimAreInvalid) {
  ProgramBuilder p = OneNodeProgram({{"x", kF32, {5, 6, 7}}}, "fft_fftn.default",
                                    {TensorArg("self", "x"), IntsArg("s", {3}), IntsArg("dim", {1, 2})},
                                    {{"y", kC64, {5, 3, 7}}});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(p.Build()), absl::StatusCode::kInvalidArgument, "same length"));
}

TEST(Stft, FramesOfARealSignalConvert) {
  for (bool complex : {true, false}) {
    std::vector<int64_t> shape = {6, 31};  // n_fft 10: 6 bins; hop 3: 1 + (100 - 10) / 3 frames
    if (!complex) shape.push_back(2);
    ProgramBuilder p = OneNodeProgram(
        {{"x", kF32, {100}}}, "stft.default",
        {TensorArg("self", "x"), IntArg("n_fft", 10), IntArg("hop_length", 3), BoolArg("normalized", true),
         BoolArg("return_complex", complex)},
        {{"y", complex ? kC64 : kF32, shape}});
    absl::StatusOr<Converted> got = ConvertAndCheck(p.Build());
    ASSERT_TRUE(got.ok()) << got.status();
    // The frame count comes from a Range, unknown to shape inference.
    const std::vector<int64_t>& dims = got->output_shapes[0];
    ASSERT_EQ(dims.size(), 3u);
    EXPECT_EQ(dims[0], 6);
    EXPECT_TRUE(dims[1] == 31 || dims[1] == -1) << dims[1];
    EXPECT_EQ(dims[2], 2);
  }
}

TEST(Stft, AlignToWindowIsRefused) {
  ProgramBuilder p = OneNodeProgram(
      {{"x", kF32, {100}}}, "stft.default",
      {TensorArg("self", "x"), IntArg("n_fft", 10), BoolArg("return_complex", true),
       BoolArg("align_to_window", true)},
      {{"y", kC64, {6, 37}}});
  EXPECT_TRUE(HasStatus(ConvertAndCheck(p.Build()), absl::StatusCode::kUnimplemented, "align_to_window"));
}

TEST(ComplexViews, RealOfARealTensorIsItself) {
  ProgramBuilder p = OneNodeProgram({{"x", kF32, {2, 3}}}, "real.default", {TensorArg("self", "x")},
                                    {{"y", kF32, {2, 3}}});
  absl::StatusOr<Converted> got = ConvertAndCheck(p.Build());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(OpTypes(got->model), (std::vector<std::string>{"Identity"}));
}

}  // namespace
}  // namespace pt2onnx::testing
