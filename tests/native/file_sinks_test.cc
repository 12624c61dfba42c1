// FileSinks (native/file_sinks.h): Export() into files writes the bytes it
// writes into memory, model and external data, logs "writing ...", and an
// export that fails after Open leaves no file behind.
#include "native/file_sinks.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/io/byte_sink.h"
#include "export/exit_codes.h"
#include "export/export.h"
#include "gtest/gtest.h"
#include "native/weight_splice.h"
#include "tests/testing/test_files.h"

namespace pt2onnx::native {
namespace {

using ::pt2onnx::testing::ReadWholeFile;
using ::pt2onnx::testing::TestTempDir;

class MemorySinks : public ExportSinks {
 public:
  absl::Status Open(const OutputPlan&, const ConversionSummary&) override { return absl::OkStatus(); }
  ByteSink& model() override { return model_bytes; }
  ByteSink& data() override { return data_bytes; }
  StringSink model_bytes;
  StringSink data_bytes;
};

constexpr char kInput[] = "tests/fixtures/cnn/model.pt2";

TEST(FileSinksTest, SameBytesAsInMemoryWithExternalData) {
  const std::string in_memory = ReadWholeFile(kInput);
  ASSERT_FALSE(in_memory.empty());
  ExportOptions options;
  options.external = onnx_writer::WriteOptions::ExternalData::kAlways;
  options.output_name = "cnn.onnx";
  ExportProgress quiet;
  MemorySinks memory;
  ASSERT_TRUE(Export(std::make_shared<MemoryFile>(in_memory), options, memory, quiet).status.ok());

  absl::StatusOr<std::shared_ptr<FdInputFile>> file = FdInputFile::Open(kInput);
  ASSERT_TRUE(file.ok()) << file.status();
  const std::string out = TestTempDir() + "/cnn.onnx";
  std::vector<std::string> log;
  FileSinks files(out, "cnn.onnx", [&](const std::string& line) { log.push_back(line); }, true);
  ExportResult result = Export(*file, options, files, quiet);
  ASSERT_TRUE(result.status.ok()) << result.status;
  EXPECT_EQ(ReadWholeFile(out), memory.model_bytes.data());
  EXPECT_EQ(ReadWholeFile(out + ".data"), memory.data_bytes.data());
  EXPECT_EQ(log, std::vector<std::string>{"writing cnn.onnx (+ external data)"});
}

TEST(FileSinksTest, AFailedExportLeavesNoFile) {
  absl::StatusOr<std::shared_ptr<FdInputFile>> file = FdInputFile::Open(kInput);
  ASSERT_TRUE(file.ok()) << file.status();
  const std::string folder = TestTempDir() + "/failed_export";
  std::filesystem::create_directories(folder);
  ExportOptions options;
  options.external = onnx_writer::WriteOptions::ExternalData::kAlways;
  ExportProgress quiet;
  {
    FileSinks files(folder + "/m.onnx", "m.onnx", [](const std::string&) {}, false);
    ASSERT_TRUE(files.Open(OutputPlan{{}, "m.onnx", true, "m.onnx.data"}, ConversionSummary{}).ok());
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(folder),
                            std::filesystem::directory_iterator()),
              2);  // the two temporaries
  }
  EXPECT_TRUE(std::filesystem::is_empty(folder));

  // A destination that is a folder: Open fails, an I/O error.
  std::filesystem::create_directories(folder + "/taken.onnx");
  FileSinks taken(folder + "/taken.onnx", "taken.onnx", [](const std::string&) {}, false);
  ExportResult result = Export(*file, options, taken, quiet);
  EXPECT_EQ(result.exit_code, kExitIo) << result.status;
  EXPECT_FALSE(std::filesystem::exists(folder + "/taken.onnx.data"));
}

}  // namespace
}  // namespace pt2onnx::native
