// The default translations: every op family of op_families.inc registered in
// one OpRegistry (translate/registry.h), ATen's aliases added after them.
//
//   translate::OpRegistry registry = ops::CreateDefaultRegistry();
#ifndef PT2ONNX_OPS_ALL_OPS_H_
#define PT2ONNX_OPS_ALL_OPS_H_

#include "translate/registry.h"

namespace pt2onnx::ops {

translate::OpRegistry CreateDefaultRegistry();

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_ALL_OPS_H_
