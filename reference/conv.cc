// Reference kernels: convolutions (conv1d/2d/3d, "same"/"valid" padding,
// convolution/_convolution, transposed convolutions), direct loops in
// double over up to three spatial dims, groups and dilation included.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

struct ConvParams {
  std::vector<int64_t> stride, pad_lo, pad_hi, dilation, output_padding;
  int64_t groups = 1;
  bool transposed = false;
};

// A per-dim list of n values: one value repeats (torch's int[2]=1 form).
absl::StatusOr<std::vector<int64_t>> Expand(std::vector<int64_t> v, size_t n, const char* what) {
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  if (v.size() != n) return absl::InvalidArgumentError(absl::StrCat(what, " needs ", n, " values"));
  return v;
}

// input [N, C, *s] (or unbatched [C, *s]); weight [Cout, Cin/g, *k] or,
// transposed, [Cin, Cout/g, *k].
absl::StatusOr<Tensor> Convolve(const Tensor& input_arg, const Tensor& weight, const std::optional<Tensor>& bias,
                                const ConvParams& p) {
  const int64_t sd = weight.rank() - 2;
  if (sd < 1 || sd > 3) return absl::InvalidArgumentError("convolution weight must have 3 to 5 dims");
  const bool unbatched = input_arg.rank() == sd + 1;
  const Tensor input = unbatched ? input_arg.Alias([&] { Dims d = input_arg.dims(); d.insert(d.begin(), 1); return d; }())
                                 : input_arg;
  if (input.rank() != sd + 2) return absl::InvalidArgumentError("convolution input rank does not match the weight");
  if (p.groups <= 0) return absl::InvalidArgumentError("groups must be positive");
  const int64_t batch = input.dims()[0], cin = input.dims()[1];
  const int64_t cout = p.transposed ? weight.dims()[1] * p.groups : weight.dims()[0];
  const int64_t cin_g = p.transposed ? weight.dims()[0] / p.groups : weight.dims()[1];
  if (cin % p.groups != 0 || cout % p.groups != 0 || cin_g * p.groups != cin) {
    return absl::InvalidArgumentError(absl::StrCat("input channels ", cin, " do not match the weight ",
                                                   DimsString(weight.dims()), " with groups=", p.groups));
  }
  const int64_t cout_g = cout / p.groups;
  // Spatial dims padded to 3 with size-1 dims.
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, out[3] = {1, 1, 1}, st[3] = {1, 1, 1}, lo[3] = {0, 0, 0},
          dil[3] = {1, 1, 1};
  Dims out_dims = {batch, cout};
  for (int64_t d = 0; d < sd; ++d) {
    const int64_t o = 3 - sd + d;
    in[o] = input.dims()[2 + d];
    k[o] = weight.dims()[2 + d];
    st[o] = p.stride[d];
    lo[o] = p.pad_lo[d];
    dil[o] = p.dilation[d];
    if (st[o] <= 0 || dil[o] <= 0 || lo[o] < 0 || p.pad_hi[d] < 0) {
      return absl::InvalidArgumentError("stride and dilation must be positive, padding non-negative");
    }
    const int64_t span = dil[o] * (k[o] - 1) + 1;
    if (p.transposed) {
      out[o] = (in[o] - 1) * st[o] - lo[o] - p.pad_hi[d] + span + p.output_padding[d];
    } else {
      const int64_t padded = in[o] + lo[o] + p.pad_hi[d];
      if (padded < span) return absl::InvalidArgumentError("kernel size can't be greater than the padded input");
      out[o] = (padded - span) / st[o] + 1;
    }
    if (out[o] <= 0) return absl::InvalidArgumentError("the convolution's output would be empty");
    out_dims.push_back(out[o]);
  }
  std::vector<double> x = ToDoubles(input), w = ToDoubles(weight);
  PT2ONNX_ASSIGN_OR_RETURN(int64_t numel, CheckedNumel(out_dims));
  std::vector<double> y(numel, 0.0);
  const int64_t in_sp = in[0] * in[1] * in[2], out_sp = out[0] * out[1] * out[2], k_sp = k[0] * k[1] * k[2];
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t g = 0; g < p.groups; ++g) {
      for (int64_t ic = 0; ic < cin_g; ++ic) {
        const double* xs = x.data() + (n * cin + g * cin_g + ic) * in_sp;
        for (int64_t oc = 0; oc < cout_g; ++oc) {
          const double* ws = p.transposed ? w.data() + ((g * cin_g + ic) * cout_g + oc) * k_sp
                                          : w.data() + ((g * cout_g + oc) * cin_g + ic) * k_sp;
          double* ys = y.data() + (n * cout + g * cout_g + oc) * out_sp;
          for (int64_t a = 0; a < k[0]; ++a) {
            for (int64_t b = 0; b < k[1]; ++b) {
              for (int64_t c = 0; c < k[2]; ++c) {
                const double wv = ws[(a * k[1] + b) * k[2] + c];
                if (!p.transposed) {
                  for (int64_t o0 = 0; o0 < out[0]; ++o0) {
                    const int64_t i0 = o0 * st[0] - lo[0] + a * dil[0];
                    if (i0 < 0 || i0 >= in[0]) continue;
                    for (int64_t o1 = 0; o1 < out[1]; ++o1) {
                      const int64_t i1 = o1 * st[1] - lo[1] + b * dil[1];
                      if (i1 < 0 || i1 >= in[1]) continue;
                      const double* xr = xs + (i0 * in[1] + i1) * in[2];
                      double* yr = ys + (o0 * out[1] + o1) * out[2];
                      for (int64_t o2 = 0; o2 < out[2]; ++o2) {
                        const int64_t i2 = o2 * st[2] - lo[2] + c * dil[2];
                        if (i2 >= 0 && i2 < in[2]) yr[o2] += wv * xr[i2];
                      }
                    }
                  }
                } else {
                  // Each input element scatters into the output.
                  for (int64_t i0 = 0; i0 < in[0]; ++i0) {
                    const int64_t o0 = i0 * st[0] - lo[0] + a * dil[0];
                    if (o0 < 0 || o0 >= out[0]) continue;
                    for (int64_t i1 = 0; i1 < in[1]; ++i1) {
                      const int64_t o1 = i1 * st[1] - lo[1] + b * dil[1];
                      if (o1 < 0 || o1 >= out[1]) continue;
                      for (int64_t i2 = 0; i2 < in[2]; ++i2) {
                        const int64_t o2 = i2 * st[2] - lo[2] + c * dil[2];
                        if (o2 >= 0 && o2 < out[2]) ys[(o0 * out[1] + o1) * out[2] + o2] += wv * xs[(i0 * in[1] + i1) * in[2] + i2];
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  if (bias.has_value()) {
    if (bias->numel() != cout) return absl::InvalidArgumentError("bias size does not match the output channels");
    std::vector<double> bv = ToDoubles(*bias);
    for (int64_t i = 0; i < numel; ++i) y[i] += bv[(i / out_sp) % cout];
  }
  if (unbatched) out_dims.erase(out_dims.begin());
  return FromDoubles(input.dtype(), out_dims, y);
}

absl::Status Run(RefCall& call, ConvParams p) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor weight, call.Input("weight"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<Tensor> bias, call.OptionalInput("bias"));
  absl::StatusOr<Tensor> out = Convolve(input, weight, bias, p);
  if (!out.ok()) return call.Invalid(out.status().message());
  return call.SetTensor(*std::move(out));
}

absl::StatusOr<ConvParams> ReadParams(RefCall& call, bool transposed, bool padding_ints) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor weight, call.Input("weight"));
  const size_t sd = weight.rank() >= 3 ? weight.rank() - 2 : 1;
  ConvParams p;
  p.transposed = transposed;
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> stride, call.Ints("stride"));
  PT2ONNX_ASSIGN_OR_RETURN(p.stride, Expand(stride, sd, "stride"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, call.Ints("dilation"));
  PT2ONNX_ASSIGN_OR_RETURN(p.dilation, Expand(dilation, sd, "dilation"));
  PT2ONNX_ASSIGN_OR_RETURN(p.groups, call.Int("groups"));
  if (padding_ints) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> padding, call.Ints("padding"));
    PT2ONNX_ASSIGN_OR_RETURN(p.pad_lo, Expand(padding, sd, "padding"));
    p.pad_hi = p.pad_lo;
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(std::string mode, call.String("padding"));
    p.pad_lo.assign(sd, 0);
    p.pad_hi.assign(sd, 0);
    if (mode == "same") {
      for (size_t d = 0; d < sd; ++d) {
        const int64_t total = p.dilation[d] * (weight.dims()[2 + d] - 1);
        p.pad_lo[d] = total / 2;
        p.pad_hi[d] = total - total / 2;  // the odd one goes to the end, as torch pads
      }
    } else if (mode != "valid") {
      return call.Invalid(absl::StrCat("padding='", mode, "' is not 'same' or 'valid'"));
    }
  }
  p.output_padding.assign(sd, 0);
  if (transposed) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> op, call.Ints("output_padding"));
    PT2ONNX_ASSIGN_OR_RETURN(p.output_padding, Expand(op, sd, "output_padding"));
  }
  return p;
}

// aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor
absl::Status ConvNd(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(ConvParams p, ReadParams(call, false, true));
  return Run(call, p);
}
// aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], str padding="valid", SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor
absl::Status ConvNdPadding(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(ConvParams p, ReadParams(call, false, false));
  return Run(call, p);
}
// aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor
absl::Status Convolution(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(bool transposed, call.Bool("transposed"));
  PT2ONNX_ASSIGN_OR_RETURN(ConvParams p, ReadParams(call, transposed, true));
  return Run(call, p);
}
// aten::conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], SymInt[2] output_padding=[0, 0], SymInt groups=1, SymInt[2] dilation=[1, 1]) -> Tensor
absl::Status ConvTransposeNd(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(ConvParams p, ReadParams(call, true, true));
  return Run(call, p);
}

}  // namespace

void RegisterConvRef(RefRegistry& r) {
  r.Add("aten::conv1d.default", ConvNd);
  r.Add("aten::conv2d.default", ConvNd);
  r.Add("aten::conv3d.default", ConvNd);
  r.Add("aten::conv1d.padding", ConvNdPadding);
  r.Add("aten::conv2d.padding", ConvNdPadding);
  r.Add("aten::conv3d.padding", ConvNdPadding);
  r.Add("aten::convolution.default", Convolution);
  r.Add("aten::_convolution.default", Convolution);
  r.Add("aten::_convolution.deprecated", Convolution);
  r.Add("aten::conv_transpose1d.default", ConvTransposeNd);
  r.Add("aten::conv_transpose2d.input", ConvTransposeNd);
  r.Add("aten::conv_transpose3d.input", ConvTransposeNd);
}

}  // namespace pt2onnx::reference
