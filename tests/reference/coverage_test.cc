// Every overload the translator registers must have a reference kernel,
// except those listed in missing_overloads.txt. The list may only shrink:
// an overload listed there that has gained a kernel fails the test too, so
// the file is kept exact.
#include <fstream>
#include <set>
#include <string>

#include "absl/strings/str_join.h"
#include "ops/all_ops.h"
#include "reference/registry.h"
#include "gtest/gtest.h"
#include "translate/registry.h"

namespace pt2onnx::reference {
namespace {

std::set<std::string> ReadList(const std::string& path) {
  std::ifstream in(path);
  std::set<std::string> keys;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') keys.insert(line);
  }
  return keys;
}

TEST(ReferenceCoverage, EveryTranslatedOverloadHasAKernelOrIsListed) {
  const RefRegistry reference = CreateReferenceRegistry();
  const std::set<std::string> listed = ReadList("tests/reference/missing_overloads.txt");
  ASSERT_FALSE(listed.empty() && reference.Keys().empty());
  std::set<std::string> unlisted, stale;
  for (const std::string& key : ops::CreateDefaultRegistry().Keys()) {
    const bool has = reference.Find(key) != nullptr;
    if (!has && !listed.count(key)) unlisted.insert(key);
    if (has && listed.count(key)) stale.insert(key);
  }
  EXPECT_TRUE(unlisted.empty()) << "overloads without a reference kernel (add one): "
                                << absl::StrJoin(unlisted, ", ");
  EXPECT_TRUE(stale.empty()) << "remove from missing_overloads.txt (they have kernels now): "
                             << absl::StrJoin(stale, ", ");
}

TEST(ReferenceCoverage, NoOverloadRegisteredTwice) {
  EXPECT_TRUE(CreateReferenceRegistry().duplicates().empty())
      << absl::StrJoin(CreateReferenceRegistry().duplicates(), ", ");
}

TEST(ReferenceCoverage, KeysFollowTheTranslatorsFormat) {
  for (const std::string& key : CreateReferenceRegistry().Keys()) {
    EXPECT_NE(key.find("::"), std::string::npos) << key;
  }
  EXPECT_EQ(TargetKey("torch.ops.aten.add.Tensor"), "aten::add.Tensor");
  EXPECT_EQ(TargetKey("_operator.add"), "_operator::add");
  EXPECT_EQ(TargetKey("torch.sym_max"), "torch::sym_max");
}

}  // namespace
}  // namespace pt2onnx::reference
