// File: reference/ref_value.h
// -----------------------------------------------------------------------------
// A value of the reference interpreter: what an FX node produces or reads.
// Tensors are row-major, contiguous runtime tensors; SymInt/SymFloat/SymBool
// values are plain numbers; lists hold split/unbind results and tuples.
#ifndef PT2ONNX_REFERENCE_REF_VALUE_H_
#define PT2ONNX_REFERENCE_REF_VALUE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor/tensor.h"

namespace pt2onnx::reference {


struct RefValue {
  // kUnavailable: an output the interpreter does not compute (a backend's
  // bookkeeping such as rng_state); reading it is an error naming `reason`.
  enum class Kind { kNone, kTensor, kInt, kFloat, kBool, kList, kUnavailable };
  Kind kind = Kind::kNone;
  Tensor tensor;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::vector<RefValue> list;
  std::string reason;  // kUnavailable: why
  // Non-empty: the value derives from random numbers (why), so it cannot be
  // compared with the converted model's; the interpreter passes it on to
  // every result of a node that reads such a value.
  std::string not_comparable;
  // A view of another tensor (slice, select, transpose, ...), which the
  // interpreter keeps as a copy: the buffer it views and, per element, the
  // flat element index there, so in-place ops on it write through.
  std::shared_ptr<Buffer> view_base;
  std::shared_ptr<const std::vector<int64_t>> view_index;

  static RefValue OfTensor(Tensor t) {
    RefValue v;
    v.kind = Kind::kTensor;
    v.tensor = std::move(t);
    return v;
  }
  static RefValue OfInt(int64_t x) {
    RefValue v;
    v.kind = Kind::kInt;
    v.i = x;
    return v;
  }
  static RefValue OfFloat(double x) {
    RefValue v;
    v.kind = Kind::kFloat;
    v.f = x;
    return v;
  }
  static RefValue OfBool(bool x) {
    RefValue v;
    v.kind = Kind::kBool;
    v.b = x;
    return v;
  }
  static RefValue Unavailable(std::string why) {
    RefValue v;
    v.kind = Kind::kUnavailable;
    v.reason = std::move(why);
    return v;
  }
  static RefValue OfTensors(std::vector<Tensor> ts) {
    RefValue v;
    v.kind = Kind::kList;
    for (Tensor& t : ts) v.list.push_back(OfTensor(std::move(t)));
    return v;
  }
};

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_REF_VALUE_H_
