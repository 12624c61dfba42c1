// File: ops/complex_layout.h
// -----------------------------------------------------------------------------
// Complex tensors in translations: ONNX has no complex arithmetic, so a
// complex value is carried as a real tensor with a trailing dim of 2 (real,
// imaginary), the layout ONNX DFT reads and writes. ops/fft.cc holds the
// FFT ops that produce and consume it; this header lets a dtype conversion
// (real -> complex `_to_copy`, as torch.fft of a real input decomposes)
// produce it too.
//
//   if (IsComplex(OutDtype)) return BindRealAsComplex(ctx);
#ifndef PT2ONNX_OPS_COMPLEX_LAYOUT_H_
#define PT2ONNX_OPS_COMPLEX_LAYOUT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

// Binds output 0 to the real tensor argument `self` as a complex value
// (imaginary part 0). Unimplemented when `self` is complex, or when a reader
// of the result is not an op that understands the layout (see fft.cc).
absl::Status BindRealAsComplex(TranslateContext& ctx);

// Unimplemented unless every reader of the node's output 0 understands the
// layout (FFT ops, view_as_real, the complex views of complex_views.cc); a
// program output is one (written in the layout and marked, see
// translate/fx_values.h). A translation producing a complex value calls it.
absl::Status CheckComplexLayoutReaders(const TranslateContext& ctx);

// Tensor argument `self` as a complex value in the layout; Unimplemented
// unless an op that writes the layout produced it.
absl::StatusOr<std::string> ComplexLayoutOperand(TranslateContext& ctx);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_COMPLEX_LAYOUT_H_
