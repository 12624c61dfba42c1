// File: reference/recurrent.cc
// -----------------------------------------------------------------------------
// Reference kernels: aten::lstm / gru / rnn_tanh / rnn_relu (.input), with
// torch's cell equations (aten/src/ATen/native/RNN.cpp: LSTMCell, GRUCell,
// SimpleCell, FullLayer, FullBidirectionalLayer), computed in double:
//   LSTM  gates = x W_ih^T + b_ih + h W_hh^T + b_hh, chunks i, f, g, o;
//         c' = sig(f) c + sig(i) tanh(g); h' = sig(o) tanh(c'), then
//         h' = h' W_hr^T when a projection weight is given (proj_size).
//   GRU   chunks r, z, n of the input and hidden products (biases included);
//         n = tanh(x_n + sig(r) * h_n); h' = (1 - z) n + z h.
//   RNN   h' = tanh / relu(x W_ih^T + b_ih + h W_hh^T + b_hh).
// Params hold, per layer and direction, w_ih, w_hh, [b_ih, b_hh], [w_hr].
// A layer's output is its directions' outputs side by side; the reverse
// direction runs from the last step to the first. Dropout only acts in
// training between layers; eval mode (train=False) ignores it.
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

enum class Mode { kLstm, kGru, kTanh, kRelu };

double Sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// A row-major matrix read as doubles.
struct Matrix {
  std::vector<double> v;
  int64_t rows = 0, cols = 0;
};

// A [rows, cols] weight, or a [rows] bias when `cols` is 0.
absl::StatusOr<Matrix> ReadMatrix(const RefCall& call, const Tensor& t, int64_t rows, int64_t cols,
                                  const char* what) {
  const bool vector = cols == 0;
  if (t.rank() != (vector ? 1 : 2) || t.dim(0) != rows || (!vector && t.dim(1) != cols)) {
    return call.Invalid(absl::StrCat(what, " has shape ", DimsString(t.dims()), "; expected [", rows,
                                     vector ? "" : absl::StrCat(", ", cols), "]"));
  }
  return Matrix{ToDoubles(t), rows, vector ? 1 : cols};
}

// y[j] = sum_k m[j, k] x[k] (+ bias[j])
void MatVec(const Matrix& m, const double* x, const Matrix* bias, double* y) {
  for (int64_t j = 0; j < m.rows; ++j) {
    double acc = bias != nullptr ? bias->v[j] : 0.0;
    for (int64_t k = 0; k < m.cols; ++k) acc += m.v[j * m.cols + k] * x[k];
    y[j] = acc;
  }
}

