// Export (export/export.h): one entry from input bytes to sinks and report
// lines, with every failure classified by exit code, and no sink opened for
// a conversion that fails.
#include "export/export.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/io/byte_sink.h"
#include "core/io/input_file.h"
#include "core/ir/graph.h"
#include "export/exit_codes.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace pt2onnx {
namespace {

class RecordingSinks : public ExportSinks {
 public:
  absl::Status Open(const OutputPlan& plan, const ConversionSummary&) override {
    ++opened;
    external = plan.external;
    return open_status;
  }
  ByteSink& model() override { return model_bytes; }
  ByteSink& data() override { return data_bytes; }
  absl::Status Commit() override {
    ++committed;
    return absl::OkStatus();
  }

  absl::Status open_status;
  int opened = 0;
  int committed = 0;
  bool external = false;
  StringSink model_bytes;
  StringSink data_bytes;
};

class RecordingProgress : public ExportProgress {
 public:
  void Line(absl::string_view line) override { lines.emplace_back(line); }
  void Stage(absl::string_view stage, double fraction) override {
    if (fraction == 0) stages.emplace_back(stage);
  }
  std::vector<std::string> lines;
  std::vector<std::string> stages;
};

// A file over `bytes`, which must outlive it.
std::shared_ptr<const InputFile> InMemory(const std::string& bytes) {
  return std::make_shared<MemoryFile>(ByteSpan(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
}

// Each test exports the cnn fixture, `file_`.
class ExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> bytes = testing::ReadFixture("cnn");
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    storage_ = *std::move(bytes);
    file_ = InMemory(storage_);
  }

  std::string storage_;
  std::shared_ptr<const InputFile> file_;
};

TEST_F(ExportTest, WritesTheModelAndReportsEachStep) {
  ExportOptions options;
  options.input_name = "cnn.pt2";
  options.output_name = "out/cnn.onnx";
  RecordingSinks sinks;
  RecordingProgress progress;
  ExportResult result = Export(file_, options, sinks, progress);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.exit_code, kExitOk);
  EXPECT_EQ(sinks.opened, 1);
  EXPECT_EQ(sinks.committed, 1);
  EXPECT_FALSE(sinks.external);
  EXPECT_EQ(result.plan->model_file_name, "cnn.onnx");
  EXPECT_EQ(sinks.model_bytes.data().size(), result.written.model_bytes);
  EXPECT_GT(result.written.model_bytes, 0u);
  EXPECT_TRUE(sinks.data_bytes.data().empty());
  ASSERT_GE(progress.lines.size(), 3u);
  EXPECT_TRUE(absl::StartsWith(progress.lines.front(), "reading cnn.pt2 (")) << progress.lines.front();
  EXPECT_TRUE(absl::StartsWith(progress.lines[1], "translated ")) << progress.lines[1];
  EXPECT_TRUE(absl::StartsWith(progress.lines.back(), "wrote out/cnn.onnx (")) << progress.lines.back();
  EXPECT_EQ(progress.stages, (std::vector<std::string>{"read", "translate", "optimize", "write"}));
}

TEST_F(ExportTest, ExternalDataGoesToTheDataSink) {
  ExportOptions options;
  options.external = onnx_writer::WriteOptions::ExternalData::kAlways;
  RecordingSinks sinks;
  ExportProgress quiet;
  ExportResult result = Export(file_, options, sinks, quiet);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_TRUE(sinks.external);
  EXPECT_EQ(result.plan->data_file_name, "model.onnx.data");
  EXPECT_EQ(sinks.data_bytes.data().size(), result.written.external_bytes);
  EXPECT_GT(result.written.external_bytes, 0u);
}

TEST_F(ExportTest, WithoutWeightsNothingIsExternal) {
  ExportOptions options;
  options.external = onnx_writer::WriteOptions::ExternalData::kAlways;
  RecordingSinks full;
  ExportProgress quiet;
  ASSERT_TRUE(Export(file_, options, full, quiet).status.ok());
  options.include_weights = false;
  RecordingSinks graph_only;
  ExportResult result = Export(file_, options, graph_only, quiet);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_FALSE(graph_only.external);
  EXPECT_FALSE(result.plan->write.include_initializers);
  EXPECT_TRUE(graph_only.data_bytes.data().empty());
  EXPECT_LT(graph_only.model_bytes.data().size(), full.model_bytes.data().size());
  EXPECT_EQ(result.written.external_bytes, 0u);
}

TEST_F(ExportTest, WeightsAsInputsAreListedAfterTheUserInputs) {
  ExportOptions options;
  options.weights_as_inputs = true;
  RecordingSinks sinks;
  ExportProgress quiet;
  ExportResult result = Export(file_, options, sinks, quiet);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_TRUE(result.plan->write.initializers_as_inputs);
  EXPECT_TRUE(result.plan->write.include_initializers);
}

