// File: runtime/kernels/recurrent_weights.h
// -----------------------------------------------------------------------------
// The weights of an ONNX LSTM / GRU / RNN node made ready for its time loop
// (kernels/recurrent.cc): W of every direction as one matrix product over
// all time steps at once, R per direction as the product applied to
// H_{t-1} at each step, the biases folded into them. Prepared when the
// kernel is created if the weights are constants, else once per run.
//
//   RecurrentWeights<float> weights = PrepareRecurrentWeights(shape, w, r, b, p, accelerate);
//   PT2ONNX_RETURN_IF_ERROR(weights.input->Run(x, seq * batch, projected, pool));
#ifndef PT2ONNX_RUNTIME_KERNELS_RECURRENT_WEIGHTS_H_
#define PT2ONNX_RUNTIME_KERNELS_RECURRENT_WEIGHTS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/kernels/packed_gemm.h"

namespace pt2onnx::runtime {

enum class RecurrentCell { kLstm, kGru, kRnn };

inline int64_t GateCount(RecurrentCell cell) {
  return cell == RecurrentCell::kLstm ? 4 : cell == RecurrentCell::kGru ? 3 : 1;
}

struct RecurrentShape {
  RecurrentCell cell = RecurrentCell::kLstm;
  int64_t directions = 1;
  int64_t hidden = 0;
  int64_t input = 0;
  bool linear_before_reset = false;  // GRU
  int64_t gates() const { return GateCount(cell) * hidden; }
  // Columns of the per-step product H_{t-1} R^T: a GRU without
  // linear_before_reset multiplies R's h rows by r * H_{t-1} instead, so only
  // its z and r rows take part.
  int64_t hidden_product_columns() const {
    return cell == RecurrentCell::kGru && !linear_before_reset ? 2 * hidden : gates();
  }
};

template <typename T>
struct RecurrentWeights {
  // X [rows, input] -> [rows, directions * gates]: W x plus Wb + Rb (for a
  // GRU with linear_before_reset, plus Wb only in the h block: its Rb_h is
  // scaled by r, so it stays with the per-step product).
  std::unique_ptr<PackedGemm<T>> input;
  // Per direction, H_{t-1} [batch, hidden] -> [batch, hidden_product_columns()];
  // the bias is zero but for Rb_h of a GRU with linear_before_reset.
  std::vector<std::unique_ptr<PackedGemm<T>>> hidden;
  // GRU without linear_before_reset, per direction: (r * H_{t-1}) R_h^T.
  std::vector<std::unique_ptr<PackedGemm<T>>> reset_hidden;
  std::vector<T> peepholes;  // LSTM [directions, 3 * hidden] (i, o, f), or empty
};

// w [directions, gates, input], r [directions, gates, hidden], b
// [directions, 2 * gates] or null, p [directions, 3 * hidden] or null (LSTM);
// all are copied. `accelerate`: float32 products through XNNPACK where it
// takes them.
template <typename T>
RecurrentWeights<T> PrepareRecurrentWeights(const RecurrentShape& shape, const T* w, const T* r, const T* b,
                                            const T* p, bool accelerate);

}  // namespace pt2onnx::runtime

#endif  // PT2ONNX_RUNTIME_KERNELS_RECURRENT_WEIGHTS_H_