absl::Status Recurrent(RefCall& call, Mode mode) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> params, call.Inputs("params"));
  PT2ONNX_ASSIGN_OR_RETURN(bool biases, call.Bool("has_biases"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t layers, call.Int("num_layers"));
  PT2ONNX_ASSIGN_OR_RETURN(double dropout, call.Double("dropout"));
  PT2ONNX_ASSIGN_OR_RETURN(bool train, call.Bool("train"));
  PT2ONNX_ASSIGN_OR_RETURN(bool bidirectional, call.Bool("bidirectional"));
  PT2ONNX_ASSIGN_OR_RETURN(bool batch_first, call.Bool("batch_first"));
  std::vector<Tensor> hx;
  if (mode == Mode::kLstm) {
    PT2ONNX_ASSIGN_OR_RETURN(hx, call.Inputs("hx"));
    if (hx.size() != 2) return call.Invalid(absl::StrCat("hx must hold (h0, c0), got ", hx.size(), " tensors"));
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor h0, call.Input("hx"));
    hx.push_back(std::move(h0));
  }
  if (train && dropout > 0 && layers > 1) {
    return call.Unsupported("dropout between layers in training mode is random; export in eval mode");
  }
  if (input.rank() != 3) return call.Invalid("input must be 3-D");
  const int64_t dirs = bidirectional ? 2 : 1;
  const int64_t gates = mode == Mode::kLstm ? 4 : mode == Mode::kGru ? 3 : 1;
  const int64_t base = biases ? 4 : 2;
  if (layers < 1 || params.empty() || static_cast<int64_t>(params.size()) % (layers * dirs) != 0) {
    return call.Invalid(absl::StrCat(params.size(), " params for ", layers, " layers x ", dirs, " directions"));
  }
  const int64_t per = static_cast<int64_t>(params.size()) / (layers * dirs);
  const bool proj = mode == Mode::kLstm && per == base + 1;
  if (per != base && !proj) return call.Invalid(absl::StrCat(per, " params per layer and direction"));
  if (params[0].rank() != 2 || params[0].dim(0) % gates != 0) return call.Invalid("w_ih must be [gates*H, in]");
  const int64_t H = params[0].dim(0) / gates;
  const int64_t P = proj ? params[static_cast<size_t>(base)].dim(0) : H;  // h's size
  const int64_t T = batch_first ? input.dim(1) : input.dim(0);
  const int64_t B = batch_first ? input.dim(0) : input.dim(1);
  const Dims hdims{layers * dirs, B, P}, cdims{layers * dirs, B, H};
  if (hx[0].dims() != hdims) return call.Invalid(absl::StrCat("h0 must be ", DimsString(hdims)));
  if (mode == Mode::kLstm && hx[1].dims() != cdims) return call.Invalid(absl::StrCat("c0 must be ", DimsString(cdims)));

  // Layer input as [T][B][feature].
  int64_t feat = input.dim(2);
  std::vector<double> raw = ToDoubles(input), x(static_cast<size_t>(T * B * feat));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < feat; ++k)
        x[(t * B + b) * feat + k] = raw[((batch_first ? b * T + t : t * B + b)) * feat + k];
  std::vector<double> h0 = ToDoubles(hx[0]);
  std::vector<double> c0 = mode == Mode::kLstm ? ToDoubles(hx[1]) : std::vector<double>();
  std::vector<double> hn(h0.size()), cn(c0.size());
  for (int64_t layer = 0; layer < layers; ++layer) {
    std::vector<double> y(static_cast<size_t>(T * B * dirs * P));
    for (int64_t d = 0; d < dirs; ++d) {
      const size_t at = static_cast<size_t>((layer * dirs + d) * per);
      PT2ONNX_ASSIGN_OR_RETURN(Matrix wih, ReadMatrix(call, params[at], gates * H, feat, "w_ih"));
      PT2ONNX_ASSIGN_OR_RETURN(Matrix whh, ReadMatrix(call, params[at + 1], gates * H, P, "w_hh"));
      Matrix bih{std::vector<double>(static_cast<size_t>(gates * H)), gates * H, 1}, bhh = bih, whr;
      if (biases) {
        PT2ONNX_ASSIGN_OR_RETURN(bih, ReadMatrix(call, params[at + 2], gates * H, 0, "b_ih"));
        PT2ONNX_ASSIGN_OR_RETURN(bhh, ReadMatrix(call, params[at + 3], gates * H, 0, "b_hh"));
      }
      if (proj) {
        PT2ONNX_ASSIGN_OR_RETURN(whr, ReadMatrix(call, params[at + base], P, H, "w_hr"));
      }
      const int64_t s = layer * dirs + d;
      for (int64_t b = 0; b < B; ++b) {
        std::vector<double> h(h0.begin() + (s * B + b) * P, h0.begin() + (s * B + b + 1) * P);
        std::vector<double> c = mode == Mode::kLstm
                                    ? std::vector<double>(c0.begin() + (s * B + b) * H, c0.begin() + (s * B + b + 1) * H)
                                    : std::vector<double>();
        std::vector<double> xi(static_cast<size_t>(gates * H)), hh(xi.size()), cell(static_cast<size_t>(H));
        for (int64_t step = 0; step < T; ++step) {
          const int64_t t = d == 0 ? step : T - 1 - step;
          MatVec(wih, &x[(t * B + b) * feat], &bih, xi.data());
          MatVec(whh, h.data(), &bhh, hh.data());
          if (mode == Mode::kLstm) {
            for (int64_t j = 0; j < H; ++j) {
              double i = Sigmoid(xi[j] + hh[j]), f = Sigmoid(xi[H + j] + hh[H + j]);
              double g = std::tanh(xi[2 * H + j] + hh[2 * H + j]), o = Sigmoid(xi[3 * H + j] + hh[3 * H + j]);
              c[j] = f * c[j] + i * g;
              cell[j] = o * std::tanh(c[j]);
            }
            if (proj) MatVec(whr, cell.data(), nullptr, h.data());
            else h = cell;
          } else if (mode == Mode::kGru) {
            for (int64_t j = 0; j < H; ++j) {
              double r = Sigmoid(xi[j] + hh[j]), z = Sigmoid(xi[H + j] + hh[H + j]);
              double n = std::tanh(xi[2 * H + j] + r * hh[2 * H + j]);
              cell[j] = (1 - z) * n + z * h[j];
            }
            h = cell;
          } else {
            for (int64_t j = 0; j < H; ++j) {
              double v = xi[j] + hh[j];
              h[j] = mode == Mode::kTanh ? std::tanh(v) : (v > 0 ? v : 0.0);
            }
          }
          for (int64_t j = 0; j < P; ++j) y[((t * B + b) * dirs + d) * P + j] = h[j];
        }
        for (int64_t j = 0; j < P; ++j) hn[(s * B + b) * P + j] = h[j];
        for (int64_t j = 0; j < static_cast<int64_t>(c.size()); ++j) cn[(s * B + b) * H + j] = c[j];
      }
    }
    x = std::move(y);
    feat = dirs * P;
  }
  Dims ydims = batch_first ? Dims{B, T, feat} : Dims{T, B, feat};
  std::vector<double> out(x.size());
  for (int64_t t = 0; t < T; ++t)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t k = 0; k < feat; ++k)
        out[(batch_first ? b * T + t : t * B + b) * feat + k] = x[(t * B + b) * feat + k];
  std::vector<Tensor> results;
  PT2ONNX_ASSIGN_OR_RETURN(Tensor yt, FromDoubles(input.dtype(), ydims, out));
  results.push_back(std::move(yt));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor ht, FromDoubles(input.dtype(), hdims, hn));
  results.push_back(std::move(ht));
  if (mode == Mode::kLstm) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor ct, FromDoubles(input.dtype(), cdims, cn));
    results.push_back(std::move(ct));
  }
  // A tuple return: one result per output (SetTensors makes one Tensor[] value).
  for (Tensor& t : results) PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(t)));
  return absl::OkStatus();
}

