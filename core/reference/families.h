// File: core/reference/families.h
// -----------------------------------------------------------------------------
// One registration function per reference op family (one .cc file each,
// mirroring ops/). A new family: add its file, declare it here, call it in
// all_families.cc.
#ifndef PT2ONNX_CORE_REFERENCE_FAMILIES_H_
#define PT2ONNX_CORE_REFERENCE_FAMILIES_H_

#include "core/reference/registry.h"

namespace pt2onnx::reference {

void RegisterArithmeticRef(RefRegistry& registry);   // arithmetic.cc
void RegisterUnaryRef(RefRegistry& registry);        // unary.cc
void RegisterActivationRef(RefRegistry& registry);   // activation.cc
void RegisterComparisonRef(RefRegistry& registry);   // comparison.cc
void RegisterViewsRef(RefRegistry& registry);        // views.cc
void RegisterJoiningRef(RefRegistry& registry);      // joining.cc
void RegisterLinearRef(RefRegistry& registry);       // linear.cc
void RegisterSymbolicRef(RefRegistry& registry);     // symbolic.cc
void RegisterConversionRef(RefRegistry& registry);   // conversion.cc
void RegisterConvRef(RefRegistry& registry);         // conv.cc
void RegisterNormalizationRef(RefRegistry& registry);  // normalization.cc
void RegisterPoolingRef(RefRegistry& registry);      // pooling.cc
void RegisterReductionRef(RefRegistry& registry);    // reduction.cc
void RegisterCreationRef(RefRegistry& registry);     // creation.cc
void RegisterAttentionRef(RefRegistry& registry);    // attention.cc
void RegisterDropoutRef(RefRegistry& registry);      // dropout.cc
void RegisterIndexingRef(RefRegistry& registry);     // indexing.cc
void RegisterCumulativeRef(RefRegistry& registry);   // cumulative.cc
void RegisterPaddingRef(RefRegistry& registry);      // padding.cc
void RegisterResampleRef(RefRegistry& registry);     // resample.cc
void RegisterSpecialRef(RefRegistry& registry);      // special.cc
void RegisterViewMovesRef(RefRegistry& registry);    // view_moves.cc
void RegisterProductsRef(RefRegistry& registry);     // products.cc
void RegisterEinsumRef(RefRegistry& registry);       // einsum.cc
void RegisterGridSampleRef(RefRegistry& registry);   // grid_sample.cc
void RegisterSortingRef(RefRegistry& registry);      // sorting.cc
void RegisterScatterRef(RefRegistry& registry);      // scatter.cc
void RegisterBucketingRef(RefRegistry& registry);    // bucketing.cc
void RegisterLinalgRef(RefRegistry& registry);       // linalg.cc
void RegisterUniqueRef(RefRegistry& registry);       // unique.cc
void RegisterControlFlowRef(RefRegistry& registry);  // control_flow.cc

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_CORE_REFERENCE_FAMILIES_H_
