// File: core/dtype.h
// -----------------------------------------------------------------------------
// DataType: element types shared by the .pt2 reader, the IR and the ONNX
// writer. The numeric values are ONNX's TensorProto.DataType codes, so the
// writer needs no table; torch's serialized ScalarType codes (which are
// neither ONNX's nor c10's, see docs in FromTorchScalarType) map through
// FromTorchScalarType.
#ifndef PT2ONNX_CORE_DTYPE_H_
#define PT2ONNX_CORE_DTYPE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pt2onnx {

enum class DataType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
};

// Bytes per element; 0 for kUndefined and kString.
int ElementSize(DataType dtype);

// Short lowercase name as torch prints it ("float32", "bfloat16", "int64").
absl::string_view DataTypeName(DataType dtype);

bool IsFloatingPoint(DataType dtype);
bool IsInteger(DataType dtype);  // signed or unsigned, not bool
bool IsComplex(DataType dtype);
bool IsHalfFloat(DataType dtype);  // float16 or bfloat16

// Maps torch.export's serialized ScalarType (torch/_export/serde/schema.py:
// BYTE=1 ... FLOAT=7, BOOL=12, BFLOAT16=13, UINT16=28, FLOAT8* = 29..32,
// UINT32=34, UINT64=35).
// Unknown or unsupported codes give InvalidArgument naming the code.
absl::StatusOr<DataType> FromTorchScalarType(int64_t code);

// Maps a torch.save storage class name ("FloatStorage", "BFloat16Storage") or
// a torch dtype attribute name ("float32", "bfloat16", "float8_e4m3fn").
absl::StatusOr<DataType> FromTorchStorageName(absl::string_view name);
absl::StatusOr<DataType> FromTorchDtypeName(absl::string_view name);

}  // namespace pt2onnx

#endif  // PT2ONNX_CORE_DTYPE_H_
