// File: ops/incomplete_gamma.cc
// -----------------------------------------------------------------------------
// igamma / igammac: the regularized lower and upper incomplete gamma
// functions P(a, x) and Q(a, x) = 1 - P(a, x). Opsets 18..23.
//
// torch (aten/src/ATen/native/Math.h, calc_igamma / calc_igammac, after
// SciPy and Cephes) first settles the boundaries: NaN for a < 0 or x < 0;
// a = 0 gives P = 1 for x > 0 (NaN at x = 0); x = 0 gives P = 0; an infinite
// a gives P = 0 (NaN when x is infinite too); an infinite x gives P = 1.
// Elsewhere it sums a power series or a continued fraction (at most 2000
// terms each, stopping once a term no longer changes the sum), with a
// uniform asymptotic expansion for large a near x. Here the same boundaries,
// then, in float64 and rounded to the output dtype: the series
// P = x^a e^-x / Gamma(a) * sum_k x^k / (a (a+1) ... (a+k)) for x < a + 1,
// else the continued fraction of Q (DLMF 8.9.2, modified Lentz), each an ONNX
// Loop of at most torch's 2000 iterations that ends when every element has
// converged to float64 precision. Both in float64 are at least as accurate as
// torch's float32 kernel; for a above ~1e5 with x near a (torch's asymptotic
// regime) 2000 terms may not converge and the result loses digits.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/gamma_helpers.h"
#include "ops/translate_api.h"
#include "translate/loop_builder.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "ops/formula.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

constexpr DataType kF64 = DataType::kDouble;
constexpr int64_t kMaxIterations = 2000;          // torch's MAXITER
constexpr double kEpsilon = 1.11022302462515654042e-16;  // torch's MACHEP for double
constexpr double kTiny = 1e-300;                  // Lentz's guard against a zero denominator
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();


// One step of a loop: the carried values' next state and, elementwise,
// whether the element has not converged yet.
struct Next {
  std::vector<std::string> values;
  std::string pending;
};
using StepFn = std::function<Next(Formula& m, const std::string& k, const std::vector<std::string>& carried)>;

// Runs `step` (k = 0, 1, ... as float64) as an ONNX Loop of at most
// kMaxIterations trips from `init`, while an element is pending.
std::vector<std::string> Iterate(Formula& m, const std::vector<std::string>& init,
                                 const std::optional<std::vector<ir::Dim>>& dims, const StepFn& step) {
  TranslateContext& ctx = m.ctx;
  return LoopWhilePending(ctx, "igamma", ctx.ConstantInt64(kMaxIterations), init,
                          std::vector<LoopValueType>(init.size(), LoopValueType{kF64, dims}),
                          [&](const std::string& trip, const std::vector<std::string>& carried) {
                            Next next = step(m, ctx.CastTo(trip, DataType::kInt64, kF64), carried);
                            return LoopTrip{std::move(next.values), std::move(next.pending)};
                          });
}

// The lower function by its series, for elements with x < a + 1 (others get
// a = 1, x = 0.5 so the loop ends quickly): sum_k x^k / ((a+1)...(a+k)).
std::string SeriesSum(Formula& m, const std::string& a, const std::string& x,
                      const std::optional<std::vector<ir::Dim>>& dims) {
  std::string one = m.where({m.eq({a, a}), m.c(1), m.c(1)});  // 1 broadcast to the shape
  std::vector<std::string> out = Iterate(m, {one, one}, dims, [&](Formula& f, const std::string& k,
                                                                 const std::vector<std::string>& v) {
    std::string term = f.mul({v[0], f.div({x, f.add({a, f.add({k, f.c(1)})})})});
    std::string sum = f.add({v[1], term});
    return Next{{term, sum}, f.gt({term, f.mul({f.c(kEpsilon), sum})})};
  });
  return out[1];
}

// The upper function's continued fraction (modified Lentz), for x >= a + 1
// (others get a = 1, x = 3).
std::string ContinuedFraction(Formula& m, const std::string& a, const std::string& x,
                              const std::optional<std::vector<ir::Dim>>& dims) {
  std::string b0 = m.add({m.sub({x, a}), m.c(1)});
  std::string d0 = m.div({m.c(1), b0});
  std::string c0 = m.where({m.eq({b0, b0}), m.c(1 / kTiny), m.c(1 / kTiny)});
  std::vector<std::string> out = Iterate(m, {b0, c0, d0, d0}, dims, [&](Formula& f, const std::string& k,
                                                                        const std::vector<std::string>& v) {
    std::string i = f.add({k, f.c(1)});
    std::string an = f.mul({f.op("Neg", i), f.sub({i, a})});
    std::string b = f.add({v[0], f.c(2)});
    auto guard = [&](const std::string& z) { return f.where({f.lt({f.op("Abs", z), f.c(kTiny)}), f.c(kTiny), z}); };
    std::string d = f.div({f.c(1), guard(f.add({f.mul({an, v[2]}), b}))});
    std::string c = guard(f.add({b, f.div({an, v[1]})}));
    std::string delta = f.mul({d, c});
    std::string h = f.mul({v[3], delta});
    return Next{{b, c, d, h}, f.gt({f.op("Abs", f.sub({delta, f.c(1)})), f.c(kEpsilon)})};
  });
  return out[3];
}

