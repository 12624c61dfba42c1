#include "native/cli_flags.h"

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::native {
namespace {

using ::pt2onnx::testing::HasStatus;

TEST(CliFlagsTest, OptimizerFlags) {
  absl::StatusOr<CliFlags> flags =
      ParseCliFlags({"m.pt2", "--passes=constant_folding, dead_code_elimination", "--print-pass-stats",
                     "--fold-max-input-elements", "16", "--fold-max-output-elements=32"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->passes, (std::vector<std::string>{"constant_folding", "dead_code_elimination"}));
  EXPECT_TRUE(flags->print_pass_stats);
  EXPECT_EQ(flags->fold_max_input_elements, 16);
  EXPECT_EQ(flags->fold_max_output_elements, 32);
}

TEST(CliFlagsTest, VerifyGeneration) {
  absl::StatusOr<CliFlags> flags =
      ParseCliFlags({"verify-generation", "out", "--tokens", "3", "--prompt", "5, 17,3", "--expect=1,2,3",
                     "--save-logits", "l.npz"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_TRUE(flags->verify_generation);
  EXPECT_EQ(flags->input, "out");
  EXPECT_EQ(flags->generation_tokens, 3);
  EXPECT_EQ(flags->prompt, (std::vector<int64_t>{5, 17, 3}));
  EXPECT_EQ(flags->expect, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(flags->save_logits, "l.npz");
  EXPECT_FALSE(ParseCliFlags({"verify-generation", "out", "--tokens", "0"}).ok());
  EXPECT_FALSE(ParseCliFlags({"verify-generation", "out", "--tokens", "2", "--expect", "1"}).ok());
  EXPECT_FALSE(ParseCliFlags({"verify-generation", "out", "--prompt", "-1"}).ok());
  EXPECT_FALSE(ParseCliFlags({"verify-generation"}).ok());
  // Generation flags belong to verify-generation only.
  EXPECT_FALSE(ParseCliFlags({"m.pt2", "--tokens", "3"}).ok());
}

TEST(CliFlagsTest, Defaults) {
  absl::StatusOr<CliFlags> flags = ParseCliFlags({"dir/model.pt2"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->input, "dir/model.pt2");
  EXPECT_EQ(flags->output, "dir/model.onnx");
  EXPECT_EQ(flags->opset, 20);
  EXPECT_EQ(flags->external, CliFlags::External::kAuto);
  EXPECT_TRUE(flags->input_names.empty());
  EXPECT_TRUE(flags->output_names.empty());
  EXPECT_TRUE(flags->dim_names.empty());
  EXPECT_EQ(flags->model_name, "");
  EXPECT_TRUE(flags->optimize);
  EXPECT_FALSE(flags->check);
  EXPECT_FALSE(flags->quiet);
  EXPECT_FALSE(flags->help);
  EXPECT_FALSE(flags->version);
  EXPECT_FALSE(flags->list_ops);
  EXPECT_FALSE(flags->inspect);
  EXPECT_FALSE(flags->json);
}

TEST(CliFlagsTest, InspectAndJson) {
  absl::StatusOr<CliFlags> flags = ParseCliFlags({"m.pt2", "--inspect", "--json", "--opset", "23"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_TRUE(flags->inspect);
  EXPECT_TRUE(flags->json);
  EXPECT_EQ(flags->opset, 23);
  // Nothing is written, so an -o equal to the input does not matter.
  EXPECT_TRUE(ParseCliFlags({"m.pt2", "--inspect", "-o", "m.pt2"}).ok());
}

TEST(CliFlagsTest, OutputForInputWithoutPt2Suffix) {
  absl::StatusOr<CliFlags> flags = ParseCliFlags({"model.bin"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->output, "model.bin.onnx");
}

TEST(CliFlagsTest, EveryFlag) {
  absl::StatusOr<CliFlags> flags = ParseCliFlags(
      {"in.pt2", "-o", "out.onnx", "--opset", "18", "--external-data", "--input-names", "a,b",
       "--output-names=logits", "--dim-name", "s0=batch", "--dim-name=s1=seq", "--model", "m2",
       "--no-optimize", "--check", "-q"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->input, "in.pt2");
  EXPECT_EQ(flags->output, "out.onnx");
  EXPECT_EQ(flags->opset, 18);
  EXPECT_EQ(flags->external, CliFlags::External::kAlways);
  EXPECT_EQ(flags->input_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(flags->output_names, (std::vector<std::string>{"logits"}));
  EXPECT_EQ(flags->dim_names,
            (std::map<std::string, std::string>{{"s0", "batch"}, {"s1", "seq"}}));
  EXPECT_EQ(flags->model_name, "m2");
  EXPECT_FALSE(flags->optimize);
  EXPECT_TRUE(flags->check);
  EXPECT_TRUE(flags->quiet);
}

TEST(CliFlagsTest, LongFormsAndNoExternalData) {
  absl::StatusOr<CliFlags> flags =
      ParseCliFlags({"--output=o.onnx", "--opset=23", "--no-external-data", "--quiet", "in.pt2"});
  ASSERT_TRUE(flags.ok()) << flags.status();
  EXPECT_EQ(flags->output, "o.onnx");
  EXPECT_EQ(flags->opset, 23);
  EXPECT_EQ(flags->external, CliFlags::External::kNever);
  EXPECT_TRUE(flags->quiet);
}

TEST(CliFlagsTest, HelpVersionListOpsNeedNoInput) {
  for (const char* flag : {"-h", "--help", "--version", "--list-ops"}) {
    SCOPED_TRACE(flag);
    absl::StatusOr<CliFlags> flags = ParseCliFlags({flag});
    ASSERT_TRUE(flags.ok()) << flags.status();
  }
  EXPECT_TRUE(ParseCliFlags({"-h"})->help);
  EXPECT_TRUE(ParseCliFlags({"--version"})->version);
  EXPECT_TRUE(ParseCliFlags({"--list-ops"})->list_ops);
}

struct ErrorCase {
  std::string name;
  std::vector<std::string> args;
  std::string needle;
};

class CliFlagsErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(CliFlagsErrorTest, UsageError) {
  absl::StatusOr<CliFlags> flags = ParseCliFlags(GetParam().args);
  EXPECT_TRUE(HasStatus(flags.status(), absl::StatusCode::kInvalidArgument, GetParam().needle));
}

INSTANTIATE_TEST_SUITE_P(
    All, CliFlagsErrorTest,
    ::testing::Values(
        ErrorCase{"NoInput", {}, "no input file"},
        ErrorCase{"NoInputOnlyFlags", {"--check", "-o", "x.onnx"}, "no input file"},
        ErrorCase{"OpsetTooOld", {"m.pt2", "--opset", "12"}, "--opset '12' is not supported"},
        ErrorCase{"OpsetTooNew", {"m.pt2", "--opset=27"}, "18..26"},
        ErrorCase{"OpsetNotANumber", {"m.pt2", "--opset", "twenty"}, "--opset 'twenty'"},
        ErrorCase{"OpsetMissingValue", {"m.pt2", "--opset"}, "flag --opset needs a value"},
        ErrorCase{"UnknownFlag", {"m.pt2", "--frobnicate"}, "unknown flag '--frobnicate'"},
        ErrorCase{"DimNameWithoutEquals", {"m.pt2", "--dim-name", "s0"}, "SYMBOL=NAME"},
        ErrorCase{"DimNameEmptyName", {"m.pt2", "--dim-name", "s0="}, "--dim-name 's0='"},
        ErrorCase{"EmptyInputName", {"m.pt2", "--input-names", "a,,b"},
                  "--input-names has an empty name"},
        ErrorCase{"EmptyOutputName", {"m.pt2", "--output-names=x,"},
                  "--output-names has an empty name"},
        ErrorCase{"OutputEqualsInput", {"m.pt2", "-o", "m.pt2"}, "equals the input"},
        ErrorCase{"TwoInputs", {"a.pt2", "b.pt2"}, "unexpected argument 'b.pt2'"},
        ErrorCase{"InspectWithoutInput", {"--inspect"}, "no input file"},
        ErrorCase{"UnknownPass", {"m.pt2", "--passes=constant_folding,fold_everything"},
                  "--passes: unknown pass 'fold_everything'; known: identity_elimination,"},
        ErrorCase{"EmptyPasses", {"m.pt2", "--passes="}, "--passes: unknown pass ''"},
        ErrorCase{"FoldLimitNotANumber", {"m.pt2", "--fold-max-input-elements", "-3"},
                  "--fold-max-input-elements '-3' is not a count of elements"}),
    [](const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

}  // namespace
}  // namespace pt2onnx::native
