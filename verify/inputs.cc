#include "verify/inputs.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "reference/ref_tensor.h"
#include "core/status_macros.h"

namespace pt2onnx::verify {
namespace {

using Kind = pt2::Argument::Kind;

// splitmix64: a fixed, platform-independent stream.
uint64_t Next(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A size for a symbolic dim: its hint, else inside the symbol's range
// (at least 2, torch's usual minimum for dynamic dims, capped at 16).
int64_t DimSize(const pt2::ExportedProgram& program, const pt2::SymInt& s, std::string& how) {
  if (!s.is_symbolic) return s.value;
  if (s.has_hint) {
    how = absl::StrCat(s.expr, "=", s.value, " (its example value)");
    return s.value;
  }
  int64_t lo = 2, hi = 16;
  for (const auto& [symbol, range] : program.range_constraints) {
    if (s.expr.find(absl::StrCat("'", symbol, "'")) != std::string::npos || s.expr == symbol) {
      if (range.min_val) lo = std::max(lo, *range.min_val);
      if (range.max_val) hi = std::min(std::max(hi, lo), *range.max_val);
    }
  }
  const int64_t v = std::min(std::max(lo, int64_t{4}), hi);
  how = absl::StrCat(s.expr, "=", v, " (inside its range)");
  return v;
}

std::vector<const pt2::InputSpec*> UserTensorInputs(const pt2::ExportedProgram& program) {
  std::vector<const pt2::InputSpec*> out;
  for (const pt2::InputSpec& spec : program.signature.input_specs) {
    if (spec.kind == pt2::InputSpec::Kind::kUserInput && spec.arg.kind == Kind::kTensor) out.push_back(&spec);
  }
  return out;
}

std::string Describe(const std::string& name, const Tensor& t, const std::string& how) {
  return absl::StrCat(name, " ", DataTypeName(t.dtype()), " ", DimsString(t.dims()),
                      how.empty() ? "" : " ", how);
}

}  // namespace

absl::StatusOr<ChosenInputs> SeededInputs(const pt2::ExportedProgram& program, uint64_t seed) {
  ChosenInputs chosen;
  chosen.source = absl::StrCat("seeded (seed ", seed, ")");
  uint64_t state = seed;
  for (const pt2::InputSpec* spec : UserTensorInputs(program)) {
    const std::string& name = spec->arg.name;
    auto meta = program.graph.tensor_values.find(name);
    if (meta == program.graph.tensor_values.end()) {
      return absl::InvalidArgumentError(absl::StrCat("input '", name, "' has no recorded dtype and shape"));
    }
    Dims dims;
    std::string dim_notes;
    for (const pt2::SymInt& s : meta->second.sizes) {
      std::string how;
      dims.push_back(DimSize(program, s, how));
      if (!how.empty()) absl::StrAppend(&dim_notes, dim_notes.empty() ? "" : ", ", how);
    }
    const DataType dtype = meta->second.dtype;
    PT2ONNX_ASSIGN_OR_RETURN(Tensor t, reference::NewTensor(dtype, dims));
    std::string how;
    for (int64_t i = 0; i < t.numel(); ++i) {
      const uint64_t r = Next(state);
      if (dtype == DataType::kBool) {
        reference::StoreInt(t, i, 1);
      } else if (IsFloatingPoint(dtype)) {
        reference::StoreDouble(t, i, static_cast<double>(r >> 11) * 0x1.0p-52 - 1.0);
      } else {
        reference::StoreInt(t, i, static_cast<int64_t>(r % 8));
      }
    }
    how = dtype == DataType::kBool ? "all true" : IsFloatingPoint(dtype) ? "uniform [-1, 1)" : "integers in [0, 8)";
    if (!dim_notes.empty()) absl::StrAppend(&how, "; ", dim_notes);
    chosen.lines.push_back(Describe(name, t, how));
    chosen.tensors.push_back({name, std::move(t)});
  }
  return chosen;
}

absl::StatusOr<ChosenInputs> GivenInputs(const pt2::ExportedProgram& program,
                                         std::vector<NamedTensor> tensors, std::string source) {
  ChosenInputs chosen;
  chosen.source = std::move(source);
  for (const pt2::InputSpec* spec : UserTensorInputs(program)) {
    const std::string& name = spec->arg.name;
    auto it = std::find_if(tensors.begin(), tensors.end(), [&](const NamedTensor& t) { return t.name == name; });
    if (it == tensors.end()) {
      return absl::InvalidArgumentError(absl::StrCat(chosen.source, " has no array '", name, "'"));
    }
    auto meta = program.graph.tensor_values.find(name);
    if (meta != program.graph.tensor_values.end()) {
      const pt2::TensorMeta& m = meta->second;
      bool ok = m.dtype == it->tensor.dtype() && m.sizes.size() == it->tensor.dims().size();
      for (size_t d = 0; ok && d < m.sizes.size(); ++d) {
        if (!m.sizes[d].is_symbolic && m.sizes[d].value != it->tensor.dims()[d]) ok = false;
      }
      if (!ok) {
        return absl::InvalidArgumentError(absl::StrCat("input '", name, "' in ", chosen.source, " is ",
                                                       DataTypeName(it->tensor.dtype()), " ",
                                                       DimsString(it->tensor.dims()),
                                                       ", the program expects ", DataTypeName(m.dtype),
                                                       " of rank ", m.sizes.size()));
      }
    }
    chosen.lines.push_back(Describe(name, it->tensor, ""));
    chosen.tensors.push_back(*it);
  }
  return chosen;
}

}  // namespace pt2onnx::verify
