// File: core/status_util.h
// -----------------------------------------------------------------------------
// Adding context to a Status as it propagates. abseil 20220623 has no
// StatusBuilder; AnnotateStatus keeps the code and prefixes the message, so
// the innermost cause stays visible at the end:
//   "reading 'model/models/model.json': node 'addmm_3': ... "
#ifndef PT2ONNX_CORE_STATUS_UTIL_H_
#define PT2ONNX_CORE_STATUS_UTIL_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pt2onnx {

// AnnotateStatus returns `status` with "<context>: " prepended to its message.
// An OK status is returned unchanged.
absl::Status AnnotateStatus(const absl::Status& status,
                            absl::string_view context);

}  // namespace pt2onnx

#define PT2ONNX_RETURN_IF_ERROR_WITH_CONTEXT(expr, context)        \
  do {                                                             \
    ::absl::Status pt2onnx_status_ = (expr);                       \
    if (!pt2onnx_status_.ok())                                     \
      return ::pt2onnx::AnnotateStatus(pt2onnx_status_, (context)); \
  } while (0)

#endif  // PT2ONNX_CORE_STATUS_UTIL_H_
