#include "export/report.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/version.h"
#include "passes/pass_manager.h"
#include "export/output_plan.h"

namespace pt2onnx {

std::string ProducerName() { return absl::StrCat("pt2onnx ", kPt2OnnxVersion); }

std::string TranslatedLine(const ConversionSummary& s) {
  return absl::StrCat("translated ", s.fx_nodes, " FX nodes (", s.layout, ", torch ",
                      s.torch_version.empty() ? "?" : s.torch_version, ", schema ",
                      s.schema_major, ".", s.schema_minor, ") into ", s.onnx_nodes, " ONNX nodes");
}

std::string WroteLine(absl::string_view model_file_name, const onnx_writer::WriteSummary& written,
                      int opset, const ConversionSummary& s) {
  return absl::StrCat("wrote ", model_file_name, " (", HumanBytes(written.model_bytes),
                      written.external ? absl::StrCat(" + ", HumanBytes(written.external_bytes), " data")
                                       : "",
                      "): opset ", opset, ", ", s.onnx_nodes, " nodes, ", s.parameters,
                      " parameters");
}

std::string RangeText(const pt2::RangeConstraint& range) {
  return absl::StrCat("[", range.min_val ? absl::StrCat(*range.min_val) : "-int_oo", ", ",
                      range.max_val ? absl::StrCat(*range.max_val) : "int_oo", "]");
}

std::string SymbolicDimsLine(const ConversionSummary& s) {
  if (s.symbolic_dims.empty()) return "";
  std::vector<std::string> dims;
  for (const SymbolicDimSummary& d : s.symbolic_dims) {
    dims.push_back(absl::StrCat(d.symbol, d.onnx_name == d.symbol ? "" : absl::StrCat(" -> ", d.onnx_name),
                                d.range ? absl::StrCat(" ", RangeText(*d.range)) : ""));
  }
  return absl::StrCat("symbolic dims (input order): ", absl::StrJoin(dims, ", "));
}

std::string KvCacheLine(const ConversionSummary& s) {
  if (s.kv_cache.groups.empty()) return "";
  std::vector<std::string> groups;
  size_t caches = 0;
  for (const passes::StaticKvCacheGroup& g : s.kv_cache.groups) {
    groups.push_back(absl::StrCat(g.past_length, " (", g.caches.size(), " buffers of ", g.capacity_dim, ")"));
    caches += g.caches.size();
  }
  return absl::StrCat("static key/value cache: ", caches, " caches written by TensorScatter, filled lengths ",
                      absl::StrJoin(groups, ", "), "; ", s.kv_cache.attentions_on_buffers,
                      " Attention nodes read whole buffers (nonpad_kv_seqlen)");
}

std::string OpsLine(const ConversionSummary& s) {
  std::vector<std::string> ops;
  for (const auto& [op, count] : s.op_histogram) ops.push_back(absl::StrCat(op, " ", count));
  return absl::StrCat("ops: ", absl::StrJoin(ops, ", "));
}

std::string PassStatsText(const Conversion& conversion) {
  return absl::StrCat(passes::FormatPassStats(conversion.pass_stats), "nodes: ",
                      conversion.summary.onnx_nodes_before_optimize, " translated, ",
                      conversion.summary.onnx_nodes, " after optimization\n");
}

}  // namespace pt2onnx
