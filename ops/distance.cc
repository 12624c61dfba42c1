// File: ops/distance.cc
#include "ops/families.h"
#include "ops/registry.h"

namespace pt2onnx::ops {

void RegisterDistanceOps(OpRegistry& r) { (void)r; }

}  // namespace pt2onnx::ops
