#include "native/file_sinks.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace pt2onnx::native {
namespace {

// Below this many weight bytes, writing is too quick to report progress.
constexpr uint64_t kProgressMinBytes = uint64_t{256} << 20;

}  // namespace

// Forwards to `sink` and logs every 10% of `total` bytes, so writing a
// multi-GB model shows progress.
class FileSinks::ProgressSink : public ByteSink {
 public:
  ProgressSink(ByteSink& sink, uint64_t total, const Log& log) : sink_(sink), total_(total), log_(log) {}

  absl::Status Write(ByteSpan bytes) override {
    absl::Status status = sink_.Write(bytes);
    Advance(bytes.size());
    return status;
  }
  // Weights spliced from the input (weight_splice.h) pass through unread.
  absl::Status WriteSlice(const FileSlice& slice) override {
    absl::Status status = sink_.WriteSlice(slice);
    Advance(slice.size());
    return status;
  }

 private:
  ByteSink& sink_;
  uint64_t total_;
  const Log& log_;
  uint64_t written_ = 0;
  int reported_ = 0;

  void Advance(uint64_t bytes) {
    written_ += bytes;
    int decile = total_ == 0 ? 10 : static_cast<int>(std::min<uint64_t>(10, written_ * 10 / total_));
    if (decile > reported_ && decile < 10) {
      reported_ = decile;
      log_(absl::StrCat("  ", decile * 10, "% of the weights written"));
    }
  }
};

FileSinks::FileSinks(std::string path, std::string shown_path, Log log, bool weights_progress)
    : path_(std::move(path)),
      shown_path_(std::move(shown_path)),
      log_(std::move(log)),
      weights_progress_(weights_progress) {}

FileSinks::~FileSinks() = default;

absl::Status FileSinks::Open(const OutputPlan& plan, const ConversionSummary& summary) {
  absl::StatusOr<std::unique_ptr<AtomicFile>> model_file = AtomicFile::Create(path_);
  if (!model_file.ok()) return model_file.status();
  model_file_ = *std::move(model_file);
  if (plan.external) {
    absl::StatusOr<std::unique_ptr<AtomicFile>> data_file = AtomicFile::Create(absl::StrCat(path_, ".data"));
    if (!data_file.ok()) return data_file.status();
    data_file_ = *std::move(data_file);
  }
  log_(absl::StrCat("writing ", shown_path_, plan.external ? " (+ external data)" : ""));
  model_sink_ = model_file_.get();
  data_sink_ = data_file_.get();
  if (weights_progress_ && summary.initializer_bytes >= kProgressMinBytes) {
    ByteSink& weights = data_file_ != nullptr ? *data_file_ : *model_file_;
    progress_ = std::make_unique<ProgressSink>(weights, summary.initializer_bytes, log_);
    (data_file_ != nullptr ? data_sink_ : model_sink_) = progress_.get();
  }
  if (crc_input_ != nullptr) {
    absl::StatusOr<std::unique_ptr<SplicedCrcCheck>> created = SplicedCrcCheck::Create(crc_input_);
    if (!created.ok()) return created.status();
    crc_check_ = *std::move(created);
    model_sink_ = &checked_model_.emplace(*crc_check_, *model_sink_);
    if (data_sink_ != nullptr) data_sink_ = &checked_data_.emplace(*crc_check_, *data_sink_);
  }
  return absl::OkStatus();
}

absl::Status FileSinks::Commit() {
  if (crc_check_ != nullptr) {  // weights not copied whole: read once more
    if (absl::Status rest = crc_check_->VerifyRest(); !rest.ok()) return rest;
  }
  if (data_file_ != nullptr) {
    if (absl::Status committed = data_file_->Commit(); !committed.ok()) return committed;
  }
  return model_file_->Commit();
}

}  // namespace pt2onnx::native
