// Einsum through one-node sessions: '...' (right-aligned, broadcast), implicit outputs, diagonals;
// matrix products as MatMul in the accelerated plan.
#include <random>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "runtime/plan/einsum_matmul.h"
#include "tests/runtime/runtime_test_util.h"

namespace pt2onnx::runtime::testing {
namespace {

ir::Attribute Eq(const char* equation) { return ir::Attribute::String("equation", equation); }

TEST(Einsum, EllipsisBatchBroadcasts) {
  // a: [2, 1, 1, 2] (batch [2, 1]), b: [3, 2, 1] (batch [3]) -> the batch broadcasts to [2, 3].
  auto out = RunOp("Einsum", {Eq("...ij,...jk->...ik")},
                   {{F32({2, 1, 1, 2}, {1, 2, 3, 4})}, {F32({3, 2, 1}, {1, 1, 2, 0, 0, 3})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dims(), (Dims{2, 3, 1, 1}));
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{3, 2, 6, 7, 6, 12}));
}

TEST(Einsum, EllipsisOfDifferentRanksAndImplicitOutput) {
  // Implicit output: '...' first, then the letters seen once (none here: j is summed).
  auto out = RunOp("Einsum", {Eq("...j,j")}, {{F32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})},
                                              {F32({3}, {1, 0, -1})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].tensor.dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<float>((*out)[0].tensor), (std::vector<float>{-2, -2, -2, -2}));
  // '...' may be empty.
  auto empty = RunOp("Einsum", {Eq("...i,...i->...")}, {{F32({2}, {1, 2})}, {F32({2}, {3, 4})}});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].tensor.dims(), (Dims{}));
  EXPECT_EQ(Values<float>((*empty)[0].tensor), (std::vector<float>{11}));
}

TEST(Einsum, DiagonalAndTranspose) {
  auto trace = RunOp("Einsum", {Eq("ii->i")}, {{F32({2, 2}, {1, 2, 3, 4})}});
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_EQ(Values<float>((*trace)[0].tensor), (std::vector<float>{1, 4}));
  auto t = RunOp("Einsum", {Eq("...ij->...ji")}, {{F32({1, 2, 2}, {1, 2, 3, 4})}});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(Values<float>((*t)[0].tensor), (std::vector<float>{1, 3, 2, 4}));
}

TEST(Einsum, BadOperandsAreErrors) {
  // The portable kernel's own check (the accelerated plan runs "ij,jk->ik" as MatMul, which fails too).
  auto sizes = RunOp("Einsum", {Eq("ij,jk->ik")}, {{F32({1, 2}, {1, 2})}, {F32({3, 1}, {1, 2, 3})}},
                     /*num_outputs=*/1, /*accelerate=*/false);
  EXPECT_TRUE(absl::StrContains(sizes.status().message(), "letter sizes differ")) << sizes.status();
  auto product = RunOp("Einsum", {Eq("ij,jk->ik")}, {{F32({1, 2}, {1, 2})}, {F32({3, 1}, {1, 2, 3})}});
  EXPECT_FALSE(product.ok());
  auto batch = RunOp("Einsum", {Eq("...i,...i->...")}, {{F32({2, 1}, {1, 2})}, {F32({3, 1}, {1, 2, 3})}});
  EXPECT_TRUE(absl::StrContains(batch.status().message(), "letter sizes differ")) << batch.status();
  auto rank = RunOp("Einsum", {Eq("...ij->...")}, {{F32({2}, {1, 2})}});
  EXPECT_TRUE(absl::StrContains(rank.status().message(), "rank")) << rank.status();
  auto twice = RunOp("Einsum", {Eq("...i...->i")}, {{F32({2}, {1, 2})}});
  EXPECT_FALSE(twice.ok());
}

// Matrix-product Einsums run as MatMul in the accelerated plan (plan/einsum_matmul.h): attention's two
// (MaxViT's "BGHID,BGHJD->BGHIJ", "BGHIJ,BGHJD->BGHID"), batch letters in other orders and an output
// that needs a Transpose; each equal to the portable Einsum. What is not a product stays Einsum.
TEST(Einsum, MatrixProductsRunAsMatMul) {
  struct Case {
    const char* equation;
    Dims a, b;
  };
  const Case cases[] = {
      {"bghid,bghjd->bghij", {2, 1, 3, 5, 4}, {2, 1, 3, 6, 4}},
      {"bghij,bghjd->bghid", {2, 1, 3, 5, 6}, {2, 1, 3, 6, 4}},
      {"hbik,bkjh->bhij", {3, 2, 5, 4}, {2, 4, 6, 3}},
      {"ik,kj->ji", {5, 7}, {7, 3}},
      {"kj,ik", {7, 3}, {5, 7}},          // implicit output: "ij"
      {"ij,jk->ik", {40, 64}, {64, 48}},  // large enough for XNNPACK
  };
  std::mt19937 rng(9);
  for (const Case& c : cases) {
    ir::Model model;
    model.opset_imports.push_back({"", 20});
    model.graph.inputs = {{"a", DataType::kFloat, std::nullopt, {}}, {"b", DataType::kFloat, std::nullopt, {}}};
    model.graph.nodes = {{"e", "Einsum", "", {"a", "b"}, {"y"}, {Eq(c.equation)}, {}}};
    model.graph.outputs = {{"y", DataType::kFloat, std::nullopt, {}}};
    int einsums = 0, matmuls = 0;
    for (const ir::Node& node : EinsumsToMatMuls(model.graph).nodes) {
      einsums += node.op_type == "Einsum";
      matmuls += node.op_type == "MatMul";
    }
    EXPECT_EQ(einsums, 0) << c.equation;
    EXPECT_EQ(matmuls, 1) << c.equation;
    auto sessions = AcceleratedAndPortable(model);
    ASSERT_TRUE(sessions.ok()) << sessions.status();
    Tensor a = FromIr(RandomFloats(c.a, rng)), b = FromIr(RandomFloats(c.b, rng));
    auto ya = sessions->accelerated->Run({{"a", a}, {"b", b}});
    auto yb = sessions->portable->Run({{"a", a}, {"b", b}});
    ASSERT_TRUE(ya.ok()) << c.equation << ": " << ya.status();
    ASSERT_TRUE(yb.ok()) << c.equation << ": " << yb.status();
    ASSERT_EQ((*ya)[0].tensor.dims(), (*yb)[0].tensor.dims()) << c.equation;
    auto va = Values<float>((*ya)[0].tensor), vb = Values<float>((*yb)[0].tensor);
    for (size_t i = 0; i < va.size(); ++i) ASSERT_NEAR(va[i], vb[i], 1e-4) << c.equation << " " << i;
  }
  for (const char* other : {"ii->i", "ij,jk,kl->il", "...ij,...jk->...ik", "ij,ij->ij", "ijk,jk->i", "iij,jk->ik"}) {
    ir::Graph g;
    g.nodes = {{"e", "Einsum", "", {"a", "b"}, {"y"}, {Eq(other)}, {}}};
    EXPECT_EQ(EinsumsToMatMuls(g).nodes.size(), 1u) << other;
    EXPECT_EQ(EinsumsToMatMuls(g).nodes[0].op_type, "Einsum") << other;
  }
}

}  // namespace
}  // namespace pt2onnx::runtime::testing
