// Reference kernel: einsum. The equation is parsed with torch's rules
// (letters a-zA-Z, at most one '...' per term, broadcast right-aligned;
// without '->' the output is the broadcast dims then the letters used once,
// uppercase first) and run as one contraction over all operands.
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "reference/contraction.h"
#include "reference/registry.h"
#include "reference/ref_call.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

constexpr int kEllipsisBase = 52;  // labels of broadcast dims follow the 52 letters

// One term: letter labels, and where '...' stands (-1 if absent).
struct Term {
  std::vector<int> letters;
  int ellipsis_at = -1;
};

absl::StatusOr<Term> ParseTerm(const RefCall& call, const std::string& text) {
  Term term;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      if (term.ellipsis_at >= 0 || text.compare(i, 3, "...") != 0) {
        return call.Invalid("einsum(): found '.' that is not part of a single ellipsis ('...')");
      }
      term.ellipsis_at = static_cast<int>(term.letters.size());
      i += 2;
    } else if (c >= 'A' && c <= 'Z') {
      term.letters.push_back(c - 'A');
    } else if (c >= 'a' && c <= 'z') {
      term.letters.push_back(26 + c - 'a');
    } else {
      return call.Invalid(absl::StrCat("einsum(): invalid subscript '", std::string(1, c),
                                       "': subscripts must be letters in [a-zA-Z]"));
    }
  }
  return term;
}

// The term's labels with its '...' expanded to `count` broadcast labels,
// right-aligned within `total` broadcast dims.
std::vector<int> Expand(const Term& term, int count, int total) {
  std::vector<int> labels;
  for (size_t i = 0; i <= term.letters.size(); ++i) {
    if (static_cast<int>(i) == term.ellipsis_at) {
      for (int e = total - count; e < total; ++e) labels.push_back(kEllipsisBase + e);
    }
    if (i < term.letters.size()) labels.push_back(term.letters[i]);
  }
  return labels;
}

// aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor
absl::Status Einsum(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string equation, call.String("equation"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<Tensor> tensors, call.Inputs("tensors"));
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq.push_back(c);
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    PT2ONNX_ASSIGN_OR_RETURN(Term t, ParseTerm(call, lhs.substr(start, comma - start)));
    terms.push_back(std::move(t));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != tensors.size()) {
    return call.Invalid(absl::StrCat("einsum(): ", terms.size(), " terms in the equation for ", tensors.size(),
                                     " operands"));
  }
  int broadcast_dims = 0;
  std::vector<int> ellipsis_counts;
  for (size_t k = 0; k < terms.size(); ++k) {
    if (tensors[k].dtype() != tensors[0].dtype()) return call.Invalid("einsum(): the operands' dtypes differ");
    const int64_t extra = tensors[k].rank() - static_cast<int64_t>(terms[k].letters.size());
    if (extra < 0 || (extra > 0 && terms[k].ellipsis_at < 0)) {
      return call.Invalid(absl::StrCat("einsum(): the number of subscripts in term ", k,
                                       " does not match the number of dims (", tensors[k].rank(), ")"));
    }
    ellipsis_counts.push_back(static_cast<int>(extra));
    broadcast_dims = std::max(broadcast_dims, static_cast<int>(extra));
  }
  std::vector<std::vector<int>> labels;
  std::map<int, int> uses;
  for (size_t k = 0; k < terms.size(); ++k) {
    labels.push_back(Expand(terms[k], ellipsis_counts[k], broadcast_dims));
    for (int l : terms[k].letters) ++uses[l];
  }
  std::vector<int> out_labels;
  if (arrow == std::string::npos) {
    for (int e = 0; e < broadcast_dims; ++e) out_labels.push_back(kEllipsisBase + e);
    for (const auto& [l, n] : uses) {
      if (n == 1) out_labels.push_back(l);
    }
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(Term out, ParseTerm(call, eq.substr(arrow + 2)));
    for (int l : out.letters) {
      if (!uses.count(l)) return call.Invalid("einsum(): an output subscript does not appear in the inputs");
    }
    out_labels = Expand(out, out.ellipsis_at >= 0 ? broadcast_dims : 0, broadcast_dims);
  }
  // The program's dtype where it records one: a pure integer reduction
  // ('i->') sums into int64, as torch's sum does.
  DataType out_dtype = call.OutputDtype();
  if (out_dtype == DataType::kUndefined) out_dtype = tensors[0].dtype();
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, Contract(tensors, labels, out_labels, out_dtype));
  return call.SetTensor(std::move(result));
}

}  // namespace

void RegisterEinsumRef(RefRegistry& r) { r.Add("aten::einsum.default", Einsum); }

}  // namespace pt2onnx::reference
