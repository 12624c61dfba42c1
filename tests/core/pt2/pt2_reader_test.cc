// Tests of LoadPt2 on real torch.export.save files (tests/fixtures/), read
// from the runfiles tree. Natively only: the wasm build marks this target
// incompatible (the test binary has no file system under node).
#include "core/pt2/pt2_reader.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/bytes.h"
#include "core/dtype.h"
#include "core/pt2/weights.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/status_matchers.h"

namespace pt2onnx::pt2 {
namespace {

using ::pt2onnx::testing::HasStatus;

// Fixture bytes; fails the test when the file is not in the runfiles.
std::string ReadFixture(absl::string_view name) {
  absl::StatusOr<std::string> bytes = testing::ReadFixture(name);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *std::move(bytes) : std::string();
}

std::vector<float> Floats(ByteSpan bytes) {
  std::vector<float> out(bytes.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

// The bytes of a located weight.
ByteSpan Contents(const FileSlice& slice) {
  absl::StatusOr<ByteSpan> bytes = slice.file->Read(slice.range);
  return bytes.ok() ? *bytes : ByteSpan();
}
std::vector<float> Floats(const FileSlice& slice) { return Floats(Contents(slice)); }

struct WeightCase {
  const char* fqn;
  DataType dtype;
  std::vector<int64_t> sizes;
  bool is_param;
};

// nn.Conv2d(3, 8, 3) / BatchNorm2d(8) / Conv2d(8, 16, 3, bias=False) /
// BatchNorm2d(16) / Linear(1024, 10): tools/fixtures/generate_fixtures.py CNN.
const std::vector<WeightCase>& CnnWeights() {
  static const auto* cases = new std::vector<WeightCase>{
      {"conv1.weight", DataType::kFloat, {8, 3, 3, 3}, true},
      {"conv1.bias", DataType::kFloat, {8}, true},
      {"bn1.weight", DataType::kFloat, {8}, true},
      {"bn1.bias", DataType::kFloat, {8}, true},
      {"bn1.running_mean", DataType::kFloat, {8}, false},
      {"bn1.running_var", DataType::kFloat, {8}, false},
      {"bn1.num_batches_tracked", DataType::kInt64, {}, false},
      {"conv2.weight", DataType::kFloat, {16, 8, 3, 3}, true},
      {"bn2.weight", DataType::kFloat, {16}, true},
      {"bn2.bias", DataType::kFloat, {16}, true},
      {"bn2.running_mean", DataType::kFloat, {16}, false},
      {"bn2.running_var", DataType::kFloat, {16}, false},
      {"bn2.num_batches_tracked", DataType::kInt64, {}, false},
      {"fc.weight", DataType::kFloat, {10, 1024}, true},
      {"fc.bias", DataType::kFloat, {10}, true},
  };
  return *cases;
}

void ExpectCnnWeights(const LoadedProgram& loaded) {
  EXPECT_EQ(loaded.weights.all().size(), CnnWeights().size());
  for (const WeightCase& c : CnnWeights()) {
    SCOPED_TRACE(c.fqn);
    const Weight* w = loaded.weights.Find(c.fqn);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->name, c.fqn);
    EXPECT_EQ(w->dtype, c.dtype);
    EXPECT_EQ(w->sizes, c.sizes);
    EXPECT_TRUE(w->IsContiguous());
    std::optional<FileSlice> slice = w->ContiguousSlice();
    ASSERT_TRUE(slice.has_value());
    EXPECT_EQ(static_cast<int64_t>(slice->size()), w->numel() * ElementSize(c.dtype));
  }
  // The running variance of an eval BatchNorm is positive.
  const Weight* var = loaded.weights.Find("bn1.running_var");
  ASSERT_NE(var, nullptr);
  for (float v : Floats(*var->ContiguousSlice())) EXPECT_GT(v, 0.0f);
}

TEST(LoadPt2Test, Torch215Archive) {
  const std::string file = ReadFixture("cnn");
  absl::StatusOr<LoadedProgram> loaded = LoadPt2(AsBytes(file));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->layout, Layout::kPt2Archive);
  EXPECT_EQ(loaded->root, "model/");
  EXPECT_EQ(loaded->model_name, "model");
  EXPECT_TRUE(absl::StartsWith(loaded->program.torch_version, "2.15"))
      << loaded->program.torch_version;
  EXPECT_EQ(loaded->program.schema_major, 8);
  EXPECT_EQ(loaded->program.schema_minor, 20);
  EXPECT_FALSE(loaded->program.graph.nodes.empty());
  EXPECT_TRUE(loaded->weights.Find("conv1.weight")->is_param);
  EXPECT_FALSE(loaded->weights.Find("bn1.running_mean")->is_param);
  ExpectCnnWeights(*loaded);
  // Weights are located in the file, not copied.
  const Weight* w = loaded->weights.Find("fc.weight");
  EXPECT_GT(w->storage.range.offset, 0u);
  EXPECT_LE(w->storage.range.end(), file.size());
}

TEST(LoadPt2Test, ListModelsOfArchive) {
  const std::string file = ReadFixture("cnn");
  absl::StatusOr<std::vector<std::string>> models = ListPt2Models(AsBytes(file));
  ASSERT_TRUE(models.ok()) << models.status();
  EXPECT_EQ(*models, std::vector<std::string>{"model"});
}

TEST(LoadPt2Test, UnknownModelNameIsRejected) {
  const std::string file = ReadFixture("cnn");
  absl::StatusOr<LoadedProgram> loaded = LoadPt2(AsBytes(file), "no_such_model");
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(absl::StrContains(loaded.status().message(), "no_such_model"))
      << loaded.status();
}

// torch 2.8 (pickled weights) and 2.7 (legacy zip) files hold the same
// weights as the 2.15 one (same seed, README): the bytes must agree.
void ExpectSameWeightsAsCnn(const LoadedProgram& other) {
  const std::string file = ReadFixture("cnn");
  absl::StatusOr<LoadedProgram> cnn = LoadPt2(AsBytes(file));
  ASSERT_TRUE(cnn.ok()) << cnn.status();
  for (const WeightCase& c : CnnWeights()) {
    SCOPED_TRACE(c.fqn);
    const Weight* a = cnn->weights.Find(c.fqn);
    const Weight* b = other.weights.Find(c.fqn);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    absl::StatusOr<std::string> ma = a->Materialize();
    absl::StatusOr<std::string> mb = b->Materialize();
    ASSERT_TRUE(ma.ok() && mb.ok());
    EXPECT_EQ(*ma, *mb);
  }
}

TEST(LoadPt2Test, Torch28PickledWeights) {
  const std::string file = ReadFixture("cnn_torch28");
  absl::StatusOr<LoadedProgram> loaded = LoadPt2(AsBytes(file));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->layout, Layout::kPt2Archive);
  EXPECT_TRUE(absl::StartsWith(loaded->program.torch_version, "2.8"))
      << loaded->program.torch_version;
  EXPECT_EQ(loaded->program.schema_major, 8);
  EXPECT_EQ(loaded->program.schema_minor, 8);
  ExpectCnnWeights(*loaded);
  ExpectSameWeightsAsCnn(*loaded);
}

TEST(LoadPt2Test, Torch27LegacyZip) {
  const std::string file = ReadFixture("cnn_torch27");
  absl::StatusOr<LoadedProgram> loaded = LoadPt2(AsBytes(file));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->layout, Layout::kLegacyZip);
  EXPECT_EQ(loaded->root, "");
  EXPECT_EQ(loaded->program.schema_major, 8);
  EXPECT_EQ(loaded->program.schema_minor, 7);
  ExpectCnnWeights(*loaded);
  ExpectSameWeightsAsCnn(*loaded);
}

