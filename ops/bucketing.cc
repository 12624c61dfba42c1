// File: ops/bucketing.cc
// -----------------------------------------------------------------------------
// searchsorted and bucketize. torch (aten/src/ATen/native/Bucketization.cpp)
// runs a binary search per value: while start < end, mid = start + (end -
// start) / 2, and the search goes right when !(seq[mid] >= v) (left side) or
// !(seq[mid] > v) (right side). The graph runs the same search on every value
// at once, for as many steps as the longest search takes (the bit length of
// the sequence's size, 63 when the size is symbolic), so results match torch
// exactly even for NaN values or sequences that are not sorted.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/op_helpers.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

// torch promotes values and boundaries to a common dtype before searching.
DataType CommonDtype(DataType a, DataType b) {
  if (a == b) return a;
  if (a == DataType::kDouble || b == DataType::kDouble) return DataType::kDouble;
  bool a_float = IsFloatingPoint(a), b_float = IsFloatingPoint(b);
  if (a_float && b_float) return DataType::kFloat;  // float vs half / bfloat16 mixes
  if (a_float) return a;
  if (b_float) return b;
  return DataType::kInt64;
}

struct Search {
  std::string sequence;            // [..., N] or [N]
  std::optional<std::string> sorter;
  bool one_dimensional = true;     // sequence is 1-D: Gather, else GatherElements on the last dim
  int64_t last_axis = 0;
  std::optional<int64_t> length;   // N when static
  bool right = false;
};

// Element mid (per value) of the sequence, through the sorter if any.
std::string At(TranslateContext& ctx, const Search& s, const std::string& mid) {
  auto gather = [&](const std::string& data, const std::string& index) {
    if (s.one_dimensional) return ctx.Op("Gather", {data, index}, {ir::Attribute::Int("axis", 0)});
    return ctx.Op("GatherElements", {data, index}, {ir::Attribute::Int("axis", s.last_axis)});
  };
  std::string position = s.sorter.has_value() ? gather(*s.sorter, mid) : mid;
  return gather(s.sequence, position);
}

// Insertion indices (int64, shaped like `values`).
std::string BinarySearch(TranslateContext& ctx, const Search& s, const std::string& values) {
  std::string n = s.length.has_value()
                      ? ctx.ConstantInt64(*s.length)
                      : Squeeze(ctx, ShapeSlice(ctx, s.sequence, -1, INT64_MAX), {0});
  std::string zero = ctx.ConstantInt64(0);
  std::string one = ctx.ConstantInt64(1);
  std::string two = ctx.ConstantInt64(2);
  std::string last = ctx.Op("Max", {ctx.Op("Sub", {n, one}), zero});
  std::string value_shape = ctx.Op("Shape", {values});
  std::string start = ctx.Op("Expand", {zero, value_shape});
  std::string end = ctx.Op("Expand", {n, value_shape});
  int steps = 63;
  if (s.length.has_value()) {
    steps = 0;
    for (int64_t v = *s.length; v > 0; v >>= 1) ++steps;
  }
  for (int i = 0; i < steps; ++i) {
    std::string active = ctx.Op("Less", {start, end});
    std::string mid = ctx.Op("Add", {start, ctx.Op("Div", {ctx.Op("Sub", {end, start}), two})});
    std::string mid_value = At(ctx, s, ctx.Op("Min", {mid, last}));
    std::string stop = ctx.Op(s.right ? "Greater" : "GreaterOrEqual", {mid_value, values});
    std::string go_right = ctx.Op("And", {active, ctx.Op("Not", {stop})});
    std::string go_left = ctx.Op("And", {active, stop});
    start = ctx.Op("Where", {go_right, ctx.Op("Add", {mid, one}), start});
    end = ctx.Op("Where", {go_left, mid, end});
  }
  return start;
}

absl::StatusOr<bool> RightSide(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(bool right, ctx.Bool("right"));
  if (!ctx.Has("side")) return right;
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument side_arg, ctx.Arg("side"));
  if (side_arg.kind == pt2::Argument::Kind::kNone) return right;
  PT2ONNX_ASSIGN_OR_RETURN(std::string side, ctx.String("side"));
  if (side != "left" && side != "right") {
    return ctx.Invalid(absl::StrCat("side can only be 'left' or 'right' but got '", side, "'"));
  }
  if (right && side == "left") {
    return ctx.Invalid(
        "side and right can't be set to opposites, got side of left while right was True");
  }
  return side == "right";
}

