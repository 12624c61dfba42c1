// File: ops/linalg_spectral_helpers.cc
// -----------------------------------------------------------------------------
// Jacobi eigendecomposition and SVD as ONNX Loops of round-robin rotation
// rounds; see the header for the design.
#include "ops/linalg_spectral_helpers.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/ir/graph.h"
#include "core/ir/tensor.h"
#include "core/status_macros.h"
#include "ops/linalg_unrolled_helpers.h"
#include "ops/translate_api.h"
#include "translate/loop_builder.h"
#include "translate/op_helpers.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;
constexpr DataType kF64 = DataType::kDouble;

// The circle method: round r pairs (r, M-1) and ((r+i) mod (M-1),
// (r-i) mod (M-1)) for i = 1 .. M/2-1, M = n rounded up to even; pairs
// with the padding index n (odd n) are dropped, leaving floor(n/2) a round.
struct Schedule {
  int64_t rounds = 0, pairs = 0;
  std::vector<int64_t> p, q;  // (rounds, pairs) row-major
};

Schedule RoundRobin(int64_t n) {
  const int64_t players = n + (n % 2);
  Schedule s;
  s.rounds = players - 1;
  s.pairs = n / 2;
  for (int64_t r = 0; r < s.rounds; ++r) {
    std::vector<std::pair<int64_t, int64_t>> round = {{r, players - 1}};
    for (int64_t i = 1; i < players / 2; ++i) {
      round.push_back({(r + i) % (players - 1), (r - i + players - 1) % (players - 1)});
    }
    for (auto [a, b] : round) {
      if (a >= n || b >= n) continue;
      s.p.push_back(std::min(a, b));
      s.q.push_back(std::max(a, b));
    }
  }
  return s;
}

}  // namespace

std::vector<std::string> RunLoop(TranslateContext& ctx, const std::string& trips,
                                 const std::vector<std::string>& init,
                                 const std::vector<std::vector<ir::Dim>>& dims, const LoopBody& body) {
  std::vector<LoopValueType> types;
  for (const std::vector<ir::Dim>& d : dims) types.push_back(LoopValueType{kF64, d});
  return LoopWhilePending(ctx, "jacobi", trips, init, types,
                          [&](const std::string& trip, const std::vector<std::string>& carried) {
                            return LoopTrip{body(trip, carried), ""};
                          });
}

