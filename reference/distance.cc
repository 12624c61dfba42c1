// File: reference/distance.cc
// -----------------------------------------------------------------------------
// Reference kernels for the distances of ops/distance.cc that torch composes
// from norms (aten/src/ATen/native/Distance.cpp): pairwise_distance, dist and
// cosine_similarity (and triplet_margin_loss, Loss.cpp's loss over pairwise
// distances), as loops over the broadcast operands in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/aten/type_promotion.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "reference/kernel_support.h"
#include "reference/loss_reduction.h"
#include "reference/registry.h"

namespace pt2onnx::reference {
namespace {

// torch.norm of the values, p any real: p = 0 counts the nonzeros, +-inf
// takes the largest / smallest magnitude.
double NormOf(const std::vector<double>& v, double p) {
  if (std::isinf(p)) {
    double best = p > 0 ? 0.0 : std::numeric_limits<double>::infinity();
    for (double e : v) {
      const double m = std::fabs(e);
      if (std::isnan(m)) return m;
      best = p > 0 ? std::max(best, m) : std::min(best, m);
    }
    return best;
  }
  double acc = 0;
  for (double e : v) {
    if (p == 0) acc += e != 0 ? 1.0 : 0.0;  // NaN != 0 counts, as in torch
    else if (p == 2) acc += e * e;
    else acc += std::pow(std::fabs(e), p);
  }
  if (p == 0 || p == 1) return acc;
  return p == 2 ? std::sqrt(acc) : std::pow(acc, 1 / p);
}

// Both operands broadcast to their common dims, as doubles, and the dtype
// torch subtracts them in.
struct Pair {
  Dims dims;
  std::vector<double> a, b;
  DataType common = DataType::kFloat;
};

// a - b as torch computes it in `common`: integer differences wrap at the
// dtype's width (uint8 5 - 6 is 255) before anything makes them floating.
double Difference(double a, double b, DataType common) {
  if (!IsInteger(common) || !(std::fabs(a) < 9.2e18 && std::fabs(b) < 9.2e18)) return a - b;
  return WrapToWidth(static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(a)) -
                                          static_cast<uint64_t>(static_cast<int64_t>(b))),
                     common);
}
absl::StatusOr<Pair> ReadPair(const RefCall& call, absl::string_view first, absl::string_view second) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor a, call.Input(first));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor b, call.Input(second));
  Pair pair;
  PT2ONNX_ASSIGN_OR_RETURN(pair.dims, BroadcastDims(a.dims(), b.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor ab, BroadcastTo(a, pair.dims));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor bb, BroadcastTo(b, pair.dims));
  pair.a = ToDoubles(ab);
  pair.b = ToDoubles(bb);
  pair.common = aten::PromoteTypes(a.dtype(), b.dtype());
  return pair;
}

// Calls f(flat indices of one lane along `axis`) for every lane, in the
// row-major order of the remaining dims.
template <typename F>
void ForEachLane(const Dims& dims, int64_t axis, F f) {
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= dims[i];
  for (size_t i = axis + 1; i < dims.size(); ++i) inner *= dims[i];
  const int64_t n = dims.empty() ? 1 : dims[axis];
  std::vector<int64_t> lane(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t k = 0; k < n; ++k) lane[k] = (o * n + k) * inner + i;
      f(lane);
    }
  }
}

// `dims` without `axis` (kept as 1 with keepdim); a 0-d input stays 0-d.
Dims Reduced(const Dims& dims, int64_t axis, bool keepdim) {
  if (dims.empty()) return dims;
  Dims out = dims;
  if (keepdim) out[axis] = 1;
  else out.erase(out.begin() + axis);
  return out;
}

absl::Status FloatOutput(const RefCall& call) {
  if (!IsFloatLike(call.OutputDtype())) return call.Invalid("norms need a floating-point result");
  return absl::OkStatus();
}

// aten::pairwise_distance(Tensor x1, Tensor x2, float p=2., float eps=1e-06, bool keepdim=False) -> Tensor
// norm(x1 - x2 + eps, p) over the last dim.
absl::Status PairwiseDistance(RefCall& call) {
  PT2ONNX_RETURN_IF_ERROR(FloatOutput(call));
  PT2ONNX_ASSIGN_OR_RETURN(Pair pair, ReadPair(call, "x1", "x2"));
  PT2ONNX_ASSIGN_OR_RETURN(double p, call.Double("p"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(bool keepdim, call.Bool("keepdim"));
  const int64_t axis = pair.dims.empty() ? 0 : static_cast<int64_t>(pair.dims.size()) - 1;
  std::vector<double> out;
  ForEachLane(pair.dims, axis, [&](const std::vector<int64_t>& lane) {
    std::vector<double> d;
    for (int64_t k : lane) d.push_back(Difference(pair.a[k], pair.b[k], pair.common) + eps);
    out.push_back(NormOf(d, p));
  });
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(call.OutputDtype(), Reduced(pair.dims, axis, keepdim), out));
  return call.SetTensor(std::move(t));
}

// aten::dist(Tensor self, Tensor other, Scalar p=2) -> Tensor
absl::Status Dist(RefCall& call) {
  PT2ONNX_RETURN_IF_ERROR(FloatOutput(call));
  PT2ONNX_ASSIGN_OR_RETURN(Pair pair, ReadPair(call, "self", "other"));
  PT2ONNX_ASSIGN_OR_RETURN(RefScalar p, call.Scalar("p"));
  std::vector<double> d(pair.a.size());
  for (size_t i = 0; i < d.size(); ++i) d[i] = pair.a[i] - pair.b[i];
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, ScalarTensor(call.OutputDtype(), NormOf(d, p.AsDouble())));
  return call.SetTensor(std::move(t));
}

