// File: translate/loop_builder.h
// -----------------------------------------------------------------------------
// An elementwise while-loop as one ONNX Loop: a translation says how one trip
// turns the carried tensors into their next values and which elements still
// have work left; the Loop stops after `max_trips` or once no element does
// (an empty tensor stops at once). Values of the enclosing graph are read
// from inside the body directly.
//
//   std::vector<std::string> out = LoopWhilePending(
//       ctx, "gcd", 100, {a, b}, {DataType::kInt64, DataType::kInt64}, std::nullopt,
//       [&](const std::string& trip, const std::vector<std::string>& v) {
//         ... return LoopTrip{{next_a, next_b}, pending};
//       });
#ifndef PT2ONNX_TRANSLATE_LOOP_BUILDER_H_
#define PT2ONNX_TRANSLATE_LOOP_BUILDER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "translate/translate_context.h"

namespace pt2onnx::translate {

// One trip: the carried values' next state and, elementwise (bool), whether
// the element has work left.
struct LoopTrip {
  std::vector<std::string> values;
  std::string pending;
};

// `trip`: the trip count (int64 scalar, 0, 1, ...); `carried`: this trip's
// values. Nodes it emits become the body's.
using LoopTripFn = std::function<LoopTrip(const std::string& trip, const std::vector<std::string>& carried)>;

// Runs `step` from `init` (of `dtypes`, shaped `dims` when known) and returns
// the final carried values. The body is named `name` + "_" + its condition.
std::vector<std::string> LoopWhilePending(TranslateContext& ctx, absl::string_view name, int64_t max_trips,
                                          const std::vector<std::string>& init,
                                          const std::vector<DataType>& dtypes,
                                          const std::optional<std::vector<ir::Dim>>& dims, const LoopTripFn& step);

// The dims of the node's output 0 from the FX metadata (symbolic ones
// unknown), for `dims` above: shape inference then sees through the Loop.
std::optional<std::vector<ir::Dim>> LoopResultDims(const TranslateContext& ctx);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_LOOP_BUILDER_H_
