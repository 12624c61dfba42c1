// File: core/ir/half.h
// -----------------------------------------------------------------------------
// IEEE fp16 and bfloat16 <-> float conversions (round to nearest even), for
// constants the translator creates in a weight's own dtype.
#ifndef PT2ONNX_CORE_IR_HALF_H_
#define PT2ONNX_CORE_IR_HALF_H_

#include <cstdint>

namespace pt2onnx::ir {

uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t bits);
uint16_t FloatToBFloat16(float value);
float BFloat16ToFloat(uint16_t bits);

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_HALF_H_
