// File: runtime/kernels/xnn_int8_im2col.cc
// -----------------------------------------------------------------------------
// An int8 convolution with fewer than 8 input channels and one group (an RGB
// stem) as im2col and one XNNPACK qs8_qc8w fully connected product. XNNPACK's
// int8 convolutions read each tap's input channels in blocks of 8, so 3
// channels cost as much as 8 (ResNet's 7x7 stem: K = 392 instead of 147; as a
// convolution it took 3.7x its float time). Each output pixel's window is
// gathered into a row of kh * kw * C values, taps outside the image holding
// the input's zero point (they add 0 to the integer sum, as the
// convolution's padding does), so the integer sums and the requantization
// are the convolution's (kernels/xnn_int8.cc says how they relate to the QDQ
// graph).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/xnn_int8.h"
#include "pthreadpool.h"
#include "xnnpack.h"

namespace pt2onnx::runtime {
namespace {

class QConvIm2colKernel : public OpKernel {
 public:
  QConvIm2colKernel(XnnOperator op, int64_t c, int64_t m, ConvWindow win, bool float_out, Quant q)
      : op_(std::move(op)), c_(c), m_(m), k_(win.kh * win.kw * c), win_(win), float_out_(float_out), q_(q) {}
  bool PackedInput(size_t i) const override { return i >= 1; }
  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_ASSIGN_OR_RETURN(const Tensor* xi, NhwcInt8Input(ctx, c_));
    const Tensor& x = *xi;
    const int64_t oh = win_.OutSize(x.dim(1), win_.kh, win_.sh, win_.dh, win_.top, win_.bottom);
    const int64_t ow = win_.OutSize(x.dim(2), win_.kw, win_.sw, win_.dw, win_.left, win_.right);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, float_out_ ? DataType::kFloat : DataType::kInt8,
                                                          {x.dim(0), oh, ow, m_}));
    const int64_t rows = x.dim(0) * oh * ow;
    if (rows == 0) return absl::OkStatus();
    // Rows are gathered and multiplied a block at a time: a large window over a large image
    // (each pixel gathered kh * kw times) never needs more than kGatherBytes.
    const int64_t block = std::min(rows, std::max<int64_t>(1, kGatherBytes / k_));
    std::shared_ptr<Buffer> cols = ctx.pool()->Acquire(static_cast<size_t>(block * k_));
    int8_t* a = reinterpret_cast<int8_t*>(cols->data());
    absl::Status status;
    for (int64_t r0 = 0; r0 < rows && status.ok(); r0 += block) {
      const int64_t count = std::min(block, rows - r0);
      Gather(x, oh, ow, r0, count, a);
      status = Multiply(ctx, a, count, r0 * m_, *out);
    }
    ctx.pool()->Release(std::move(cols));
    return status;
  }

 private:
  static constexpr int64_t kGatherBytes = int64_t{8} << 20;

  absl::Status Multiply(KernelContext& ctx, const int8_t* a, int64_t count, int64_t offset, Tensor& out) {
    if (static_cast<size_t>(count) != batch_) {
      pool_ = ctx.threadpool_for(static_cast<double>(count) * k_ * m_, kMinParallelMacs);
      xnn_status s = float_out_ ? xnn_reshape_fully_connected_nc_qd8_f32_qc8w(op_.get(), count, pool_)
                                : xnn_reshape_fully_connected_nc_qs8_qc8w(op_.get(), count, pool_);
      if (s != xnn_status_success) {
        batch_ = 0;
        return XnnError(s, "reshape int8 convolution (im2col)");
      }
      batch_ = static_cast<size_t>(count);
    }
    xnn_status s = float_out_ ? xnn_setup_fully_connected_nc_qd8_f32_qc8w(
                                    op_.get(), a, out.data<float>() + offset, RowParams(rows_, batch_ + 16, q_).data())
                              : xnn_setup_fully_connected_nc_qs8_qc8w(op_.get(), a, out.data<int8_t>() + offset);
    if (s == xnn_status_success) s = xnn_run_operator(op_.get(), pool_);
    return s == xnn_status_success ? absl::OkStatus() : XnnError(s, "int8 convolution (im2col)");
  }

  // Rows r0 .. r0 + count - 1; row (b, oy, ox) holds the taps (ky, kx, c), and a tap row inside
  // the image (every tap of it, with dilation 1) is one copy of kw * C bytes.
  void Gather(const Tensor& x, int64_t oh, int64_t ow, int64_t r0, int64_t count, int8_t* dst) const {
    const int64_t h = x.dim(1), w = x.dim(2), tap_row = win_.kw * c_;
    const int8_t* src = x.data<int8_t>();
    for (int64_t r = r0; r < r0 + count; ++r) {
      const int64_t b = r / (oh * ow), oy = r / ow % oh, ox = r % ow;
      const int64_t ix0 = ox * win_.sw - win_.left;
      for (int64_t ky = 0; ky < win_.kh; ++ky, dst += tap_row) {
        const int64_t iy = oy * win_.sh - win_.top + ky * win_.dh;
        if (iy < 0 || iy >= h) {
          std::fill(dst, dst + tap_row, q_.x_zero);
          continue;
        }
        const int8_t* line = src + (b * h + iy) * w * c_;
        if (win_.dw == 1 && ix0 >= 0 && ix0 + win_.kw <= w) {
          std::memcpy(dst, line + ix0 * c_, static_cast<size_t>(tap_row));
        } else {
          for (int64_t kx = 0; kx < win_.kw; ++kx) {
            const int64_t ix = ix0 + kx * win_.dw;
            int8_t* tap = dst + kx * c_;
            if (ix < 0 || ix >= w) {
              std::fill(tap, tap + c_, q_.x_zero);
            } else {
              std::memcpy(tap, line + ix * c_, static_cast<size_t>(c_));
            }
          }
        }
      }
    }
  }

  XnnOperator op_;
  int64_t c_, m_, k_;
  ConvWindow win_;
  bool float_out_;
  Quant q_;
  std::vector<xnn_quantization_params> rows_;
  size_t batch_ = 0;
  pthreadpool_t pool_ = nullptr;  // chosen with the number of rows
};

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateQConvIm2col(const std::vector<int8_t>& kernel, int64_t c,
                                                            int64_t m, const ConvWindow& win,
                                                            const PackedScales& packed, bool float_out,
                                                            const Quant& q) {
  const int64_t k = win.kh * win.kw * c;
  xnn_operator_t op = nullptr;
  xnn_status s = float_out ? xnn_create_fully_connected_nc_qd8_f32_qc8w(k, m, k, m, packed.scales.data(),
                                                                       kernel.data(), packed.float_bias.data(),
                                                                       -kInf, kInf, 0, nullptr, nullptr, &op)
                           : xnn_create_fully_connected_nc_qs8_qc8w(
                                 k, m, k, m, q.x_zero, q.x_scale, packed.scales.data(), kernel.data(),
                                 packed.bias.data(), q.y_zero, q.y_scale, q.y_min, q.y_max, 0, nullptr, nullptr, &op);
  if (s != xnn_status_success) return XnnError(s, "create int8 convolution (im2col)");
  return std::unique_ptr<OpKernel>(new QConvIm2colKernel(XnnOperator(op), c, m, win, float_out, q));
}

}  // namespace pt2onnx::runtime
