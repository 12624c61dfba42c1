// The only central list of translations: one line per op family.
#include "ops/families.h"
#include "ops/registry.h"

namespace pt2onnx::ops {

OpRegistry CreateDefaultRegistry() {
  OpRegistry r;
  RegisterActivationOps(r);
  RegisterAttentionOps(r);
  RegisterConversionOps(r);
  RegisterConvOps(r);
  RegisterCreationOps(r);
  RegisterElementwiseOps(r);
  RegisterIndexingOps(r);
  RegisterLinearAlgebraOps(r);
  RegisterNormalizationOps(r);
  RegisterPoolingOps(r);
  RegisterReductionOps(r);
  RegisterResampleOps(r);
  RegisterShapeOps(r);
  RegisterSlicingOps(r);
  RegisterSymbolicOps(r);
  return r;
}

}  // namespace pt2onnx::ops
