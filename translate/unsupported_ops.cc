// File: translate/unsupported_ops.cc
// -----------------------------------------------------------------------------
// The scan for operators without a translation (subgraphs included) and the
// one error that lists them all, with counts and the first node of each, and
// for the overloads left untranslated on purpose, why.
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "translate/context_wrappers.h"
#include "translate/fx_values.h"
#include "translate/translator.h"

namespace pt2onnx::translate {
namespace {

using Kind = pt2::Argument::Kind;

// Overloads deliberately without a translation, and the reason a user reads.
struct KnownRefusal {
  absl::string_view key;
  absl::string_view reason;
};
constexpr absl::string_view kComplexSpectrum =
    "a general matrix's eigenvalues and eigenvectors are complex, and ONNX operators compute no complex "
    "values (torch.linalg.eigh / eigvalsh translate for symmetric matrices)";
constexpr absl::string_view kBunchKaufman =
    "LAPACK's Bunch-Kaufman pivoting (sytrf) and its pivot encoding are not reproduced "
    "(torch.linalg.cholesky / lu_factor translate)";
constexpr absl::string_view kPythonValue =
    "it returns a Python bool or number computed from tensor data, which torch.export cannot capture "
    "in a graph (compute a tensor instead, e.g. torch.all(torch.isclose(a, b)))";
constexpr absl::string_view kScalarList =
    "an overload on Python scalars and lists that TorchScript uses; exported programs compare and "
    "multiply such values with operator.* nodes, which translate";
constexpr absl::string_view kTensorFromScalar =
    "torch.tensor(value) inside forward is a constant torch.export bakes into the program, so a "
    "program holding this node was written by hand";
constexpr absl::string_view kDecomposedAtExport =
    "torch.export rewrites it as another overload before saving (split.default as split_with_sizes, "
    "which translates), so a saved program does not hold it";
constexpr KnownRefusal kKnownRefusals[] = {
    {"aten::split.default", kDecomposedAtExport},
    {"aten::allclose.default", kPythonValue},
    {"aten::equal.default", kPythonValue},
    {"aten::is_nonzero.default", kPythonValue},
    {"aten::eq.default", kScalarList},
    {"aten::ne.default", kScalarList},
    {"aten::mul.default", kScalarList},
    {"aten::tensor.bool", kTensorFromScalar},
    {"aten::tensor.float", kTensorFromScalar},
    {"aten::tensor.int", kTensorFromScalar},
    {"aten::linalg_eig.default", kComplexSpectrum},
    {"aten::linalg_eigvals.default", kComplexSpectrum},
    {"aten::linalg_ldl_factor.default", kBunchKaufman},
    {"aten::linalg_ldl_factor_ex.default", kBunchKaufman},
    {"aten::linalg_ldl_solve.default", kBunchKaufman},
};

constexpr absl::string_view kPrimsNamespace = "prims::";
constexpr absl::string_view kPrimsReason =
    "prims:: operators appear only after decomposing to PyTorch's primitive IR, which torch.export does not "
    "do by default; export the ATen program (the default, or ep.run_decompositions())";

absl::string_view RefusalReason(absl::string_view key) {
  for (const KnownRefusal& refusal : kKnownRefusals) {
    if (refusal.key == key) return refusal.reason;
  }
  if (absl::StartsWith(key, kPrimsNamespace)) return kPrimsReason;
  return "";
}

void CollectUnsupported(const pt2::Graph& graph, const OpRegistry& registry, int opset,
                        std::vector<UnsupportedOp>& found,
                        absl::flat_hash_map<std::string, size_t>& index) {
  for (const pt2::Node& node : graph.nodes) {
    std::string key = TargetToKey(node.target);
    if (registry.Find(key, opset) == nullptr && !IsContextWrapper(key)) {
      auto [it, inserted] = index.emplace(key, found.size());
      if (inserted) {
        std::vector<std::string> names = DefinedNames(node);
        found.push_back(UnsupportedOp{key, 0, node.name.empty() && !names.empty() ? names[0] : node.name});
      }
      ++found[it->second].count;
    }
    for (const pt2::NamedArgument& arg : node.inputs) {
      if (arg.arg.kind == Kind::kGraph && arg.arg.graph != nullptr) {
        CollectUnsupported(*arg.arg.graph, registry, opset, found, index);
      }
    }
  }
}

}  // namespace

std::vector<RefusedOp> DeliberatelyRefusedOps() {
  std::vector<RefusedOp> out;
  for (const KnownRefusal& refusal : kKnownRefusals) {
    out.push_back(RefusedOp{std::string(refusal.key), std::string(refusal.reason)});
  }
  out.push_back(RefusedOp{absl::StrCat(kPrimsNamespace, "*"), std::string(kPrimsReason)});
  return out;
}

std::vector<UnsupportedOp> FindUnsupportedOps(const pt2::Graph& graph, const OpRegistry& registry,
                                              int opset) {
  std::vector<UnsupportedOp> found;
  absl::flat_hash_map<std::string, size_t> index;
  CollectUnsupported(graph, registry, opset, found, index);
  return found;
}

absl::Status UnsupportedOpsError(const std::vector<UnsupportedOp>& ops, const OpRegistry& registry,
                                 int opset) {
  std::vector<std::string> lines;
  int total = 0;
  for (const UnsupportedOp& op : ops) {
    total += op.count;
    std::string note;
    if (registry.Contains(op.key)) {
      note = absl::StrCat(" [not available at opset ", opset, "]");
    } else if (absl::string_view reason = RefusalReason(op.key); !reason.empty()) {
      note = absl::StrCat(": not translated, ", reason);
    }
    lines.push_back(absl::StrCat("  ", op.key, " x", op.count, " (first at node '",
                                 op.first_node, "')", note));
  }
  absl::Status status = absl::UnimplementedError(absl::StrCat(
      ops.size(), " operator(s) in this program have no ONNX translation (", total,
      " node(s)):\n", absl::StrJoin(lines, "\n"),
      "\nNo ONNX file was written. ", kUnsupportedOpsAdvice));
  std::vector<std::string> listed;
  for (const std::string& line : lines) listed.emplace_back(absl::StripLeadingAsciiWhitespace(line));
  status.SetPayload(kUnsupportedOpsPayload, absl::Cord(absl::StrJoin(listed, "\n")));
  return status;
}

}  // namespace pt2onnx::translate
