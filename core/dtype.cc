#include "core/dtype.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pt2onnx {
namespace {

struct DtypeInfo {
  DataType dtype;
  int size;
  absl::string_view name;          // torch dtype attribute name
  absl::string_view storage_name;  // legacy typed-storage class, "" if none
  int torch_code;                  // serialized ScalarType, -1 if none
};

// One row per type; the source of truth for every mapping in this file.
constexpr DtypeInfo kDtypes[] = {
    {DataType::kFloat, 4, "float32", "FloatStorage", 7},
    {DataType::kUint8, 1, "uint8", "ByteStorage", 1},
    {DataType::kInt8, 1, "int8", "CharStorage", 2},
    {DataType::kUint16, 2, "uint16", "", 28},
    {DataType::kInt16, 2, "int16", "ShortStorage", 3},
    {DataType::kInt32, 4, "int32", "IntStorage", 4},
    {DataType::kInt64, 8, "int64", "LongStorage", 5},
    {DataType::kBool, 1, "bool", "BoolStorage", 12},
    {DataType::kFloat16, 2, "float16", "HalfStorage", 6},
    {DataType::kDouble, 8, "float64", "DoubleStorage", 8},
    {DataType::kUint32, 4, "uint32", "", 34},
    {DataType::kUint64, 8, "uint64", "", 35},
    {DataType::kComplex64, 8, "complex64", "ComplexFloatStorage", 10},
    {DataType::kComplex128, 16, "complex128", "ComplexDoubleStorage", 11},
    {DataType::kBFloat16, 2, "bfloat16", "BFloat16Storage", 13},
    {DataType::kFloat8E4M3FN, 1, "float8_e4m3fn", "", 29},
    {DataType::kFloat8E5M2, 1, "float8_e5m2", "", 30},
    {DataType::kFloat8E4M3FNUZ, 1, "float8_e4m3fnuz", "", 31},
    {DataType::kFloat8E5M2FNUZ, 1, "float8_e5m2fnuz", "", 32},
};

const DtypeInfo* Find(DataType dtype) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}

}  // namespace

int ElementSize(DataType dtype) {
  const DtypeInfo* info = Find(dtype);
  return info == nullptr ? 0 : info->size;
}

absl::string_view DataTypeName(DataType dtype) {
  if (dtype == DataType::kString) return "string";
  const DtypeInfo* info = Find(dtype);
  return info == nullptr ? "undefined" : info->name;
}

bool IsFloatingPoint(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat:
    case DataType::kFloat16:
    case DataType::kDouble:
    case DataType::kBFloat16:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return true;
    default:
      return false;
  }
}

bool IsInteger(DataType dtype) {
  switch (dtype) {
    case DataType::kUint8:
    case DataType::kInt8:
    case DataType::kUint16:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUint32:
    case DataType::kUint64:
      return true;
    default:
      return false;
  }
}

bool IsHalfFloat(DataType dtype) { return dtype == DataType::kFloat16 || dtype == DataType::kBFloat16; }

bool IsComplex(DataType dtype) {
  return dtype == DataType::kComplex64 || dtype == DataType::kComplex128;
}

absl::StatusOr<DataType> FromTorchScalarType(int64_t code) {
  // -1 marks rows with no serialized code; it must never match a file's -1.
  for (const DtypeInfo& info : kDtypes) {
    if (code >= 0 && info.torch_code == code) return info.dtype;
  }
  if (code == 9) {
    return absl::UnimplementedError(
        "tensor dtype complex32 (ScalarType 9) is not supported by ONNX");
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown serialized torch ScalarType code ", code,
      "; the file may come from a newer torch than this converter knows"));
}

absl::StatusOr<DataType> FromTorchStorageName(absl::string_view name) {
  for (const DtypeInfo& info : kDtypes) {
    if (!info.storage_name.empty() && info.storage_name == name) {
      return info.dtype;
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown torch storage class '", name, "'"));
}

absl::StatusOr<DataType> FromTorchDtypeName(absl::string_view name) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.name == name) return info.dtype;
  }
  // Aliases torch also accepts as attribute names.
  if (name == "float" || name == "float32") return DataType::kFloat;
  if (name == "half") return DataType::kFloat16;
  if (name == "double") return DataType::kDouble;
  if (name == "long") return DataType::kInt64;
  if (name == "int") return DataType::kInt32;
  if (name == "short") return DataType::kInt16;
  return absl::UnimplementedError(
      absl::StrCat("torch dtype '", name, "' is not supported"));
}

}  // namespace pt2onnx
