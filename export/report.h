// File: export/report.h
// -----------------------------------------------------------------------------
// The lines of a conversion report, worded once for the CLI (which prints
// them to stderr with timestamps) and the WebAssembly API (which returns them
// as the `report` text shown on the page).
#ifndef PT2ONNX_EXPORT_REPORT_H_
#define PT2ONNX_EXPORT_REPORT_H_

#include <string>

#include "absl/strings/string_view.h"
#include "export/converter.h"
#include "core/onnx/model_writer.h"

namespace pt2onnx {

// "pt2onnx 0.2.0": what --version prints and the report names as producer.
std::string ProducerName();

// "translated 12 FX nodes (PT2 archive, torch 2.15.0, schema 8.20) into 14 ONNX nodes"
std::string TranslatedLine(const ConversionSummary& summary);

// "wrote cnn.onnx (9.4 KiB + 1.2 MiB data): opset 20, 14 nodes, 31 parameters"
std::string WroteLine(absl::string_view model_file_name, const onnx_writer::WriteSummary& written,
                      int opset, const ConversionSummary& summary);

// "symbolic dims (input order): s31 -> batch [0, int_oo], s27 [2, 512]";
// "" for a program with static shapes only.
std::string SymbolicDimsLine(const ConversionSummary& summary);
// "static key/value cache: ..." for --kv-cache static; "" for the default form.
std::string KvCacheLine(const ConversionSummary& summary);

// "[2, 512]", "[0, int_oo]" (torch's notation for a range constraint).
std::string RangeText(const pt2::RangeConstraint& range);

// "ops: Add 3, Conv 2, ..." (sorted by op type).
std::string OpsLine(const ConversionSummary& summary);

// --print-pass-stats: per pass, nodes removed and added and the time taken,
// then "nodes: 120 translated, 96 after optimization"; one line each.
std::string PassStatsText(const Conversion& conversion);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_REPORT_H_
