// VerifyPt2 (export/verify_pt2.h): Export() and both engines in one call,
// with every step of the run report named once for every front end; the
// translation libraries loaded by one loader (export/translations.h).
#include "export/verify_pt2.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "core/io/byte_sink.h"
#include "core/io/input_file.h"
#include "export/exit_codes.h"
#include "export/report.h"
#include "export/report_steps.h"
#include "export/translations.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace pt2onnx {
namespace {

using verify::StepStatus;
using Steps = std::vector<std::pair<std::string, StepStatus>>;

class DiscardingSinks : public ExportSinks {
 public:
  absl::Status Open(const OutputPlan&, const ConversionSummary&) override { return absl::OkStatus(); }
  ByteSink& model() override { return model_; }
  ByteSink& data() override { return data_; }

 private:
  StringSink model_, data_;
};

class VerifyPt2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> bytes = testing::ReadFixture("cnn");
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    storage_ = *std::move(bytes);
    file_ = std::make_shared<MemoryFile>(AsBytes(storage_));
  }

  VerifyPt2Result Run(const VerifyPt2Options& options) {
    DiscardingSinks sinks;
    ExportProgress quiet;
    return VerifyPt2(file_, options, sinks, quiet);
  }

  std::string storage_;
  std::shared_ptr<const InputFile> file_;
};

TEST_F(VerifyPt2Test, APassingRunNamesEveryStep) {
  VerifyPt2Options options;
  options.exported.input_name = "cnn.pt2";
  options.report = true;
  options.node_data = true;
  VerifyPt2Result run = Run(options);
  ASSERT_EQ(run.exit_code, kExitOk) << run.message;
  ASSERT_TRUE(run.verified.has_value());
  EXPECT_TRUE(run.verified->verification->passed);
  ASSERT_TRUE(run.node_data.has_value());
  EXPECT_TRUE(absl::StrContains(run.node_data->max_abs_diff, "\"results\""));
  EXPECT_EQ(run.report.steps, (Steps{{report_steps::kRead, StepStatus::kOk},
                                     {report_steps::kTranslate, StepStatus::kOk},
                                     {report_steps::kChecks, StepStatus::kOk},
                                     {report_steps::kWrite, StepStatus::kOk},
                                     {report_steps::kRunEngines, StepStatus::kOk},
                                     {report_steps::kAccuracy, StepStatus::kOk}}));
  const std::string report = run.RenderReport();
  EXPECT_TRUE(absl::StrContains(report, "cnn.pt2")) << report;
  EXPECT_TRUE(absl::StrContains(report, ProducerName())) << report;
}

TEST_F(VerifyPt2Test, AModelTheChecksRefuseIsNeverRun) {
  VerifyPt2Options options;
  options.exported.write = false;
  options.exported.on_converted = [](Conversion& conversion) {
    conversion.model.graph.outputs[0].shape->back() = ir::Dim::Static(11);
  };
  VerifyPt2Result run = Run(options);
  EXPECT_EQ(run.exit_code, kExitInvalidInput);
  EXPECT_TRUE(absl::StrContains(run.message, "metadata contradicts its operators")) << run.message;
  EXPECT_FALSE(run.verified.has_value());
  EXPECT_EQ(run.report.steps, (Steps{{report_steps::kRead, StepStatus::kOk},
                                     {report_steps::kTranslate, StepStatus::kOk},
                                     {report_steps::kShapeInference, StepStatus::kFailed}}));
  EXPECT_EQ(run.report.errors, std::vector<std::string>{run.message});
}

TEST_F(VerifyPt2Test, AnInputsFileIsReadWhenTheInputsAreChosen) {
  VerifyPt2Options options;
  options.run.inputs = VerifyInputs::kGiven;
  options.run.given_source = "x.npz";
  options.run.given_npz = []() -> absl::StatusOr<std::string> { return std::string("not an npz"); };
  VerifyPt2Result run = Run(options);
  EXPECT_EQ(run.exit_code, kExitInvalidInput);
  EXPECT_TRUE(absl::StartsWith(run.message, "x.npz: ")) << run.message;
  EXPECT_TRUE(run.exported.status.ok());  // the model was written first

  options.run.given_npz = []() -> absl::StatusOr<std::string> { return absl::NotFoundError("no x.npz"); };
  run = Run(options);
  EXPECT_EQ(run.exit_code, kExitIo);
  EXPECT_EQ(run.report.steps.back(), (std::pair<std::string, StepStatus>{report_steps::kAccuracy,
                                                                         StepStatus::kFailed}));
}

TEST(TranslationsTest, ALibraryThatDoesNotLoadIsNamed) {
  const std::string garbage = "not an ONNX model";
  std::vector<TranslationLibrary> libraries = {{"mylib.onnx", AsBytes(garbage)}};
  absl::StatusOr<std::unique_ptr<Translations>> loaded = Translations::Load(libraries, false);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(absl::StartsWith(loaded.status().message(), "mylib.onnx: ")) << loaded.status();

  loaded = Translations::Load({}, false);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ConvertOptions options;
  (*loaded)->ApplyTo(options, /*as_local_functions=*/true);
  EXPECT_EQ(options.registry, &(*loaded)->registry());
  EXPECT_TRUE(options.translate.custom_functions_as_local);
  EXPECT_EQ((*loaded)->registry().Keys(), SharedDefaultRegistry().Keys());
}

}  // namespace
}  // namespace pt2onnx
