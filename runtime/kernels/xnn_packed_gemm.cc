// File: runtime/kernels/xnn_packed_gemm.cc
// -----------------------------------------------------------------------------
// PackedGemm through XNNPACK's float32 fully connected operator: W packed at
// creation; reshaped only when the row count or the pool changes (the
// recurrent kernels run the same shape at every time step), so a step costs
// a setup and a run.
#include <cstddef>
#include <limits>
#include <memory>

#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/xnn_util.h"
#include "xnnpack.h"

namespace pt2onnx::runtime {
namespace {

class XnnPackedGemm : public PackedGemm<float> {
 public:
  explicit XnnPackedGemm(XnnOperator op) : op_(std::move(op)) {}

  absl::Status Run(const float* x, int64_t m, float* y, pthreadpool_t pool) override {
    if (m <= 0) return absl::OkStatus();
    if (m != rows_ || pool != pool_) {
      xnn_status s = xnn_reshape_fully_connected_nc_f32(op_.get(), static_cast<size_t>(m), pool);
      if (s != xnn_status_success) {
        rows_ = 0;
        return XnnError(s, "reshape fully connected");
      }
      rows_ = m;
      pool_ = pool;
    }
    xnn_status s = xnn_setup_fully_connected_nc_f32(op_.get(), x, y);
    if (s != xnn_status_success) return XnnError(s, "setup fully connected");
    s = xnn_run_operator(op_.get(), pool_);
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, "run fully connected");
  }

 private:
  XnnOperator op_;
  int64_t rows_ = 0;              // the shape the operator is reshaped for
  pthreadpool_t pool_ = nullptr;  // and the pool
};

}  // namespace

std::unique_ptr<PackedGemm<float>> CreateXnnPackedGemm(const float* w, const float* bias, int64_t n, int64_t k) {
  if (!AcceleratorAvailable() || n <= 0 || k <= 0) return nullptr;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  xnn_operator_t op = nullptr;
  // No flags: XNNPACK's own weight layout is [output channels, input channels].
  xnn_status s = xnn_create_fully_connected_nc_f32(static_cast<size_t>(k), static_cast<size_t>(n),
                                                   static_cast<size_t>(k), static_cast<size_t>(n), w, bias, -kInf,
                                                   kInf, 0, nullptr, nullptr, &op);
  if (s != xnn_status_success) return nullptr;
  return std::make_unique<XnnPackedGemm>(XnnOperator(op));
}

}  // namespace pt2onnx::runtime
