// File: ops/backward.cc
// -----------------------------------------------------------------------------
// Backward ops of pooling and embedding, as exported training graphs carry
// them (convolution and normalization backward: conv_norm_backward.cc).
//
// Average pools are linear and separable: along each spatial dim, output
// cell o averages input cells [start_o, end_o) with one divisor factor per
// dim (torch's divisor is a product of the two dims' window sizes, or a
// divisor_override). So grad_input = Ph^T . grad . Pw, with
// P[o, i] = [start_o <= i < end_o] / factor_o built at run time from the
// sizes (no constant grows with the input).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

// Size of dim `axis` (may be negative) of `x` as a 0-d INT64 value.
std::string DimSize(TranslateContext& ctx, const std::string& x, int64_t axis) {
  std::string one = axis == -1 ? ctx.Op("Shape", {x}, {Attribute::Int("start", -1)})
                               : ShapeSlice(ctx, x, axis, axis + 1);
  return Squeeze(ctx, one, {0});
}

// Window bounds along one dim, as 1-D INT64 values over the output cells.
struct Windows {
  std::string start;   // first input cell read (clamped to >= 0)
  std::string end;     // one past the last (clamped to <= in)
  std::string factor;  // the divisor share of this dim
};

// P[o, i] = [start_o <= i < end_o] / factor_o, an (out, in) matrix of `dtype`.
std::string WindowMatrix(TranslateContext& ctx, const Windows& w, const std::string& in_size,
                         DataType dtype) {
  std::string cells = ctx.Op("Range", {ctx.ConstantInt64(0), in_size, ctx.ConstantInt64(1)});
  std::string start = Unsqueeze(ctx, w.start, {1});
  std::string end = Unsqueeze(ctx, w.end, {1});
  std::string inside = ctx.Op("And",
                              {ctx.Op("GreaterOrEqual", {cells, start}),
                               ctx.Op("Less", {cells, end})});
  std::string share = ctx.Op("Reciprocal",
                             {ctx.CastTo(Unsqueeze(ctx, w.factor, {1}), DataType::kInt64, dtype)});
  return ctx.Op("Where", {inside, share, ctx.ConstantScalar(dtype, 0)});
}

// grad_input[..., h, w] = sum Ph[oh, h] grad[..., oh, ow] Pw[ow, w].
std::string SpreadBack(TranslateContext& ctx, const std::string& grad, const std::string& ph,
                       const std::string& pw) {
  std::string rows = ctx.Op("MatMul", {grad, pw});
  return ctx.Op("MatMul", {ctx.Op("Transpose", {ph}, {Attribute::Ints("perm", {1, 0})}), rows});
}

absl::Status CheckPoolRank(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("self"));
  if (rank != 3 && rank != 4) {
    return ctx.Invalid(absl::StrCat("self must be (C, H, W) or (N, C, H, W), got rank ", rank));
  }
  return absl::OkStatus();
}

