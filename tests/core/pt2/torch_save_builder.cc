#include "tests/core/pt2/torch_save_builder.h"

#include <cstring>
#include <string>

#include "tests/testing/zip_builder.h"

namespace pt2onnx::testutil {
namespace {

void PutLe(std::string& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

}  // namespace

PickleBuilder::PickleBuilder() { out_ = "\x80\x02"; }

PickleBuilder& PickleBuilder::Raw(absl::string_view bytes) {
  out_.append(bytes.data(), bytes.size());
  return *this;
}

PickleBuilder& PickleBuilder::Op(uint8_t op) {
  out_.push_back(static_cast<char>(op));
  return *this;
}

PickleBuilder& PickleBuilder::Str(absl::string_view s) {
  Op('X');
  PutLe(out_, s.size(), 4);
  return Raw(s);
}

PickleBuilder& PickleBuilder::Int(int64_t v) {
  if (v >= 0 && v < 256) {
    Op('K');
    PutLe(out_, v, 1);
  } else if (v >= 0 && v < 65536) {
    Op('M');
    PutLe(out_, v, 2);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    Op('J');
    PutLe(out_, static_cast<uint32_t>(v), 4);
  } else {
    Op(0x8a);
    PutLe(out_, 8, 1);
    PutLe(out_, static_cast<uint64_t>(v), 8);
  }
  return *this;
}

PickleBuilder& PickleBuilder::Float(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  Op('G');
  for (int i = 7; i >= 0; --i) {  // BINFLOAT is big-endian
    out_.push_back(static_cast<char>(bits >> (8 * i)));
  }
  return *this;
}

PickleBuilder& PickleBuilder::Global(absl::string_view module,
                                     absl::string_view name) {
  Op('c');
  Raw(module);
  Raw("\n");
  Raw(name);
  return Raw("\n");
}

PickleBuilder& PickleBuilder::Put(uint32_t key) {
  if (key < 256) {
    Op('q');
    PutLe(out_, key, 1);
  } else {
    Op('r');
    PutLe(out_, key, 4);
  }
  return *this;
}

PickleBuilder& PickleBuilder::Get(uint32_t key) {
  if (key < 256) {
    Op('h');
    PutLe(out_, key, 1);
  } else {
    Op('j');
    PutLe(out_, key, 4);
  }
  return *this;
}

PickleBuilder& PickleBuilder::IntTuple(const std::vector<int64_t>& values) {
  if (values.empty()) return EmptyTuple();
  if (values.size() <= 3) {
    for (int64_t v : values) Int(v);
    return TupleN(static_cast<int>(values.size()));
  }
  Mark();
  for (int64_t v : values) Int(v);
  return Tuple();
}

PickleBuilder& PickleBuilder::OrderedDict() {
  return Global("collections", "OrderedDict").EmptyTuple().Reduce();
}

PickleBuilder& PickleBuilder::Storage(const StorageSpec& s) {
  Mark().Str("storage").Global("torch", s.storage_class).Str(s.key);
  Str(s.location).Int(s.numel).Tuple();
  return BinPersId();
}

PickleBuilder& PickleBuilder::Tensor(const StorageSpec& s, int64_t offset,
                                     const std::vector<int64_t>& sizes,
                                     const std::vector<int64_t>& strides,
                                     bool requires_grad) {
  Global("torch._utils", "_rebuild_tensor_v2");
  Mark().Storage(s).Int(offset).IntTuple(sizes).IntTuple(strides);
  Bool(requires_grad).OrderedDict().Tuple();
  return Reduce();
}

PickleBuilder& PickleBuilder::Parameter(const StorageSpec& s, int64_t offset,
                                        const std::vector<int64_t>& sizes,
                                        const std::vector<int64_t>& strides,
                                        bool requires_grad) {
  Global("torch._utils", "_rebuild_parameter");
  Tensor(s, offset, sizes, strides).Bool(requires_grad).OrderedDict();
  return TupleN(3).Reduce();
}

std::string TorchSaveZip(absl::string_view pickle,
                         const std::map<std::string, std::string>& storages,
                         absl::string_view root) {
  ZipBuilder zip(ZipBuilderOptions::PyTorch(std::string(root)));
  zip.Add("data.pkl", pickle);
  zip.Add(".format_version", "1");
  zip.Add(".storage_alignment", "64");
  zip.Add("byteorder", "little");
  for (const auto& [key, bytes] : storages) zip.Add("data/" + key, bytes);
  zip.Add("version", "3\n");
  zip.Add(".data/serialization_id", "0123456789012345678901234567890123456789");
  return zip.Build().bytes;
}

std::string FloatBytes(const std::vector<float>& values) {
  std::string out(values.size() * sizeof(float), '\0');
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::vector<float> ToFloats(absl::string_view bytes) {
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

}  // namespace pt2onnx::testutil
