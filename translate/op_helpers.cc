#include "translate/op_helpers.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace pt2onnx::translate {
namespace {

// Expands a single entry to `n` and checks the count (see SpatialInts).
absl::StatusOr<std::vector<int64_t>> ExpandSpatial(const TranslateContext& ctx,
                                                   absl::string_view arg,
                                                   std::vector<int64_t> values, int64_t n) {
  if (values.size() == 1 && n > 1) {
    int64_t value = values[0];  // assign() must not read from the vector it refills
    values.assign(n, value);
  }
  if (static_cast<int64_t>(values.size()) != n) {
    return ctx.Invalid(absl::StrCat(arg, " has ", values.size(), " entries for ", n,
                                    " spatial dims"));
  }
  return values;
}

}  // namespace

absl::StatusOr<int64_t> CheckedAxis(int64_t axis, int64_t rank, absl::string_view what) {
  const int64_t r = rank <= 0 ? 1 : rank;
  if (axis < -r || axis >= r) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": dimension ", axis, " is out of range for a tensor of rank ", rank,
                     " (expected a value in [", -r, ", ", r - 1, "])"));
  }
  return axis < 0 ? axis + r : axis;
}

absl::StatusOr<std::vector<int64_t>> CheckedAxes(const std::vector<int64_t>& axes, int64_t rank,
                                                 absl::string_view what) {
  std::vector<int64_t> out;
  out.reserve(axes.size());
  for (int64_t axis : axes) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t a, CheckedAxis(axis, rank, what));
    if (std::find(out.begin(), out.end(), a) != out.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": dimension ", axis, " appears more than once in the dim list"));
    }
    out.push_back(a);
  }
  return out;
}

absl::StatusOr<int64_t> CheckedAxis(const TranslateContext& ctx, absl::string_view arg,
                                    int64_t axis, int64_t rank) {
  absl::StatusOr<int64_t> checked = CheckedAxis(axis, rank, arg);
  if (!checked.ok()) return ctx.Invalid(checked.status().message());
  return checked;
}

absl::StatusOr<std::vector<int64_t>> CheckedAxes(const TranslateContext& ctx,
                                                 absl::string_view arg,
                                                 const std::vector<int64_t>& axes, int64_t rank) {
  absl::StatusOr<std::vector<int64_t>> checked = CheckedAxes(axes, rank, arg);
  if (!checked.ok()) return ctx.Invalid(checked.status().message());
  return checked;
}

absl::StatusOr<int64_t> AxisArg(const TranslateContext& ctx, absl::string_view arg,
                                int64_t rank) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, ctx.Int(arg));
  return CheckedAxis(ctx, arg, axis, rank);
}

absl::StatusOr<std::vector<int64_t>> SpatialInts(const TranslateContext& ctx, absl::string_view arg,
                                                 int64_t n) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> values, ctx.Ints(arg));
  return ExpandSpatial(ctx, arg, std::move(values), n);
}

absl::StatusOr<std::vector<int64_t>> SpatialInts(const TranslateContext& ctx, absl::string_view arg,
                                                 int64_t n, const std::vector<int64_t>& fallback) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> values, ctx.Ints(arg));
  if (values.empty()) return fallback;
  return ExpandSpatial(ctx, arg, std::move(values), n);
}

absl::Status CheckIntsInRange(const TranslateContext& ctx, absl::string_view arg,
                              const std::vector<int64_t>& values, int64_t lo, int64_t hi) {
  for (int64_t v : values) {
    if (v < lo || v > hi) {
      return ctx.Invalid(absl::StrCat(arg, " entry ", v, " is outside [", lo, ", ", hi, "]"));
    }
  }
  return absl::OkStatus();
}

std::string Unsqueeze(TranslateContext& ctx, const std::string& x, std::vector<int64_t> axes) {
  return ctx.Op("Unsqueeze", {x, ctx.ConstantInt64s(std::move(axes))});
}

std::string Squeeze(TranslateContext& ctx, const std::string& x, std::vector<int64_t> axes) {
  return ctx.Op("Squeeze", {x, ctx.ConstantInt64s(std::move(axes))});
}

std::string Reshape(TranslateContext& ctx, const std::string& x, std::vector<int64_t> shape) {
  return ctx.Op("Reshape", {x, ctx.ConstantInt64s(std::move(shape))});
}

std::string ShapeSlice(TranslateContext& ctx, const std::string& x, int64_t start, int64_t end) {
  return ctx.Op("Shape", {x}, {ir::Attribute::Int("start", start), ir::Attribute::Int("end", end)});
}

absl::StatusOr<DataType> OutDtype(const TranslateContext& ctx) {
  DataType dtype = ctx.OutputDtype(0);
  if (dtype == DataType::kUndefined) {
    return ctx.Invalid("the output has no dtype in the program's metadata");
  }
  return dtype;
}

absl::StatusOr<std::string> ShapeOf(TranslateContext& ctx, absl::string_view arg) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta(arg));
  std::vector<int64_t> dims;
  for (const pt2::SymInt& s : meta->sizes) {
    if (s.is_symbolic) {
      PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input(arg));
      return ctx.Op("Shape", {x});
    }
    dims.push_back(s.value);
  }
  return ctx.ConstantInt64s(std::move(dims));
}

absl::StatusOr<double> FloatOr(const TranslateContext& ctx, absl::string_view arg,
                               double fallback) {
  if (!ctx.Has(arg)) return fallback;
  return ctx.Float(arg);
}

bool IsInPlace(const TranslateContext& ctx) {
  absl::string_view key = ctx.key();
  size_t colon = key.find("::");
  absl::string_view name = colon == absl::string_view::npos ? key : key.substr(colon + 2);
  name = name.substr(0, name.find('.'));
  return absl::EndsWith(name, "_") && !absl::EndsWith(name, "__");
}

absl::Status BindResult(TranslateContext& ctx, const std::string& value) {
  if (IsInPlace(ctx)) return ctx.SetInPlaceResult("self", value);
  return ctx.SetOutput(0, value);
}

void AddWithInPlace(OpRegistry& r, absl::string_view name, absl::string_view overload,
                    TranslateFn fn, int min_opset, int max_opset) {
  r.Add(absl::StrCat(name, ".", overload), fn, min_opset, max_opset);
  r.Add(absl::StrCat(name, "_.", overload), fn, min_opset, max_opset);
}

}  // namespace pt2onnx::translate
