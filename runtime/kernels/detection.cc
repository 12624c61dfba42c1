// File: runtime/kernels/detection.cc
// -----------------------------------------------------------------------------
// Object-detection ops as the ONNX spec defines them: RoiAlign (avg mode;
// half_pixel and output_half_pixel boxes), MaxRoiPool and
// NonMaxSuppression (greedy, per batch and class, best score first, ties by
// box index). Portable loops; values are computed in float32 (the session
// converts other float dtypes).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

absl::Status NeedFloat(const char* op, const Tensor& t) {
  if (t.dtype() != DataType::kFloat) return UnsupportedDtype(op, t.dtype());
  return absl::OkStatus();
}

// Bilinear sample of one (H, W) plane at (y, x); 0 outside [-1, H] x [-1, W],
// edges clamped (the RoiAlign sampling rule).
float Bilinear(const float* plane, int64_t h, int64_t w, float y, float x) {
  if (y < -1.0f || y > static_cast<float>(h) || x < -1.0f || x > static_cast<float>(w)) return 0.0f;
  y = std::max(y, 0.0f);
  x = std::max(x, 0.0f);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1, x1;
  if (y0 >= h - 1) {
    y0 = y1 = h - 1;
    y = static_cast<float>(y0);
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= w - 1) {
    x0 = x1 = w - 1;
    x = static_cast<float>(x0);
  } else {
    x1 = x0 + 1;
  }
  const float ly = y - static_cast<float>(y0), lx = x - static_cast<float>(x0);
  const float hy = 1.0f - ly, hx = 1.0f - lx;
  return hy * hx * plane[y0 * w + x0] + hy * lx * plane[y0 * w + x1] + ly * hx * plane[y1 * w + x0] +
         ly * lx * plane[y1 * w + x1];
}

class RoiAlignKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    const std::string mode = AttrString(info.node, "coordinate_transformation_mode",
                                        info.opset >= 16 ? "half_pixel" : "output_half_pixel");
    if (mode != "half_pixel" && mode != "output_half_pixel") {
      return absl::InvalidArgumentError(absl::StrCat("RoiAlign: unknown coordinate_transformation_mode '", mode, "'"));
    }
    half_pixel_ = mode == "half_pixel";
    if (AttrString(info.node, "mode", "avg") != "avg") {
      return absl::UnimplementedError("RoiAlign: only mode 'avg' is supported");
    }
    out_h_ = AttrInt(info.node, "output_height", 1);
    out_w_ = AttrInt(info.node, "output_width", 1);
    sampling_ratio_ = AttrInt(info.node, "sampling_ratio", 0);
    scale_ = AttrFloat(info.node, "spatial_scale", 1.0f);
    if (out_h_ <= 0 || out_w_ <= 0 || sampling_ratio_ < 0) {
      return absl::InvalidArgumentError("RoiAlign: output sizes must be positive and sampling_ratio >= 0");
    }
    return absl::OkStatus();
  }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(rois, 1);
    PT2ONNX_INPUT(batch, 2);
    for (const Tensor* t : {&x, &rois}) {
      PT2ONNX_RETURN_IF_ERROR(NeedFloat("RoiAlign", *t));
    }
    if (x.rank() != 4 || rois.rank() != 2 || rois.dim(1) != 4 || batch.rank() != 1 || batch.dim(0) != rois.dim(0)) {
      return absl::InvalidArgumentError("RoiAlign: expects X (N, C, H, W), rois (K, 4) and batch_indices (K)");
    }
    PT2ONNX_ASSIGN_OR_RETURN(auto indices, ReadInts(batch, "RoiAlign batch_indices"));
    const int64_t k = rois.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kFloat, {k, c, out_h_, out_w_}));
    const float* px = x.data<float>();
    const float* pr = rois.data<float>();
    float* po = (out)->data<float>();
    const float offset = half_pixel_ ? 0.5f : 0.0f;
    for (int64_t n = 0; n < k; ++n) {
      const int64_t b = (indices)[static_cast<size_t>(n)];
      if (b < 0 || b >= x.dim(0)) {
        return absl::InvalidArgumentError(absl::StrCat("RoiAlign: batch index ", b, " outside [0, ", x.dim(0), ")"));
      }
      const float* r = pr + n * 4;
      const float x0 = r[0] * scale_ - offset, y0 = r[1] * scale_ - offset;
      float roi_w = r[2] * scale_ - offset - x0, roi_h = r[3] * scale_ - offset - y0;
      if (!half_pixel_) {  // boxes at least one pixel wide
        roi_w = std::max(roi_w, 1.0f);
        roi_h = std::max(roi_h, 1.0f);
      }
      const float bin_h = roi_h / static_cast<float>(out_h_), bin_w = roi_w / static_cast<float>(out_w_);
      const int64_t grid_h = sampling_ratio_ > 0 ? sampling_ratio_ : static_cast<int64_t>(std::ceil(bin_h));
      const int64_t grid_w = sampling_ratio_ > 0 ? sampling_ratio_ : static_cast<int64_t>(std::ceil(bin_w));
      const float count = static_cast<float>(std::max<int64_t>(grid_h * grid_w, 1));
      for (int64_t ch = 0; ch < c; ++ch) {
        const float* plane = px + (b * c + ch) * h * w;
        for (int64_t ph = 0; ph < out_h_; ++ph) {
          for (int64_t pw = 0; pw < out_w_; ++pw) {
            float sum = 0.0f;
            for (int64_t iy = 0; iy < grid_h; ++iy) {
              const float y = y0 + ph * bin_h + (iy + 0.5f) * bin_h / static_cast<float>(grid_h);
              for (int64_t ix = 0; ix < grid_w; ++ix) {
                const float xx = x0 + pw * bin_w + (ix + 0.5f) * bin_w / static_cast<float>(grid_w);
                sum += Bilinear(plane, h, w, y, xx);
              }
            }
            po[((n * c + ch) * out_h_ + ph) * out_w_ + pw] = sum / count;
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  bool half_pixel_ = true;
  int64_t out_h_ = 1, out_w_ = 1, sampling_ratio_ = 0;
  float scale_ = 1.0f;
};

class MaxRoiPoolKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    std::vector<int64_t> shape = AttrInts(info.node, "pooled_shape");
    if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0) {
      return absl::InvalidArgumentError("MaxRoiPool: pooled_shape must be two positive sizes");
    }
    out_h_ = shape[0];
    out_w_ = shape[1];
    scale_ = AttrFloat(info.node, "spatial_scale", 1.0f);
    return absl::OkStatus();
  }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(rois, 1);
    for (const Tensor* t : {&x, &rois}) {
      PT2ONNX_RETURN_IF_ERROR(NeedFloat("MaxRoiPool", *t));
    }
    if (x.rank() != 4 || rois.rank() != 2 || rois.dim(1) != 5) {
      return absl::InvalidArgumentError("MaxRoiPool: expects X (N, C, H, W) and rois (K, 5)");
    }
    const int64_t k = rois.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kFloat, {k, c, out_h_, out_w_}));
    const float* px = x.data<float>();
    float* po = (out)->data<float>();
    for (int64_t n = 0; n < k; ++n) {
      const float* r = rois.data<float>() + n * 5;
      const int64_t b = static_cast<int64_t>(r[0]);
      if (!(r[0] >= 0) || b >= x.dim(0)) {
        return absl::InvalidArgumentError(absl::StrCat("MaxRoiPool: batch index ", r[0], " outside [0, ", x.dim(0), ")"));
      }
      const int64_t x0 = static_cast<int64_t>(std::round(r[1] * scale_));
      const int64_t y0 = static_cast<int64_t>(std::round(r[2] * scale_));
      const int64_t x1 = static_cast<int64_t>(std::round(r[3] * scale_));
      const int64_t y1 = static_cast<int64_t>(std::round(r[4] * scale_));
      const float bin_h = static_cast<float>(std::max<int64_t>(y1 - y0 + 1, 1)) / static_cast<float>(out_h_);
      const float bin_w = static_cast<float>(std::max<int64_t>(x1 - x0 + 1, 1)) / static_cast<float>(out_w_);
      for (int64_t ph = 0; ph < out_h_; ++ph) {
        const int64_t hs = std::clamp<int64_t>(static_cast<int64_t>(std::floor(ph * bin_h)) + y0, 0, h);
        const int64_t he = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((ph + 1) * bin_h)) + y0, 0, h);
        for (int64_t pw = 0; pw < out_w_; ++pw) {
          const int64_t ws = std::clamp<int64_t>(static_cast<int64_t>(std::floor(pw * bin_w)) + x0, 0, w);
          const int64_t we = std::clamp<int64_t>(static_cast<int64_t>(std::ceil((pw + 1) * bin_w)) + x0, 0, w);
          const bool empty = he <= hs || we <= ws;
          for (int64_t ch = 0; ch < c; ++ch) {
            const float* plane = px + (b * c + ch) * h * w;
            float best = empty ? 0.0f : -std::numeric_limits<float>::max();
            for (int64_t yy = hs; yy < he; ++yy)
              for (int64_t xx = ws; xx < we; ++xx) best = plane[yy * w + xx] > best ? plane[yy * w + xx] : best;
            po[((n * c + ch) * out_h_ + ph) * out_w_ + pw] = best;
          }
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  int64_t out_h_ = 1, out_w_ = 1;
  float scale_ = 1.0f;
};

