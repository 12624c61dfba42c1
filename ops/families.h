// File: ops/families.h
// -----------------------------------------------------------------------------
// One registration function per op family; each lives at the end of its
// family's file and lists that family's overloads, one line each. Only
// CreateDefaultRegistry (all_ops.cc) calls them.
#ifndef PT2ONNX_OPS_FAMILIES_H_
#define PT2ONNX_OPS_FAMILIES_H_

#include "translate/registry.h"

namespace pt2onnx::ops {

void RegisterActivationOps(OpRegistry& r);      // activation.cc
void RegisterAdaptivePoolingOps(OpRegistry& r);  // adaptive_pooling.cc
void RegisterAttentionOps(OpRegistry& r);       // attention.cc
void RegisterBackwardOps(OpRegistry& r);        // backward.cc
void RegisterBatchNormOps(OpRegistry& r);       // batch_norm.cc (batch norm, instance norm)
void RegisterBucketingOps(OpRegistry& r);       // bucketing.cc
void RegisterControlFlowOps(OpRegistry& r);     // control_flow.cc (cond, while_loop, scan, map)
void RegisterConvOps(OpRegistry& r);            // conv.cc
void RegisterConvNormBackwardOps(OpRegistry& r);  // conv_norm_backward.cc
void RegisterConversionOps(OpRegistry& r);      // conversion.cc
void RegisterCreationOps(OpRegistry& r);        // creation.cc
void RegisterCumulativeOps(OpRegistry& r);      // cumulative.cc
void RegisterConcatOps(OpRegistry& r);          // concat.cc (cat, stack)
void RegisterDataDependentOps(OpRegistry& r);   // data_dependent.cc
void RegisterDistanceOps(OpRegistry& r);        // distance.cc
void RegisterDropoutOps(OpRegistry& r);         // dropout.cc
void RegisterArithmeticOps(OpRegistry& r);      // arithmetic.cc
void RegisterComparisonOps(OpRegistry& r);      // comparison.cc
void RegisterLogicalOps(OpRegistry& r);         // logical.cc
void RegisterUnaryMathOps(OpRegistry& r);       // unary_math.cc
void RegisterEmbeddingBagOps(OpRegistry& r);    // embedding_bag.cc
void RegisterEinsumOps(OpRegistry& r);          // einsum.cc (einsum, tensordot, inner, bilinear)
void RegisterEncodingOps(OpRegistry& r);        // encoding.cc
void RegisterFftOps(OpRegistry& r);             // fft.cc
void RegisterIndexingOps(OpRegistry& r);        // indexing.cc
void RegisterDetCrossNormOps(OpRegistry& r);    // det_cross_norm.cc
void RegisterLinearAlgebraOps(OpRegistry& r);   // linear_algebra.cc
void RegisterNormalizationOps(OpRegistry& r);   // normalization.cc
void RegisterOnnxOps(OpRegistry& r);           // onnx_ops.cc (torch.onnx.ops)
void RegisterPaddingOps(OpRegistry& r);         // padding.cc (constant_pad_nd, pad, reflection/replication)
void RegisterPermuteOps(OpRegistry& r);         // permute.cc (permute, transpose, movedim)
void RegisterPoolingOps(OpRegistry& r);         // pooling.cc
void RegisterRandomOps(OpRegistry& r);          // random.cc
void RegisterRearrangeOps(OpRegistry& r);       // rearrange.cc (pixel_shuffle, diagonal, unfold)
void RegisterReductionOps(OpRegistry& r);       // reduction.cc
void RegisterResampleOps(OpRegistry& r);        // resample.cc (upsample)
void RegisterSamplingOps(OpRegistry& r);        // sampling.cc
void RegisterScatterOps(OpRegistry& r);         // scatter.cc (scatter, index_add/copy/fill, *_scatter)
void RegisterShapeOps(OpRegistry& r);           // shape.cc
void RegisterSplitMeshgridOps(OpRegistry& r);   // split_meshgrid.cc
void RegisterSlicingOps(OpRegistry& r);         // slicing.cc
void RegisterSortingOps(OpRegistry& r);         // sorting.cc
void RegisterSpecialMathOps(OpRegistry& r);     // special_math.cc
void RegisterSymbolicOps(OpRegistry& r);        // symbolic.cc (SymInt math, asserts)
void RegisterUniqueOps(OpRegistry& r);          // unique.cc
void RegisterVarianceOps(OpRegistry& r);        // variance.cc (var, std, var_mean, std_mean)
void RegisterWeightNormOps(OpRegistry& r);      // weight_norm.cc

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_FAMILIES_H_
