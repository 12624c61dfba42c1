// Pattern pieces of attention_fusion (see attention_match.h).
#include "passes/attention_match.h"

#include <algorithm>
#include <cmath>

namespace pt2onnx::passes {
namespace {

// Elements of a constant mask checked row by row; a larger one is not fused
// without a guard.
constexpr int64_t kMaxCheckedMaskElements = int64_t{1} << 20;

}  // namespace

bool SameDim(const ir::Dim& a, const ir::Dim& b) {
  if (a.is_static() && b.is_static()) return a.value == b.value;
  return !a.param.empty() && a.param == b.param;
}

// Declared float32 rank-4 dims of `value`.
std::optional<Dims> Float4d(const ValueIndex& index, const std::string& value) {
  const ir::ValueInfo* info = index.Info(value);
  if (info == nullptr || info->dtype != DataType::kFloat || !info->shape || info->shape->size() != 4) {
    return std::nullopt;
  }
  return *info->shape;
}

// A one-element float32 constant equal to -inf (rank <= 4).
bool IsNegInf(const ValueIndex& index, const std::string& value) {
  const ir::Tensor* t = index.Constant(value);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->dims().size() > 4) return false;
  std::optional<double> v = ConstantScalar(t);
  return v && std::isinf(*v) && *v < 0;
}

// A one-element float32 constant equal to 0.
bool IsZero(const ValueIndex& index, const std::string& value) {
  const ir::Tensor* t = index.Constant(value);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->dims().size() > 4) return false;
  std::optional<double> v = ConstantScalar(t);
  return v && *v == 0.0;
}

// The zeros as constant folding leaves them when the shape is static: a
// float32 constant of zeros with the softmax's declared dims.
bool FoldedZeros(const ValueIndex& index, const std::string& zeros, const std::string& softmax) {
  const ir::Tensor* t = index.Constant(zeros);
  const ir::ValueInfo* info = index.Info(softmax);
  if (t == nullptr || t->dtype() != DataType::kFloat || info == nullptr || !info->shape ||
      info->shape->size() != t->dims().size()) {
    return false;
  }
  for (size_t d = 0; d < t->dims().size(); ++d) {
    if (!(*info->shape)[d].is_static() || (*info->shape)[d].value != t->dims()[d]) return false;
  }
  const int64_t n = t->numel();
  if (n <= 0 || n > kMaxCheckedMaskElements || t->bytes().size() != static_cast<size_t>(n) * sizeof(float)) {
    return false;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (t->GetDouble(i) != 0.0) return false;
  }
  return true;
}

// The torch _safe_softmax guard on `soft` (a Where node): Where(row, 0,
// soft) with row = Cast<bool>(ReduceMin<keepdims>(Cast<int32>(IsInf<neg>(scores)), [-1]))
// (or the ReduceMin over IsInf's bool output directly).
// Returns the scores it tests and the axes / zero constants it uses.
// run_decompositions()' form: Where(Not(Greater(ReduceMax(Cast<int32>(
// Not(Equal(scores, -inf))), [-1]), 0)), Expand(0, Shape(softmax)), softmax),
// the zeros folded to a constant where the softmax's dims are static.
std::optional<Guard> MatchDecomposedGuard(FusionMatch& match, const ir::Node& where) {
  const ValueIndex& index = match.index();
  std::string zero = where.inputs[1];
  if (!FoldedZeros(index, zero, where.inputs[2])) {
    const ir::Node* zeros = match.Take(where.inputs[1], "Expand");
    if (zeros == nullptr || zeros->inputs.size() != 2 || !IsZero(index, zeros->inputs[0])) return std::nullopt;
    const ir::Node* shape = match.Take(zeros->inputs[1], "Shape");
    if (shape == nullptr || shape->inputs[0] != where.inputs[2] || shape->FindAttribute("start") != nullptr ||
        shape->FindAttribute("end") != nullptr) {
      return std::nullopt;
    }
    zero = zeros->inputs[0];
  }
  const ir::Node* none = match.Take(where.inputs[0], "Not");
  if (none == nullptr) return std::nullopt;
  const ir::Node* any = match.Take(none->inputs[0], "Greater");
  if (any == nullptr || any->inputs.size() != 2) return std::nullopt;
  std::optional<std::vector<int64_t>> none_kept = ConstantInts(index.Constant(any->inputs[1]));
  if (!none_kept || *none_kept != std::vector<int64_t>{0}) return std::nullopt;
  const ir::Node* reduce = match.Take(any->inputs[0], "ReduceMax");
  if (reduce == nullptr || reduce->inputs.size() != 2 || IntAttribute(*reduce, "keepdims", 1) != 1) {
    return std::nullopt;
  }
  std::optional<std::vector<int64_t>> axes = ConstantInts(index.Constant(reduce->inputs[1]));
  if (!axes || (*axes != std::vector<int64_t>{-1} && *axes != std::vector<int64_t>{3})) return std::nullopt;
  const ir::Node* to_int = match.Take(reduce->inputs[0], "Cast");
  if (to_int == nullptr || IntAttribute(*to_int, "to", 0) != static_cast<int64_t>(DataType::kInt32)) {
    return std::nullopt;
  }
  const ir::Node* kept = match.Take(to_int->inputs[0], "Not");
  if (kept == nullptr) return std::nullopt;
  const ir::Node* equal = match.Take(kept->inputs[0], "Equal");
  if (equal == nullptr || equal->inputs.size() != 2 || !IsNegInf(index, equal->inputs[1])) return std::nullopt;
  // The caller checks that scores are rank 4, where axis 3 is the last.
  return Guard{equal->inputs[0], "", zero};
}

