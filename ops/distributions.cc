// File: ops/distributions.cc
// -----------------------------------------------------------------------------
// Sampling from torch's distributions: bernoulli, normal, the in-place
// samplers of Tensor (uniform_, normal_, cauchy_, exponential_, geometric_,
// log_normal_), multinomial and training-mode rrelu. Each is one or two
// RandomUniformLike / RandomNormalLike draws in double (ops/random_draws.h)
// pushed through the quantile function torch applies to its own uniform
// draws (aten/src/ATen/core/TransformationHelper.h), then narrowed to the
// output dtype. The values cannot equal torch's (another generator); the
// distribution, support, shape and dtype are torch's.
//
// Torch's argument checks that need tensor values (bernoulli's p in [0, 1],
// multinomial's non-negative rows) cannot run in the graph; such inputs give
// some value of the right shape and dtype instead of torch's error.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "ops/random_draws.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

using ir::Attribute;

std::string D(TranslateContext& ctx, double v) { return ctx.ConstantScalar(DataType::kDouble, v); }

// The tensor the sampler fills: `self`, and the dtype of the result.
struct Target {
  std::string self;
  DataType dtype;
};

absl::StatusOr<Target> SelfTarget(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string self, ctx.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("self"));
  return Target{self, dtype};
}

absl::Status FloatOnly(const TranslateContext& ctx, DataType dtype, absl::string_view what) {
  if (IsFloatingPoint(dtype)) return absl::OkStatus();
  return ctx.Unsupported(absl::StrCat(what, " of a ", DataTypeName(dtype),
                                      " tensor (torch samples it only into float tensors)"));
}

// Binds a double sample (shaped like self) to the result, narrowed.
absl::Status BindSample(TranslateContext& ctx, const std::string& sample, DataType dtype) {
  return BindResult(ctx, ctx.CastTo(sample, DataType::kDouble, dtype));
}

// ---- bernoulli ---------------------------------------------------------------

// 1 where u < p, else 0, in self's dtype; p a DOUBLE value broadcasting to self.
absl::Status Bernoulli(TranslateContext& ctx, const Target& t, const std::string& p) {
  std::string hit = ctx.Op("Less", {UniformDoubleLike(ctx, t.self), p});
  return BindResult(ctx, ctx.CastTo(hit, DataType::kBool, t.dtype));
}

// aten::bernoulli(Tensor self, *, Generator? generator=None) -> Tensor
// self holds the probabilities.
absl::Status AtenBernoulli(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Target t, SelfTarget(ctx));
  PT2ONNX_RETURN_IF_ERROR(FloatOnly(ctx, t.dtype, "bernoulli"));
  return Bernoulli(ctx, t, ctx.CastTo(t.self, t.dtype, DataType::kDouble));
}

// aten::bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor
// aten::bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)
absl::Status AtenBernoulliP(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Target t, SelfTarget(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double p, FloatOr(ctx, "p", 0.5));
  if (!(p >= 0 && p <= 1)) return ctx.Invalid(absl::StrCat("bernoulli expects 0 <= p <= 1, got p=", p));
  return Bernoulli(ctx, t, D(ctx, p));
}

// aten::bernoulli.Tensor(Tensor self, Tensor p, *, Generator? generator=None) -> Tensor
// (and bernoulli_.Tensor): p broadcasts to self.
absl::Status AtenBernoulliTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Target t, SelfTarget(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string p, ctx.InputAs("p", DataType::kDouble));
  return Bernoulli(ctx, t, p);
}

// ---- samplers of Tensor ------------------------------------------------------

