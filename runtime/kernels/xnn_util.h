// File: runtime/kernels/xnn_util.h
// -----------------------------------------------------------------------------
// What the XNNPACK kernel files (kernels/xnn_*.cc) share: an operator owned
// by a unique_ptr, and a failed XNNPACK call as a Status naming the call.
#ifndef PT2ONNX_RUNTIME_KERNELS_XNN_UTIL_H_
#define PT2ONNX_RUNTIME_KERNELS_XNN_UTIL_H_

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xnnpack.h"

namespace pt2onnx::runtime {

struct XnnOperatorDeleter {
  void operator()(xnn_operator* op) const { xnn_delete_operator(op); }
};
using XnnOperator = std::unique_ptr<xnn_operator, XnnOperatorDeleter>;

inline absl::Status XnnError(xnn_status status, const char* what) {
  return absl::InternalError(absl::StrCat("XNNPACK ", what, " failed (status ", static_cast<int>(status), ")"));
}

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_XNN_UTIL_H_
