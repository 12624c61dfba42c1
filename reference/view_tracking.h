// File: reference/view_tracking.h
// -----------------------------------------------------------------------------
// Aliasing in the reference interpreter: the interpreter keeps views as
// copies; these helpers record which base elements a view shows so that an
// in-place op on the view writes through to its base, as in torch.
#ifndef PT2ONNX_REFERENCE_VIEW_TRACKING_H_
#define PT2ONNX_REFERENCE_VIEW_TRACKING_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/aten/op_schema.h"
#include "core/pt2/schema.h"
#include "reference/ref_call.h"
#include "reference/registry.h"

namespace pt2onnx::reference {

// Copies every tensor result (*_copy overloads must not alias their input).
absl::Status DetachResults(std::vector<RefValue>& results);

// Overloads whose results alias their first input in torch (views).
bool IsViewOp(const std::string& key);

// aten::add_ and friends: the op name ends with '_'.
bool IsInPlaceOp(const std::string& key);

// Runs the view kernel again on the element indices of its input's base, so
// each result learns which base elements it shows.
absl::Status TrackView(const pt2::Node& node, const aten::OpSchema* schema, const pt2::Graph& graph,
                       RefKernel kernel, ValueMap& values, std::vector<RefValue>& results);

// After an in-place op on a view: its new elements go to the viewed base.
void WriteThrough(const pt2::Node& node, ValueMap& values, std::vector<RefValue>& results);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_VIEW_TRACKING_H_
