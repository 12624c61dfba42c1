// File: core/loop_limits.h
// -----------------------------------------------------------------------------
// Bounds shared by the two execution engines (runtime/, reference/), so each
// stops a loop from a stranger's file at the same count.
#ifndef PT2ONNX_CORE_LOOP_LIMITS_H_
#define PT2ONNX_CORE_LOOP_LIMITS_H_

#include <cstdint>

namespace pt2onnx {

// Most iterations a Loop runs and most rows a Scan steps over (2^20): a loop
// that only its data stops, or a scan over rows of zero elements, must end.
// The reference interpreter bounds torch's while_loop, scan and map the same way.
inline constexpr int64_t kMaxLoopIterations = int64_t{1} << 20;

}  // namespace pt2onnx

#endif  // PT2ONNX_CORE_LOOP_LIMITS_H_