// aten::lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor, Tensor)
absl::Status LstmInput(RefCall& call) { return Recurrent(call, Mode::kLstm); }
// aten::gru.input(Tensor input, Tensor hx, Tensor[] params, ...same...) -> (Tensor, Tensor)
absl::Status GruInput(RefCall& call) { return Recurrent(call, Mode::kGru); }
// aten::rnn_tanh.input / rnn_relu.input (same arguments as gru.input)
absl::Status RnnTanhInput(RefCall& call) { return Recurrent(call, Mode::kTanh); }
absl::Status RnnReluInput(RefCall& call) { return Recurrent(call, Mode::kRelu); }

// aten::lstm.data / gru.data / rnn_tanh.data / rnn_relu.data: packed sequences,
// refused as the translator refuses them (ops/recurrent.cc).
absl::Status PackedSequence(RefCall& call) {
  return call.Unsupported("recurrent layers over packed sequences: the batch size of each time step is "
                          "data-dependent; run the layer on the padded tensor instead");
}

}  // namespace

void RegisterRecurrentRef(RefRegistry& r) {
  r.Add("aten::lstm.input", LstmInput);
  r.Add("aten::gru.input", GruInput);
  r.Add("aten::rnn_tanh.input", RnnTanhInput);
  r.Add("aten::rnn_relu.input", RnnReluInput);
  r.Add("aten::lstm.data", PackedSequence);
  r.Add("aten::gru.data", PackedSequence);
  r.Add("aten::rnn_tanh.data", PackedSequence);
  r.Add("aten::rnn_relu.data", PackedSequence);
}

}  // namespace pt2onnx::reference
