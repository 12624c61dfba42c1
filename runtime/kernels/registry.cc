#include "runtime/kernels/registry.h"

#include <algorithm>
#include <map>
#include <utility>

#include "runtime/kernels/kernel.h"

namespace pt2onnx::runtime {

#define PT2ONNX_KERNEL_FAMILY(table, length) \
  extern const KernelRegistration table[];   \
  extern const size_t length;
#include "runtime/kernels/kernel_families.inc"
#undef PT2ONNX_KERNEL_FAMILY

namespace {

const std::map<std::string, const KernelRegistration*>& Table() {
  static const auto* table = [] {
    auto* t = new std::map<std::string, const KernelRegistration*>();
    const std::pair<const KernelRegistration*, size_t> families[] = {
#define PT2ONNX_KERNEL_FAMILY(table, length) {table, length},
#include "runtime/kernels/kernel_families.inc"
#undef PT2ONNX_KERNEL_FAMILY
    };
    for (const auto& [regs, n] : families) {
      for (size_t i = 0; i < n; ++i) t->emplace(regs[i].op_type, &regs[i]);
    }
    return t;
  }();
  return *table;
}

}  // namespace

const KernelRegistration* FindKernel(const std::string& op_type) {
  auto it = Table().find(op_type);
  return it == Table().end() ? nullptr : it->second;
}

std::vector<std::string> KernelOpTypes() {
  std::vector<std::string> names;
  for (const auto& [name, reg] : Table()) names.push_back(name);
  return names;
}

}  // namespace pt2onnx::runtime
