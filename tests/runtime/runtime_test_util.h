// One-node models run through a Session, for kernel tests.
#ifndef PT2ONNX_TESTS_RUNTIME_RUNTIME_TEST_UTIL_H_
#define PT2ONNX_TESTS_RUNTIME_RUNTIME_TEST_UTIL_H_

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/ir/graph.h"
#include "runtime/plan/session.h"

namespace pt2onnx::runtime::testing {

template <typename T>
Tensor Make(DataType dtype, Dims dims, const std::vector<T>& values) {
  Tensor t = *Tensor::Allocate(dtype, std::move(dims), nullptr);
  if (!values.empty()) std::memcpy(t.raw(), values.data(), values.size() * sizeof(T));
  return t;
}
inline Tensor F32(Dims dims, const std::vector<float>& v) { return Make(DataType::kFloat, std::move(dims), v); }
inline Tensor I64(Dims dims, const std::vector<int64_t>& v) { return Make(DataType::kInt64, std::move(dims), v); }

template <typename T>
std::vector<T> Values(const Tensor& t) {
  std::vector<T> v(t.numel());
  if (!v.empty()) std::memcpy(v.data(), t.raw(), v.size() * sizeof(T));
  return v;
}

// A float32 weight of `dims` with values uniform in [-1, 1).
inline ir::Tensor RandomFloats(Dims dims, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1, 1);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return ir::Tensor::Owned(DataType::kFloat, dims, std::string(reinterpret_cast<const char*>(v.data()), n * 4));
}

// A runtime tensor holding a copy of an IR tensor's bytes (an input made with RandomFloats).
inline Tensor FromIr(const ir::Tensor& t) {
  Tensor out = *Tensor::Allocate(t.dtype(), t.dims(), nullptr);
  if (out.byte_size() != 0) std::memcpy(out.raw(), t.bytes().data(), out.byte_size());
  return out;
}

// The same model in a session with XNNPACK (`accelerated`) and one with the portable kernels only, to
// compare the two.
struct SessionPair {
  std::unique_ptr<Session> accelerated;
  std::unique_ptr<Session> portable;
};
inline absl::StatusOr<SessionPair> AcceleratedAndPortable(const ir::Model& model) {
  SessionOptions portable_only;
  portable_only.accelerate = false;
  auto accelerated = Session::Create(model, SessionOptions{});
  if (!accelerated.ok()) return accelerated.status();
  auto portable = Session::Create(model, portable_only);
  if (!portable.ok()) return portable.status();
  return SessionPair{*std::move(accelerated), *std::move(portable)};
}

struct Input {
  Tensor value;
  bool constant = false;  // an initializer (weights get pre-packed)
};

// Runs `op` on `inputs` (named in0, in1, ...; "" entries are omitted inputs).
inline absl::StatusOr<std::vector<NamedTensor>> RunOp(const std::string& op, std::vector<ir::Attribute> attrs,
                                                      const std::vector<Input>& inputs, int num_outputs = 1,
                                                      bool accelerate = true, int64_t opset = 20) {
  ir::Model model;
  model.opset_imports.push_back({"", opset});
  ir::Node node;
  node.name = "n";
  node.op_type = op;
  node.attributes = std::move(attrs);
  std::vector<NamedTensor> feeds;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].value.dtype() == DataType::kUndefined) {
      node.inputs.push_back("");
      continue;
    }
    std::string name = absl::StrCat("in", i);
    node.inputs.push_back(name);
    const Tensor& t = inputs[i].value;
    if (inputs[i].constant) {
      std::string bytes(reinterpret_cast<const char*>(t.raw()), t.byte_size());
      model.graph.initializers.push_back({name, ir::Tensor::Owned(t.dtype(), t.dims(), bytes), {}});
    } else {
      model.graph.inputs.push_back({name, t.dtype(), std::nullopt, {}});
      feeds.push_back({name, t});
    }
  }
  for (int i = 0; i < num_outputs; ++i) {
    node.outputs.push_back(absl::StrCat("out", i));
    model.graph.outputs.push_back({absl::StrCat("out", i), DataType::kUndefined, std::nullopt, {}});
  }
  model.graph.nodes.push_back(node);
  SessionOptions options;
  options.accelerate = accelerate;
  auto session = Session::Create(model, options);
  if (!session.ok()) return session.status();
  return (*session)->Run(feeds);
}

}  // namespace pt2onnx::runtime::testing

#endif  // PT2ONNX_TESTS_RUNTIME_RUNTIME_TEST_UTIL_H_
