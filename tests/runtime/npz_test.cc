#include "runtime/npz/npz.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {


TEST(Npz, RoundTripsNamesDtypesAndShapes) {
  std::vector<NamedTensor> arrays = {{"x", F32({2, 2}, {1, 2, 3, 4})}, {"ids", I64({3}, {7, 8, 9})},
                                     {"scalar", F32({}, {5})}, {"empty", F32({0, 2}, {})}};
  auto bytes = WriteNpz(arrays);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto back = ReadNpz(AsBytes(*bytes));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 4u);
  EXPECT_EQ((*back)[0].name, "x");
  EXPECT_EQ(Values<float>((*back)[0].tensor), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ((*back)[1].tensor.dtype(), DataType::kInt64);
  EXPECT_EQ(Values<int64_t>((*back)[1].tensor), (std::vector<int64_t>{7, 8, 9}));
  EXPECT_EQ((*back)[2].tensor.dims(), Dims{});
  EXPECT_EQ((*back)[3].tensor.dims(), (Dims{0, 2}));
}

TEST(Npz, RejectsTruncatedData) {
  auto npy = WriteNpy(F32({4}, {1, 2, 3, 4}));
  ASSERT_TRUE(npy.ok());
  npy->resize(npy->size() - 4);
  EXPECT_TRUE(absl::StrContains(ReadNpy(AsBytes(*npy)).status().message(), "needs 16")) << ReadNpy(AsBytes(*npy)).status().message();
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
