// File: ops/encoding.cc
// -----------------------------------------------------------------------------
// Index encodings built by comparing index ranges: one_hot and eye. Sizes
// come from the program (possibly symbolic) and are used at run time by
// Range, never unrolled into constants.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// 0, 1, ..., n-1 (int64) for a 0-d INT64 value `n`.
std::string Iota(TranslateContext& ctx, const std::string& n) {
  return ctx.Op("Range", {ctx.ConstantInt64(0), n, ctx.ConstantInt64(1)});
}

// A SymInt size argument as a 0-d INT64 value; a negative static size is
// invalid (torch: "n must be greater or equal to 0").
absl::StatusOr<std::string> Size(TranslateContext& ctx, absl::string_view arg) {
  absl::StatusOr<int64_t> value = ctx.Int(arg);
  if (value.ok() && *value < 0) {
    return ctx.Invalid(absl::StrCat(arg, " must be greater or equal to 0, got ", *value));
  }
  return ctx.SymIntAsTensor(arg);
}

// Class values outside [0, num_classes) are a run-time error in torch; here
// their row is all zeros. num_classes=-1 (the largest value plus one) would
// make the output size depend on the data, which export does not record.
// aten::one_hot(Tensor self, int num_classes=-1) -> Tensor
absl::Status AtenOneHot(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t num_classes, ctx.Int("num_classes"));
  if (num_classes < 0) {
    return ctx.Unsupported(
        "one_hot with num_classes=-1 sizes its output from the data; pass num_classes explicitly");
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  if (dtype != DataType::kInt64) {
    return ctx.Invalid("one_hot is only applicable to index tensors (int64)");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  std::string classes = Iota(ctx, ctx.ConstantInt64(num_classes));
  std::string hit = ctx.Op("Equal", {Unsqueeze(ctx, x, {rank}), classes});
  return ctx.SetOutput(0, ctx.CastTo(hit, DataType::kBool, DataType::kInt64));
}

absl::Status Eye(TranslateContext& ctx, const std::string& n, const std::string& m) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  std::string rows = Unsqueeze(ctx, Iota(ctx, n), {1});
  std::string diagonal = ctx.Op("Equal", {rows, Iota(ctx, m)});
  return ctx.SetOutput(0, ctx.CastTo(diagonal, DataType::kBool, dtype));
}

// aten::eye(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenEye(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string n, Size(ctx, "n"));
  return Eye(ctx, n, n);
}

// aten::eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenEyeM(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string n, Size(ctx, "n"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string m, Size(ctx, "m"));
  return Eye(ctx, n, m);
}

}  // namespace

void RegisterEncodingOps(OpRegistry& r) {
  r.Add("aten::one_hot.default", &AtenOneHot);
  r.Add("aten::eye.default", &AtenEye);
  r.Add("aten::eye.m", &AtenEyeM);
}

}  // namespace pt2onnx::ops
