// File: runtime/kernels/recurrent_cells.h
// -----------------------------------------------------------------------------
// One time step of one batch entry of the ONNX cells (kernels/recurrent.cc),
// in place on rows of `hidden` values: `gates` holds the per-step product
// H_{t-1} R^T of the entry, `in` its input product W x_t with the folded
// biases (kernels/recurrent_weights.h). Each line is a loop over a
// contiguous row, so the compiler vectorises it.
#ifndef PT2ONNX_RUNTIME_KERNELS_RECURRENT_CELLS_H_
#define PT2ONNX_RUNTIME_KERNELS_RECURRENT_CELLS_H_

#include <algorithm>
#include <cstdint>

#include "runtime/kernels/gate_activations.h"

namespace pt2onnx::runtime {

// The spec's f, g and h (only the first one or two for RNN and GRU).
struct CellActivations {
  GateActivation f, g, h;
};

template <typename T>
void RnnStep(int64_t hidden, const CellActivations& acts, T* gates, const T* in, T* h) {
  for (int64_t j = 0; j < hidden; ++j) gates[j] += in[j];
  ActivateInPlace(acts.f, gates, hidden);
  std::copy_n(gates, hidden, h);
}

// Gate blocks i, o, f, c; peepholes (null: none) i, o, f; `scratch` holds
// `hidden` values.
template <typename T>
void LstmStep(int64_t hidden, const CellActivations& acts, T* gates, const T* in, const T* peepholes, T* h, T* c,
              T* scratch) {
  const int64_t H = hidden;
  T *i = gates, *o = gates + H, *f = gates + 2 * H, *cand = gates + 3 * H;
  for (int64_t k = 0; k < 4 * H; ++k) gates[k] += in[k];
  if (peepholes != nullptr) {  // i and f see c_{t-1}, o sees c_t
    for (int64_t j = 0; j < H; ++j) i[j] += peepholes[j] * c[j];
    for (int64_t j = 0; j < H; ++j) f[j] += peepholes[2 * H + j] * c[j];
    ActivateInPlace(acts.f, i, H);
    ActivateInPlace(acts.f, f, H);
  } else {
    ActivateInPlace(acts.f, gates, 3 * H);  // i, o and f at once
  }
  ActivateInPlace(acts.g, cand, H);
  for (int64_t j = 0; j < H; ++j) c[j] = f[j] * c[j] + i[j] * cand[j];
  if (peepholes != nullptr) {
    for (int64_t j = 0; j < H; ++j) o[j] += peepholes[H + j] * c[j];
    ActivateInPlace(acts.f, o, H);
  }
  std::copy_n(c, H, scratch);
  ActivateInPlace(acts.h, scratch, H);
  for (int64_t j = 0; j < H; ++j) h[j] = o[j] * scratch[j];
}

// GRU with linear_before_reset: blocks z, r, h; `gates` includes Rb_h.
template <typename T>
void GruStepResetAfter(int64_t hidden, const CellActivations& acts, T* gates, const T* in, T* h) {
  const int64_t H = hidden;
  T *z = gates, *reset = gates + H, *cand = gates + 2 * H;
  for (int64_t k = 0; k < 2 * H; ++k) gates[k] += in[k];
  ActivateInPlace(acts.f, gates, 2 * H);
  for (int64_t j = 0; j < H; ++j) cand[j] = in[2 * H + j] + reset[j] * cand[j];
  ActivateInPlace(acts.g, cand, H);
  for (int64_t j = 0; j < H; ++j) h[j] = (1 - z[j]) * cand[j] + z[j] * h[j];
}

// GRU without linear_before_reset, in two halves around the product
// (r * H_{t-1}) R_h^T. First: z and r from `gates` (the z and r columns
// only), and r * H_{t-1} into `reset_h`.
template <typename T>
void GruResetGate(int64_t hidden, const CellActivations& acts, T* gates, const T* in, const T* h, T* reset_h) {
  const int64_t H = hidden;
  for (int64_t k = 0; k < 2 * H; ++k) gates[k] += in[k];
  ActivateInPlace(acts.f, gates, 2 * H);
  const T* reset = gates + H;
  for (int64_t j = 0; j < H; ++j) reset_h[j] = reset[j] * h[j];
}

// Second: `reset_product` holds (r * H_{t-1}) R_h^T, `gates` z from the first.
template <typename T>
void GruUpdate(int64_t hidden, const CellActivations& acts, const T* gates, const T* in, T* reset_product, T* h) {
  const int64_t H = hidden;
  const T* z = gates;
  T* cand = reset_product;
  for (int64_t j = 0; j < H; ++j) cand[j] += in[2 * H + j];
  ActivateInPlace(acts.g, cand, H);
  for (int64_t j = 0; j < H; ++j) h[j] = (1 - z[j]) * cand[j] + z[j] * h[j];
}

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_RECURRENT_CELLS_H_
