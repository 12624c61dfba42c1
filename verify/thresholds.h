// File: verify/thresholds.h
// -----------------------------------------------------------------------------
// When --verify calls two tensors equal, per the expected (torch) dtype.
//
// float32, float64, integers and bool keep torch.onnx's rule
// (torch/onnx/_internal/exporter/_core.py, export(verify=True)): a value
// fails when max_abs_diff >= 5e-3 or max_rel_diff >= 1e-1, the relative
// difference taken over |expected| + 1e-7 (_verification.py), with one
// exception: an element whose absolute difference is below torch.testing's
// default atol for the dtype (float32 1e-5, float64 1e-7) is not judged by
// its relative difference. Summed in another order, a float32 value that
// cancels to 4e-5 from terms of size 1 moves by a few 1e-6 in any engine,
// which over |expected| + 1e-7 reads as rel 0.1 or more; a wrong
// translation moves values by far more than 1e-5.
//
// Half precision (float16, bfloat16, the float8 types) cannot use that rule:
// one unit in the last place (ulp) at 1 is 9.8e-4 in float16 and 7.8e-3 in
// bfloat16, so torch's 5e-3 judges bfloat16 values >= 1 by whether two
// engines round them alike, and over |expected| + 1e-7 a one-ulp difference
// on a value near zero (a logit of 6e-5 beside logits of 0.5) reads as
// rel 57. Both engines' errors there are ulps of the tensor's magnitude, not
// of the value's. So for half precision:
//   rel = |expected - actual| / max(|expected|, floor),
//   floor = max(the dtype's smallest normal, median of the nonzero finite
//               |expected| of the tensor),
// and a value fails when rel >= max_rel = N ulps of the dtype (N per dtype
// in thresholds.cc: enough for rounding that differs between engines and
// grows through a network, far below what a wrong translation gives).
// There is no absolute threshold for half precision: the floored relative
// difference covers values near zero, and an absolute one cannot know a
// tensor's magnitude.
//
//   const Thresholds t = ThresholdsFor(DataType::kBFloat16);
//   t.Fails(abs, rel)  // rel measured with t.RelFloor(expected)
#ifndef PT2ONNX_VERIFY_THRESHOLDS_H_
#define PT2ONNX_VERIFY_THRESHOLDS_H_

#include <string>

#include "core/dtype.h"
#include "core/tensor/tensor.h"

namespace pt2onnx::verify {

struct Thresholds {
  DataType dtype = DataType::kFloat;  // the expected value's dtype they were chosen for
  // Fails at max_abs_diff >= max_abs (infinity: no absolute check).
  double max_abs = 5e-3;
  // Fails at max_rel_diff >= max_rel, counting only elements whose absolute
  // difference is at least rel_min_abs (0: every element).
  double max_rel = 1e-1;
  double rel_min_abs = 0;
  // torch's normalizer |expected| + eps (eps = 1e-7); false: the half
  // precision one, max(|expected|, floor).
  bool torch_normalizer = true;
  double ulps = 0;  // max_rel in units of the dtype's epsilon (half precision only)

  bool Fails(double max_abs_diff, double max_rel_diff) const;
  // "abs < 0.005, rel < 0.1 where abs >= 1e-05 (torch.onnx's)" /
  // "rel < 0.125 (16 ulp) over max(|expected|, median)".
  std::string Text() const;
};

// The thresholds for values whose expected (reference) dtype is `dtype`.
Thresholds ThresholdsFor(DataType dtype);

// Epsilon (the spacing of values in [1, 2)) and smallest normal number of a
// floating dtype; 0 for others.
double DtypeEpsilon(DataType dtype);
double DtypeSmallestNormal(DataType dtype);

// The denominator floor for `expected` under `t`: 1e-7 added (torch's) or the
// max(|expected|, floor) floor described above.
double RelFloor(const Thresholds& t, const Tensor& expected);

}  // namespace pt2onnx::verify

#endif  // PT2ONNX_VERIFY_THRESHOLDS_H_
