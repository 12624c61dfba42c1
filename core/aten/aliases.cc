// File: core/aten/aliases.cc
// -----------------------------------------------------------------------------
// The alias table. Each row is one alias name, the operator it names, the
// overloads both have, and whether ATen also has the in-place twin
// (name_.overload). Sources: the "alias for" entries of
// aten/src/ATen/native/native_functions.yaml and torch/_refs/__init__.py.
#include "core/aten/aliases.h"

#include <algorithm>
#include <initializer_list>

namespace pt2onnx::aten {
namespace {

struct AliasRow {
  const char* alias;
  const char* canonical;
  std::initializer_list<const char*> overloads;
  bool in_place;
};

// clang-format off
const AliasRow kAliasRows[] = {
    // Arithmetic and comparison spelled out (torch.subtract, torch.greater, ...).
    {"subtract", "sub", {"Tensor", "Scalar"}, true},
    {"multiply", "mul", {"Tensor", "Scalar"}, true},
    {"divide", "div", {"Tensor", "Scalar", "Tensor_mode", "Scalar_mode"}, true},
    {"greater", "gt", {"Tensor", "Scalar"}, true},
    {"greater_equal", "ge", {"Tensor", "Scalar"}, true},
    {"less", "lt", {"Tensor", "Scalar"}, true},
    {"less_equal", "le", {"Tensor", "Scalar"}, true},
    {"not_equal", "ne", {"Tensor", "Scalar"}, true},
    // NumPy's names.
    {"absolute", "abs", {"default"}, true},
    {"negative", "neg", {"default"}, true},
    {"arccos", "acos", {"default"}, true},
    {"arcsin", "asin", {"default"}, true},
    {"arctan", "atan", {"default"}, true},
    {"arccosh", "acosh", {"default"}, true},
    {"arcsinh", "asinh", {"default"}, true},
    {"arctanh", "atanh", {"default"}, true},
    {"arctan2", "atan2", {"default"}, true},
    {"fix", "trunc", {"default"}, true},
    {"clip", "clamp", {"default", "Tensor"}, true},
    {"concat", "cat", {"default"}, false},
    {"concatenate", "cat", {"default"}, false},
    {"ger", "outer", {"default"}, false},
    {"broadcast_to", "expand", {"default"}, false},
    {"linalg_matmul", "matmul", {"default"}, false},
    // Same values under another name for real tensors (complex ones are
    // refused by the operator they name, except conj, which handles them).
    {"sgn", "sign", {"default"}, false},
    {"positive", "alias", {"default"}, false},
    {"conj_physical", "conj", {"default"}, false},
    {"matrix_H", "mH", {"default"}, false},
    // torch.argwhere is torch.nonzero (native_functions.yaml: argwhere(Tensor self)).
    {"argwhere", "nonzero", {"default"}, false},
    // torch.special's names for the plain operators.
    {"special_erf", "erf", {"default"}, false},
    {"special_erfc", "erfc", {"default"}, false},
    {"special_erfinv", "erfinv", {"default"}, false},
    {"special_expm1", "expm1", {"default"}, false},
    {"special_exp2", "exp2", {"default"}, false},
    {"special_log1p", "log1p", {"default"}, false},
    {"special_expit", "sigmoid", {"default"}, false},
    {"special_logit", "logit", {"default"}, false},
    {"special_sinc", "sinc", {"default"}, false},
    {"special_psi", "digamma", {"default"}, false},
    {"special_digamma", "digamma", {"default"}, false},
    {"special_gammaln", "lgamma", {"default"}, false},
    {"special_logsumexp", "logsumexp", {"default"}, false},
};

// Aliases whose overload names differ from the operator's.
const AtenAlias kRenamedOverloads[] = {
    {"aten::special_round.default", "aten::round.decimals"},
    {"aten::special_softmax.default", "aten::softmax.int"},
    {"aten::special_log_softmax.default", "aten::log_softmax.int"},
    {"aten::special_xlogy.default", "aten::xlogy.Tensor"},
    {"aten::special_xlogy.other_scalar", "aten::xlogy.Scalar_Other"},
    {"aten::special_xlogy.self_scalar", "aten::xlogy.Scalar_Self"},
    {"aten::__lshift__.Tensor", "aten::bitwise_left_shift.Tensor"},
    {"aten::__lshift__.Scalar", "aten::bitwise_left_shift.Tensor_Scalar"},
    {"aten::__rshift__.Tensor", "aten::bitwise_right_shift.Tensor"},
    {"aten::__rshift__.Scalar", "aten::bitwise_right_shift.Tensor_Scalar"},
    // The functional copies of views compute what the view shows.
    {"aten::view_as_real_copy.default", "aten::view_as_real.default"},
    {"aten::view_as_complex_copy.default", "aten::view_as_complex.default"},
    {"aten::unfold_copy.default", "aten::unfold.default"},
};
// clang-format on

std::string Key(const char* op, const char* overload, bool in_place) {
  return std::string("aten::") + op + (in_place ? "_." : ".") + overload;
}

}  // namespace

std::vector<AtenAlias> AtenAliases() {
  std::vector<AtenAlias> aliases(std::begin(kRenamedOverloads), std::end(kRenamedOverloads));
  for (const AliasRow& row : kAliasRows) {
    for (const char* overload : row.overloads) {
      aliases.push_back({Key(row.alias, overload, false), Key(row.canonical, overload, false)});
      if (row.in_place) {
        aliases.push_back({Key(row.alias, overload, true), Key(row.canonical, overload, true)});
      }
    }
  }
  std::sort(aliases.begin(), aliases.end(),
            [](const AtenAlias& a, const AtenAlias& b) { return a.alias < b.alias; });
  return aliases;
}

}  // namespace pt2onnx::aten
