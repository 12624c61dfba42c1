// The reference registry: every family of ref_families.inc.
#include "reference/registry.h"

namespace pt2onnx::reference {

#define PT2ONNX_REF_FAMILY(register_family) void register_family(RefRegistry& registry);
#include "reference/ref_families.inc"
#undef PT2ONNX_REF_FAMILY

RefRegistry CreateReferenceRegistry() {
  RefRegistry registry;
#define PT2ONNX_REF_FAMILY(register_family) register_family(registry);
#include "reference/ref_families.inc"
#undef PT2ONNX_REF_FAMILY
  return registry;
}

}  // namespace pt2onnx::reference