// aten::uniform(Tensor self, float from=0., float to=1., *, Generator? generator=None) -> Tensor
// (and uniform_): from + (to - from) * u.
absl::Status AtenUniform(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Target t, SelfTarget(ctx));
  PT2ONNX_RETURN_IF_ERROR(FloatOnly(ctx, t.dtype, "uniform_"));
  PT2ONNX_ASSIGN_OR_RETURN(double from, FloatOr(ctx, "from", 0));
  PT2ONNX_ASSIGN_OR_RETURN(double to, FloatOr(ctx, "to", 1));
  if (!(from <= to)) {
    return ctx.Invalid(absl::StrCat("uniform_ expects to return a [from, to) range, but found from=", from,
                                    " > to=", to));
  }
  std::string u = UniformDoubleLike(ctx, t.self);
  return BindSample(ctx, ctx.Op("Add", {ctx.Op("Mul", {u, D(ctx, to - from)}), D(ctx, from)}), t.dtype);
}

absl::StatusOr<double> PositiveStd(const TranslateContext& ctx, double fallback) {
  PT2ONNX_ASSIGN_OR_RETURN(double std, FloatOr(ctx, "std", fallback));
  if (!(std >= 0)) return ctx.Invalid(absl::StrCat("normal expects std >= 0.0, but found std ", std));
  return std;
}

// aten::normal_(Tensor(a!) self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor(a!)
// aten::normal_functional(Tensor self, float mean=0., float std=1., *, Generator? generator=None) -> Tensor
absl::Status AtenNormalInPlace(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Target t, SelfTarget(ctx));
  PT2ONNX_RETURN_IF_ERROR(FloatOnly(ctx, t.dtype, "normal_"));
  PT2ONNX_ASSIGN_OR_RETURN(double mean, FloatOr(ctx, "mean", 0));
  PT2ONNX_ASSIGN_OR_RETURN(double std, PositiveStd(ctx, 1));
  std::string n = NormalDoubleLike(ctx, t.self);
  return BindSample(ctx, ctx.Op("Add", {ctx.Op("Mul", {n, D(ctx, std)}), D(ctx, mean)}), t.dtype);
}

// aten::log_normal(Tensor self, float mean=1., float std=2., *, Generator? generator=None) -> Tensor
// (and log_normal_): exp(mean + std * n).
absl::Status AtenLogNormal(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Target t, SelfTarget(ctx));
  PT2ONNX_RETURN_IF_ERROR(FloatOnly(ctx, t.dtype, "log_normal_"));
  PT2ONNX_ASSIGN_OR_RETURN(double mean, FloatOr(ctx, "mean", 1));
  PT2ONNX_ASSIGN_OR_RETURN(double std, FloatOr(ctx, "std", 2));
  if (!(std > 0)) return ctx.Invalid(absl::StrCat("log_normal_ expects std > 0.0, but found std=", std));
  std::string n = NormalDoubleLike(ctx, t.self);
  return BindSample(ctx, ctx.Op("Exp", {ctx.Op("Add", {ctx.Op("Mul", {n, D(ctx, std)}), D(ctx, mean)})}),
                    t.dtype);
}

// aten::cauchy(Tensor self, float median=0., float sigma=1., *, Generator? generator=None) -> Tensor
// (and cauchy_): median + sigma * tan(pi * (u - 1/2)).
absl::Status AtenCauchy(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Target t, SelfTarget(ctx));
  PT2ONNX_RETURN_IF_ERROR(FloatOnly(ctx, t.dtype, "cauchy_"));
  PT2ONNX_ASSIGN_OR_RETURN(double median, FloatOr(ctx, "median", 0));
  PT2ONNX_ASSIGN_OR_RETURN(double sigma, FloatOr(ctx, "sigma", 1));
  if (!(sigma > 0)) return ctx.Invalid(absl::StrCat("cauchy_ expects sigma > 0.0, but found sigma=", sigma));
  std::string u = UniformDoubleLike(ctx, t.self);
  std::string angle = ctx.Op("Mul", {ctx.Op("Sub", {u, D(ctx, 0.5)}), D(ctx, M_PI)});
  // tan(a) = sin(a) / cos(a) with cos(a) = sin(pi * u) (a = pi * (u - 1/2)):
  // ONNX Runtime's Tan and Cos take float only, its Sin double too.
  std::string cos = ctx.Op("Sin", {ctx.Op("Mul", {u, D(ctx, M_PI)})});
  std::string tan = ctx.Op("Div", {ctx.Op("Sin", {angle}), cos});
  std::string x = ctx.Op("Add", {ctx.Op("Mul", {tan, D(ctx, sigma)}), D(ctx, median)});
  return BindSample(ctx, x, t.dtype);
}

