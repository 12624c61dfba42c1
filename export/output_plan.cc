#include "export/output_plan.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace pt2onnx {

// Protobuf refuses messages over 2 GiB; keep a margin for the graph itself.
constexpr uint64_t kMaxInlineWeightBytes = uint64_t{2000} << 20;

absl::StatusOr<OutputPlan> PlanOutput(const ConversionSummary& summary,
                                      onnx_writer::WriteOptions::ExternalData external,
                                      absl::string_view model_file_name) {
  OutputPlan plan;
  plan.write.external_data = external;
  const size_t slash = model_file_name.find_last_of('/');
  const absl::string_view base =
      slash == absl::string_view::npos ? model_file_name : model_file_name.substr(slash + 1);
  if (base.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("output name '", model_file_name, "' has no file name"));
  }
  plan.model_file_name = std::string(base);
  plan.write.external_data_location = absl::StrCat(base, ".data");
  plan.external = onnx_writer::UsesExternalData(summary.initializer_bytes, plan.write);
  if (!plan.external && summary.initializer_bytes > kMaxInlineWeightBytes) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the weights (", HumanBytes(summary.initializer_bytes),
        ") exceed protobuf's 2 GiB limit for one file; allow external data (drop "
        "--no-external-data / use externalData \"auto\")"));
  }
  if (plan.external) plan.data_file_name = plan.write.external_data_location;
  return plan;
}

std::string HumanBytes(uint64_t n) {
  if (n >= (uint64_t{1} << 30)) return absl::StrFormat("%.2f GiB", n / double(uint64_t{1} << 30));
  if (n >= (uint64_t{1} << 20)) return absl::StrFormat("%.1f MiB", n / double(uint64_t{1} << 20));
  if (n >= 1024) return absl::StrFormat("%.1f KiB", n / 1024.0);
  return absl::StrCat(n, " B");
}

}  // namespace pt2onnx