TEST(LoadPt2Test, Torch25IsRefusedWithAdvice) {
  const std::string file = ReadFixture("cnn_torch25");
  absl::StatusOr<LoadedProgram> loaded = LoadPt2(AsBytes(file));
  EXPECT_TRUE(HasStatus(loaded.status(), absl::StatusCode::kFailedPrecondition, "re-export"));
}

TEST(LoadPt2Test, StridedParameterIsMaterializedTransposed) {
  const std::string file = ReadFixture("strided_weights");
  absl::StatusOr<LoadedProgram> loaded = LoadPt2(AsBytes(file));
  ASSERT_TRUE(loaded.ok()) << loaded.status();

  // w_t = randn(3, 5).t(): sizes [5, 3], strides [1, 5] over a 15-float storage.
  const Weight* w = loaded->weights.Find("w_t");
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->is_param);
  EXPECT_EQ(w->dtype, DataType::kFloat);
  EXPECT_EQ(w->sizes, (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(w->strides, (std::vector<int64_t>{1, 5}));
  EXPECT_FALSE(w->IsContiguous());
  EXPECT_FALSE(w->ContiguousSlice().has_value());
  absl::StatusOr<std::string> dense = w->Materialize();
  ASSERT_TRUE(dense.ok()) << dense.status();
  ASSERT_EQ(dense->size(), 15 * sizeof(float));
  const std::vector<float> storage = Floats(w->storage);
  const std::vector<float> out = Floats(AsBytes(*dense));
  ASSERT_GE(storage.size(), static_cast<size_t>(w->storage_offset + 15));
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(out[i * 3 + j], storage[w->storage_offset + i * 1 + j * 5])
          << "element [" << i << "][" << j << "]";
    }
  }
}