// Half the output dtype's epsilon: torch's exponential never returns 0
// (TransformationHelper.h, exponential(): a log of 1 becomes -epsilon/2).
double HalfEpsilon(DataType dtype) {
  switch (dtype) {
    case DataType::kDouble: return std::numeric_limits<double>::epsilon() / 2;
    case DataType::kFloat16: return 0x1.0p-11;
    case DataType::kBFloat16: return 0x1.0p-8;
    default: return std::numeric_limits<float>::epsilon() / 2;
  }
}

// aten::exponential(Tensor self, float lambd=1., *, Generator? generator=None) -> Tensor
// (and exponential_): -log(v) / lambd, v = 1 - u in (0, 1], log(v) at most -eps/2.
absl::Status AtenExponential(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Target t, SelfTarget(ctx));
  PT2ONNX_RETURN_IF_ERROR(FloatOnly(ctx, t.dtype, "exponential_"));
  PT2ONNX_ASSIGN_OR_RETURN(double lambd, FloatOr(ctx, "lambd", 1));
  if (!(lambd > 0)) {
    return ctx.Invalid(absl::StrCat("exponential_ expects lambda > 0.0, but found lambda=", lambd));
  }
  std::string v = ctx.Op("Sub", {D(ctx, 1), UniformDoubleLike(ctx, t.self)});
  std::string log = ctx.Op("Min", {ctx.Op("Log", {v}), D(ctx, -HalfEpsilon(t.dtype))});
  return BindSample(ctx, ctx.Op("Mul", {log, D(ctx, -1 / lambd)}), t.dtype);
}

// aten::geometric(Tensor self, float p, *, Generator? generator=None) -> Tensor
// (and geometric_): ceil(log(v) / log1p(-p)), v = 1 - u in (0, 1]; v == 1
// would give 0, outside the support {1, 2, ...}, so the result is at least 1.
absl::Status AtenGeometric(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Target t, SelfTarget(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(double p, ctx.Float("p"));
  if (!(p > 0 && p < 1)) return ctx.Invalid(absl::StrCat("geometric_ expects p to be in (0, 1), got p=", p));
  std::string v = ctx.Op("Sub", {D(ctx, 1), UniformDoubleLike(ctx, t.self)});
  std::string k = ctx.Op("Ceil", {ctx.Op("Div", {ctx.Op("Log", {v}), D(ctx, std::log1p(-p))})});
  return BindSample(ctx, ctx.Op("Max", {k, D(ctx, 1)}), t.dtype);
}

// ---- normal ------------------------------------------------------------------

// mean + std * n, n shaped like mean + std (both DOUBLE values), narrowed to
// the node's output dtype.
absl::Status NormalOf(TranslateContext& ctx, const std::string& mean, const std::string& std) {
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, OutDtype(ctx));
  PT2ONNX_RETURN_IF_ERROR(FloatOnly(ctx, dtype, "normal"));
  std::string n = NormalDoubleLike(ctx, ctx.Op("Add", {mean, std}));
  std::string x = ctx.Op("Add", {ctx.Op("Mul", {n, std}), mean});
  return ctx.SetOutput(0, ctx.CastTo(x, DataType::kDouble, dtype));
}

// aten::normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor
absl::Status AtenNormalTensorTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string mean, ctx.InputAs("mean", DataType::kDouble));
  PT2ONNX_ASSIGN_OR_RETURN(std::string std, ctx.InputAs("std", DataType::kDouble));
  return NormalOf(ctx, mean, std);
}

