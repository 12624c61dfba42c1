// File: core/ir/attribute.h
// -----------------------------------------------------------------------------
// ir::Attribute: a node attribute, one value of one of ONNX's attribute kinds.
// Subgraphs (If/Loop/Scan bodies) are held by value: copying an attribute
// copies its graph. Include core/ir/graph.h rather than this file, so that
// Graph is complete wherever attributes are copied or destroyed.
//
// Reading a kind the attribute does not hold gives that kind's zero (0, "",
// an empty list, an empty tensor, an empty graph), as an unset field of
// ONNX's AttributeProto reads; code that must tell kinds apart checks type()
// first. Writing through set_*/mutable_* makes the attribute of that kind
// (dropping a value of another kind), as protobuf's one-of setters do.
#ifndef PT2ONNX_CORE_IR_ATTRIBUTE_H_
#define PT2ONNX_CORE_IR_ATTRIBUTE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/ir/box.h"
#include "core/ir/tensor.h"

namespace pt2onnx::ir {

struct Graph;

class Attribute {
 public:
  // In the order of the alternatives of Value.
  enum class Type { kFloat, kInt, kString, kTensor, kGraph, kFloats, kInts, kStrings };

  std::string name;

  Attribute() : value_(std::in_place_index<kIndex<Type::kInt>>, int64_t{0}) {}

  static Attribute Int(std::string name, int64_t v);
  static Attribute Float(std::string name, float v);
  static Attribute String(std::string name, std::string v);
  static Attribute Ints(std::string name, std::vector<int64_t> v);
  static Attribute Floats(std::string name, std::vector<float> v);
  static Attribute Strings(std::string name, std::vector<std::string> v);
  static Attribute TensorValue(std::string name, Tensor v);
  static Attribute GraphValue(std::string name, Graph v);

  Type type() const { return static_cast<Type>(value_.index()); }

  float f() const { return Get<Type::kFloat>(); }
  int64_t i() const { return Get<Type::kInt>(); }
  const std::string& s() const { return Get<Type::kString>(); }
  const Tensor& t() const { return Get<Type::kTensor>(); }
  const Graph& g() const;
  const std::vector<float>& floats() const { return Get<Type::kFloats>(); }
  const std::vector<int64_t>& ints() const { return Get<Type::kInts>(); }
  const std::vector<std::string>& strings() const { return Get<Type::kStrings>(); }

  void set_f(float v) { Mutable<Type::kFloat>() = v; }
  void set_i(int64_t v) { Mutable<Type::kInt>() = v; }
  std::string& mutable_s() { return Mutable<Type::kString>(); }
  Tensor& mutable_t() { return Mutable<Type::kTensor>(); }
  Graph& mutable_g();
  std::vector<float>& mutable_floats() { return Mutable<Type::kFloats>(); }
  std::vector<int64_t>& mutable_ints() { return Mutable<Type::kInts>(); }
  std::vector<std::string>& mutable_strings() { return Mutable<Type::kStrings>(); }

 private:
  using Value = std::variant<float, int64_t, std::string, Tensor, Box<Graph>, std::vector<float>,
                             std::vector<int64_t>, std::vector<std::string>>;
  template <Type K>
  static constexpr size_t kIndex = static_cast<size_t>(K);
  template <Type K>
  using Alternative = std::variant_alternative_t<kIndex<K>, Value>;

  template <Type K, typename V>
  static Attribute Make(std::string name, V&& v) {
    Attribute a;
    a.name = std::move(name);
    a.value_.template emplace<kIndex<K>>(std::forward<V>(v));
    return a;
  }
  template <Type K>
  const Alternative<K>& Get() const {
    if (const auto* held = std::get_if<kIndex<K>>(&value_)) return *held;
    static const Alternative<K> zero{};
    return zero;
  }
  template <Type K>
  Alternative<K>& Mutable() {
    if (auto* held = std::get_if<kIndex<K>>(&value_)) return *held;
    return value_.template emplace<kIndex<K>>();
  }

  Value value_;
};

}  // namespace pt2onnx::ir

#endif  // PT2ONNX_CORE_IR_ATTRIBUTE_H_
