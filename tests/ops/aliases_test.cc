// Tests for the alias table (core/aten/aliases.h) as the translator's
// registry uses it: every alias resolves to a registered overload (a row
// naming a missing operator fails here), aliases take the opset ranges of
// their operator, and an alias converts to the same ONNX as the operator.
// The reference interpreter's side is tests/reference/coverage_test.cc
// (every registered overload has a kernel). Numerics: tests/fixtures/ops/alias_*.
#include <string>
#include <vector>

#include "core/aten/aliases.h"
#include "gtest/gtest.h"
#include "ops/all_ops.h"
#include "tests/testing/op_test_util.h"
#include "translate/registry.h"

namespace pt2onnx::testing {
namespace {

TEST(Aliases, EveryAliasNamesARegisteredOverload) {
  const translate::OpRegistry registry = ops::CreateDefaultRegistry();
  std::vector<std::string> keys = registry.Keys();
  for (const aten::AtenAlias& alias : aten::AtenAliases()) {
    EXPECT_TRUE(registry.Contains(alias.canonical)) << alias.alias << " -> " << alias.canonical;
    EXPECT_TRUE(registry.Contains(alias.alias)) << alias.alias;
    for (int opset = translate::kMinOpset; opset <= translate::kMaxOpset; ++opset) {
      EXPECT_EQ(registry.Find(alias.alias, opset) != nullptr, registry.Find(alias.canonical, opset) != nullptr)
          << alias.alias << " at opset " << opset;
    }
  }
}

TEST(Aliases, NoAliasIsListedTwiceOrNamesAnAlias) {
  std::vector<aten::AtenAlias> aliases = aten::AtenAliases();
  for (size_t i = 1; i < aliases.size(); ++i) EXPECT_NE(aliases[i - 1].alias, aliases[i].alias);
  for (const aten::AtenAlias& a : aliases) {
    for (const aten::AtenAlias& b : aliases) EXPECT_NE(a.canonical, b.alias) << a.alias;
  }
}

TEST(Aliases, ConvertLikeTheirOperator) {
  auto binary = [](std::string overload) {
    return OneNodeProgram({{"a", kF32, {2, 3}}, {"b", kF32, {3}}}, overload,
                          {TensorArg("self", "a"), TensorArg("other", "b"), FloatArg("alpha", 2.0)},
                          {{"y", kF32, {2, 3}}})
        .Build();
  };
  absl::StatusOr<Converted> alias = ConvertAndCheck(binary("subtract.Tensor"));
  absl::StatusOr<Converted> canonical = ConvertAndCheck(binary("sub.Tensor"));
  ASSERT_TRUE(alias.ok()) << alias.status();
  ASSERT_TRUE(canonical.ok()) << canonical.status();
  EXPECT_EQ(OpTypes(alias->model), OpTypes(canonical->model));
}

}  // namespace
}  // namespace pt2onnx::testing
