#include "verify/node_data.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pt2onnx::verify {
namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// JSON has no inf/NaN: the largest double stands for inf (NaN never occurs).
std::string JsonNumber(double v) {
  if (std::isinf(v) || std::isnan(v)) return "1.7976931348623157e308";
  return absl::StrFormat("%.9g", v);
}

}  // namespace

std::string NodeDataJson(const Verification& v, const ir::Model& model, NodeDataField field) {
  std::string results;
  auto add = [&](const ValueCheck& c) {
    if (!c.info.not_compared.empty()) return;  // no difference was measured
    std::string key = c.is_output || c.origin.onnx_node.empty() ? absl::StrCat("[value] ", c.info.name)
                                                                : c.origin.onnx_node;
    const double value = field == NodeDataField::kMaxAbsDiff ? c.info.max_abs_diff : c.info.max_rel_diff;
    absl::StrAppend(&results, results.empty() ? "" : ",\n", "      ", JsonString(key), ": {\"value\": ",
                    JsonNumber(value), "}");
  };
  for (const ValueCheck& c : v.intermediates) add(c);
  for (const ValueCheck& c : v.outputs) add(c);
  // model-explorer-onnx's colour scale.
  const std::string thresholds =
      "[{\"value\": 1e-05, \"bgColor\": \"#388e3c\"}, {\"value\": 0.0001, \"bgColor\": \"#8bc34a\"}, "
      "{\"value\": 0.001, \"bgColor\": \"#c8e6c9\"}, {\"value\": 0.01, \"bgColor\": \"#ffa000\"}, "
      "{\"value\": 1, \"bgColor\": \"#ff5722\"}, {\"value\": 100, \"bgColor\": \"#d32f2f\"}]";
  return absl::StrCat("{\n  ", JsonString(model.graph.name), ": {\n    \"results\": {\n", results,
                      "\n    },\n    \"thresholds\": ", thresholds, "\n  }\n}\n");
}

}  // namespace pt2onnx::verify
