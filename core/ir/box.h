// File: core/ir/box.h
// -----------------------------------------------------------------------------
// Box<T>: one heap-allocated T with value semantics (copying a Box copies its
// T). It lets a type contain itself indirectly, as a Graph holds nodes whose
// attributes hold graphs, without sharing: two copies of a model never alias
// a subgraph, so a pass may edit one freely.
#ifndef PT2ONNX_CORE_IR_BOX_H_
#define PT2ONNX_CORE_IR_BOX_H_

#include <cassert>
#include <memory>
#include <utility>

namespace pt2onnx::ir {

template <typename T>
class Box {
 public:
  // T need only be complete where these members are used, not where Box<T>
  // is named.
  Box() : value_(std::make_unique<T>()) {}
  explicit Box(T value) : value_(std::make_unique<T>(std::move(value))) {}
  Box(const Box& other) : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  Box(Box&& other) noexcept = default;  // leaves `other` empty
  Box& operator=(const Box& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  Box& operator=(Box&& other) noexcept = default;
  ~Box() = default;

  const T& operator*() const {
    assert(value_ != nullptr && "use of a moved-from Box");
    return *value_;
  }
  T& operator*() {
    assert(value_ != nullptr && "use of a moved-from Box");
    return *value_;
  }
  const T* operator->() const { return &**this; }
  T* operator->() { return &**this; }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_BOX_H_
