// File: ops/sampling.cc
#include "ops/families.h"
#include "ops/registry.h"

namespace pt2onnx::ops {

void RegisterSamplingOps(OpRegistry& r) { (void)r; }

}  // namespace pt2onnx::ops
