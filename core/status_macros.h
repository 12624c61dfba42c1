// File: core/status_macros.h
// -----------------------------------------------------------------------------
// Propagation macros for absl::Status / absl::StatusOr, shaped like abseil's
// later ABSL_RETURN_IF_ERROR / ABSL_ASSIGN_OR_RETURN (not in our 20220623 pin),
// so moving to them is mechanical.
//
//   PT2ONNX_RETURN_IF_ERROR(Validate(x));
//   PT2ONNX_ASSIGN_OR_RETURN(ZipArchive zip, ZipArchive::Open(bytes));
#ifndef PT2ONNX_CORE_STATUS_MACROS_H_
#define PT2ONNX_CORE_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define PT2ONNX_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    ::absl::Status pt2onnx_status_ = (expr);           \
    if (!pt2onnx_status_.ok()) return pt2onnx_status_; \
  } while (0)

#define PT2ONNX_STATUS_CONCAT_INNER_(a, b) a##b
#define PT2ONNX_STATUS_CONCAT_(a, b) PT2ONNX_STATUS_CONCAT_INNER_(a, b)

#define PT2ONNX_ASSIGN_OR_RETURN(lhs, expr) \
  PT2ONNX_ASSIGN_OR_RETURN_IMPL_(           \
      PT2ONNX_STATUS_CONCAT_(pt2onnx_statusor_, __LINE__), lhs, expr)

#define PT2ONNX_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                   \
  if (!statusor.ok()) return std::move(statusor).status();  \
  lhs = std::move(statusor).value()

#endif  // PT2ONNX_CORE_STATUS_MACROS_H_
