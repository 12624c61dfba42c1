#include "verify/sample_inputs.h"

#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/archive/zip_reader.h"
#include "core/pt2/torch_save.h"
#include "core/pt2/weights.h"
#include "reference/ref_tensor.h"
#include "core/status_macros.h"

namespace pt2onnx::verify {
namespace {

using pt2::PickleId;
using pt2::PickleKind;

// Tensors of the pytree in flattening order (tuple/list items, dict values).
// Iterative with bounds: a hostile pickle may nest deeply or share children.
absl::StatusOr<std::vector<PickleId>> FlattenTensors(const pt2::PickleDocument& doc) {
  std::vector<PickleId> tensors;
  std::vector<std::pair<PickleId, int>> stack = {{doc.root(), 0}};
  size_t visited = 0;
  while (!stack.empty()) {
    auto [id, depth] = stack.back();
    stack.pop_back();
    if (++visited > 100000 || depth > 64) return absl::InvalidArgumentError("the sample inputs nest too deeply");
    const pt2::PickleValue& v = doc.at(id);
    if (v.kind == PickleKind::kTensor) {
      tensors.push_back(id);
      continue;
    }
    std::vector<PickleId> children;
    if (v.kind == PickleKind::kTuple || v.kind == PickleKind::kList) children = v.items;
    if (v.kind == PickleKind::kDict) {
      for (size_t i = 1; i < v.items.size(); i += 2) children.push_back(v.items[i]);
    }
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back({*it, depth + 1});
  }
  return tensors;
}

}  // namespace

absl::StatusOr<std::optional<ChosenInputs>> ArchiveSampleInputs(std::shared_ptr<const InputFile> file,
                                                                const pt2::LoadedProgram& loaded) {
  PT2ONNX_ASSIGN_OR_RETURN(archive::ZipArchive zip, archive::ZipArchive::Open(file));
  const std::string name = loaded.layout == pt2::Layout::kLegacyZip
                               ? std::string("serialized_example_inputs.pt")
                               : absl::StrCat(loaded.root, "data/sample_inputs/", loaded.model_name, ".pt");
  const archive::ZipEntry* entry = zip.Find(name);
  if (entry == nullptr) return std::optional<ChosenInputs>();
  PT2ONNX_ASSIGN_OR_RETURN(FileRange range, zip.Locate(*entry));
  PT2ONNX_ASSIGN_OR_RETURN(pt2::TorchSaveFile saved, pt2::TorchSaveFile::Open(file, range));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<PickleId> ids, FlattenTensors(saved.pickle()));
  std::vector<std::string> user;
  for (const pt2::InputSpec& spec : loaded.program.signature.input_specs) {
    if (spec.kind == pt2::InputSpec::Kind::kUserInput && spec.arg.kind == pt2::Argument::Kind::kTensor) {
      user.push_back(spec.arg.name);
    }
  }
  if (ids.size() != user.size()) {
    return absl::InvalidArgumentError(absl::StrCat(name, " holds ", ids.size(), " tensors for ", user.size(),
                                                   " tensor inputs"));
  }
  std::vector<NamedTensor> tensors;
  for (size_t i = 0; i < ids.size(); ++i) {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::StoredTensor stored, saved.Resolve(*saved.pickle().at(ids[i]).tensor, user[i]));
    pt2::Weight w = pt2::WeightFromStored(user[i], stored);
    PT2ONNX_ASSIGN_OR_RETURN(std::string bytes, w.Materialize());
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, reference::NewTensor(w.dtype, w.sizes));
    if (bytes.size() != t.byte_size()) return absl::InvalidArgumentError(absl::StrCat(name, ": tensor ", i, " is short"));
    if (!bytes.empty()) std::memcpy(t.raw(), bytes.data(), bytes.size());
    tensors.push_back({user[i], std::move(t)});
  }
  PT2ONNX_ASSIGN_OR_RETURN(ChosenInputs chosen,
                           GivenInputs(loaded.program, std::move(tensors), absl::StrCat("the archive's ", name)));
  return std::optional<ChosenInputs>(std::move(chosen));
}

}  // namespace pt2onnx::verify
