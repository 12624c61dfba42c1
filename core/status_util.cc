#include "core/status_util.h"

#include "absl/strings/str_cat.h"

namespace pt2onnx {

absl::Status AnnotateStatus(const absl::Status& status,
                            absl::string_view context) {
  if (status.ok()) return status;
  absl::Status annotated(status.code(), absl::StrCat(context, ": ", status.message()));
  // Keep structured details (e.g. the list of unsupported operators).
  status.ForEachPayload([&](absl::string_view type_url, const absl::Cord& payload) {
    annotated.SetPayload(type_url, payload);
  });
  return annotated;
}

}  // namespace pt2onnx
