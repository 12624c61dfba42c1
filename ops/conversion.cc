// File: ops/conversion.cc
// -----------------------------------------------------------------------------
// Dtype conversions, copies and identity-like ops: to/_to_copy/type_as,
// clone/alias/detach/contiguous/lift_fresh_copy, and the functional copy and
// fill (with their in-place twins copy_/fill_), and item/_local_scalar_dense.
//
// A functional graph has no aliasing, so copies and views are the value
// itself; only dtype changes (Cast) and broadcasts to self's shape (Expand)
// emit nodes. Layout, device, memory-format and copy flags have no ONNX
// meaning and are ignored.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/complex_layout.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// The target dtype is the output's (ScalarType args, `other`'s dtype for
// type_as); layout, device, memory format and copy flags have no ONNX meaning.
absl::Status CastToOutput(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  if (IsComplex(dtype)) return BindRealAsComplex(ctx);  // ops/complex_layout.h
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  return ctx.SetOutput(0, x);
}

// aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor
absl::Status AtenToCopy(TranslateContext& ctx) { return CastToOutput(ctx); }
// aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
absl::Status AtenToDtype(TranslateContext& ctx) { return CastToOutput(ctx); }
// aten::to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
absl::Status AtenToDtypeLayout(TranslateContext& ctx) { return CastToOutput(ctx); }
// aten::to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
absl::Status AtenToDevice(TranslateContext& ctx) { return CastToOutput(ctx); }
// aten::to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
absl::Status AtenToOther(TranslateContext& ctx) { return CastToOutput(ctx); }
// aten::type_as(Tensor self, Tensor other) -> Tensor
absl::Status AtenTypeAs(TranslateContext& ctx) { return CastToOutput(ctx); }

// Copies and views are the same value in a functional graph; the translator
// adds an Identity if the FX value needs a name of its own.
absl::Status Identity(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  return ctx.SetOutput(0, x);
}
// aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor
absl::Status AtenClone(TranslateContext& ctx) { return Identity(ctx); }
// aten::alias(Tensor(a) self) -> Tensor(a)
absl::Status AtenAlias(TranslateContext& ctx) { return Identity(ctx); }
// aten::detach(Tensor(a) self) -> Tensor(a)
absl::Status AtenDetach(TranslateContext& ctx) { return Identity(ctx); }
// aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)
absl::Status AtenContiguous(TranslateContext& ctx) { return Identity(ctx); }
// aten::detach_(Tensor(a!) self) -> Tensor(a!)
absl::Status AtenDetachInPlace(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  return ctx.SetInPlaceResult("self", x);
}
// aten::lift_fresh_copy(Tensor self) -> Tensor
absl::Status AtenLiftFreshCopy(TranslateContext& ctx) { return Identity(ctx); }

// `value` broadcast to self's shape (skipped when the shapes already agree).
absl::Status ExpandToSelf(TranslateContext& ctx, const std::string& value,
                          const std::vector<pt2::SymInt>* value_sizes) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* self_meta, ctx.InputMeta("self"));
  bool same = value_sizes != nullptr && value_sizes->size() == self_meta->sizes.size();
  for (size_t i = 0; same && i < value_sizes->size(); ++i) {
    const pt2::SymInt& a = (*value_sizes)[i];
    const pt2::SymInt& b = self_meta->sizes[i];
    same = a.is_symbolic == b.is_symbolic && (a.is_symbolic ? a.expr == b.expr : a.value == b.value);
  }
  if (same) return BindResult(ctx, value);
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ShapeOf(ctx, "self"));
  return BindResult(ctx, ctx.Op("Expand", {value, shape}));
}

// Functional copy: src, in self's dtype, broadcast to self's shape.
// aten::copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor
absl::Status AtenCopy(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string src, ctx.InputAs("src", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* src_meta, ctx.InputMeta("src"));
  return ExpandToSelf(ctx, src, &src_meta->sizes);
}

// aten::fill.Scalar(Tensor self, Scalar value) -> Tensor
// (also .Tensor with a 0-d value)
absl::Status AtenFill(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string value, ctx.InputOrScalarAs("value", dtype));
  return ExpandToSelf(ctx, value, nullptr);
}

// Tensor -> Python scalar (`x.item()`): the single element as a 0-d value in
// the symbolic-scalar convention of symbolic.cc (SymInt INT64, SymFloat
// FLOAT, SymBool BOOL).
// aten::_local_scalar_dense(Tensor self) -> Scalar
// aten::item(Tensor self) -> Scalar
absl::Status AtenLocalScalarDense(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  bool single = true;
  for (const pt2::SymInt& size : meta->sizes) {
    if (size.is_symbolic || size.value != 1) single = false;
  }
  if (!single) {
    return ctx.Invalid("a tensor with other than one element cannot be converted to a scalar");
  }
  if (ctx.num_outputs() != 1) return ctx.Invalid("expected one scalar result");
  DataType to = DataType::kUndefined;
  switch (ctx.node().outputs[0].kind) {
    case pt2::Argument::Kind::kSymInt: to = DataType::kInt64; break;
    case pt2::Argument::Kind::kSymFloat: to = DataType::kFloat; break;
    case pt2::Argument::Kind::kSymBool: to = DataType::kBool; break;
    default: return ctx.Unsupported("the result is not a symbolic int, float or bool");
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType from, ctx.InputDtype("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  std::string scalar = meta->sizes.empty() ? x : Reshape(ctx, x, {});
  return ctx.SetOutput(0, ctx.CastTo(scalar, from, to));
}

}  // namespace

void RegisterConversionOps(OpRegistry& r) {
  r.Add("aten::_to_copy.default", &AtenToCopy);
  r.Add("aten::to.dtype", &AtenToDtype);
  r.Add("aten::to.dtype_layout", &AtenToDtypeLayout);
  r.Add("aten::to.device", &AtenToDevice);
  r.Add("aten::to.other", &AtenToOther);
  r.Add("aten::type_as.default", &AtenTypeAs);
  r.Add("aten::clone.default", &AtenClone);
  r.Add("aten::alias.default", &AtenAlias);
  r.Add("aten::detach.default", &AtenDetach);
  r.Add("aten::detach_.default", &AtenDetachInPlace);
  r.Add("aten::contiguous.default", &AtenContiguous);
  r.Add("aten::lift_fresh_copy.default", &AtenLiftFreshCopy);
  AddWithInPlace(r, "aten::copy", "default", &AtenCopy);
  AddWithInPlace(r, "aten::fill", "Scalar", &AtenFill);
  AddWithInPlace(r, "aten::fill", "Tensor", &AtenFill);
  r.Add("aten::_local_scalar_dense.default", &AtenLocalScalarDense);
  r.Add("aten::item.default", &AtenLocalScalarDense);
}

}  // namespace pt2onnx::ops
