#include "core/pt2/torch_save.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "core/status_util.h"
#include "core/pt2/weights.h"

namespace pt2onnx::pt2 {
namespace {

// The prefix ("<root>/" or "") under which data.pkl lives. PyTorch's reader
// takes the root from the first entry; files rewritten by other tools may
// reorder entries, so fall back to the single data.pkl at depth 0 or 1.
absl::StatusOr<std::string> FindPrefix(const archive::ZipArchive& zip) {
  const std::vector<archive::ZipEntry>& entries = zip.entries();
  if (!entries.empty()) {
    const std::string& first = entries.front().name;
    const size_t slash = first.find('/');
    if (slash != std::string::npos) {
      std::string prefix = first.substr(0, slash + 1);
      if (zip.Find(prefix + "data.pkl") != nullptr) return prefix;
    }
  }
  std::vector<std::string> found;
  for (const archive::ZipEntry& e : entries) {
    absl::string_view name = e.name;
    if (!absl::ConsumeSuffix(&name, "data.pkl")) continue;
    if (name.empty() ||
        (name.back() == '/' && name.find('/') == name.size() - 1)) {
      found.emplace_back(name);
    }
  }
  if (found.size() == 1) return found.front();
  if (found.empty()) {
    return absl::InvalidArgumentError(
        "not a torch.save file: the zip has no data.pkl record");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "ambiguous torch.save file: data.pkl under both '", found[0],
      "' and '", found[1], "'"));
}

absl::Status CheckByteOrder(const archive::ZipArchive& zip,
                            const std::string& prefix) {
  const archive::ZipEntry* entry = zip.Find(prefix + "byteorder");
  if (entry == nullptr) return absl::OkStatus();  // older torch: little
  PT2ONNX_ASSIGN_OR_RETURN(ByteSpan value, zip.Read(*entry));
  const absl::string_view order = AsStringView(value);
  if (order == "little") return absl::OkStatus();
  if (order == "big") {
    return absl::UnimplementedError(
        "torch.save file was written on a big-endian machine (byteorder "
        "'big'); re-save it on a little-endian one");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "torch.save record '", entry->name, "' is '", order,
      "', expected 'little' or 'big'"));
}

}  // namespace

absl::StatusOr<TorchSaveFile> TorchSaveFile::Open(ByteSpan bytes) {
  return Open(std::make_shared<MemoryFile>(bytes), FileRange{0, bytes.size()});
}

absl::StatusOr<TorchSaveFile> TorchSaveFile::Open(std::shared_ptr<const InputFile> input,
                                                  FileRange range) {
  PT2ONNX_ASSIGN_OR_RETURN(archive::ZipArchive zip,
                           archive::ZipArchive::Open(std::move(input), range));
  TorchSaveFile file(std::move(zip));
  PT2ONNX_ASSIGN_OR_RETURN(file.prefix_, FindPrefix(file.zip_));
  PT2ONNX_RETURN_IF_ERROR(CheckByteOrder(file.zip_, file.prefix_));
  const std::string pkl = file.prefix_ + "data.pkl";
  PT2ONNX_ASSIGN_OR_RETURN(ByteSpan data, file.zip_.Read(pkl));
  absl::StatusOr<PickleDocument> doc = ReadPickle(data);
  if (!doc.ok()) return AnnotateStatus(doc.status(), pkl);
  file.pickle_ = *std::move(doc);
  return file;
}

