// File: reference/library_ops.cc
// -----------------------------------------------------------------------------
// Reference kernels for library custom operators translated as built-ins
// (ops/library_ops.cc), following each library's own Python implementation
// (transformers' grouped_mm_fallback: grouped_matmul.cc).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// ---- torchvision 0.29 (torchvision/csrc/ops/cpu/{nms,roi_align,roi_pool}_kernel.cpp),
// computed in float as those kernels are for float32 tensors.

// torchvision::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor
absl::Status Nms(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor dets, call.Input("dets"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor scores, call.Input("scores"));
  PT2ONNX_ASSIGN_OR_RETURN(double threshold, call.Double("iou_threshold"));
  if (dets.rank() != 2 || dets.dim(1) != 4 || scores.rank() != 1 || scores.dim(0) != dets.dim(0)) {
    return call.Invalid("boxes should be (N, 4) with a score each");
  }
  const int64_t n = dets.dim(0);
  std::vector<double> d = ToDoubles(dets), s = ToDoubles(scores);
  std::vector<float> area(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    area[i] = (static_cast<float>(d[i * 4 + 2]) - static_cast<float>(d[i * 4])) *
              (static_cast<float>(d[i * 4 + 3]) - static_cast<float>(d[i * 4 + 1]));
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return s[a] > s[b]; });
  std::vector<bool> suppressed(static_cast<size_t>(n), false);
  std::vector<int64_t> keep;
  for (int64_t oi = 0; oi < n; ++oi) {
    const int64_t i = order[oi];
    if (suppressed[i]) continue;
    keep.push_back(i);
    for (int64_t oj = oi + 1; oj < n; ++oj) {
      const int64_t j = order[oj];
      if (suppressed[j]) continue;
      auto at = [&](int64_t box, int k) { return static_cast<float>(d[box * 4 + k]); };
      const float w = std::max(0.0f, std::min(at(i, 2), at(j, 2)) - std::max(at(i, 0), at(j, 0)));
      const float h = std::max(0.0f, std::min(at(i, 3), at(j, 3)) - std::max(at(i, 1), at(j, 1)));
      const float inter = w * h;
      const float overlap = inter / (area[i] + area[j] - inter);
      if (overlap > threshold) suppressed[j] = true;
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, FromInts(DataType::kInt64, Dims{static_cast<int64_t>(keep.size())}, keep));
  return call.SetTensor(std::move(out));
}

struct RoiArgs {
  Tensor input;
  std::vector<double> x, rois;
  int64_t k = 0, c = 0, h = 0, w = 0, ph = 0, pw = 0;
  float scale = 1;
};

absl::StatusOr<RoiArgs> ReadRoiArgs(const RefCall& call) {
  RoiArgs a;
  PT2ONNX_ASSIGN_OR_RETURN(a.input, call.Input("input"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor rois, call.Input("rois"));
  PT2ONNX_ASSIGN_OR_RETURN(double scale, call.Double("spatial_scale"));
  PT2ONNX_ASSIGN_OR_RETURN(a.ph, call.Int("pooled_height"));
  PT2ONNX_ASSIGN_OR_RETURN(a.pw, call.Int("pooled_width"));
  if (a.input.rank() != 4 || rois.rank() != 2 || rois.dim(1) != 5 || a.ph <= 0 || a.pw <= 0) {
    return call.Invalid("expects input (N, C, H, W), rois (K, 5) and positive pooled sizes");
  }
  a.scale = static_cast<float>(scale);
  a.k = rois.dim(0);
  a.c = a.input.dim(1);
  a.h = a.input.dim(2);
  a.w = a.input.dim(3);
  a.x = ToDoubles(a.input);
  a.rois = ToDoubles(rois);
  for (int64_t n = 0; n < a.k; ++n) {
    const double b = a.rois[n * 5];
    if (!(b >= 0 && b < static_cast<double>(a.input.dim(0)))) {
      return call.Invalid(absl::StrCat("roi ", n, " names batch ", b, " of ", a.input.dim(0)));
    }
  }
  return a;
}

// roi_align_common.h: bilinear weights of (y, x), zero outside [-1, H] x [-1, W].
float Sample(const std::vector<double>& x, int64_t base, int64_t h, int64_t w, float y, float xx) {
  if (y < -1.0f || y > h || xx < -1.0f || xx > w) return 0.0f;
  if (y <= 0) y = 0;
  if (xx <= 0) xx = 0;
  int64_t yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(xx), yh, xh;
  if (yl >= h - 1) { yh = yl = h - 1; y = static_cast<float>(yl); } else { yh = yl + 1; }
  if (xl >= w - 1) { xh = xl = w - 1; xx = static_cast<float>(xl); } else { xh = xl + 1; }
  const float ly = y - yl, lx = xx - xl, hy = 1 - ly, hx = 1 - lx;
  auto v = [&](int64_t r, int64_t c) { return static_cast<float>(x[base + r * w + c]); };
  return hy * hx * v(yl, xl) + hy * lx * v(yl, xh) + ly * hx * v(yh, xl) + ly * lx * v(yh, xh);
}

// torchvision::roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor
absl::Status RoiAlign(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(RoiArgs a, ReadRoiArgs(call));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t ratio, call.Int("sampling_ratio"));
  PT2ONNX_ASSIGN_OR_RETURN(bool aligned, call.Bool("aligned"));
  std::vector<double> out(static_cast<size_t>(a.k * a.c * a.ph * a.pw));
  const float offset = aligned ? 0.5f : 0.0f;
  for (int64_t n = 0; n < a.k; ++n) {
    const double* r = &a.rois[n * 5];
    const int64_t b = static_cast<int64_t>(r[0]);
    const float sw = static_cast<float>(r[1]) * a.scale - offset, sh = static_cast<float>(r[2]) * a.scale - offset;
    float rw = static_cast<float>(r[3]) * a.scale - offset - sw, rh = static_cast<float>(r[4]) * a.scale - offset - sh;
    if (!aligned) {
      rw = std::max(rw, 1.0f);
      rh = std::max(rh, 1.0f);
    }
    const float bh = rh / a.ph, bw = rw / a.pw;
    const int64_t gh = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(rh / a.ph));
    const int64_t gw = ratio > 0 ? ratio : static_cast<int64_t>(std::ceil(rw / a.pw));
    const float count = static_cast<float>(std::max<int64_t>(gh * gw, 1));
    for (int64_t ch = 0; ch < a.c; ++ch) {
      const int64_t base = (b * a.c + ch) * a.h * a.w;
      for (int64_t py = 0; py < a.ph; ++py) {
        for (int64_t px = 0; px < a.pw; ++px) {
          float sum = 0;
          for (int64_t iy = 0; iy < gh; ++iy) {
            const float y = sh + py * bh + (iy + 0.5f) * bh / gh;
            for (int64_t ix = 0; ix < gw; ++ix) sum += Sample(a.x, base, a.h, a.w, y, sw + px * bw + (ix + 0.5f) * bw / gw);
          }
          out[((n * a.c + ch) * a.ph + py) * a.pw + px] = sum / count;
        }
      }
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor result, FromDoubles(a.input.dtype(), Dims{a.k, a.c, a.ph, a.pw}, out));
  return call.SetTensor(std::move(result));
}