// aten::normal.Tensor_float(Tensor mean, float std=1., *, Generator? generator=None) -> Tensor
absl::Status AtenNormalTensorFloat(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string mean, ctx.InputAs("mean", DataType::kDouble));
  PT2ONNX_ASSIGN_OR_RETURN(double std, PositiveStd(ctx, 1));
  return NormalOf(ctx, mean, D(ctx, std));
}

// aten::normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor
absl::Status AtenNormalFloatTensor(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double mean, ctx.Float("mean"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string std, ctx.InputAs("std", DataType::kDouble));
  return NormalOf(ctx, D(ctx, mean), std);
}

// aten::normal.float_float(float mean, float std, SymInt[] size, *, Generator? generator=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
absl::Status AtenNormalFloatFloat(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(double mean, ctx.Float("mean"));
  PT2ONNX_ASSIGN_OR_RETURN(double std, PositiveStd(ctx, 1));
  PT2ONNX_ASSIGN_OR_RETURN(std::string shape, ctx.IntsAsTensor("size"));
  std::string like = ctx.Op("Expand", {D(ctx, mean), shape});
  return NormalOf(ctx, like, D(ctx, std));
}

// ---- multinomial ---------------------------------------------------------------

// aten::multinomial(Tensor self, SymInt num_samples, bool replacement=False, *, Generator? generator=None) -> Tensor
// self: 1-D or 2-D rows of non-negative weights. Without replacement torch
// divides the weights by Exp(1) draws and takes the top num_samples
// (aten/src/ATen/native/Distributions.cpp, multinomial_out): the same here.
// With replacement each sample inverts the row's cumulative sum at u * total.
absl::Status AtenMultinomial(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("self"));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t k, ctx.Int("num_samples"));
  PT2ONNX_ASSIGN_OR_RETURN(bool replacement, ctx.Bool("replacement"));
  const int64_t rank = static_cast<int64_t>(meta->sizes.size());
  if (rank != 1 && rank != 2) return ctx.Invalid("prob_dist must be 1 or 2 dim");
  if (k <= 0) return ctx.Invalid("cannot sample n_sample <= 0 samples");
  const pt2::SymInt& n = meta->sizes.back();
  if (!replacement && !n.is_symbolic && k > n.value) {
    return ctx.Invalid("cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  }
  PT2ONNX_RETURN_IF_ERROR(FloatOnly(ctx, meta->dtype, "multinomial"));
  PT2ONNX_ASSIGN_OR_RETURN(DataType out_dtype, OutDtype(ctx));
  PT2ONNX_ASSIGN_OR_RETURN(std::string w, ctx.InputAs("self", DataType::kDouble));
  std::string index;
  if (!replacement) {
    std::string v = ctx.Op("Sub", {D(ctx, 1), UniformDoubleLike(ctx, w)});
    std::string q = ctx.Op("Neg", {ctx.Op("Log", {v})});  // Exp(1)
    std::vector<std::string> top =
        ctx.AddNode("TopK", {ctx.Op("Div", {w, q}), ctx.ConstantInt64s({k})},
                    {Attribute::Int("axis", -1), Attribute::Int("largest", 1), Attribute::Int("sorted", 1)}, 2);
    index = top[1];
  } else {
    std::string cdf = ctx.Op("CumSum", {w, ctx.ConstantInt64(-1)});
    std::string total = ctx.Op("Slice", {cdf, ctx.ConstantInt64s({-1}), ctx.ConstantInt64s({INT64_MAX}),
                                         ctx.ConstantInt64s({-1})});
    // u shaped [..., k, 1] against cdf [..., 1, n].
    std::string u_shape = ctx.ConstantInt64s({k, 1});
    if (rank == 2) {
      u_shape = ctx.Op("Concat", {ShapeSlice(ctx, w, 0, 1), u_shape}, {Attribute::Int("axis", 0)});
    }
    std::string target = ctx.Op("Mul", {UniformDouble(ctx, u_shape), Unsqueeze(ctx, total, {-1})});
    std::string below = ctx.Op("LessOrEqual", {Unsqueeze(ctx, cdf, {-2}), target});
    std::string count = ctx.Op("ReduceSum", {ctx.CastTo(below, DataType::kBool, DataType::kInt64),
                                             ctx.ConstantInt64s({-1})},
                               {Attribute::Int("keepdims", 0)});
    std::string last = ctx.Op("Sub", {ShapeSlice(ctx, w, rank - 1, rank), ctx.ConstantInt64s({1})});
    index = ctx.Op("Min", {count, last});
  }
  return ctx.SetOutput(0, ctx.CastTo(index, DataType::kInt64, out_dtype));
}

// ---- rrelu ---------------------------------------------------------------------

// aten::rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.33333333333333331, bool training=False, Generator? generator=None) -> Tensor
// (and rrelu_). Training: x <= 0 is scaled by a slope drawn from
// U[lower, upper] per element, as torch's _rrelu_with_noise_train
// (aten/src/ATen/native/Activation.cpp); eval: leaky_relu with the mean slope.
absl::Status AtenRrelu(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(Target t, SelfTarget(ctx));
  PT2ONNX_RETURN_IF_ERROR(FloatOnly(ctx, t.dtype, "rrelu"));
  PT2ONNX_ASSIGN_OR_RETURN(double lower, FloatOr(ctx, "lower", 0.125));
  PT2ONNX_ASSIGN_OR_RETURN(double upper, FloatOr(ctx, "upper", 1.0 / 3));
  bool training = false;
  if (ctx.Has("training")) {
    PT2ONNX_ASSIGN_OR_RETURN(training, ctx.Bool("training"));
  }
  if (!(lower <= upper)) {
    return ctx.Invalid(absl::StrCat("rrelu: lower bound ", lower, " must be at most the upper bound ", upper));
  }
  std::string slope = ctx.ConstantScalar(t.dtype, (lower + upper) / 2);
  if (training) {
    std::string u = UniformDoubleLike(ctx, t.self);
    std::string r = ctx.Op("Add", {ctx.Op("Mul", {u, D(ctx, upper - lower)}), D(ctx, lower)});
    slope = ctx.CastTo(r, DataType::kDouble, t.dtype);
  }
  std::string negative = ctx.Op("LessOrEqual", {t.self, ctx.ConstantScalar(t.dtype, 0)});
  return BindResult(ctx, ctx.Op("Where", {negative, ctx.Op("Mul", {t.self, slope}), t.self}));
}

}  // namespace

