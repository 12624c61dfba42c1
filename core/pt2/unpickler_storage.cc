// The persistent ids of the Unpickler (unpickler.h): torch.save names each
// tensor storage by a ('storage', class, key, location, numel) tuple, which
// becomes a PickleStorage record; the bytes are read later by key.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/dtype.h"
#include "core/pt2/unpickler.h"
#include "core/status_macros.h"

namespace pt2onnx::pt2::internal {

absl::Status Unpickler::OnPersistentId() {
  PT2ONNX_ASSIGN_OR_RETURN(PickleId pid, Pop());
  const PickleValue& t = V(pid);
  if (t.kind != PickleKind::kTuple || t.items.size() != 5 ||
      V(t.items[0]).kind != PickleKind::kString ||
      V(t.items[0]).text != "storage") {
    return Error(
        "persistent id is not a ('storage', class, key, location, numel) "
        "tuple");
  }
  const std::vector<PickleId> items = t.items;
  const PickleValue& cls = V(items[1]);
  if (cls.kind != PickleKind::kGlobal) {
    return Error("persistent id storage class is not a global");
  }
  PickleStorage storage;
  if (cls.text == "torch.UntypedStorage") {
    storage.dtype = DataType::kUint8;
    storage.untyped = true;
  } else {
    absl::string_view name = cls.text;
    if (!absl::ConsumePrefix(&name, "torch.")) {
      return Error(absl::StrCat("'", cls.text, "' is not a storage class"));
    }
    absl::StatusOr<DataType> dtype = FromTorchStorageName(name);
    if (!dtype.ok()) return Error(dtype.status().message());
    storage.dtype = *dtype;
  }
  PT2ONNX_RETURN_IF_ERROR(Expect(items[2], PickleKind::kString, "storage key"));
  PT2ONNX_RETURN_IF_ERROR(
      Expect(items[3], PickleKind::kString, "storage location"));
  storage.key = V(items[2]).text;
  storage.location = V(items[3]).text;
  PT2ONNX_ASSIGN_OR_RETURN(storage.numel, Int(items[4], "storage numel"));
  if (storage.numel < 0) return Error("negative storage numel");
  PickleValue v;
  v.kind = PickleKind::kStorage;
  v.storage = std::make_shared<const PickleStorage>(std::move(storage));
  return Push(std::move(v)).status();
}

}  // namespace pt2onnx::pt2::internal
