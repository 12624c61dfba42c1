// The only central list of translations: CreateDefaultRegistry registers
// every op family of op_families.inc.
#include "ops/all_ops.h"

#include "core/aten/aliases.h"

namespace pt2onnx::ops {

#define PT2ONNX_OP_FAMILY(register_family) void register_family(translate::OpRegistry& r);
#include "ops/op_families.inc"
#undef PT2ONNX_OP_FAMILY

translate::OpRegistry CreateDefaultRegistry() {
  translate::OpRegistry r;
#define PT2ONNX_OP_FAMILY(register_family) register_family(r);
#include "ops/op_families.inc"
#undef PT2ONNX_OP_FAMILY
  // After every family: an alias takes the translations of the operator it
  // names (tests/ops/aliases_test.cc checks that each one is there).
  for (const aten::AtenAlias& alias : aten::AtenAliases()) r.AddAlias(alias.alias, alias.canonical);
  return r;
}

}  // namespace pt2onnx::ops