// aten::_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor
// Bin o of `out` over `in` cells: [floor(o * in / out), ceil((o + 1) * in / out)).
absl::Status AtenAdaptiveAvgPool2dBackward(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckPoolRank(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string grad, ctx.InputAs("grad_output", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  std::vector<std::string> p;
  for (int64_t axis : {-2, -1}) {
    std::string in = DimSize(ctx, self, axis);
    std::string out = DimSize(ctx, grad, axis);
    std::string o = ctx.Op("Range", {ctx.ConstantInt64(0), out, ctx.ConstantInt64(1)});
    Windows w;
    w.start = ctx.Op("Div", {ctx.Op("Mul", {o, in}), out});
    std::string next = ctx.Op("Mul", {ctx.Op("Add", {o, ctx.ConstantInt64(1)}), in});
    w.end = ctx.Op("Div", {ctx.Op("Add", {next, ctx.Op("Sub", {out, ctx.ConstantInt64(1)})}), out});
    w.factor = ctx.Op("Sub", {w.end, w.start});
    p.push_back(WindowMatrix(ctx, w, in, dtype));
  }
  return ctx.SetOutput(0, SpreadBack(ctx, grad, p[0], p[1]));
}

// aten::avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor
// As avg_pool2d's kernel: a window starts at o * stride - pad; its padded
// extent ends at min(start + kernel, in + pad) (the count_include_pad
// divisor), its read cells are that range clamped to [0, in).
absl::Status AtenAvgPool2dBackward(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckPoolRank(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, SpatialInts(ctx, "kernel_size", 2));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, SpatialInts(ctx, "stride", 2, kernel));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, SpatialInts(ctx, "padding", 2));
  PT2ONNX_ASSIGN_OR_RETURN(bool count_include_pad, ctx.Bool("count_include_pad"));
  std::optional<int64_t> divisor_override;
  if (ctx.Has("divisor_override")) {
    PT2ONNX_ASSIGN_OR_RETURN(divisor_override, ctx.OptionalInt("divisor_override"));
  }
  for (int i = 0; i < 2; ++i) {
    if (kernel[i] <= 0 || stride[i] <= 0 || padding[i] < 0 || padding[i] > kernel[i] / 2) {
      return ctx.Invalid(absl::StrCat("kernel_size ", kernel[i], ", stride ", stride[i],
                                      ", padding ", padding[i],
                                      ": torch needs kernel and stride > 0 and 0 <= padding <= "
                                      "kernel / 2"));
    }
  }
  if (divisor_override && *divisor_override == 0) {
    return ctx.Invalid("divisor_override must not be 0");
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string grad, ctx.InputAs("grad_output", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  std::vector<std::string> p;
  for (int i = 0; i < 2; ++i) {
    const int64_t axis = i - 2;
    std::string in = DimSize(ctx, self, axis);
    std::string out = DimSize(ctx, grad, axis);
    std::string o = ctx.Op("Range", {ctx.ConstantInt64(0), out, ctx.ConstantInt64(1)});
    std::string first = ctx.Op("Sub", {ctx.Op("Mul", {o, ctx.ConstantInt64(stride[i])}),
                                       ctx.ConstantInt64(padding[i])});
    std::string padded_end = ctx.Op("Min", {ctx.Op("Add", {first, ctx.ConstantInt64(kernel[i])}),
                                            ctx.Op("Add", {in, ctx.ConstantInt64(padding[i])})});
    Windows w;
    w.start = ctx.Op("Max", {first, ctx.ConstantInt64(0)});
    w.end = ctx.Op("Min", {padded_end, in});
    if (divisor_override) {
      w.factor = ctx.Op("Expand", {ctx.ConstantInt64(1), Unsqueeze(ctx, out, {0})});
    } else {
      w.factor = ctx.Op("Sub", count_include_pad ? std::vector<std::string>{padded_end, first}
                                                 : std::vector<std::string>{w.end, w.start});
    }
    p.push_back(WindowMatrix(ctx, w, in, dtype));
  }
  if (divisor_override) {
    grad = ctx.Op("Div", {grad, ctx.ConstantScalar(dtype, static_cast<double>(*divisor_override))});
  }
  return ctx.SetOutput(0, SpreadBack(ctx, grad, p[0], p[1]));
}

// aten::max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor
// Each gradient goes to the input cell its index names (indices are flat
// offsets into one (H, W) plane); cells picked by several windows get the sum.
absl::Status AtenMaxPool2dWithIndicesBackward(TranslateContext& ctx) {
  PT2ONNX_RETURN_IF_ERROR(CheckPoolRank(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string grad, ctx.InputAs("grad_output", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string indices, ctx.InputAs("indices", DataType::kInt64));
  std::string plane = ctx.Op("ReduceProd", {ctx.Op("Shape", {self}, {Attribute::Int("start", -2)})},
                             {Attribute::Int("keepdims", 1)});
  std::string rows_by_plane = ctx.Op("Concat", {ctx.ConstantInt64s({-1}), plane},
                                     {Attribute::Int("axis", 0)});
  std::string flat_self = ctx.Op("Reshape", {self, rows_by_plane});
  std::string zeros = ctx.Op("Expand",
                             {ctx.ConstantScalar(dtype, 0), ctx.Op("Shape", {flat_self})});
  std::string rows_by_cell = ctx.Op("Concat", {ctx.ConstantInt64s({-1}), ctx.Op("ReduceProd",
                                    {ctx.Op("Shape", {grad}, {Attribute::Int("start", -2)})},
                                    {Attribute::Int("keepdims", 1)})}, {Attribute::Int("axis", 0)});
  std::string summed = ctx.Op("ScatterElements",
                              {zeros, ctx.Op("Reshape", {indices, rows_by_cell}),
                               ctx.Op("Reshape", {grad, rows_by_cell})},
                              {Attribute::Int("axis", 1), Attribute::String("reduction", "add")});
  return ctx.SetOutput(0, ctx.Op("Reshape", {summed, ctx.Op("Shape", {self})}));
}

// aten::embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, SymInt padding_idx, bool scale_grad_by_freq) -> Tensor
// Row i of the (num_weights, D) result sums the gradients of every position
// holding index i; rows at padding_idx get none; with scale_grad_by_freq
// each gradient is first divided by how often its index occurs.
absl::Status AtenEmbeddingDenseBackward(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string grad, ctx.InputAs("grad_output", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string indices, ctx.InputAs("indices", DataType::kInt64));
  PT2ONNX_ASSIGN_OR_RETURN(std::string num_weights, ctx.SymIntAsTensor("num_weights"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string padding_idx, ctx.SymIntAsTensor("padding_idx"));
  PT2ONNX_ASSIGN_OR_RETURN(bool scale_grad_by_freq, ctx.Bool("scale_grad_by_freq"));
  std::string flat_index = Reshape(ctx, indices, {-1});
  std::string width = ctx.Op("Shape", {grad}, {Attribute::Int("start", -1)});
  std::string rows = ctx.Op("Reshape", {grad, ctx.Op("Concat", {ctx.ConstantInt64s({-1}), width},
                                                     {Attribute::Int("axis", 0)})});
  if (scale_grad_by_freq) {
    std::string counts = ctx.Op("ScatterElements",
                                {ctx.Op("Expand",
                                        {ctx.ConstantInt64(0), Unsqueeze(ctx, num_weights, {0})}),
                                 flat_index, ctx.Op("Expand",
                                                    {ctx.ConstantInt64(1),
                                                     ctx.Op("Shape", {flat_index})})},
                                {Attribute::Int("axis", 0), Attribute::String("reduction", "add")});
    std::string freq = ctx.Op("Gather", {counts, flat_index}, {Attribute::Int("axis", 0)});
    rows = ctx.Op("Div", {rows, Unsqueeze(ctx, ctx.CastTo(freq, DataType::kInt64, dtype), {1})});
  }
  std::string is_padding = Unsqueeze(ctx, ctx.Op("Equal", {flat_index, padding_idx}), {1});
  rows = ctx.Op("Where", {is_padding, ctx.ConstantScalar(dtype, 0), rows});
  std::string table_shape = ctx.Op("Concat", {Unsqueeze(ctx, num_weights, {0}), width},
                                   {Attribute::Int("axis", 0)});
  std::string zeros = ctx.Op("Expand", {ctx.ConstantScalar(dtype, 0), table_shape});
  return ctx.SetOutput(0, ctx.Op("ScatterND", {zeros, Unsqueeze(ctx, flat_index, {1}), rows},
                                 {Attribute::String("reduction", "add")}));
}

// aten::_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor
// grad_input = y * (g - sum(g * y, dim)), in the output's dtype, then cast
// to input_dtype (aten/src/ATen/native/SoftMax.cpp).
absl::Status AtenSoftmaxBackwardData(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string y, ctx.Input("output"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("output"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string g, ctx.InputAs("grad_output", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("output"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, AxisArg(ctx, "dim", std::max<int64_t>(rank, 1)));
  PT2ONNX_ASSIGN_OR_RETURN(DataType out_dtype, OutDtype(ctx));
  if (!IsFloatingPoint(dtype)) return ctx.Invalid("_softmax_backward_data of a non-floating output");
  std::string gy = ctx.Op("Mul", {g, y});
  std::string sum = rank == 0 ? gy
                              : ctx.Op("ReduceSum", {gy, ctx.ConstantInt64s({axis})},
                                       {Attribute::Int("keepdims", 1)});
  std::string gx = ctx.Op("Mul", {y, ctx.Op("Sub", {g, sum})});
  return ctx.SetOutput(0, ctx.CastTo(gx, dtype, out_dtype));
}

// aten::hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) -> Tensor
// The gradient passes where min_val < self < max_val and is 0 elsewhere:
// on the bounds and where self is NaN (torch's CPU kernel,
// aten/src/ATen/native/cpu/Activation.cpp, tests the open interval).
absl::Status AtenHardtanhBackward(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string grad, ctx.InputAs("grad_output", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.InputAs("self", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string low, ctx.InputOrScalarAs("min_val", dtype));
  PT2ONNX_ASSIGN_OR_RETURN(std::string high, ctx.InputOrScalarAs("max_val", dtype));
  std::string inside = ctx.Op("And", {ctx.Op("Greater", {x, low}), ctx.Op("Less", {x, high})});
  return ctx.SetOutput(0, ctx.Op("Where", {inside, grad, ctx.ConstantScalar(dtype, 0)}));
}

}  // namespace

void RegisterBackwardOps(OpRegistry& r) {
  r.Add("aten::hardtanh_backward.default", &AtenHardtanhBackward);
  r.Add("aten::_softmax_backward_data.default", &AtenSoftmaxBackwardData);
  r.Add("aten::_adaptive_avg_pool2d_backward.default", &AtenAdaptiveAvgPool2dBackward);
  r.Add("aten::avg_pool2d_backward.default", &AtenAvgPool2dBackward);
  r.Add("aten::max_pool2d_with_indices_backward.default", &AtenMaxPool2dWithIndicesBackward);
  r.Add("aten::embedding_dense_backward.default", &AtenEmbeddingDenseBackward);
}

}  // namespace pt2onnx::ops
