#include "verify/report.h"

#include <algorithm>
#include <array>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reference/registry.h"

namespace pt2onnx::verify {
namespace {

const char* Mark(StepStatus s) {
  switch (s) {
    case StepStatus::kOk: return "✅";
    case StepStatus::kFailed: return "❌";
    default: return "⚪";
  }
}

std::string Shape(const pt2::TensorMeta& m) {
  std::vector<std::string> dims;
  for (const pt2::SymInt& s : m.sizes) dims.push_back(s.is_symbolic ? s.expr : absl::StrCat(s.value));
  return absl::StrCat(DataTypeName(m.dtype), "[", absl::StrJoin(dims, ", "), "]");
}

std::string ArgText(const pt2::Argument& a) {
  using K = pt2::Argument::Kind;
  switch (a.kind) {
    case K::kTensor: return absl::StrCat("%", a.name);
    case K::kTensors: {
      std::vector<std::string> n;
      for (const std::string& s : a.names) n.push_back(absl::StrCat("%", s));
      return absl::StrCat("[", absl::StrJoin(n, ", "), "]");
    }
    case K::kInt: return absl::StrCat(a.i);
    case K::kInts: return absl::StrCat("[", absl::StrJoin(a.ints, ", "), "]");
    case K::kFloat: return absl::StrCat(a.f);
    case K::kBool: return a.b ? "True" : "False";
    case K::kString: return absl::StrCat("'", a.s, "'");
    case K::kNone: return "None";
    case K::kSymInt: case K::kSymFloat: case K::kSymBool:
      return a.sym.is_name ? absl::StrCat("%", a.sym.name) : absl::StrCat(a.sym.int_value);
    default: return "...";
  }
}

void ExportedProgramSection(const pt2::LoadedProgram& p, std::string& out) {
  absl::StrAppend(&out, "## Exported program\n\n```python\ngraph():\n");
  for (const pt2::InputSpec& s : p.program.signature.input_specs) {
    const std::string& n = s.arg.kind == pt2::Argument::Kind::kSymInt ? s.arg.sym.name : s.arg.name;
    absl::StrAppend(&out, "    %", n, " : [num_users=?] = placeholder[target=", n, "]  # ",
                    pt2::InputKindName(s.kind), s.target.empty() ? "" : absl::StrCat(" ", s.target), "\n");
  }
  for (const pt2::Node& node : p.program.graph.nodes) {
    std::vector<std::string> outs, args;
    for (const pt2::Argument& o : node.outputs) outs.push_back(ArgText(o));
    for (const pt2::NamedArgument& a : node.inputs) {
      args.push_back(a.name.empty() ? ArgText(a.arg) : absl::StrCat(a.name, "=", ArgText(a.arg)));
    }
    absl::StrAppend(&out, "    ", absl::StrJoin(outs, ", "), " = ", reference::TargetKey(node.target), "(",
                    absl::StrJoin(args, ", "), ")\n");
  }
  absl::StrAppend(&out, "```\n\n");
}

void OnnxSection(const ir::Model& m, std::string& out) {
  std::map<std::string, int> ops;
  for (const ir::Node& n : m.graph.nodes) ++ops[n.op_type];
  absl::StrAppend(&out, "## ONNX model\n\n", m.graph.nodes.size(), " nodes, ", m.graph.initializers.size(),
                  " initializers, opset ", m.OnnxOpset(), ".\n\n| op_type | count |\n|---|---|\n");
  for (const auto& [op, n] : ops) absl::StrAppend(&out, "| ", op, " | ", n, " |\n");
  absl::StrAppend(&out, "\nInputs: ");
  std::vector<std::string> io;
  for (const ir::ValueInfo& v : m.graph.inputs) io.push_back(absl::StrCat("`", v.name, "` ", DataTypeName(v.dtype)));
  absl::StrAppend(&out, absl::StrJoin(io, ", "), "\n\nOutputs: ");
  io.clear();
  for (const ir::ValueInfo& v : m.graph.outputs) io.push_back(absl::StrCat("`", v.name, "` ", DataTypeName(v.dtype)));
  absl::StrAppend(&out, absl::StrJoin(io, ", "), "\n\n");
}

void AnalysisSection(const ReportData& d, std::string& out) {
  absl::StrAppend(&out, "## Analysis\n\n");
  const pt2::LoadedProgram& p = *d.program;
  std::map<std::string, std::pair<int64_t, int64_t>> per_dtype;  // dtype -> (tensors, elements)
  for (const auto& [name, w] : p.weights.all()) {
    auto& e = per_dtype[std::string(DataTypeName(w.dtype))];
    ++e.first;
    e.second += w.numel();
  }
  absl::StrAppend(&out, "### Parameters and buffers\n\n| dtype | tensors | elements |\n|---|---|---|\n");
  for (const auto& [dt, e] : per_dtype) absl::StrAppend(&out, "| ", dt, " | ", e.first, " | ", e.second, " |\n");
  absl::StrAppend(&out, "\n### Inputs and outputs\n\n");
  for (const pt2::InputSpec& s : p.program.signature.input_specs) {
    if (s.kind != pt2::InputSpec::Kind::kUserInput) continue;
    auto m = p.program.graph.tensor_values.find(s.arg.name);
    absl::StrAppend(&out, "- input `", s.arg.name, "`: ",
                    m == p.program.graph.tensor_values.end() ? "non-tensor" : Shape(m->second), "\n");
  }
  for (const pt2::OutputSpec& s : p.program.signature.output_specs) {
    if (s.kind != pt2::OutputSpec::Kind::kUserOutput) continue;
    auto m = p.program.graph.tensor_values.find(s.arg.name);
    absl::StrAppend(&out, "- output `", s.arg.name, "`: ",
                    m == p.program.graph.tensor_values.end() ? "non-tensor" : Shape(m->second), "\n");
  }
  std::map<std::string, int> targets;
  for (const pt2::Node& n : p.program.graph.nodes) ++targets[reference::TargetKey(n.target)];
  // What each FX target became: ONNX op types of the nodes carrying its FX node names.
  std::map<std::string, std::string> node_target;
  for (const pt2::Node& n : p.program.graph.nodes) {
    for (const pt2::Argument& o : n.outputs) {
      if (o.kind == pt2::Argument::Kind::kTensor) node_target[o.name] = reference::TargetKey(n.target);
    }
  }
  std::map<std::string, std::map<std::string, int>> became;
  if (d.model != nullptr) {
    for (const ir::Node& n : d.model->graph.nodes) {
      for (const std::string& o : n.outputs) {
        auto it = node_target.find(o);
        if (it != node_target.end()) ++became[it->second][n.op_type];
      }
    }
  }
  absl::StrAppend(&out, "\n### FX nodes per target\n\n", p.program.graph.nodes.size(),
                  " call_function nodes.\n\n| target | count | ONNX op producing its value | reference kernel |\n|---|---|---|---|\n");
  for (const auto& [t, n] : targets) {
    std::vector<std::string> ops;
    for (const auto& [op, c] : became[t]) ops.push_back(absl::StrCat(op, " ×", c));
    const bool missing = std::find(d.reference_missing.begin(), d.reference_missing.end(), t) != d.reference_missing.end();
    absl::StrAppend(&out, "| `", t, "` | ", n, " | ", ops.empty() ? "—" : absl::StrJoin(ops, ", "), " | ",
                    missing ? "❌ missing" : "✅", " |\n");
  }
  absl::StrAppend(&out, "\n### Unsupported operators\n\n");
  if (d.unsupported.empty()) {
    absl::StrAppend(&out, "All operators have translations.\n\n");
  } else {
    for (const std::string& u : d.unsupported) absl::StrAppend(&out, "- `", u, "`\n");
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "### Op coverage of this model\n\n", targets.size(), " targets; translated: ",
                  targets.size() - d.unsupported.size(), "; run by the reference interpreter: ",
                  targets.size() - d.reference_missing.size(), ".\n\n");
}

std::string Histogram(const std::array<int64_t, 9>& counts) {
  static const char* kBars[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  int64_t mx = 0;
  for (int64_t c : counts) mx = std::max(mx, c);
  std::string s;
  for (int64_t c : counts) s += kBars[mx == 0 || c == 0 ? 0 : 1 + (c * 7) / mx];
  return absl::StrCat("`", s, "` ", absl::StrJoin(counts, "/"));
}

void VerificationSection(const ReportData& d, std::string& out) {
  absl::StrAppend(&out, "## Verification results\n\n");
  if (!d.verification) {
    absl::StrAppend(&out, "Not run (use --verify).\n\n");
    return;
  }
  const Verification& v = *d.verification;
  absl::StrAppend(&out, "Reference: pt2onnx's ATen interpreter; actual: pt2onnx's executor on the converted model. Inputs: ",
                  d.inputs_source, ".\n\n");
  for (const std::string& l : d.inputs_lines) absl::StrAppend(&out, "- `", l, "`\n");
  std::vector<ValueCheck> all = v.outputs;
  all.insert(all.end(), v.intermediates.begin(), v.intermediates.end());
  absl::StrAppend(&out, "\nThresholds per expected dtype: ", ThresholdsSummary(all),
                  ". float32 keeps torch.onnx's rule; half precision measures the relative difference over "
                  "max(|expected|, the median of the value's nonzero |expected|) and allows a number of units in "
                  "the last place of its dtype.\n");
  absl::StrAppend(&out, "\nHistogram bins: 0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 1e6.\n\n",
                  "| value | kind | max_abs_diff | max_rel_diff | abs diff histogram | rel diff histogram | expected | actual | status |\n",
                  "|---|---|---|---|---|---|---|---|---|\n");
  auto row = [&](const ValueCheck& c) {
    if (!c.info.not_compared.empty()) {
      absl::StrAppend(&out, absl::StrFormat("| `%s` | %s | – | – | – | – | %s | %s | ⏭️ not compared: %s |\n", c.info.name,
                                            c.is_output ? "output" : c.origin.target,
                                            DataTypeName(c.info.expected_dtype), DataTypeName(c.info.actual_dtype),
                                            c.info.not_compared));
      return;
    }
    absl::StrAppend(&out, absl::StrFormat("| `%s` | %s | %.3g | %.3g | %s | %s | %s | %s | %s |\n", c.info.name,
                                          c.is_output ? "output" : c.origin.target, c.info.max_abs_diff,
                                          c.info.max_rel_diff, Histogram(c.info.abs_diff_hist),
                                          Histogram(c.info.rel_diff_hist), DataTypeName(c.info.expected_dtype),
                                          DataTypeName(c.info.actual_dtype),
                                          c.info.FailsOutputThresholds() ? "❌" : "✅"));
  };
  for (const ValueCheck& c : v.outputs) row(c);
  for (const ValueCheck& c : v.intermediates) row(c);
  absl::StrAppend(&out, "\n### First diverging node\n\n");
  if (!v.first_divergence) {
    absl::StrAppend(&out, v.intermediates.empty() ? "None among the outputs.\n\n" : "None: every compared value is within its dtype's thresholds.\n\n");
  } else {
    const ValueCheck& c = *v.first_divergence;
    absl::StrAppend(&out, "`", c.origin.fx_name, "` (FX node `", c.origin.node_name, "`, `", c.origin.target,
                    "`, ONNX ", c.origin.onnx_op, " `", c.origin.onnx_node, "`): max_abs_diff ",
                    absl::StrFormat("%.3g", c.info.max_abs_diff), ", max_rel_diff ",
                    absl::StrFormat("%.3g", c.info.max_rel_diff), " (", DataTypeName(c.info.expected_dtype), ": ",
                    c.info.thresholds.Text(), ")\n\n");
    if (!c.origin.stack_trace.empty()) absl::StrAppend(&out, "```\n", c.origin.stack_trace, "\n```\n\n");
  }
}

}  // namespace

std::string RenderReport(const ReportData& d) {
  bool failed = false;
  for (const auto& [step, s] : d.steps) failed |= s == StepStatus::kFailed;
  std::string out = absl::StrCat("# PyTorch ONNX Conversion ", failed ? "Error " : "", "Report (", d.producer, ")\n\n");
  absl::StrAppend(&out, "Input: `", d.model_path, "`", d.output_path.empty() ? "" : absl::StrCat(" → `", d.output_path, "`"),
                  "\n\n");
  for (const auto& [step, s] : d.steps) absl::StrAppend(&out, Mark(s), " ", step, "<br>\n");
  absl::StrAppend(&out, "\n## Error messages\n\n");
  if (d.errors.empty()) absl::StrAppend(&out, "None.\n\n");
  for (const std::string& e : d.errors) absl::StrAppend(&out, "```\n", e, "\n```\n\n");
  if (d.program != nullptr) ExportedProgramSection(*d.program, out);
  if (d.model != nullptr) OnnxSection(*d.model, out);
  if (d.program != nullptr) AnalysisSection(d, out);
  VerificationSection(d, out);
  absl::StrAppend(&out, "## Profiling result\n\n| stage | seconds |\n|---|---|\n");
  for (const auto& [stage, s] : d.timings) absl::StrAppend(&out, absl::StrFormat("| %s | %.3f |\n", stage, s));
  return out;
}

}  // namespace pt2onnx::verify
