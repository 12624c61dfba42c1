// File: runtime/kernels/recurrent_weights.cc
// -----------------------------------------------------------------------------
// Bias folding and the matrix products of kernels/recurrent.cc. ONNX stores
// W and R as [gates, input] and [gates, hidden] per direction: the
// [output, input] layout PackedGemm takes, so no transposition here.
#include "runtime/kernels/recurrent_weights.h"

#include <vector>

namespace pt2onnx::runtime {

template <typename T>
RecurrentWeights<T> PrepareRecurrentWeights(const RecurrentShape& shape, const T* w, const T* r, const T* b,
                                            const T* p, bool accelerate) {
  const int64_t dirs = shape.directions, hidden = shape.hidden, gates = shape.gates();
  const bool gru = shape.cell == RecurrentCell::kGru;
  const bool bias_after_reset = gru && shape.linear_before_reset;
  RecurrentWeights<T> out;
  std::vector<T> input_bias;
  if (b != nullptr) {
    input_bias.resize(static_cast<size_t>(dirs * gates));
    for (int64_t d = 0; d < dirs; ++d) {
      const T* wb = b + d * 2 * gates;
      const T* rb = wb + gates;
      for (int64_t k = 0; k < gates; ++k) {
        const bool keep_rb_apart = bias_after_reset && k >= 2 * hidden;
        input_bias[d * gates + k] = keep_rb_apart ? wb[k] : wb[k] + rb[k];
      }
    }
  }
  // W of all directions is one [dirs * gates, input] matrix.
  out.input = CreatePackedGemm(w, b != nullptr ? input_bias.data() : nullptr, dirs * gates, shape.input, accelerate);
  std::vector<T> hidden_bias;
  for (int64_t d = 0; d < dirs; ++d) {
    const T* rd = r + d * gates * hidden;
    const T* bias = nullptr;
    if (bias_after_reset && b != nullptr) {
      hidden_bias.assign(static_cast<size_t>(gates), T(0));
      const T* rb = b + d * 2 * gates + gates;
      for (int64_t k = 2 * hidden; k < gates; ++k) hidden_bias[k] = rb[k];
      bias = hidden_bias.data();
    }
    out.hidden.push_back(CreatePackedGemm(rd, bias, shape.hidden_product_columns(), hidden, accelerate));
    if (gru && !shape.linear_before_reset) {
      out.reset_hidden.push_back(CreatePackedGemm(rd + 2 * hidden * hidden, static_cast<const T*>(nullptr), hidden,
                                                  hidden, accelerate));
    }
  }
  if (p != nullptr) out.peepholes.assign(p, p + dirs * 3 * hidden);
  return out;
}

template RecurrentWeights<float> PrepareRecurrentWeights(const RecurrentShape&, const float*, const float*,
                                                         const float*, const float*, bool);
template RecurrentWeights<double> PrepareRecurrentWeights(const RecurrentShape&, const double*, const double*,
                                                          const double*, const double*, bool);

}  // namespace pt2onnx::runtime
