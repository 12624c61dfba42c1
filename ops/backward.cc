// File: ops/backward.cc
#include "ops/families.h"
#include "ops/registry.h"

namespace pt2onnx::ops {

void RegisterBackwardOps(OpRegistry& r) { (void)r; }

}  // namespace pt2onnx::ops