// `values_arg` is a tensor, or a Scalar when `scalar_values`.
absl::Status SearchSorted(TranslateContext& ctx, absl::string_view sequence_arg,
                          absl::string_view values_arg, bool scalar_values,
                          std::optional<absl::string_view> sorter_arg, bool right) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType out_dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* seq_meta, ctx.InputMeta(sequence_arg));
  PT2ONNX_ASSIGN_OR_RETURN(DataType seq_dtype, ctx.InputDtype(sequence_arg));
  int64_t seq_rank = static_cast<int64_t>(seq_meta->sizes.size());
  if (seq_rank == 0) return ctx.Invalid("the sorted sequence must have at least one dimension");
  Search s;
  s.right = right;
  s.one_dimensional = seq_rank == 1;
  s.last_axis = seq_rank - 1;
  if (!seq_meta->sizes.back().is_symbolic) s.length = seq_meta->sizes.back().value;
  if (s.length.has_value() && *s.length == 0) {
    // Nothing to search: every insertion index is 0.
    PT2ONNX_ASSIGN_OR_RETURN(std::string zeros_shape,
                             scalar_values ? absl::StatusOr<std::string>(ctx.ConstantInt64s({}))
                                           : ShapeOf(ctx, values_arg));
    return ctx.SetOutput(0, ctx.Op("Expand", {ctx.ConstantScalar(out_dtype, 0), zeros_shape}));
  }

  std::string values;
  DataType common;
  if (scalar_values) {
    if (seq_rank != 1) {
      return ctx.Invalid("a scalar is searched in a one-dimensional sequence only");
    }
    PT2ONNX_ASSIGN_OR_RETURN(ScalarValue scalar, ctx.Scalar(values_arg));
    bool scalar_float = scalar.kind == ScalarValue::Kind::kFloat;
    common = IsFloatingPoint(seq_dtype) || !scalar_float ? seq_dtype : DataType::kFloat;
    if (common == DataType::kBool) common = DataType::kInt64;
    PT2ONNX_ASSIGN_OR_RETURN(values, ctx.InputOrScalarAs(values_arg, common));
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* values_meta, ctx.InputMeta(values_arg));
    int64_t values_rank = static_cast<int64_t>(values_meta->sizes.size());
    if (seq_rank > 1 && values_rank != seq_rank) {
      return ctx.Invalid(absl::StrCat("the sorted sequence (", seq_rank, "-D) and the values (",
                                      values_rank, "-D) must have the same number of dimensions"));
    }
    PT2ONNX_ASSIGN_OR_RETURN(DataType values_dtype, ctx.InputDtype(values_arg));
    common = CommonDtype(seq_dtype, values_dtype);
    PT2ONNX_ASSIGN_OR_RETURN(values, ctx.InputAs(values_arg, common));
  }
  if (common == DataType::kBool || IsComplex(common)) {
    return ctx.Unsupported(absl::StrCat("searching ", DataTypeName(common), " values"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(s.sequence, ctx.InputAs(sequence_arg, common));
  if (sorter_arg.has_value()) {
    PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> sorter, ctx.OptionalInput(*sorter_arg));
    if (sorter.has_value()) {
      PT2ONNX_ASSIGN_OR_RETURN(DataType sorter_dtype, ctx.InputDtype(*sorter_arg));
      s.sorter = ctx.CastTo(*sorter, sorter_dtype, DataType::kInt64);
    }
  }
  std::string indices = BinarySearch(ctx, s, values);
  return ctx.SetOutput(0, ctx.CastTo(indices, DataType::kInt64, out_dtype));
}

// aten::searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None) -> Tensor
absl::Status AtenSearchsortedTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(bool right, RightSide(ctx));
  return SearchSorted(ctx, "sorted_sequence", "self", false, "sorter", right);
}

// aten::searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None) -> Tensor
absl::Status AtenSearchsortedScalar(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(bool right, RightSide(ctx));
  return SearchSorted(ctx, "sorted_sequence", "self", true, "sorter", right);
}

absl::Status Bucketize(TranslateContext& ctx, bool scalar_values) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("boundaries"));
  if (meta->sizes.size() != 1) return ctx.Invalid("boundaries tensor must be 1 dimension");
  PT2ONNX_ASSIGN_OR_RETURN(bool right, ctx.Bool("right"));
  return SearchSorted(ctx, "boundaries", "self", scalar_values, std::nullopt, right);
}

// aten::bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor
absl::Status AtenBucketizeTensor(TranslateContext& ctx) { return Bucketize(ctx, false); }
// aten::bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor
absl::Status AtenBucketizeScalar(TranslateContext& ctx) { return Bucketize(ctx, true); }

}  // namespace

void RegisterBucketingOps(OpRegistry& r) {
  r.Add("aten::searchsorted.Tensor", &AtenSearchsortedTensor);
  r.Add("aten::searchsorted.Scalar", &AtenSearchsortedScalar);
  r.Add("aten::bucketize.Tensor", &AtenBucketizeTensor);
  r.Add("aten::bucketize.Scalar", &AtenBucketizeScalar);
}

}  // namespace pt2onnx::ops
