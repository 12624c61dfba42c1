#include "native/json_record.h"

#include "absl/strings/string_view.h"
#include "export/catalog.h"
#include "export/exit_codes.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace pt2onnx::native {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void Key(Writer& w, absl::string_view s) { w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size())); }
void String(Writer& w, absl::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void Start(Writer& w, const std::string& input, bool ok, int exit_code) {
  w.StartObject();
  Key(w, "pt2onnx");
  String(w, Version());
  Key(w, "input");
  String(w, input);
  Key(w, "ok");
  w.Bool(ok);
  Key(w, "exitCode");
  w.Int(exit_code);
}

std::string Finish(Writer& w, rapidjson::StringBuffer& buffer, double seconds) {
  Key(w, "seconds");
  w.Double(static_cast<double>(static_cast<int64_t>(seconds * 1000 + 0.5)) / 1000);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace

std::string SuccessRecord(const std::string& input, const WrittenFiles& files, int opset,
                          const ConversionSummary& summary,
                          const std::vector<std::string>& warnings, double seconds) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  Start(w, input, true, kExitOk);
  Key(w, "output");
  String(w, files.model);
  Key(w, "outputBytes");
  w.Uint64(files.model_bytes);
  Key(w, "data");
  if (files.data.empty()) {
    w.Null();
  } else {
    String(w, files.data);
  }
  Key(w, "dataBytes");
  w.Uint64(files.data_bytes);
  Key(w, "opset");
  w.Int(opset);
  Key(w, "layout");
  String(w, summary.layout);
  Key(w, "torchVersion");
  if (summary.torch_version.empty()) {
    w.Null();
  } else {
    String(w, summary.torch_version);
  }
  Key(w, "fxNodes");
  w.Int64(summary.fx_nodes);
  Key(w, "onnxNodes");
  w.Int64(summary.onnx_nodes);
  Key(w, "parameters");
  w.Int64(summary.parameters);
  Key(w, "initializerBytes");
  w.Uint64(summary.initializer_bytes);
  Key(w, "warnings");
  w.StartArray();
  for (const std::string& warning : warnings) String(w, warning);
  w.EndArray();
  return Finish(w, buffer, seconds);
}

std::string FailureRecord(const std::string& input, int exit_code, const absl::Status& status,
                          double seconds) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  Start(w, input, false, exit_code);
  Key(w, "code");
  String(w, ExitCodeName(exit_code));
  Key(w, "message");
  String(w, status.message());
  Key(w, "unsupportedOps");
  w.StartArray();
  for (const std::string& op : UnsupportedOpsOf(status)) String(w, op);
  w.EndArray();
  return Finish(w, buffer, seconds);
}

}  // namespace pt2onnx::native