namespace {

struct RoundPairs {
  std::string p, q;    // (k,) INT64
  std::string ep, eq;  // (k, n) float64 one-hot rows
};

// The pairs of round `iteration` mod rounds.
RoundPairs PairsOf(TranslateContext& ctx, const Schedule& s, const std::string& iteration,
                   int64_t n) {
  std::string r = ctx.Op("Mod", {iteration, ctx.ConstantInt64(s.rounds)});
  std::vector<int64_t> ids;
  for (int64_t i = 0; i < n; ++i) ids.push_back(i);
  std::string cols = ctx.Constant(ir::Tensor::Int64s({n}, ids));
  RoundPairs out;
  out.p = ctx.Op("Gather", {ctx.Constant(ir::Tensor::Int64s({s.rounds, s.pairs}, s.p)), r},
                 {Attribute::Int("axis", 0)});
  out.q = ctx.Op("Gather", {ctx.Constant(ir::Tensor::Int64s({s.rounds, s.pairs}, s.q)), r},
                 {Attribute::Int("axis", 0)});
  out.ep = ctx.CastTo(ctx.Op("Equal", {Unsqueeze(ctx, out.p, {1}), cols}), DataType::kBool, kF64);
  out.eq = ctx.CastTo(ctx.Op("Equal", {Unsqueeze(ctx, out.q, {1}), cols}), DataType::kBool, kF64);
  return out;
}

// The rotation J (..., n, n) of one round (its transpose too when
// `transposed` is given): for each pair, c and s of Golub & Van Loan's
// sym.schur2 that diagonalize [[app, apq], [apq, aqq]] as J^T G J
// (J_pp = J_qq = c, J_pq = s, J_qp = -s); apq == 0 leaves the pair alone.
// J^T is built, not transposed: ONNX Runtime fuses a Transpose into the
// MatMul it feeds (FusedMatMul), which has no float64 kernel.
std::string RoundRotation(TranslateContext& ctx, const RoundPairs& pr, const std::string& app,
                          const std::string& aqq, const std::string& apq, const std::string& eye,
                          std::string* transposed = nullptr) {
  auto k = [&](double v) { return ctx.ConstantScalar(kF64, v); };
  std::string is_zero = ctx.Op("Equal", {apq, k(0)});
  std::string safe = ctx.Op("Where", {is_zero, k(1), apq});
  std::string tau = ctx.Op("Div", {ctx.Op("Sub", {aqq, app}), ctx.Op("Mul", {k(2), safe})});
  std::string root = ctx.Op("Sqrt", {ctx.Op("Add", {k(1), ctx.Op("Mul", {tau, tau})})});
  std::string sign = ctx.Op("Where", {ctx.Op("Less", {tau, k(0)}), k(-1), k(1)});
  std::string t = ctx.Op("Div", {sign, ctx.Op("Add", {ctx.Op("Abs", {tau}), root})});
  t = ctx.Op("Where", {is_zero, k(0), t});
  std::string c = ctx.Op("Div", {k(1), ctx.Op("Sqrt", {ctx.Op("Add", {k(1), ctx.Op("Mul", {t, t})})})});
  std::string s = ctx.Op("Mul", {t, c});
  std::string cm = Unsqueeze(ctx, ctx.Op("Sub", {c, k(1)}), {-2});  // (..., 1, k)
  std::string sm = Unsqueeze(ctx, s, {-2});
  std::string ept = ctx.Op("Transpose", {pr.ep}), eqt = ctx.Op("Transpose", {pr.eq});
  std::string left = ctx.Op("Concat",
                            {ctx.Op("Mul", {ept, cm}), ctx.Op("Mul", {eqt, cm}),
                             ctx.Op("Mul", {ept, sm}), ctx.Op("Neg", {ctx.Op("Mul", {eqt, sm})})},
                            {Attribute::Int("axis", -1)});
  std::string right = ctx.Op("Concat", {pr.ep, pr.eq, pr.eq, pr.ep}, {Attribute::Int("axis", 0)});
  if (transposed != nullptr) {
    std::string left_t = ctx.Op(
        "Concat",
        {ctx.Op("Mul", {ept, cm}), ctx.Op("Mul", {eqt, cm}), ctx.Op("Neg", {ctx.Op("Mul", {ept, sm})}),
         ctx.Op("Mul", {eqt, sm})},
        {Attribute::Int("axis", -1)});
    *transposed = ctx.Op("Add", {eye, ctx.Op("MatMul", {left_t, right})});
  }
  return ctx.Op("Add", {eye, ctx.Op("MatMul", {left, right})});
}

std::string SumAxis(TranslateContext& ctx, const std::string& x, int64_t axis) {
  return ctx.Op("ReduceSum", {x, ctx.ConstantInt64s({axis})}, {Attribute::Int("keepdims", 0)});
}

// Columns of `x` (..., r, n) reordered by `idx` (..., n).
std::string GatherColumns(TranslateContext& ctx, const std::string& x, const std::string& idx) {
  std::string index = ctx.Op("Expand", {Unsqueeze(ctx, idx, {-2}), ctx.Op("Shape", {x})});
  return ctx.Op("GatherElements", {x, index}, {Attribute::Int("axis", -1)});
}

std::string Eye(TranslateContext& ctx, int64_t n) {
  return ctx.CastTo(ConstantMask(ctx, n, n, [](int64_t i, int64_t j) { return i == j; }),
                    DataType::kBool, kF64);
}

}  // namespace

std::vector<ir::Dim> MatrixDims(int64_t rank, int64_t rows, int64_t cols) {
  std::vector<ir::Dim> dims(static_cast<size_t>(rank - 2), ir::Dim{});
  dims.push_back(ir::Dim::Static(rows));
  dims.push_back(ir::Dim::Static(cols));
  return dims;
}

