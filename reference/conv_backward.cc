// Reference kernel: convolution_backward (1-3 spatial dims, stride,
// padding, dilation, groups, transposed with output_padding): the
// gradients of input, weight and bias, in double, rounded once.
//
// Both forms pair a "small" side (positions i) with a "big" side
// (positions i * stride - padding + k * dilation) through a weight of shape
// [C_small, C_big / groups, k...]: a convolution reads the big input into
// the small output, a transposed one writes the small input into the big
// output. The gradients follow the same pairs.
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

absl::StatusOr<std::vector<int64_t>> Spatial(const RefCall& call, const char* name, size_t sd) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> v, call.Ints(name));
  if (v.size() == 1 && sd > 1) v.assign(sd, v[0]);
  if (v.size() != sd) return call.Invalid(absl::StrCat(name, " needs ", sd, " values"));
  return v;
}

// aten::convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)
absl::Status ConvolutionBackward(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor grad, call.Input("grad_output"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor weight, call.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(bool transposed, call.Bool("transposed"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t groups, call.Int("groups"));
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument mask_arg, call.Arg("output_mask"));
  if (mask_arg.kind != pt2::Argument::Kind::kBools || mask_arg.bools.size() != 3) {
    return call.Invalid("output_mask must be 3 bools");
  }
  const std::vector<bool> mask = mask_arg.bools;
  const int64_t rank = input.rank();
  if (rank < 3 || rank > 5 || weight.rank() != rank || grad.rank() != rank) {
    return call.Invalid("expected grad_output, input and weight of the same rank, 3 to 5");
  }
  const size_t sd = static_cast<size_t>(rank - 2);
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, Spatial(call, "stride", sd));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, Spatial(call, "padding", sd));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, Spatial(call, "dilation", sd));
  for (size_t d = 0; d < sd; ++d) {
    if (stride[d] <= 0 || dilation[d] <= 0 || padding[d] < 0) return call.Invalid("stride and dilation must be positive, padding non-negative");
  }
  const Tensor& small = transposed ? input : grad;  // positions i
  const Tensor& big = transposed ? grad : input;    // positions i * s - p + k * d
  const int64_t n = input.dims()[0];
  if (grad.dims()[0] != n || groups <= 0) return call.Invalid("batch sizes differ or groups is not positive");
  const int64_t c_small = small.dims()[1], c_big = big.dims()[1];
  if (c_small % groups != 0 || c_big % groups != 0 || weight.dims()[0] != c_small ||
      weight.dims()[1] * groups != c_big) {
    return call.Invalid(absl::StrCat("weight ", DimsString(weight.dims()), " does not match the channels (",
                                     c_small, ", ", c_big, ") and groups ", groups));
  }
  // Spatial sizes padded to 3 dims with 1s.
  int64_t s_sp[3] = {1, 1, 1}, b_sp[3] = {1, 1, 1}, k_sp[3] = {1, 1, 1}, st[3] = {1, 1, 1}, pd[3] = {0, 0, 0},
          dl[3] = {1, 1, 1};
  for (size_t d = 0; d < sd; ++d) {
    const size_t o = 3 - sd + d;
    s_sp[o] = small.dims()[2 + d];
    b_sp[o] = big.dims()[2 + d];
    k_sp[o] = weight.dims()[2 + d];
    st[o] = stride[d];
    pd[o] = padding[d];
    dl[o] = dilation[d];
  }
  const int64_t s_plane = s_sp[0] * s_sp[1] * s_sp[2], b_plane = b_sp[0] * b_sp[1] * b_sp[2];
  const int64_t k_plane = k_sp[0] * k_sp[1] * k_sp[2];
  const int64_t cs_g = c_small / groups, cb_g = c_big / groups;
  const std::vector<double> sv = ToDoubles(small), bv = ToDoubles(big), wv = ToDoubles(weight);
  std::vector<double> ds(sv.size(), 0.0), db(bv.size(), 0.0), dw(wv.size(), 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t cs = 0; cs < c_small; ++cs) {
      const int64_t g = cs / cs_g;
      for (int64_t cbl = 0; cbl < cb_g; ++cbl) {
        const int64_t cb = g * cb_g + cbl;
        const int64_t w_base = (cs * cb_g + cbl) * k_plane;
        const int64_t s_base = (b * c_small + cs) * s_plane, b_base = (b * c_big + cb) * b_plane;
        for (int64_t i0 = 0; i0 < s_sp[0]; ++i0) {
          for (int64_t i1 = 0; i1 < s_sp[1]; ++i1) {
            for (int64_t i2 = 0; i2 < s_sp[2]; ++i2) {
              const int64_t si = s_base + (i0 * s_sp[1] + i1) * s_sp[2] + i2;
              for (int64_t k0 = 0; k0 < k_sp[0]; ++k0) {
                const int64_t p0 = i0 * st[0] - pd[0] + k0 * dl[0];
                if (p0 < 0 || p0 >= b_sp[0]) continue;
                for (int64_t k1 = 0; k1 < k_sp[1]; ++k1) {
                  const int64_t p1 = i1 * st[1] - pd[1] + k1 * dl[1];
                  if (p1 < 0 || p1 >= b_sp[1]) continue;
                  for (int64_t k2 = 0; k2 < k_sp[2]; ++k2) {
                    const int64_t p2 = i2 * st[2] - pd[2] + k2 * dl[2];
                    if (p2 < 0 || p2 >= b_sp[2]) continue;
                    const int64_t bi = b_base + (p0 * b_sp[1] + p1) * b_sp[2] + p2;
                    const int64_t wi = w_base + (k0 * k_sp[1] + k1) * k_sp[2] + k2;
                    // Forward pairs: small += big * w (conv) or big += small * w (transposed).
                    if (transposed) ds[si] += bv[bi] * wv[wi];  // grad of the small input
                    else db[bi] += sv[si] * wv[wi];             // grad of the big input
                    dw[wi] += sv[si] * bv[bi];
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  std::vector<RefValue> outs(3);
  if (mask[0]) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(input.dtype(), input.dims(), transposed ? ds : db));
    outs[0] = RefValue::OfTensor(std::move(t));
  }
  if (mask[1]) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(weight.dtype(), weight.dims(), dw));
    outs[1] = RefValue::OfTensor(std::move(t));
  }
  if (mask[2]) {  // the sum of grad_output over everything but its channels
    const int64_t c_out = grad.dims()[1];
    const int64_t plane = transposed ? b_plane : s_plane;
    const std::vector<double> gv = ToDoubles(grad);
    std::vector<double> bias(c_out, 0.0);
    for (int64_t e = 0; e < grad.numel(); ++e) bias[(e / plane) % c_out] += gv[e];
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(grad.dtype(), {c_out}, bias));
    outs[2] = RefValue::OfTensor(std::move(t));
  }
  for (RefValue& v : outs) PT2ONNX_RETURN_IF_ERROR(call.Set(std::move(v)));
  return absl::OkStatus();
}

}  // namespace

void RegisterConvBackwardRef(RefRegistry& r) {
  r.Add("aten::convolution_backward.default", ConvolutionBackward);
}

}  // namespace pt2onnx::reference
