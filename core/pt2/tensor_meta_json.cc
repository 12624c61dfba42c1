// File: core/pt2/tensor_meta_json.cc
// -----------------------------------------------------------------------------
// Decoders for TensorMeta and Device (see argument_json.h): dtype, sizes
// (checked: no negative size, no element count past int64), strides,
// storage offset, device and layout (only strided tensors are supported).
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/pt2/argument_json.h"
#include "core/status_macros.h"

namespace pt2onnx::pt2::internal {
namespace {

constexpr int64_t kStridedLayout = 7;  // serialized Layout.Strided

absl::string_view LayoutName(int64_t code) {
  static constexpr absl::string_view kNames[] = {
      "Unknown", "SparseCoo", "SparseCsr", "SparseCsc",
      "SparseBsr", "SparseBsc", "_mkldnn"};
  if (code >= 0 && code < 7) return kNames[code];
  return "unknown";
}

}  // namespace

absl::StatusOr<Device> ReadDevice(const Value& v, const Path& path) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  Device d;
  PT2ONNX_ASSIGN_OR_RETURN(const Value* type, Required(v, "type", path));
  PT2ONNX_ASSIGN_OR_RETURN(d.type, ReadString(*type, path.Field("type")));
  if (const Value* index = Member(v, "index")) {
    PT2ONNX_ASSIGN_OR_RETURN(d.index, ReadInt(*index, path.Field("index")));
  }
  return d;
}

absl::StatusOr<TensorMeta> ReadTensorMeta(const Value& v, const Path& path) {
  PT2ONNX_RETURN_IF_ERROR(ExpectObject(v, path));
  TensorMeta m;
  {
    const Path p = path.Field("dtype");
    PT2ONNX_ASSIGN_OR_RETURN(const Value* dtype, Required(v, "dtype", path));
    PT2ONNX_ASSIGN_OR_RETURN(int64_t code, ReadInt(*dtype, p));
    absl::StatusOr<DataType> dt = FromTorchScalarType(code);
    if (!dt.ok()) return AtPath(p, dt.status());
    m.dtype = *dt;
  }
  PT2ONNX_ASSIGN_OR_RETURN(const Value* sizes, Required(v, "sizes", path));
  PT2ONNX_RETURN_IF_ERROR(
      ReadList(*sizes, path.Field("sizes"), &m.sizes, ReadSymInt));
  // Translations multiply and index with these: negative sizes or a static
  // element count beyond int64 are refused here, once.
  int64_t numel = 1;
  for (const SymInt& s : m.sizes) {
    if (s.is_symbolic) continue;
    std::optional<int64_t> product = CheckedMul(numel, s.value);
    if (s.value < 0 || !product.has_value()) {
      return AtPath(path.Field("sizes"),
                    absl::InvalidArgumentError(absl::StrCat(
                        "size ", s.value, s.value < 0 ? " is negative"
                                                      : " makes the element count overflow int64")));
    }
    numel = *product;
  }
  if (const Value* strides = Member(v, "strides")) {
    PT2ONNX_RETURN_IF_ERROR(
        ReadList(*strides, path.Field("strides"), &m.strides, ReadSymInt));
  }
  if (const Value* offset = Member(v, "storage_offset")) {
    PT2ONNX_ASSIGN_OR_RETURN(m.storage_offset,
                             ReadSymInt(*offset, path.Field("storage_offset")));
  }
  if (const Value* rg = Member(v, "requires_grad")) {
    PT2ONNX_ASSIGN_OR_RETURN(m.requires_grad,
                             ReadBool(*rg, path.Field("requires_grad")));
  }
  if (const Value* device = Member(v, "device")) {
    PT2ONNX_ASSIGN_OR_RETURN(m.device,
                             ReadDevice(*device, path.Field("device")));
  }
  if (const Value* layout = Member(v, "layout")) {
    const Path p = path.Field("layout");
    PT2ONNX_ASSIGN_OR_RETURN(int64_t code, ReadInt(*layout, p));
    if (code != kStridedLayout) {
      return AtPath(p, absl::UnimplementedError(absl::StrCat(
                           "layout ", LayoutName(code), " (", code,
                           "): sparse/mkldnn tensors are not supported; "
                           "convert to a dense tensor before export")));
    }
  }
  return m;
}

}  // namespace pt2onnx::pt2::internal