// aten::cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor
// sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps)) over dim, each norm
// clamped on its own.
absl::Status CosineSimilarity(RefCall& call) {
  PT2ONNX_RETURN_IF_ERROR(FloatOutput(call));
  PT2ONNX_ASSIGN_OR_RETURN(Pair pair, ReadPair(call, "x1", "x2"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t dim, call.Int("dim"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t axis, WrapDim(dim, static_cast<int64_t>(pair.dims.size())));
  std::vector<double> out;
  ForEachLane(pair.dims, axis, [&](const std::vector<int64_t>& lane) {
    double na = 0, nb = 0;
    for (int64_t k : lane) {
      na += pair.a[k] * pair.a[k];
      nb += pair.b[k] * pair.b[k];
    }
    na = std::max(std::sqrt(na), eps);
    nb = std::max(std::sqrt(nb), eps);
    double sum = 0;
    for (int64_t k : lane) sum += (pair.a[k] / na) * (pair.b[k] / nb);
    out.push_back(sum);
  });
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, FromDoubles(call.OutputDtype(), Reduced(pair.dims, axis, false), out));
  return call.SetTensor(std::move(t));
}

// aten::triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1., float p=2.,
//     float eps=1e-06, bool swap=False, int reduction=1) -> Tensor
// max(margin + d(a, p) - d(a, n), 0), d the pairwise distance over the last
// dim; swap: the negative distance is min(d(a, n), d(p, n)).
absl::Status TripletMarginLoss(RefCall& call) {
  PT2ONNX_RETURN_IF_ERROR(FloatOutput(call));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor anchor, call.Input("anchor"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor positive, call.Input("positive"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor negative, call.Input("negative"));
  PT2ONNX_ASSIGN_OR_RETURN(double margin, call.Double("margin"));
  PT2ONNX_ASSIGN_OR_RETURN(double p, call.Double("p"));
  PT2ONNX_ASSIGN_OR_RETURN(double eps, call.Double("eps"));
  PT2ONNX_ASSIGN_OR_RETURN(bool swap, call.Bool("swap"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t reduction, ReadReduction(call));
  if (anchor.rank() != positive.rank() || anchor.rank() != negative.rank()) {
    return call.Invalid("anchor, positive and negative must have the same rank");
  }
  Dims dims;
  PT2ONNX_ASSIGN_OR_RETURN(dims, BroadcastDims(anchor.dims(), positive.dims()));
  PT2ONNX_ASSIGN_OR_RETURN(dims, BroadcastDims(dims, negative.dims()));
  const DataType dtypes[] = {anchor.dtype(), positive.dtype(), negative.dtype()};
  std::vector<std::vector<double>> v;
  for (const Tensor* t : {&anchor, &positive, &negative}) {
    PT2ONNX_ASSIGN_OR_RETURN(Tensor b, BroadcastTo(*t, dims));
    v.push_back(ToDoubles(b));
  }
  const int64_t axis = dims.empty() ? 0 : static_cast<int64_t>(dims.size()) - 1;
  auto distance = [&](const std::vector<int64_t>& lane, int i, int j) {
    std::vector<double> d;
    const DataType common = aten::PromoteTypes(dtypes[i], dtypes[j]);
    for (int64_t k : lane) d.push_back(Difference(v[i][k], v[j][k], common) + eps);
    return NormOf(d, p);
  };
  std::vector<double> loss;
  ForEachLane(dims, axis, [&](const std::vector<int64_t>& lane) {
    double d_neg = distance(lane, 0, 2);
    if (swap) d_neg = std::min(d_neg, distance(lane, 1, 2));
    const double value = margin + distance(lane, 0, 1) - d_neg;
    loss.push_back(value < 0 ? 0.0 : value);
  });
  return SetReduced(call, call.OutputDtype(), Reduced(dims, axis, false), loss, reduction);
}

}  // namespace

void RegisterDistanceRef(RefRegistry& r) {
  r.Add("aten::pairwise_distance.default", PairwiseDistance);
  r.Add("aten::dist.default", Dist);
  r.Add("aten::cosine_similarity.default", CosineSimilarity);
  r.Add("aten::triplet_margin_loss.default", TripletMarginLoss);
}

}  // namespace pt2onnx::reference