TEST_F(ExportTest, OnConvertedRunsBeforeTheChecksAndMayAlterTheModel) {
  std::vector<std::string> order;
  ExportOptions options;
  options.on_converted = [&](Conversion& conversion) {
    order.push_back("converted");
    conversion.model.producer_name = "altered";
  };
  options.checks.push_back({[&](const ir::Model& model) {
                              order.push_back(absl::StrCat("check ", model.producer_name));
                              return absl::OkStatus();
                            },
                            kExitInternal});
  RecordingSinks sinks;
  RecordingProgress progress;
  ExportResult result = Export(file_, options, sinks, progress);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(order, (std::vector<std::string>{"converted", "check altered"}));
  EXPECT_EQ(result.conversion->model.producer_name, "altered");
  EXPECT_NE(sinks.model_bytes.data().find("altered"), std::string::npos);

  // Not called for a conversion that fails.
  order.clear();
  std::string garbage = "not a zip file";
  auto bad = InMemory(garbage);
  EXPECT_FALSE(Export(bad, options, sinks, progress).status.ok());
  EXPECT_TRUE(order.empty());
}

TEST_F(ExportTest, FailuresCarryTheirExitCodeAndOpenNoSink) {
  const std::string not_a_zip = "not a zip file";
  auto garbage = InMemory(not_a_zip);
  RecordingSinks sinks;
  ExportProgress quiet;
  ExportResult result = Export(garbage, ExportOptions{}, sinks, quiet);
  EXPECT_FALSE(result.status.ok());
  EXPECT_EQ(result.exit_code, kExitInvalidInput);
  EXPECT_FALSE(result.conversion.has_value());
  EXPECT_EQ(sinks.opened, 0);

  ExportOptions options;
  options.checks.push_back({[](const ir::Model&) { return absl::InternalError("check says no"); },
                            kExitInternal});
  result = Export(file_, options, sinks, quiet);
  EXPECT_EQ(result.exit_code, kExitInternal);
  EXPECT_EQ(result.status.message(), "check says no");
  EXPECT_TRUE(result.conversion.has_value());
  EXPECT_EQ(sinks.opened, 0);

  RecordingSinks unwritable;
  unwritable.open_status = absl::PermissionDeniedError("read-only folder");
  result = Export(file_, ExportOptions{}, unwritable, quiet);
  EXPECT_EQ(result.exit_code, kExitIo);
  EXPECT_EQ(unwritable.committed, 0);
}

// The checks every front end relies on run inside Export(): a model whose
// declared shapes contradict its operators, or whose operator has an input
// too many, is refused before any sink opens, whatever the caller asked.
TEST_F(ExportTest, TheBuiltInChecksRefuseBeforeWriting) {
  ExportOptions options;
  options.on_converted = [](Conversion& conversion) {
    // cnn's output is 1x10; declared 1x11 it contradicts the Gemm before it.
    conversion.model.graph.outputs[0].shape->back() = ir::Dim::Static(11);
  };
  RecordingSinks sinks;
  ExportProgress quiet;
  ExportResult result = Export(file_, options, sinks, quiet);
  EXPECT_EQ(result.failed_at, ExportStep::kShapeCheck);
  EXPECT_EQ(result.exit_code, kExitInvalidInput);
  EXPECT_TRUE(absl::StrContains(result.status.message(), "metadata contradicts its operators")) << result.status;
  EXPECT_EQ(sinks.opened, 0);

  options.on_converted = [](Conversion& conversion) {
    ir::Node& first = conversion.model.graph.nodes.front();  // not a variadic operator in cnn
    for (int i = 0; i < 3; ++i) first.inputs.push_back(first.inputs.front());
  };
  result = Export(file_, options, sinks, quiet);
  EXPECT_EQ(result.failed_at, ExportStep::kArityCheck);
  EXPECT_EQ(result.exit_code, kExitInternal);
  EXPECT_EQ(sinks.opened, 0);
}

TEST_F(ExportTest, WithoutWriteItStopsAfterTheChecksAndCarriesTheProgram) {
  ExportOptions options;
  options.write = false;
  RecordingSinks sinks;
  RecordingProgress progress;
  ExportResult result = Export(file_, options, sinks, progress);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(result.failed_at, ExportStep::kNone);
  EXPECT_EQ(sinks.opened, 0);
  EXPECT_FALSE(result.plan.has_value());
  ASSERT_TRUE(result.conversion.has_value());
  // The program read once: the result's and the conversion's are the same.
  ASSERT_NE(result.program, nullptr);
  EXPECT_EQ(result.conversion->program, result.program);
  EXPECT_GT(result.program->program.graph.nodes.size(), 0u);
  EXPECT_EQ(progress.stages, (std::vector<std::string>{"read", "translate", "optimize"}));
}

TEST_F(ExportTest, AProgramThatDoesNotTranslateIsStillCarried) {
  absl::StatusOr<std::string> bytes = testing::ReadFixture("unsupported_op");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  RecordingSinks sinks;
  ExportProgress quiet;
  ExportResult result = Export(InMemory(*bytes), ExportOptions{}, sinks, quiet);
  EXPECT_EQ(result.failed_at, ExportStep::kTranslate);
  EXPECT_EQ(result.exit_code, kExitUnsupported);
  EXPECT_NE(result.program, nullptr);  // a report lists its unsupported operators
  EXPECT_FALSE(result.conversion.has_value());

  const std::string garbage = "not a zip file";
  result = Export(InMemory(garbage), ExportOptions{}, sinks, quiet);
  EXPECT_EQ(result.failed_at, ExportStep::kRead);
  EXPECT_EQ(result.program, nullptr);
}

}  // namespace
}  // namespace pt2onnx