SymmetricEigen JacobiEigh(TranslateContext& ctx, const std::string& a, int64_t n, int64_t rank,
                          bool empty_batch) {
  if (empty_batch) return {ReshapeLast(ctx, a, {n}), a};
  std::string eye = Eye(ctx, n);
  std::string v0 = BatchedEye(ctx, n, BatchShape(ctx, a), kF64);
  std::string work = a, vectors = v0;
  const Schedule s = RoundRobin(n);
  if (s.pairs > 0) {
    auto body = [&](const std::string& iteration, const std::vector<std::string>& c) {
      const std::string& w = c[0];
      RoundPairs pr = PairsOf(ctx, s, iteration, n);
      std::string d = SumAxis(ctx, ctx.Op("Mul", {w, eye}), -1);  // (..., n)
      std::string app = ctx.Op("Gather", {d, pr.p}, {Attribute::Int("axis", -1)});
      std::string aqq = ctx.Op("Gather", {d, pr.q}, {Attribute::Int("axis", -1)});
      std::string rows_p = ctx.Op("Gather", {w, pr.p}, {Attribute::Int("axis", -2)});  // (..., k, n)
      std::string apq = SumAxis(ctx, ctx.Op("Mul", {rows_p, pr.eq}), -1);
      std::string jt;
      std::string j = RoundRotation(ctx, pr, app, aqq, apq, eye, &jt);
      std::string rotated = ctx.Op("MatMul", {ctx.Op("MatMul", {jt, w}), j});
      // Symmetrized, so rounding cannot pull the two triangles apart.
      std::string sym = ctx.Op("Mul", {ctx.Op("Add", {rotated, TransposeLast2(ctx, rotated, rank)}),
                                       ctx.ConstantScalar(kF64, 0.5)});
      return std::vector<std::string>{sym, ctx.Op("MatMul", {c[1], j})};
    };
    std::vector<std::string> out =
        RunLoop(ctx, ctx.ConstantInt64(kJacobiSweeps * s.rounds), {work, vectors},
                {MatrixDims(rank, n, n), MatrixDims(rank, n, n)}, body);
    work = out[0];
    vectors = out[1];
  }
  std::string d = SumAxis(ctx, ctx.Op("Mul", {work, eye}), -1);
  std::vector<std::string> sorted =
      ctx.AddNode("TopK", {d, ctx.ConstantInt64s({n})},
                  {Attribute::Int("axis", -1), Attribute::Int("largest", 0), Attribute::Int("sorted", 1)},
                  2);
  return {sorted[0], GatherColumns(ctx, vectors, sorted[1])};
}

