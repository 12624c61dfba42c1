// The reference registry: every family of ref_families.inc.
#include "reference/registry.h"

#include "core/aten/aliases.h"

namespace pt2onnx::reference {

#define PT2ONNX_REF_FAMILY(register_family) void register_family(RefRegistry& registry);
#include "reference/ref_families.inc"
#undef PT2ONNX_REF_FAMILY

RefRegistry CreateReferenceRegistry() {
  RefRegistry registry;
#define PT2ONNX_REF_FAMILY(register_family) register_family(registry);
#include "reference/ref_families.inc"
#undef PT2ONNX_REF_FAMILY
  // ATen's aliases run the kernel of the operator they name.
  for (const aten::AtenAlias& alias : aten::AtenAliases()) {
    if (RefKernel kernel = registry.Find(alias.canonical)) registry.Add(alias.alias, kernel);
  }
  return registry;
}

}  // namespace pt2onnx::reference