TEST(LoadPt2Test, BufferViewsShareOneStorage) {
  const std::string file = ReadFixture("strided_weights");
  absl::StatusOr<LoadedProgram> loaded = LoadPt2(AsBytes(file));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Weight* a = loaded->weights.Find("view_a");
  const Weight* b = loaded->weights.Find("view_b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(a->is_param);
  // One 20-element storage, viewed at offsets 2 and 10.
  EXPECT_EQ(a->storage.range, b->storage.range);
  EXPECT_EQ(a->storage.size(), 20 * sizeof(float));
  EXPECT_EQ(a->storage_offset, 2);
  EXPECT_EQ(b->storage_offset, 10);
  const std::vector<float> storage = Floats(a->storage);
  for (const Weight* v : {a, b}) {
    absl::StatusOr<std::string> dense = v->Materialize();
    ASSERT_TRUE(dense.ok()) << dense.status();
    EXPECT_EQ(static_cast<int64_t>(dense->size()), v->numel() * 4);
    // Neither view covers the whole storage.
    EXPECT_LT(v->numel(), 20);
    if (v->IsContiguous()) {
      const std::vector<float> vals = Floats(AsBytes(*dense));
      for (size_t k = 0; k < vals.size(); ++k) {
        EXPECT_EQ(vals[k], storage[v->storage_offset + k]);
      }
    }
  }
  // Tied linear weights, the non-persistent buffer and the lifted constant.
  const Weight* l1 = loaded->weights.Find("lin1.weight");
  const Weight* l2 = loaded->weights.Find("lin2.weight");
  ASSERT_NE(l1, nullptr);
  ASSERT_NE(l2, nullptr);
  EXPECT_EQ(l1->storage.range, l2->storage.range);
  EXPECT_NE(loaded->weights.Find("np_buf"), nullptr);
  EXPECT_NE(loaded->weights.Find("const"), nullptr);
}

TEST(LoadPt2Test, TiedWeightsShareBytes) {
  const std::string file = ReadFixture("gpt_block");
  absl::StatusOr<LoadedProgram> loaded = LoadPt2(AsBytes(file));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const Weight* wte = loaded->weights.Find("wte.weight");
  const Weight* head = loaded->weights.Find("lm_head.weight");
  ASSERT_NE(wte, nullptr);
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(wte->sizes, (std::vector<int64_t>{100, 32}));
  EXPECT_EQ(head->sizes, wte->sizes);
  EXPECT_EQ(head->dtype, DataType::kFloat);
  // One weight file for both: the same bytes of the archive.
  EXPECT_EQ(wte->storage.range, head->storage.range);
  EXPECT_EQ(wte->ContiguousSlice()->range, head->ContiguousSlice()->range);
  EXPECT_NE(loaded->weights.Find("h.1.c_attn.weight"), nullptr);
}

TEST(LoadPt2Test, TruncatedFileIsInvalidArgument) {
  const std::string file = ReadFixture("cnn");
  const std::string truncated = file.substr(0, file.size() / 2);
  absl::StatusOr<LoadedProgram> loaded = LoadPt2(AsBytes(truncated));
  EXPECT_TRUE(HasStatus(loaded.status(), absl::StatusCode::kInvalidArgument, "truncated"));
}

TEST(LoadPt2Test, RandomBytesAreInvalidArgument) {
  std::string noise(4096, '\0');
  uint32_t state = 12345;
  for (char& c : noise) {
    state = state * 1103515245u + 12345u;
    c = static_cast<char>(state >> 24);
  }
  noise[0] = 'x';  // never a "PK" start
  absl::StatusOr<LoadedProgram> loaded = LoadPt2(AsBytes(noise));
  EXPECT_TRUE(HasStatus(loaded.status(), absl::StatusCode::kInvalidArgument, "ZIP"));
  // Too short for a ZIP header.
  const std::string two_bytes = "PK";
  EXPECT_TRUE(HasStatus(LoadPt2(AsBytes(two_bytes)).status(), absl::StatusCode::kInvalidArgument, "ZIP"));
}

TEST(LoadPt2Test, EmptyFileIsNamedEmpty) {
  absl::Status status = LoadPt2(ByteSpan()).status();
  EXPECT_TRUE(HasStatus(status, absl::StatusCode::kInvalidArgument, "the file is empty (0 bytes)"));
  EXPECT_FALSE(absl::StrContains(status.message(), "ZIP")) << status;
}

}  // namespace
}  // namespace pt2onnx::pt2