// aten::igamma(Tensor self, Tensor other) -> Tensor: P(a = self, x = other)
// (igammac: Q = 1 - P).
absl::Status IncompleteGamma(TranslateContext& ctx, bool upper) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType out, OutDtype(ctx));
  if (!IsFloatingPoint(out)) {
    return ctx.Unsupported(absl::StrCat(ctx.key(), " with a ", DataTypeName(out), " result"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::string a_in, ctx.InputAs("self", kF64));
  PT2ONNX_ASSIGN_OR_RETURN(std::string x_in, ctx.InputAs("other", kF64));
  Formula m{ctx, kF64};
  std::string shape = ctx.Op("Shape", {m.add({a_in, x_in})});
  std::string a = ctx.Op("Expand", {a_in, shape});
  std::string x = ctx.Op("Expand", {x_in, shape});
  const std::optional<std::vector<ir::Dim>> dims = LoopResultDims(ctx);

  // Where the boundaries decide (or NaN is involved), the loops get values
  // that converge at once; the boundary value replaces their result.
  std::string a_inf = m.eq({m.op("Abs", a), m.c(kInf)});
  std::string x_inf = m.eq({m.op("Abs", x), m.c(kInf)});
  std::string nan = m.either({m.op("IsNaN", a), m.op("IsNaN", x)});
  std::string decided = m.either({m.either({nan, m.either({a_inf, x_inf})}),
                                  m.either({m.lt({a, m.c(1e-300)}), m.lt({x, m.c(1e-300)})})});
  std::string series = m.lt({x, m.add({a, m.c(1)})});
  std::string a_series = m.where({m.either({decided, m.op("Not", series)}), m.c(1), a});
  std::string x_series = m.where({m.either({decided, m.op("Not", series)}), m.c(0.5), x});
  std::string a_fraction = m.where({m.either({decided, series}), m.c(1), a});
  std::string x_fraction = m.where({m.either({decided, series}), m.c(3), x});

  // x^a e^-x / Gamma(a), in logs.
  auto prefactor = [&](const std::string& pa, const std::string& px) {
    return m.op("Exp", m.sub({m.sub({m.mul({pa, m.op("Log", px)}), px}), LgammaDouble(ctx, pa)}));
  };
  std::string lower = m.div({m.mul({SeriesSum(m, a_series, x_series, dims), prefactor(a_series, x_series)}), a_series});
  std::string upper_cf = m.mul({ContinuedFraction(m, a_fraction, x_fraction, dims), prefactor(a_fraction, x_fraction)});
  std::string p = m.where({series, lower, m.sub({m.c(1), upper_cf})});
  std::string q = m.where({series, m.sub({m.c(1), lower}), upper_cf});
  std::string y = upper ? q : p;

  // torch's boundary cases, the first that applies winning (so applied last).
  const double one = upper ? 0 : 1, zero = upper ? 1 : 0;  // P = 1 / P = 0 as this function's value
  y = m.where({x_inf, m.c(one), y});
  y = m.where({a_inf, m.where({x_inf, m.c(kNan), m.c(zero)}), y});
  y = m.where({m.eq({x, m.c(0)}), m.c(zero), y});
  y = m.where({m.eq({a, m.c(0)}), m.where({m.gt({x, m.c(0)}), m.c(one), m.c(kNan)}), y});
  y = m.where({m.either({m.lt({x, m.c(0)}), m.lt({a, m.c(0)})}), m.c(kNan), y});
  y = m.where({nan, m.c(kNan), y});
  y = ctx.CastTo(y, kF64, out);
  // Expand to a run-time shape hides static sizes from shape inference:
  // restate them when the program knows them all.
  std::vector<int64_t> static_dims;
  for (const ir::Dim& dim : dims.value_or(std::vector<ir::Dim>{ir::Dim{}})) {
    if (!dim.is_static()) return BindResult(ctx, y);
    static_dims.push_back(dim.value);
  }
  return BindResult(ctx, Reshape(ctx, y, static_dims));
}

// aten::igamma(Tensor self, Tensor other) -> Tensor
absl::Status AtenIgamma(TranslateContext& ctx) { return IncompleteGamma(ctx, false); }
// aten::igammac(Tensor self, Tensor other) -> Tensor
absl::Status AtenIgammac(TranslateContext& ctx) { return IncompleteGamma(ctx, true); }

}  // namespace

void RegisterIncompleteGammaOps(OpRegistry& r) {
  AddWithInPlace(r, "aten::igamma", "default", &AtenIgamma);
  AddWithInPlace(r, "aten::igammac", "default", &AtenIgammac);
  r.Add("aten::special_gammainc.default", &AtenIgamma);
  r.Add("aten::special_gammaincc.default", &AtenIgammac);
}

}  // namespace pt2onnx::ops