ThinSvd JacobiSvd(TranslateContext& ctx, const std::string& a, int64_t m, int64_t n, int64_t rank,
                  bool vectors, bool empty_batch) {
  if (empty_batch) {
    const int64_t k = std::min(m, n);
    ThinSvd t;
    t.s = ReshapeLast(ctx, a, {k});
    t.u = ReshapeLast(ctx, a, {m, k});
    t.v = ReshapeLast(ctx, a, {n, k});
    return t;
  }
  if (m < n) {
    ThinSvd t = JacobiSvd(ctx, TransposeLast2(ctx, a, rank), n, m, rank, vectors);
    std::swap(t.u, t.v);
    return t;
  }
  std::string eye = Eye(ctx, n);
  std::string work = a;
  std::string v = vectors ? BatchedEye(ctx, n, BatchShape(ctx, a), kF64) : std::string();
  const Schedule s = RoundRobin(n);
  if (s.pairs > 0) {
    auto body = [&](const std::string& iteration, const std::vector<std::string>& c) {
      const std::string& w = c[0];
      RoundPairs pr = PairsOf(ctx, s, iteration, n);
      std::string wp = ctx.Op("Gather", {w, pr.p}, {Attribute::Int("axis", -1)});  // (..., m, k)
      std::string wq = ctx.Op("Gather", {w, pr.q}, {Attribute::Int("axis", -1)});
      std::string app = SumAxis(ctx, ctx.Op("Mul", {wp, wp}), -2);
      std::string aqq = SumAxis(ctx, ctx.Op("Mul", {wq, wq}), -2);
      std::string apq = SumAxis(ctx, ctx.Op("Mul", {wp, wq}), -2);
      std::string j = RoundRotation(ctx, pr, app, aqq, apq, eye);
      std::vector<std::string> next = {ctx.Op("MatMul", {w, j})};
      if (c.size() > 1) next.push_back(ctx.Op("MatMul", {c[1], j}));
      return next;
    };
    std::vector<std::string> init = {work};
    std::vector<std::vector<ir::Dim>> dims = {MatrixDims(rank, m, n)};
    if (vectors) {
      init.push_back(v);
      dims.push_back(MatrixDims(rank, n, n));
    }
    std::vector<std::string> out = RunLoop(ctx, ctx.ConstantInt64(kJacobiSweeps * s.rounds), init, dims, body);
    work = out[0];
    if (vectors) v = out[1];
  }
  std::string norms = ctx.Op("Sqrt", {SumAxis(ctx, ctx.Op("Mul", {work, work}), -2)});  // (..., n)
  std::vector<std::string> sorted =
      ctx.AddNode("TopK", {norms, ctx.ConstantInt64s({n})},
                  {Attribute::Int("axis", -1), Attribute::Int("largest", 1), Attribute::Int("sorted", 1)},
                  2);
  ThinSvd out;
  out.s = sorted[0];
  if (!vectors) return out;
  std::string zero = ctx.ConstantScalar(kF64, 0);
  std::string row = Unsqueeze(ctx, norms, {-2});
  std::string positive = ctx.Op("Greater", {row, zero});
  std::string u = ctx.Op("Where", {positive,
                                   ctx.Op("Div", {work, ctx.Op("Where", {positive, row,
                                                                         ctx.ConstantScalar(kF64, 1)})}),
                                   zero});
  out.u = GatherColumns(ctx, u, sorted[1]);
  out.v = GatherColumns(ctx, v, sorted[1]);
  return out;
}

absl::StatusOr<SpectralInput> ReadSpectralInput(TranslateContext& ctx, absl::string_view arg) {
  SpectralInput in;
  PT2ONNX_ASSIGN_OR_RETURN(in.dtype, ctx.InputDtype(arg));
  if (in.dtype != DataType::kFloat && in.dtype != DataType::kDouble) {
    return ctx.Unsupported(absl::StrCat("a decomposition of dtype ", DataTypeName(in.dtype),
                                        " (float32 and float64 are translated)"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(auto dims, StaticMatrixDims(ctx, arg));
  in.rows = dims.first;
  in.cols = dims.second;
  PT2ONNX_ASSIGN_OR_RETURN(in.rank, ctx.InputRank(arg));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta(arg));
  for (size_t i = 0; i + 2 < meta->sizes.size(); ++i) {
    if (!meta->sizes[i].is_symbolic && meta->sizes[i].value == 0) in.empty_batch = true;
  }
  PT2ONNX_ASSIGN_OR_RETURN(in.a, ctx.InputAs(arg, kF64));
  return in;
}

std::string ReshapeLast(TranslateContext& ctx, const std::string& a, std::vector<int64_t> tail) {
  return ctx.Op("Reshape", {a, ctx.Op("Concat", {BatchShape(ctx, a), ctx.ConstantInt64s(std::move(tail))},
                                      {Attribute::Int("axis", 0)})},
                {Attribute::Int("allowzero", 1)});
}

std::string EmptyVector(TranslateContext& ctx, const std::string& a) {
  // A Reshape, not a reduction over the empty axis: ONNX Runtime keeps the
  // reduced axis of an empty input.
  return ctx.Op("Reshape", {a, ctx.Op("Concat", {BatchShape(ctx, a), ctx.ConstantInt64s({0})},
                                      {Attribute::Int("axis", 0)})},
                {Attribute::Int("allowzero", 1)});
}

std::string SingularValuesOf(TranslateContext& ctx, const std::string& a, int64_t m, int64_t n,
                             int64_t rank, bool empty_batch) {
  if (m == 0 || n == 0) return EmptyVector(ctx, a);
  return JacobiSvd(ctx, a, m, n, rank, /*vectors=*/false, empty_batch).s;
}

}  // namespace pt2onnx::ops
