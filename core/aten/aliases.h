// File: core/aten/aliases.h
// -----------------------------------------------------------------------------
// ATen's alias overloads: operators that native_functions.yaml declares as
// another operator under a second name, with the same arguments (same names,
// same defaults) and the same numbers: subtract is sub, clip is clamp,
// special_expit is sigmoid. torch.onnx maps them through PyTorch's
// decomposition table; here one table serves the translator's registry
// (ops/all_ops.cc), the reference interpreter's (reference/all_families.cc),
// and through them --inspect and --list-ops, so an alias converts, runs and
// is reported exactly as the operator it names.
//
//   for (const AtenAlias& a : AtenAliases()) registry.Add(a.alias, registry.Find(a.canonical));
//
// An alias whose arguments are named differently (swapaxes' axis0 against
// transpose's dim0) is not listed: the schema-typed readers would not find
// them.
#ifndef PT2ONNX_CORE_ATEN_ALIASES_H_
#define PT2ONNX_CORE_ATEN_ALIASES_H_

#include <string>
#include <vector>

namespace pt2onnx::aten {

// One alias overload key and the key of the overload it names
// ("aten::subtract.Tensor" -> "aten::sub.Tensor").
struct AtenAlias {
  std::string alias;
  std::string canonical;
};

// Every alias overload, in-place twins included ("aten::subtract_.Tensor" ->
// "aten::sub_.Tensor"), sorted by alias. Built on each call (a few hundred
// short strings); callers register them once.
std::vector<AtenAlias> AtenAliases();

}  // namespace pt2onnx::aten

#endif  // PT2ONNX_CORE_ATEN_ALIASES_H_
