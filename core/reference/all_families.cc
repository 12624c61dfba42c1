#include "core/reference/families.h"

namespace pt2onnx::reference {

RefRegistry CreateReferenceRegistry() {
  RefRegistry registry;
  RegisterArithmeticRef(registry);
  RegisterUnaryRef(registry);
  RegisterActivationRef(registry);
  RegisterComparisonRef(registry);
  RegisterViewsRef(registry);
  RegisterJoiningRef(registry);
  RegisterLinearRef(registry);
  RegisterSymbolicRef(registry);
  RegisterConversionRef(registry);
  RegisterConvRef(registry);
  RegisterNormalizationRef(registry);
  RegisterPoolingRef(registry);
  RegisterReductionRef(registry);
  RegisterCreationRef(registry);
  RegisterAttentionRef(registry);
  RegisterDropoutRef(registry);
  RegisterIndexingRef(registry);
  RegisterCumulativeRef(registry);
  RegisterPaddingRef(registry);
  RegisterResampleRef(registry);
  RegisterSpecialRef(registry);
  RegisterViewMovesRef(registry);
  RegisterProductsRef(registry);
  RegisterEinsumRef(registry);
  RegisterGridSampleRef(registry);
  RegisterSortingRef(registry);
  RegisterScatterRef(registry);
  RegisterBucketingRef(registry);
  RegisterLinalgRef(registry);
  RegisterUniqueRef(registry);
  RegisterControlFlowRef(registry);
  return registry;
}

}  // namespace pt2onnx::reference
