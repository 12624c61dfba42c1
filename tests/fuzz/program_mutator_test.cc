#include "tests/fuzz/program_mutator.h"

#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/pt2/program_json.h"
#include "gtest/gtest.h"

namespace pt2onnx::fuzz {
namespace {

std::vector<uint8_t> ReadFixture() {
  std::ifstream in("tests/fixtures/ops/_convolution/model.pt2", std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string ProgramOf(const std::vector<uint8_t>& archive) {
  std::vector<ZipFileEntry> entries;
  if (!ReadZipEntries(ByteSpan(archive.data(), archive.size()), entries)) return "";
  for (const ZipFileEntry& e : entries) {
    if (absl::StrContains(e.name, "/models/")) return std::string(e.data.begin(), e.data.end());
  }
  return "";
}

TEST(WriteZip, RoundTripsEntries) {
  std::vector<uint8_t> original = ReadFixture();
  std::vector<ZipFileEntry> entries;
  ASSERT_TRUE(ReadZipEntries(ByteSpan(original.data(), original.size()), entries));
  ASSERT_GT(entries.size(), 3u);
  std::vector<uint8_t> rewritten = WriteZip(entries);
  std::vector<ZipFileEntry> again;
  ASSERT_TRUE(ReadZipEntries(ByteSpan(rewritten.data(), rewritten.size()), again));
  ASSERT_EQ(again.size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    EXPECT_EQ(again[i].name, entries[i].name);
    EXPECT_EQ(again[i].data, entries[i].data);
  }
}

TEST(KeyToTarget, InvertsTheRegistryKey) {
  EXPECT_EQ(KeyToTarget("aten::add.Tensor"), "torch.ops.aten.add.Tensor");
  EXPECT_EQ(KeyToTarget("_operator::getitem"), "_operator.getitem");
  EXPECT_EQ(KeyToTarget("torch::sym_max"), "torch.sym_max");
}

// Every mutation leaves a zip whose CRCs hold (so the converter reads past
// them) and changes the program or a config; most keep the JSON well-formed.
TEST(MutateArchive, EditsTheProgramAndKeepsTheZipValid) {
  std::vector<uint8_t> original = ReadFixture();
  std::string program = ProgramOf(original);
  ASSERT_FALSE(program.empty());
  std::vector<std::string> targets = {"torch.ops.aten.transpose.int", "torch.ops.aten.sum.dim_IntList"};
  int changed = 0, parses = 0, retargeted = 0;
  std::set<std::string> distinct;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    std::vector<uint8_t> mutated = MutateArchive(ByteSpan(original.data(), original.size()), seed, targets, nullptr);
    ASSERT_FALSE(mutated.empty()) << seed;
    std::vector<ZipFileEntry> entries;
    ASSERT_TRUE(ReadZipEntries(ByteSpan(mutated.data(), mutated.size()), entries)) << seed;
    std::string edited = ProgramOf(mutated);
    if (edited != program) ++changed;
    if (absl::StrContains(edited, "aten.transpose.int")) ++retargeted;
    if (pt2::ParseExportedProgramJson(edited).ok()) ++parses;
    distinct.insert(edited);
  }
  EXPECT_GT(changed, 200);
  EXPECT_GT(retargeted, 3);
  EXPECT_GT(parses, 20);  // decodable programs reach the translators
  EXPECT_GT(distinct.size(), 150u);
}

TEST(MutateArchive, NotAZipIsLeftToTheByteMutator) {
  std::vector<uint8_t> junk = {'P', 'K', 3, 4, 0, 0};
  EXPECT_TRUE(MutateArchive(ByteSpan(junk.data(), junk.size()), 1, {}, nullptr).empty());
}

}  // namespace
}  // namespace pt2onnx::fuzz
