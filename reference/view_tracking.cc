#include "reference/view_tracking.h"

#include <cstring>
#include <memory>
#include <set>
#include <utility>

#include "reference/ref_tensor.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

using Kind = pt2::Argument::Kind;

const pt2::NamedArgument* FirstTensorInput(const pt2::Node& node) {
  for (const pt2::NamedArgument& a : node.inputs) {
    if (a.arg.kind == Kind::kTensor) return &a;
  }
  return nullptr;
}

}  // namespace

absl::Status DetachResults(std::vector<RefValue>& results) {
  for (RefValue& r : results) {
    if (r.kind == RefValue::Kind::kTensor) {
      PT2ONNX_ASSIGN_OR_RETURN(r.tensor, CopyTensor(r.tensor));
    }
    for (RefValue& item : r.list) {
      if (item.kind == RefValue::Kind::kTensor) {
        PT2ONNX_ASSIGN_OR_RETURN(item.tensor, CopyTensor(item.tensor));
      }
    }
  }
  return absl::OkStatus();
}

// Overloads whose results alias their first input in torch (views).
bool IsViewOp(const std::string& key) {
  static const std::set<std::string>* views = new std::set<std::string>{
      "aten::view.default", "aten::_unsafe_view.default", "aten::unsqueeze.default", "aten::squeeze.default",
      "aten::squeeze.dim", "aten::squeeze.dims", "aten::slice.Tensor", "aten::select.int",
      "aten::transpose.int", "aten::permute.default", "aten::t.default", "aten::expand.default",
      "aten::narrow.default", "aten::diagonal.default", "aten::as_strided.default", "aten::alias.default",
      "aten::split.Tensor", "aten::split_with_sizes.default", "aten::chunk.default", "aten::unbind.int",
      "aten::unflatten.int", "aten::swapaxes.default", "aten::swapdims.default", "aten::movedim.int",
      "aten::unfold.default", "aten::tensor_split.indices", "aten::tensor_split.sections",
      "aten::tensor_split.tensor_indices_or_sections", "aten::hsplit.int", "aten::hsplit.array",
      "aten::vsplit.int", "aten::vsplit.array", "aten::dsplit.int", "aten::dsplit.array",
      "aten::mT.default", "aten::mH.default", "aten::adjoint.default", "aten::numpy_T.default",
      "aten::movedim.intlist", "aten::moveaxis.int", "aten::moveaxis.intlist", "aten::narrow.Tensor",
      "aten::_reshape_alias.default"};
  return views->count(key) > 0;
}

// aten::add_ and friends: the op name ends with '_'.
bool IsInPlaceOp(const std::string& key) {
  const size_t dot = key.rfind('.');
  return key.rfind("aten::", 0) == 0 && dot != std::string::npos && dot > 0 && key[dot - 1] == '_';
}


// Runs the view kernel again on the element indices of its input's base, so
// each result learns which base elements it shows.
absl::Status TrackView(const pt2::Node& node, const aten::OpSchema* schema, const pt2::Graph& graph,
                       RefKernel kernel, ValueMap& values, std::vector<RefValue>& results) {
  const pt2::NamedArgument* self = FirstTensorInput(node);
  if (self == nullptr) return absl::OkStatus();
  RefValue original = values[self->arg.name];
  if (original.kind != RefValue::Kind::kTensor) return absl::OkStatus();
  const Tensor& t = original.tensor;
  std::vector<int64_t> index(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) index[i] = original.view_index ? (*original.view_index)[i] : i;
  std::shared_ptr<Buffer> base = original.view_base ? original.view_base : t.buffer();
  PT2ONNX_ASSIGN_OR_RETURN(Tensor index_tensor, FromInts(DataType::kInt64, t.dims(), index));
  values[self->arg.name] = RefValue::OfTensor(index_tensor);
  RefCall call(node, schema, graph, values);
  absl::Status status = kernel(call);
  values[self->arg.name] = std::move(original);
  if (!status.ok()) return absl::OkStatus();  // not trackable: the result stays a plain copy
  auto attach = [&](RefValue& result, RefValue& mapped) {
    if (result.kind != RefValue::Kind::kTensor || mapped.kind != RefValue::Kind::kTensor ||
        mapped.tensor.numel() != result.tensor.numel()) {
      return;
    }
    result.view_base = base;
    result.view_index = std::make_shared<const std::vector<int64_t>>(ToInts(mapped.tensor));
  };
  for (size_t r = 0; r < results.size() && r < call.results().size(); ++r) {
    attach(results[r], call.results()[r]);
    for (size_t k = 0; k < results[r].list.size() && k < call.results()[r].list.size(); ++k) {
      attach(results[r].list[k], call.results()[r].list[k]);
    }
  }
  return absl::OkStatus();
}

// After an in-place op on a view: its new elements go to the viewed base.
void WriteThrough(const pt2::Node& node, ValueMap& values, std::vector<RefValue>& results) {
  const pt2::NamedArgument* self = FirstTensorInput(node);
  if (self == nullptr) return;
  const RefValue& v = values[self->arg.name];
  if (v.kind != RefValue::Kind::kTensor || !v.view_base || !v.view_index) return;
  const size_t es = ElementSize(v.tensor.dtype());
  const int64_t capacity = static_cast<int64_t>(v.view_base->capacity() / es);
  for (int64_t i = 0; i < v.tensor.numel(); ++i) {
    const int64_t at = (*v.view_index)[i];
    if (at >= 0 && at < capacity) std::memcpy(v.view_base->data() + at * es, v.tensor.raw() + i * es, es);
  }
  for (RefValue& r : results) {
    if (r.kind == RefValue::Kind::kTensor && r.tensor.buffer() == v.tensor.buffer()) {
      r.view_base = v.view_base;
      r.view_index = v.view_index;
    }
  }
}

}  // namespace pt2onnx::reference
