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

// bfloat16 is written and read as ml_dtypes' arrays are by numpy.save: '<V2'.
TEST(Npz, BFloat16IsWrittenAsMlDtypesWritesIt) {
  // 1.0, -2.5, 3.140625 as bfloat16 bits.
  const Tensor bf16 = Make<uint16_t>(DataType::kBFloat16, {3}, {0x3F80, 0xC020, 0x4049});
  auto npy = WriteNpy(bf16);
  ASSERT_TRUE(npy.ok()) << npy.status();
  EXPECT_TRUE(absl::StrContains(*npy, "{'descr': '<V2', 'fortran_order': False, 'shape': (3,), }")) << *npy;
  auto back = ReadNpy(AsBytes(*npy));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dtype(), DataType::kBFloat16);
  EXPECT_EQ(Values<uint16_t>(*back), (std::vector<uint16_t>{0x3F80, 0xC020, 0x4049}));
}

// The bytes numpy 2.4 + ml_dtypes 0.7 write for
// np.save(f, np.array([1.0, -2.5, 3.14159], dtype=ml_dtypes.bfloat16)), and
// the same array as np.load returns it (dtype |V2) saved again.
TEST(Npz, ReadsNumpySavedBFloat16) {
  for (const char* descr : {"<V2", "|V2"}) {
    std::string header = absl::StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': (3,), }");
    header.append(128 - 10 - header.size() - 1, ' ');
    header += '\n';
    std::string npy("\x93NUMPY\x01\x00", 8);
    npy += static_cast<char>(header.size());
    npy += '\0';
    npy += header;
    npy += std::string("\x80\x3F\x20\xC0\x49\x40", 6);
    auto t = ReadNpy(AsBytes(npy));
    ASSERT_TRUE(t.ok()) << descr << ": " << t.status();
    EXPECT_EQ(t->dtype(), DataType::kBFloat16);
    EXPECT_EQ(Values<uint16_t>(*t), (std::vector<uint16_t>{0x3F80, 0xC020, 0x4049})) << descr;
  }
}

TEST(Npz, RefusesFloat8AsAmbiguous) {
  std::string header = "{'descr': '<V1', 'fortran_order': False, 'shape': (2,), }";
  std::string npy("\x93NUMPY\x01\x00", 8);
  npy += static_cast<char>(header.size());
  npy += '\0';
  npy += header + "ab";
  auto t = ReadNpy(AsBytes(npy));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(t.status().message(), "float8")) << t.status();
}

TEST(Npz, RoundTripsHalfPrecision) {
  std::vector<NamedTensor> arrays = {{"h", Make<uint16_t>(DataType::kFloat16, {2}, {0x3C00, 0xC000})},
                                     {"b", Make<uint16_t>(DataType::kBFloat16, {1, 2}, {0x3F80, 0x0001})}};
  auto bytes = WriteNpz(arrays);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto back = ReadNpz(AsBytes(*bytes));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back)[0].tensor.dtype(), DataType::kFloat16);
  EXPECT_EQ((*back)[1].tensor.dtype(), DataType::kBFloat16);
  EXPECT_EQ((*back)[1].tensor.dims(), (Dims{1, 2}));
  EXPECT_EQ(Values<uint16_t>((*back)[1].tensor), (std::vector<uint16_t>{0x3F80, 0x0001}));
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
