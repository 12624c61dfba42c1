#include "core/ir/text.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace pt2onnx::ir {
namespace {

TEST(IrTextTest, RoundTrips) {
  const char* text =
      "opset 20\n"
      "opset com.microsoft 1\n"
      "input x: float32[2, s0]\n"
      "input n: int64\n"
      "init w: float32[2] = [1.5, -2.0]\n"
      "init shape: int64[2] = [-1, 4]\n"
      "init extremes: int64[3] = [9223372036854775807, -9223372036854775808, 9007199254740993]\n"
      "t = Transpose<perm=[1, 0]>(x)\n"
      "a, b = Split<axis=0, name=\"s\", scales=[0.5, 2.0], eps=1e-05>(t, )\n"
      "y = com.microsoft::Gelu(a)\n"
      "info t: float32[s0, 2]\n"
      "output y: float32[?, 2]\n";
  absl::StatusOr<Model> m = ParseModel(text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->graph.nodes[1].inputs, (std::vector<std::string>{"t", ""}));
  EXPECT_EQ(m->graph.nodes[2].domain, "com.microsoft");
  EXPECT_EQ(m->graph.nodes[1].attributes[3].type(), Attribute::Type::kFloat);
  EXPECT_EQ(PrintModel(*m), text);
}

TEST(IrTextTest, ErrorsNameTheLine) {
  absl::StatusOr<Model> m = ParseModel("input x: float32[2]\ninit w: float32[2] = [1]\n");
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "line 2")) << m.status();
  EXPECT_FALSE(ParseModel("input x: floaty[2]").ok());
  EXPECT_FALSE(ParseModel("y = Relu(x").ok());
}

}  // namespace
}  // namespace pt2onnx::ir