absl::StatusOr<StoredTensor> TorchSaveFile::Resolve(
    const PickleTensor& tensor, absl::string_view what) const {
  const PickleStorage& storage = tensor.storage;
  const std::string record = absl::StrCat(prefix_, "data/", storage.key);
  const archive::ZipEntry* entry = zip_.Find(record);
  if (entry == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "tensor '", what, "': storage record '", record, "' is missing"));
  }
  absl::StatusOr<FileRange> bytes = zip_.Locate(*entry);
  if (!bytes.ok()) {
    return AnnotateStatus(bytes.status(), absl::StrCat("tensor '", what, "'"));
  }
  // Typed storages count elements of their dtype, UntypedStorage bytes.
  const int64_t unit = storage.untyped ? 1 : ElementSize(storage.dtype);
  const int64_t elem = ElementSize(tensor.dtype);
  if (unit <= 0 || elem <= 0) {
    return absl::UnimplementedError(
        absl::StrCat("tensor '", what, "': dtype ",
                     DataTypeName(tensor.dtype), " has no fixed element size"));
  }
  if (storage.numel > std::numeric_limits<int64_t>::max() / unit ||
      static_cast<uint64_t>(storage.numel * unit) > bytes->length) {
    return absl::OutOfRangeError(absl::StrCat(
        "tensor '", what, "': storage '", record, "' has ", bytes->length,
        " bytes but the pickle declares ", storage.numel, " x ", unit,
        " bytes"));
  }
  StoredTensor out;
  out.dtype = tensor.dtype;
  out.sizes = tensor.sizes;
  out.strides = tensor.strides;
  out.storage_offset = tensor.storage_offset;
  out.storage = FileSlice{zip_.file(), FileRange{bytes->offset, static_cast<uint64_t>(storage.numel * unit)}};
  out.storage_key = storage.key;
  out.is_param = tensor.is_param;
  out.requires_grad = tensor.requires_grad;
  const int64_t numel = static_cast<int64_t>(out.storage.size()) / elem;
  PT2ONNX_RETURN_IF_ERROR_WITH_CONTEXT(
      CheckView(out.sizes, out.strides, out.storage_offset, numel),
      absl::StrCat("tensor '", what, "' (storage '", record, "')"));
  return out;
}

absl::StatusOr<TorchSaveDict> ReadTorchSaveDict(ByteSpan bytes) {
  return ReadTorchSaveDict(std::make_shared<MemoryFile>(bytes), FileRange{0, bytes.size()});
}

absl::StatusOr<TorchSaveDict> ReadTorchSaveDict(std::shared_ptr<const InputFile> input,
                                                FileRange range) {
  PT2ONNX_ASSIGN_OR_RETURN(TorchSaveFile file, TorchSaveFile::Open(std::move(input), range));
  const PickleDocument& doc = file.pickle();
  const PickleValue& top = doc.at(doc.root());
  if (top.kind != PickleKind::kDict) {
    return absl::InvalidArgumentError(absl::StrCat(
        "torch.save file holds a ", PickleKindName(top.kind),
        ", expected a dict of tensors"));
  }
  TorchSaveDict out;
  for (size_t i = 0; i + 1 < top.items.size(); i += 2) {
    const PickleValue& key = doc.at(top.items[i]);
    const PickleValue& value = doc.at(top.items[i + 1]);
    if (key.kind != PickleKind::kString) {
      return absl::InvalidArgumentError(absl::StrCat(
          "torch.save dict has a ", PickleKindName(key.kind),
          " key (", doc.DebugString(top.items[i], 2),
          "); state dicts are keyed by name"));
    }
    if (value.kind != PickleKind::kTensor) {
      out.skipped.push_back(key.text);
      continue;
    }
    PT2ONNX_ASSIGN_OR_RETURN(StoredTensor t,
                             file.Resolve(*value.tensor, key.text));
    out.tensors[key.text] = std::move(t);  // a repeated key: the last wins
  }
  return out;
}

absl::StatusOr<StoredTensor> ReadTorchSaveTensor(ByteSpan bytes) {
  PT2ONNX_ASSIGN_OR_RETURN(TorchSaveFile file, TorchSaveFile::Open(bytes));
  const PickleValue& top = file.pickle().at(file.pickle().root());
  if (top.kind != PickleKind::kTensor) {
    return absl::InvalidArgumentError(
        absl::StrCat("torch.save file holds a ", PickleKindName(top.kind),
                     ", expected a tensor"));
  }
  return file.Resolve(*top.tensor, "<top-level tensor>");
}

}  // namespace pt2onnx::pt2
