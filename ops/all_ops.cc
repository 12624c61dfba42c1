// The only central list of translations: one line per op family.
#include "ops/families.h"
#include "translate/registry.h"

namespace pt2onnx::ops {

OpRegistry CreateDefaultRegistry() {
  OpRegistry r;
  RegisterActivationOps(r);
  RegisterAdaptivePoolingOps(r);
  RegisterAttentionOps(r);
  RegisterBackwardOps(r);
  RegisterBatchNormOps(r);
  RegisterBucketingOps(r);
  RegisterControlFlowOps(r);
  RegisterConvOps(r);
  RegisterConvNormBackwardOps(r);
  RegisterConversionOps(r);
  RegisterCreationOps(r);
  RegisterCumulativeOps(r);
  RegisterConcatOps(r);
  RegisterDataDependentOps(r);
  RegisterDistanceOps(r);
  RegisterDropoutOps(r);
  RegisterArithmeticOps(r);
  RegisterComparisonOps(r);
  RegisterLogicalOps(r);
  RegisterUnaryMathOps(r);
  RegisterEmbeddingBagOps(r);
  RegisterEinsumOps(r);
  RegisterEncodingOps(r);
  RegisterFftOps(r);
  RegisterIndexingOps(r);
  RegisterDetCrossNormOps(r);
  RegisterLinearAlgebraOps(r);
  RegisterNormalizationOps(r);
  RegisterOnnxOps(r);
  RegisterPaddingOps(r);
  RegisterPermuteOps(r);
  RegisterPoolingOps(r);
  RegisterRandomOps(r);
  RegisterRearrangeOps(r);
  RegisterReductionOps(r);
  RegisterResampleOps(r);
  RegisterSamplingOps(r);
  RegisterScatterOps(r);
  RegisterShapeOps(r);
  RegisterSplitMeshgridOps(r);
  RegisterSlicingOps(r);
  RegisterSortingOps(r);
  RegisterSpecialMathOps(r);
  RegisterSymbolicOps(r);
  RegisterUniqueOps(r);
  RegisterVarianceOps(r);
  RegisterWeightNormOps(r);
  return r;
}

}  // namespace pt2onnx::ops