struct Box {
  float y0, x0, y1, x1;
};

// IoU > threshold, as ONNX Runtime decides it: no overlap or an empty box
// never suppresses.
bool Suppresses(const Box& a, const Box& b, float threshold) {
  const float ih = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  const float iw = std::min(a.x1, b.x1) - std::max(a.x0, b.x0);
  if (ih <= 0 || iw <= 0) return false;
  const float inter = ih * iw;
  const float area_a = (a.y1 - a.y0) * (a.x1 - a.x0), area_b = (b.y1 - b.y0) * (b.x1 - b.x0);
  const float uni = area_a + area_b - inter;
  if (area_a <= 0 || area_b <= 0 || uni <= 0) return false;
  return inter / uni > threshold;
}

class NonMaxSuppressionKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    center_ = AttrInt(info.node, "center_point_box", 0) != 0;
    return absl::OkStatus();
  }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(boxes, 0);
    PT2ONNX_INPUT(scores, 1);
    for (const Tensor* t : {&boxes, &scores}) {
      PT2ONNX_RETURN_IF_ERROR(NeedFloat("NonMaxSuppression", *t));
    }
    if (boxes.rank() != 3 || boxes.dim(2) != 4 || scores.rank() != 3 || scores.dim(0) != boxes.dim(0) ||
        scores.dim(2) != boxes.dim(1)) {
      return absl::InvalidArgumentError("NonMaxSuppression: expects boxes (B, N, 4) and scores (B, C, N)");
    }
    int64_t max_out = 0;
    float iou = 0.0f, score_min = 0.0f;
    const bool has_score_min = ctx.input(4) != nullptr && ctx.input(4)->numel() > 0;
    if (ctx.input(2) != nullptr && ctx.input(2)->numel() > 0) max_out = static_cast<int64_t>(ReadDouble(*ctx.input(2), 0));
    if (ctx.input(3) != nullptr && ctx.input(3)->numel() > 0) iou = static_cast<float>(ReadDouble(*ctx.input(3), 0));
    if (has_score_min) score_min = static_cast<float>(ReadDouble(*ctx.input(4), 0));
    const int64_t batches = boxes.dim(0), n = boxes.dim(1), classes = scores.dim(1);
    std::vector<int64_t> selected;  // triples
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t b = 0; b < batches; ++b) {
      std::vector<Box> bx(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const float* p = boxes.data<float>() + (b * n + i) * 4;
        if (center_) {  // x_center, y_center, width, height
          bx[i] = {p[1] - p[3] / 2, p[0] - p[2] / 2, p[1] + p[3] / 2, p[0] + p[2] / 2};
        } else {  // either diagonal pair of corners
          bx[i] = {std::min(p[0], p[2]), std::min(p[1], p[3]), std::max(p[0], p[2]), std::max(p[1], p[3])};
        }
      }
      for (int64_t c = 0; c < classes; ++c) {
        const float* s = scores.data<float>() + (b * classes + c) * n;
        order.clear();
        for (int64_t i = 0; i < n; ++i) {
          if (!has_score_min || s[i] > score_min) order.push_back(i);
        }
        std::stable_sort(order.begin(), order.end(), [&](int64_t l, int64_t r) { return s[l] > s[r]; });
        std::vector<int64_t> kept;
        for (int64_t i : order) {
          if (static_cast<int64_t>(kept.size()) >= max_out) break;
          bool drop = false;
          for (int64_t j : kept) drop = drop || Suppresses(bx[i], bx[j], iou);
          if (drop) continue;
          kept.push_back(i);
          selected.insert(selected.end(), {b, c, i});
        }
      }
    }
    const int64_t count = static_cast<int64_t>(selected.size() / 3);
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(0, DataType::kInt64, {count, 3}));
    std::copy(selected.begin(), selected.end(), (out)->data<int64_t>());
    return absl::OkStatus();
  }

 private:
  bool center_ = false;
};

}  // namespace

extern const KernelRegistration kDetectionKernels[] = {
    {"RoiAlign", MakeKernel<RoiAlignKernel>, HalfMode::kViaFloat32},
    {"MaxRoiPool", MakeKernel<MaxRoiPoolKernel>, HalfMode::kViaFloat32},
    {"NonMaxSuppression", MakeKernel<NonMaxSuppressionKernel>, HalfMode::kViaFloat32},
};
extern const size_t kNumDetectionKernels = sizeof(kDetectionKernels) / sizeof(kDetectionKernels[0]);

}  // namespace pt2onnx::runtime
