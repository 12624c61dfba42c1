// Converting through FdInputFile + AtomicFile (weights spliced by the
// kernel) writes the same bytes as converting from memory into a string,
// with weights inline and in external data.
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "export/converter.h"
#include "core/onnx/model_writer.h"
#include "gtest/gtest.h"
#include "native/atomic_file.h"
#include "native/weight_splice.h"
#include "tests/testing/test_files.h"

namespace pt2onnx::native {
namespace {

using ::pt2onnx::testing::ReadWholeFile;

class SpliceOutputTest : public ::testing::TestWithParam<const char*> {};

TEST_P(SpliceOutputTest, SameBytesAsInMemory) {
  const std::string input = std::string("tests/fixtures/") + GetParam() + "/model.pt2";
  const std::string in_memory = ReadWholeFile(input);
  ASSERT_FALSE(in_memory.empty()) << input;
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string out = std::string(tmp != nullptr ? tmp : "/tmp") + "/spliced.onnx";
  using ExternalData = onnx_writer::WriteOptions::ExternalData;
  for (ExternalData external : {ExternalData::kNever, ExternalData::kAlways}) {
    onnx_writer::WriteOptions options;
    options.external_data = external;
    options.external_data_location = "spliced.onnx.data";

    absl::StatusOr<Conversion> from_memory =
        ConvertPt2(std::make_shared<MemoryFile>(in_memory), ConvertOptions{});
    ASSERT_TRUE(from_memory.ok()) << from_memory.status();
    onnx_writer::StringSink model, data;
    ASSERT_TRUE(onnx_writer::WriteModel(from_memory->model, options, model, &data).ok());

    absl::StatusOr<std::shared_ptr<FdInputFile>> file = FdInputFile::Open(input);
    ASSERT_TRUE(file.ok());
    absl::StatusOr<Conversion> from_fd = ConvertPt2(*file, ConvertOptions{});
    ASSERT_TRUE(from_fd.ok()) << from_fd.status();
    auto model_file = AtomicFile::Create(out);
    auto data_file = AtomicFile::Create(out + ".data");
    ASSERT_TRUE(model_file.ok() && data_file.ok());
    ASSERT_TRUE(onnx_writer::WriteModel(from_fd->model, options, **model_file, data_file->get()).ok());
    ASSERT_TRUE((*model_file)->Commit().ok());
    ASSERT_TRUE((*data_file)->Commit().ok());
    EXPECT_EQ(ReadWholeFile(out), model.data()) << GetParam();
    EXPECT_EQ(ReadWholeFile(out + ".data"), data.data()) << GetParam();
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SpliceOutputTest,
                         ::testing::Values("gpt_block", "dtypes", "cnn", "models/hf_llama",
                                           "models/tv_resnet", "mlp_dict_list_torch27"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = (c == '/') ? '_' : c;
                           return name;
                         });

}  // namespace
}  // namespace pt2onnx::native
