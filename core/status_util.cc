#include "core/status_util.h"

#include "absl/strings/str_cat.h"

namespace pt2onnx {

absl::Status AnnotateStatus(const absl::Status& status,
                            absl::string_view context) {
  if (status.ok()) return status;
  return absl::Status(status.code(),
                      absl::StrCat(context, ": ", status.message()));
}

}  // namespace pt2onnx