// torchvision::roi_pool(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width) -> (Tensor, Tensor)
// The max of each bin, and its flat position in the (H, W) plane (-1 for an empty bin).
absl::Status RoiPool(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(RoiArgs a, ReadRoiArgs(call));
  std::vector<double> out(static_cast<size_t>(a.k * a.c * a.ph * a.pw));
  std::vector<int64_t> argmax(out.size());
  for (int64_t n = 0; n < a.k; ++n) {
    const double* r = &a.rois[n * 5];
    const int64_t b = static_cast<int64_t>(r[0]);
    auto scaled = [&](int i) { return static_cast<int64_t>(std::round(static_cast<float>(r[i]) * a.scale)); };
    const int64_t sw = scaled(1), sh = scaled(2), ew = scaled(3), eh = scaled(4);
    const float bh = static_cast<float>(std::max<int64_t>(eh - sh + 1, 1)) / a.ph;
    const float bw = static_cast<float>(std::max<int64_t>(ew - sw + 1, 1)) / a.pw;
    for (int64_t py = 0; py < a.ph; ++py) {
      const int64_t hs = std::min(std::max<int64_t>(static_cast<int64_t>(std::floor(py * bh)) + sh, 0), a.h);
      const int64_t he = std::min(std::max<int64_t>(static_cast<int64_t>(std::ceil((py + 1) * bh)) + sh, 0), a.h);
      for (int64_t px = 0; px < a.pw; ++px) {
        const int64_t ws = std::min(std::max<int64_t>(static_cast<int64_t>(std::floor(px * bw)) + sw, 0), a.w);
        const int64_t we = std::min(std::max<int64_t>(static_cast<int64_t>(std::ceil((px + 1) * bw)) + sw, 0), a.w);
        const bool empty = he <= hs || we <= ws;
        for (int64_t ch = 0; ch < a.c; ++ch) {
          const int64_t base = (b * a.c + ch) * a.h * a.w;
          double best = empty ? 0.0 : -std::numeric_limits<float>::max();
          int64_t at = -1;
          for (int64_t y = hs; y < he; ++y) {
            for (int64_t x = ws; x < we; ++x) {
              if (a.x[base + y * a.w + x] > best) {
                best = a.x[base + y * a.w + x];
                at = y * a.w + x;
              }
            }
          }
          const size_t o = static_cast<size_t>(((n * a.c + ch) * a.ph + py) * a.pw + px);
          out[o] = best;
          argmax[o] = at;
        }
      }
    }
  }
  Dims dims{a.k, a.c, a.ph, a.pw};
  PT2ONNX_ASSIGN_OR_RETURN(Tensor values, FromDoubles(a.input.dtype(), dims, out));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor positions, FromInts(DataType::kInt32, dims, argmax));
  std::vector<Tensor> results;
  results.push_back(std::move(values));
  results.push_back(std::move(positions));
  // A tuple return: one result per output (SetTensors makes one Tensor[] value).
  for (Tensor& t : results) PT2ONNX_RETURN_IF_ERROR(call.SetTensor(std::move(t)));
  return absl::OkStatus();
}

}  // namespace

void RegisterLibraryOpsRef(RefRegistry& r) {
  r.Add("torchvision::nms.default", Nms);
  r.Add("torchvision::roi_align.default", RoiAlign);
  r.Add("torchvision::roi_pool.default", RoiPool);
}

}  // namespace pt2onnx::reference
