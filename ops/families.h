// File: ops/families.h
// -----------------------------------------------------------------------------
// One registration function per op family; each lives at the end of its
// family's file and lists that family's overloads, one line each. Only
// CreateDefaultRegistry (all_ops.cc) calls them.
#ifndef PT2ONNX_OPS_FAMILIES_H_
#define PT2ONNX_OPS_FAMILIES_H_

#include "ops/registry.h"

namespace pt2onnx::ops {

void RegisterActivationOps(OpRegistry& r);      // activation.cc
void RegisterAttentionOps(OpRegistry& r);       // attention.cc
void RegisterConversionOps(OpRegistry& r);      // conversion.cc
void RegisterConvOps(OpRegistry& r);            // conv.cc
void RegisterCreationOps(OpRegistry& r);        // creation.cc
void RegisterElementwiseOps(OpRegistry& r);     // elementwise.cc
void RegisterIndexingOps(OpRegistry& r);        // indexing.cc
void RegisterLinearAlgebraOps(OpRegistry& r);   // linear_algebra.cc
void RegisterNormalizationOps(OpRegistry& r);   // normalization.cc
void RegisterPoolingOps(OpRegistry& r);         // pooling.cc
void RegisterReductionOps(OpRegistry& r);       // reduction.cc
void RegisterResampleOps(OpRegistry& r);        // resample.cc (upsample, pad)
void RegisterShapeOps(OpRegistry& r);           // shape.cc
void RegisterSlicingOps(OpRegistry& r);         // slicing.cc
void RegisterSymbolicOps(OpRegistry& r);        // symbolic.cc (SymInt math, asserts)

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_FAMILIES_H_