std::optional<Guard> MatchGuard(FusionMatch& match, const ir::Node& where) {
  if (where.inputs.size() != 3) return std::nullopt;
  if (!IsZero(match.index(), where.inputs[1])) return MatchDecomposedGuard(match, where);
  // The reduction over bool directly when cast_elimination dropped its Casts.
  const ir::Node* to_bool = match.Take(where.inputs[0], "Cast");
  if (to_bool != nullptr && IntAttribute(*to_bool, "to", 0) != static_cast<int64_t>(DataType::kBool)) {
    return std::nullopt;
  }
  const ir::Node* reduce = match.Take(to_bool != nullptr ? to_bool->inputs[0] : where.inputs[0], "ReduceMin");
  if (reduce == nullptr || reduce->inputs.size() != 2 || IntAttribute(*reduce, "keepdims", 1) != 1) {
    return std::nullopt;
  }
  std::optional<std::vector<int64_t>> axes = ConstantInts(match.index().Constant(reduce->inputs[1]));
  if (!axes || *axes != std::vector<int64_t>{-1}) return std::nullopt;
  std::string flags = reduce->inputs[0];
  if (to_bool != nullptr) {
    const ir::Node* to_int = match.Take(flags, "Cast");
    if (to_int == nullptr || IntAttribute(*to_int, "to", 0) != static_cast<int64_t>(DataType::kInt32)) {
      return std::nullopt;
    }
    flags = to_int->inputs[0];
  }
  const ir::Node* is_inf = match.Take(flags, "IsInf");
  if (is_inf == nullptr || IntAttribute(*is_inf, "detect_positive", 1) != 0 ||
      IntAttribute(*is_inf, "detect_negative", 1) != 1) {
    return std::nullopt;
  }
  return Guard{is_inf->inputs[0], reduce->inputs[1], where.inputs[1]};
}

// True if every (..., row, :) of a constant mask keeps at least one key.
bool ConstantMaskKeepsEveryRow(const ir::Tensor* mask, bool is_bool) {
  if (mask == nullptr || mask->dims().empty()) return false;
  const int64_t n = mask->numel();
  const int64_t row = mask->dims().back();
  if (n <= 0 || n > kMaxCheckedMaskElements || row <= 0) return false;
  const size_t element = is_bool ? 1 : sizeof(float);
  if (mask->bytes().size() != static_cast<size_t>(n) * element) return false;
  for (int64_t start = 0; start < n; start += row) {
    bool kept = false;
    for (int64_t s = start; s < start + row && !kept; ++s) {
      const double value = mask->GetDouble(s);
      kept = is_bool ? value != 0 : !(std::isinf(value) && value < 0);
    }
    if (!kept) return false;
  }
  return true;
}