void RegisterDistributionOps(OpRegistry& r) {
  r.Add("aten::bernoulli.default", &AtenBernoulli);
  r.Add("aten::bernoulli.p", &AtenBernoulliP);
  r.Add("aten::bernoulli_.float", &AtenBernoulliP);
  AddWithInPlace(r, "aten::bernoulli", "Tensor", &AtenBernoulliTensor);
  AddWithInPlace(r, "aten::uniform", "default", &AtenUniform);
  r.Add("aten::normal_.default", &AtenNormalInPlace);
  r.Add("aten::normal_functional.default", &AtenNormalInPlace);
  AddWithInPlace(r, "aten::log_normal", "default", &AtenLogNormal);
  AddWithInPlace(r, "aten::cauchy", "default", &AtenCauchy);
  AddWithInPlace(r, "aten::exponential", "default", &AtenExponential);
  AddWithInPlace(r, "aten::geometric", "default", &AtenGeometric);
  r.Add("aten::normal.Tensor_Tensor", &AtenNormalTensorTensor);
  r.Add("aten::normal.Tensor_float", &AtenNormalTensorFloat);
  r.Add("aten::normal.float_Tensor", &AtenNormalFloatTensor);
  r.Add("aten::normal.float_float", &AtenNormalFloatFloat);
  r.Add("aten::multinomial.default", &AtenMultinomial);
  AddWithInPlace(r, "aten::rrelu", "default", &AtenRrelu);
}

}  // namespace pt2onnx::ops
