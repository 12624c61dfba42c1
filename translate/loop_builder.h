// File: translate/loop_builder.h
// -----------------------------------------------------------------------------
// An elementwise while-loop as one ONNX Loop: a translation says how one trip
// turns the carried tensors into their next values and, optionally, which
// elements still have work left; the Loop stops after `trips` trips or once
// no element does (an empty tensor stops at once). Values of the enclosing
// graph are read from inside the body directly. ONNX's Loop inference keeps
// only the rank of carried values (their shape may change between trips), so
// results whose dims are all static are restated with a Reshape.
//
//   std::vector<std::string> out = LoopWhilePending(
//       ctx, "gcd", ctx.ConstantInt64(100), {a, b}, {{DataType::kInt64, dims}, {DataType::kInt64, dims}},
//       [&](const std::string& trip, const std::vector<std::string>& v) {
//         ... return LoopTrip{{next_a, next_b}, pending};
//       });
#ifndef PT2ONNX_TRANSLATE_LOOP_BUILDER_H_
#define PT2ONNX_TRANSLATE_LOOP_BUILDER_H_

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
// the element has work left; an empty `pending` runs every trip.
struct LoopTrip {
  std::vector<std::string> values;
  std::string pending;
};

// `trip`: the trip count (int64 scalar, 0, 1, ...); `carried`: this trip's
// values. Nodes it emits become the body's.
using LoopTripFn = std::function<LoopTrip(const std::string& trip, const std::vector<std::string>& carried)>;

// A carried value's type: dtype and dims (nullopt: rank unknown).
struct LoopValueType {
  DataType dtype = DataType::kUndefined;
  std::optional<std::vector<ir::Dim>> dims;
};

// Runs `step` from `init` for at most `trips` (an int64 scalar value) and
// returns the final carried values. The body is named `name` + "_" + its
// condition output.
std::vector<std::string> LoopWhilePending(TranslateContext& ctx, absl::string_view name, const std::string& trips,
                                          const std::vector<std::string>& init,
                                          const std::vector<LoopValueType>& types, const LoopTripFn& step);

// The dims of the node's output 0 from the FX metadata (symbolic ones
// unknown), for a carried value of the result's shape.
std::optional<std::vector<ir::Dim>> LoopResultDims(const TranslateContext& ctx);

}  // namespace pt2onnx::translate

#endif  // PT2ONNX_TRANSLATE_LOOP_BUILDER_H_