// The sizes a shape tensor holds: a constant of positive values, or (when
// `slices` allows) a Concat of such constants and Shape(t, a, b) slices of
// values with declared dims.
std::string GuardAxesOrLast(const Guard& guard, ir::GraphEditor& editor, const std::string& prefix) {
  if (!guard.axes.empty()) return guard.axes;
  ir::Initializer last;
  last.name = editor.FreshName(prefix);
  last.tensor = ir::Tensor::Int64s({1}, {-1});
  std::string name = last.name;
  editor.AddInitializer(std::move(last));
  return name;
}

std::optional<Dims> ShapeDims(const ValueIndex& index, const ir::GraphEditor& editor, const std::string& shape,
                              bool slices) {
  auto positive = [](const std::vector<int64_t>& values, Dims& out) {
    for (int64_t v : values) {
      if (v <= 0) return false;
      out.push_back(ir::Dim::Static(v));
    }
    return true;
  };
  Dims dims;
  if (std::optional<std::vector<int64_t>> values = ConstantInts(index.Constant(shape))) {
    if (!positive(*values, dims)) return std::nullopt;
    return dims;
  }
  const ir::Node* concat = editor.Producer(shape);
  if (!slices || concat == nullptr || !IsOp(*concat, "Concat") || IntAttribute(*concat, "axis", -1) != 0) {
    return std::nullopt;
  }
  for (const std::string& part : concat->inputs) {
    if (std::optional<std::vector<int64_t>> values = ConstantInts(index.Constant(part))) {
      if (!positive(*values, dims)) return std::nullopt;
      continue;
    }
    const ir::Node* node = editor.Producer(part);
    if (node == nullptr || !IsOp(*node, "Shape") || node->inputs.size() != 1) return std::nullopt;
    const ir::ValueInfo* info = index.Info(node->inputs[0]);
    if (info == nullptr || !info->shape) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(info->shape->size());
    int64_t start = IntAttribute(*node, "start", 0), end = IntAttribute(*node, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    for (int64_t d = start; d < end; ++d) dims.push_back((*info->shape)[d]);
  }
  return dims;
}

// The head repetition of HF's repeat_kv and of enable_gqa:
// Reshape(Expand(Unsqueeze(kv, 2), [B, Hk, G, S, E]), [B, Hk*G, S, E]) over
// a float32 rank-4 kv with declared dims. The Expand's sizes come from its
// declared output or its shape input, the Reshape's likewise (a constant
// shape holds no 0 or -1).
std::optional<HeadRepeat> MatchHeadRepeat(const ValueIndex& index, const ir::GraphEditor& editor,
                                          const std::string& value) {
  HeadRepeat r;
  r.reshape = editor.Producer(value);
  if (r.reshape == nullptr || !IsOp(*r.reshape, "Reshape") || r.reshape->inputs.size() != 2) return std::nullopt;
  r.expand = editor.Producer(r.reshape->inputs[0]);
  if (r.expand == nullptr || !IsOp(*r.expand, "Expand") || r.expand->inputs.size() != 2) return std::nullopt;
  r.unsqueeze = editor.Producer(r.expand->inputs[0]);
  if (r.unsqueeze == nullptr || !IsOp(*r.unsqueeze, "Unsqueeze") || r.unsqueeze->inputs.size() != 2) {
    return std::nullopt;
  }
  std::optional<std::vector<int64_t>> axes = ConstantInts(index.Constant(r.unsqueeze->inputs[1]));
  if (!axes || axes->size() != 1 || ((*axes)[0] != 2 && (*axes)[0] != -3)) return std::nullopt;
  r.kv = r.unsqueeze->inputs[0];
  std::optional<Dims> in = Float4d(index, r.kv);
  std::optional<Dims> out = Float4d(index, value);
  // Shape-built sizes may be 0 at run time, where Reshape copies the input's
  // dim instead: its element count then differs and the pattern fails to run.
  if (!out) out = ShapeDims(index, editor, r.reshape->inputs[1], true);
  const ir::ValueInfo* mid_info = index.Info(r.expand->outputs[0]);
  std::optional<Dims> mid;
  if (mid_info != nullptr && mid_info->shape) mid = *mid_info->shape;
  if (!mid) mid = ShapeDims(index, editor, r.expand->inputs[1], true);
  if (!in || !out || !mid || mid->size() != 5 || out->size() != 4) return std::nullopt;
  const Dims& e = *mid;  // [B, Hk, G, S, E]
  if (!SameDim(e[0], (*in)[0]) || !SameDim(e[1], (*in)[1]) || !SameDim(e[3], (*in)[2]) ||
      !SameDim(e[4], (*in)[3]) || !e[1].is_static() || !e[2].is_static() || !(*out)[1].is_static()) {
    return std::nullopt;
  }
  // Hq == Hk * G, by division: the sizes are the file's.
  if (e[1].value <= 0 || e[2].value <= 0 || (*out)[1].value % e[1].value != 0 ||
      (*out)[1].value / e[1].value != e[2].value) {
    return std::nullopt;
  }
  if (!SameDim((*out)[0], e[0]) || !SameDim((*out)[2], e[3]) || !SameDim((*out)[3], e[4])) return std::nullopt;
  r.repeated = *out;
  return r;
}

// Declared float32 rank-4 dims of `value`, or those of a head repetition.
std::optional<Dims> QkvDims(const ValueIndex& index, const ir::GraphEditor& editor, const std::string& value) {
  if (std::optional<Dims> dims = Float4d(index, value)) return dims;
  if (std::optional<HeadRepeat> r = MatchHeadRepeat(index, editor, value)) return r->repeated;
  return std::nullopt;
}

// k or v as Attention takes it: the Hk-head kv of a head repetition read
// only here (its nodes join the match); `value` itself otherwise.
std::string StripHeadRepeat(FusionMatch& match, const std::string& value) {
  ir::GraphEditor& editor = match.editor();
  std::optional<HeadRepeat> r = MatchHeadRepeat(match.index(), editor, value);
  if (!r) return value;
  // Repeated values read elsewhere too stay (Attention then reads Hq heads).
  for (const std::string& v : {value, r->reshape->inputs[0], r->expand->inputs[0]}) {
    if (editor.ConsumerCount(v) != 1 || editor.HasOpaqueUse(v)) return value;
  }
  FusionMatch probe = match;
  if (probe.Take(value, "Reshape") == nullptr || probe.Take(r->reshape->inputs[0], "Expand") == nullptr ||
      probe.Take(r->expand->inputs[0], "Unsqueeze") == nullptr) {
    return value;
  }
  match = probe;
  return r->kv;
}

// The causal mask ops/attention.cc builds for is_causal=True:
// Cast<bool>(Trilu<upper=0>(Expand(1.0, [L, S]))), [L, S] a constant or a
// Concat of one-element constants and Shape(t, a, a+1) slices; `dim_of(t, a)`
// gives t's declared dim a. Returns the (L, S) it resolves to; its nodes
// (not the shape's) join the match.
std::optional<std::pair<ir::Dim, ir::Dim>> MatchCausalMask(FusionMatch& match, const std::string& keep,
                                                           const DimOfFn& dim_of) {
  const ValueIndex& index = match.index();
  FusionMatch probe = match;
  const ir::Node* cast = probe.Take(keep, "Cast");
  if (cast == nullptr || IntAttribute(*cast, "to", 0) != static_cast<int64_t>(DataType::kBool)) return std::nullopt;
  const ir::Node* trilu = probe.Take(cast->inputs[0], "Trilu");
  if (trilu == nullptr || trilu->inputs.size() != 1 || IntAttribute(*trilu, "upper", 1) != 0) return std::nullopt;
  const ir::Node* expand = probe.Take(trilu->inputs[0], "Expand");
  if (expand == nullptr || expand->inputs.size() != 2) return std::nullopt;
  const ir::Tensor* one = index.Constant(expand->inputs[0]);
  std::optional<double> one_value = ConstantScalar(one);
  if (one == nullptr || !one_value || *one_value != 1.0 || one->dims().size() > 2) return std::nullopt;
  std::vector<ir::Dim> sizes;
  if (std::optional<std::vector<int64_t>> shape = ConstantInts(index.Constant(expand->inputs[1]))) {
    for (int64_t v : *shape) sizes.push_back(ir::Dim::Static(v));
  } else {
    const ir::Node* concat = match.editor().Producer(expand->inputs[1]);
    if (concat == nullptr || !IsOp(*concat, "Concat") || IntAttribute(*concat, "axis", -1) != 0) return std::nullopt;
    for (const std::string& part : concat->inputs) {
      std::optional<std::vector<int64_t>> value = ConstantInts(index.Constant(part));
      if (value && value->size() == 1) {
        sizes.push_back(ir::Dim::Static((*value)[0]));
        continue;
      }
      const ir::Node* shape = match.editor().Producer(part);
      if (shape == nullptr || !IsOp(*shape, "Shape") || shape->inputs.size() != 1) return std::nullopt;
      int64_t start = IntAttribute(*shape, "start", 0);
      int64_t end = IntAttribute(*shape, "end", 4);
      if (start < 0) start += 4;
      if (end < 0) end += 4;
      if (end != start + 1 && !(start == 3 && end > 4)) return std::nullopt;
      if (start < 0 || start > 3) return std::nullopt;
      std::optional<ir::Dim> dim = dim_of(shape->inputs[0], start);
      if (!dim) return std::nullopt;
      sizes.push_back(*dim);
    }
  }
  if (sizes.size() != 2) return std::nullopt;
  match = probe;
  return std::make_pair(sizes[0], sizes[1]);
}

// A 4-D batched MatMul: MatMul(a, b) itself, or run_decompositions()' bmm
// form Reshape(MatMul(Reshape(a, [B*H, L, K]), Reshape(b, [B*H, K, N])),
// [B, H, L, N]) with declared 3-D/4-D dims (the element counts then fix
// B*H). Its nodes join the match; returns (a, b).
std::optional<std::pair<std::string, std::string>> TakeMatMul4d(FusionMatch& match, const std::string& value) {
  const ValueIndex& index = match.index();
  FusionMatch probe = match;
  if (const ir::Node* matmul = probe.Take(value, "MatMul")) {
    if (matmul->inputs.size() != 2) return std::nullopt;
    match = probe;
    return std::make_pair(matmul->inputs[0], matmul->inputs[1]);
  }
  const ir::Node* unflatten = probe.Take(value, "Reshape");
  std::optional<Dims> out = Float4d(index, value);
  if (unflatten == nullptr || !out) return std::nullopt;
  const ir::Node* matmul = probe.Take(unflatten->inputs[0], "MatMul");
  if (matmul == nullptr || matmul->inputs.size() != 2) return std::nullopt;
  std::string sources[2];
  for (int side = 0; side < 2; ++side) {
    const ir::Node* flatten = probe.Take(matmul->inputs[side], "Reshape");
    if (flatten == nullptr) return std::nullopt;
    const ir::ValueInfo* flat = index.Info(matmul->inputs[side]);
    std::optional<Dims> full = Float4d(index, flatten->inputs[0]);
    if (flat == nullptr || !flat->shape || flat->shape->size() != 3 || !full) return std::nullopt;
    const Dims& f = *flat->shape;
    if (!SameDim(f[1], (*full)[2]) || !SameDim(f[2], (*full)[3]) || !SameDim((*full)[0], (*out)[0]) ||
        !SameDim((*full)[1], (*out)[1])) {
      return std::nullopt;
    }
    sources[side] = flatten->inputs[0];
  }
  std::optional<Dims> a = Float4d(index, sources[0]);
  std::optional<Dims> b = Float4d(index, sources[1]);
  if (!SameDim((*a)[2], (*out)[2]) || !SameDim((*b)[3], (*out)[3]) || !SameDim((*a)[3], (*b)[2])) {
    return std::nullopt;
  }
  match = probe;
  return std::make_pair(sources[0], sources[1]);
}

// The mask's declared dims, each 1 or the matching one of (B, Hq, L, S).
bool MaskBroadcasts(const ValueIndex& index, const std::string& mask, DataType dtype, const Dims& full) {
  const ir::ValueInfo* info = index.Info(mask);
  if (info == nullptr || info->dtype != dtype || !info->shape) return false;
  const Dims& m = *info->shape;
  if (m.size() < 2 || m.size() > 4) return false;
  for (size_t d = 0; d < m.size(); ++d) {
    const ir::Dim& want = full[full.size() - m.size() + d];
    if (!(m[d].is_static() && m[d].value == 1) && !SameDim(m[d], want)) return false;
  }
  return true;
}

}  // namespace pt2onnx::passes
