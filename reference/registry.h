// File: reference/registry.h
// -----------------------------------------------------------------------------
// RefRegistry: ATen overload key -> reference kernel. Keys are the
// translator's ("aten::add.Tensor", "_operator::add"); each op family file
// ends with one registration table, one line per overload, and
// CreateReferenceRegistry() (all_families.cc) calls every family.
#ifndef PT2ONNX_REFERENCE_REGISTRY_H_
#define PT2ONNX_REFERENCE_REGISTRY_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pt2onnx::reference {

class RefCall;
using RefKernel = absl::Status (*)(RefCall& call);

class RefRegistry {
 public:
  void Add(absl::string_view key, RefKernel kernel);
  RefKernel Find(absl::string_view key) const;
  std::vector<std::string> Keys() const;
  // Keys added twice (must be empty).
  const std::vector<std::string>& duplicates() const { return duplicates_; }

 private:
  std::map<std::string, RefKernel, std::less<>> kernels_;
  std::vector<std::string> duplicates_;
};

// "torch.ops.aten.add.Tensor" -> "aten::add.Tensor"; "_operator.add" ->
// "_operator::add"; "torch.sym_max" -> "torch::sym_max".
std::string TargetKey(absl::string_view target);

RefRegistry CreateReferenceRegistry();

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_REFERENCE_REGISTRY_H_
