// The report's symbolic-dims line: input order, renames, torch's range notation.
#include "export/report.h"

#include <memory>
#include <string>

#include "export/converter.h"
#include "core/io/input_file.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace pt2onnx {
namespace {

TEST(ReportTest, SymbolicDimsLine) {
  ConversionSummary summary;
  EXPECT_EQ(SymbolicDimsLine(summary), "");
  summary.symbolic_dims = {{"s54", "batch", pt2::RangeConstraint{0, std::nullopt}},
                           {"s27", "s27", pt2::RangeConstraint{2, 512}},
                           {"2*s27", "2*s27", std::nullopt}};
  EXPECT_EQ(SymbolicDimsLine(summary),
            "symbolic dims (input order): s54 -> batch [0, int_oo], s27 [2, 512], 2*s27");
  EXPECT_EQ(RangeText(pt2::RangeConstraint{std::nullopt, 4}), "[-int_oo, 4]");
}

TEST(ReportTest, ConversionListsInputDimsInOrder) {
  absl::StatusOr<std::string> bytes = testing::ReadFixture("dynamic_batch_seq");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  ConvertOptions options;
  options.translate.dim_names = {{"s27", "seq"}};
  absl::StatusOr<Conversion> c = ConvertPt2(std::make_shared<MemoryFile>(*bytes), options);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(SymbolicDimsLine(c->summary),
            "symbolic dims (input order): s54 [0, 64], s27 -> seq [0, 256]");
}

}  // namespace
}  // namespace pt2onnx
