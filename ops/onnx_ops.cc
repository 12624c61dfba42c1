// torch.onnx.ops (torch/onnx/ops/_impl.py, _symbolic_impl.py): ONNX
// operators a model names itself.
//   symbolic / symbolic_multi_out -> the declared node verbatim (domain,
//       type, attributes, opset of its domain), typed as declared;
//   Attention.opset23 -> Attention-23 at opset 23; below, a decomposition of
//       4-D inputs without softcap / softmax_precision / qk output modes;
//   RotaryEmbedding.opset23 -> RotaryEmbedding-23 at opset 23; below, the
//       rotation written out as torch's reference does it.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/registry.h"
#include "translate/graph_builder.h"
#include "translate/op_helpers.h"
#include "translate/subgraph.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

constexpr int kOnnxOpsOpset = 23;

// Keyword arguments these ops declare with defaults (no ATen schema exists).
absl::StatusOr<int64_t> IntOr(const TranslateContext& ctx, absl::string_view arg, int64_t fallback) {
  if (!ctx.Has(arg)) return fallback;
  return ctx.Int(arg);
}

absl::StatusOr<bool> BoolOr(const TranslateContext& ctx, absl::string_view arg, bool fallback) {
  if (!ctx.Has(arg)) return fallback;
  return ctx.Bool(arg);
}

absl::StatusOr<std::vector<std::string>> StringsArg(const TranslateContext& ctx, absl::string_view arg) {
  if (!ctx.Has(arg)) return std::vector<std::string>{};
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument a, ctx.Arg(arg));
  if (a.kind == pt2::Argument::Kind::kStrings) return a.strings;
  if (a.kind == pt2::Argument::Kind::kTensors && a.names.empty()) return std::vector<std::string>{};
  return ctx.Invalid(absl::StrCat("argument '", arg, "' is not a list of strings"));
}

absl::StatusOr<std::vector<double>> FloatsArg(const TranslateContext& ctx, absl::string_view arg) {
  if (!ctx.Has(arg)) return std::vector<double>{};
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument a, ctx.Arg(arg));
  if (a.kind == pt2::Argument::Kind::kFloats) return a.floats;
  if (a.kind == pt2::Argument::Kind::kInts) return std::vector<double>(a.ints.begin(), a.ints.end());
  if (a.kind == pt2::Argument::Kind::kTensors && a.names.empty()) return std::vector<double>{};
  return ctx.Invalid(absl::StrCat("argument '", arg, "' is not a list of floats"));
}

absl::StatusOr<std::vector<int64_t>> IntsArg(const TranslateContext& ctx, absl::string_view arg) {
  if (!ctx.Has(arg)) return std::vector<int64_t>{};
  PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument a, ctx.Arg(arg));
  if (a.kind == pt2::Argument::Kind::kTensors && a.names.empty()) return std::vector<int64_t>{};
  return ctx.Ints(arg);
}

// attr_keys / attr_types / attr_pos index [start, end) ranges of the value
// lists attr_ints / attr_floats / attr_strs (torch's _symbolic_impl encoding).
absl::StatusOr<std::vector<ir::Attribute>> DecodeAttributes(const TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> keys, StringsArg(ctx, "attr_keys"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> types, StringsArg(ctx, "attr_types"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> ints, IntsArg(ctx, "attr_ints"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<double> floats, FloatsArg(ctx, "attr_floats"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> strs, StringsArg(ctx, "attr_strs"));
  std::vector<std::vector<int64_t>> pos;
  if (ctx.Has("attr_pos")) {
    PT2ONNX_ASSIGN_OR_RETURN(pt2::Argument a, ctx.Arg("attr_pos"));
    if (a.kind == pt2::Argument::Kind::kIntLists) pos = a.int_lists;
  }
  if (types.size() != keys.size() || pos.size() != keys.size()) {
    return ctx.Invalid(absl::StrCat("attr_keys (", keys.size(), "), attr_types (", types.size(),
                                    ") and attr_pos (", pos.size(), ") differ in length"));
  }
  std::vector<ir::Attribute> attributes;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& type = types[i];
    const size_t size = type == "i" || type == "is" ? ints.size()
                        : type == "f" || type == "fs" ? floats.size()
                                                      : strs.size();
    if (pos[i].size() != 2 || pos[i][0] < 0 || pos[i][0] > pos[i][1] ||
        static_cast<uint64_t>(pos[i][1]) > size) {
      return ctx.Invalid(absl::StrCat("attribute '", keys[i], "': attr_pos is out of range"));
    }
    const size_t begin = static_cast<size_t>(pos[i][0]);
    const size_t end = static_cast<size_t>(pos[i][1]);
    const bool single = type.size() == 1;
    if (single && end - begin != 1) {
      return ctx.Invalid(absl::StrCat("attribute '", keys[i], "' of type '", type, "' needs one value"));
    }
    if (type == "i") {
      attributes.push_back(ir::Attribute::Int(keys[i], ints[begin]));
    } else if (type == "is") {
      attributes.push_back(ir::Attribute::Ints(
          keys[i], std::vector<int64_t>(ints.begin() + begin, ints.begin() + end)));
    } else if (type == "f") {
      attributes.push_back(ir::Attribute::Float(keys[i], static_cast<float>(floats[begin])));
    } else if (type == "fs") {
      attributes.push_back(ir::Attribute::Floats(
          keys[i], std::vector<float>(floats.begin() + begin, floats.begin() + end)));
    } else if (type == "s") {
      attributes.push_back(ir::Attribute::String(keys[i], strs[begin]));
    } else if (type == "ss") {
      attributes.push_back(ir::Attribute::Strings(
          keys[i], std::vector<std::string>(strs.begin() + begin, strs.begin() + end)));
    } else {
      return ctx.Invalid(absl::StrCat("attribute '", keys[i], "' has unknown type '", type, "'"));
    }
  }
  return attributes;
}

absl::Status EmitSymbolic(TranslateContext& ctx, bool multi_out) {
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::optional<std::string>> inputs, ctx.OptionalInputs("inputs"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string op_type, ctx.String("op_type"));
  std::string domain;
  if (ctx.Has("domain")) {
    PT2ONNX_ASSIGN_OR_RETURN(domain, ctx.String("domain"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<ir::Attribute> attributes, DecodeAttributes(ctx));
  if (op_type.empty()) return ctx.Invalid("op_type is empty");
  std::vector<int64_t> dtypes;
  if (multi_out) {
    PT2ONNX_ASSIGN_OR_RETURN(dtypes, ctx.Ints("onnx_dtypes"));
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t dtype, ctx.Int("onnx_dtype"));
    dtypes = {dtype};
  }
  std::vector<std::string> names;
  for (const std::optional<std::string>& in : inputs) names.push_back(in.value_or(""));
  // The node's domain needs an opset import: the declared version (1 when
  // none is given), the same for every node of the domain.
  if (!domain.empty() && domain != "ai.onnx") {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t version, IntOr(ctx, "version", 1));
    const SubgraphEnvironment* env = ctx.builder().environment();
    if (env == nullptr || env->domains == nullptr) {
      return ctx.Unsupported("custom-domain nodes cannot be recorded here");
    }
    auto [it, inserted] = env->domains->emplace(domain, version);
    if (!inserted && it->second != version) {
      return ctx.Invalid(absl::StrCat("domain '", domain, "' is used at versions ", it->second,
                                      " and ", version, "; one model imports one version per domain"));
    }
  }
  std::vector<std::string> results =
      ctx.AddNode(op_type, std::move(names), std::move(attributes), static_cast<int>(dtypes.size()),
                  domain == "ai.onnx" ? "" : domain);
  if (!multi_out) return ctx.SetOutput(0, results[0]);
  if (ctx.num_outputs() == 1 && ctx.node().outputs[0].kind == pt2::Argument::Kind::kTensors) {
    return ctx.SetListOutput(0, results);
  }
  for (size_t i = 0; i < results.size() && static_cast<int>(i) < ctx.num_outputs(); ++i) {
    PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(static_cast<int>(i), results[i]));
  }
  return absl::OkStatus();
}

// onnx_symbolic::_symbolic(Tensor?[] inputs, str op_type, int onnx_dtype, *, SymInt[] shape,
//   str[] attr_keys, str[] attr_types, int[][] attr_pos, int[] attr_ints, float[] attr_floats,
//   str[] attr_strs, str[] metadata_props_keys=[], str[] metadata_props_values=[],
//   str domain="", int? version=None) -> Tensor
absl::Status OnnxSymbolic(TranslateContext& ctx) { return EmitSymbolic(ctx, false); }

// onnx_symbolic::_symbolic_multi_out(... int[] onnx_dtypes, *, SymInt[][] shapes, ...) -> Tensor[]
absl::Status OnnxSymbolicMultiOut(TranslateContext& ctx) { return EmitSymbolic(ctx, true); }

std::string Slice(TranslateContext& ctx, const std::string& x, int64_t start, int64_t end,
                  int64_t axis, int64_t step = 1) {
  return ctx.Op("Slice", {x, ctx.ConstantInt64s({start}), ctx.ConstantInt64s({end}),
                          ctx.ConstantInt64s({axis}), ctx.ConstantInt64s({step})});
}

// onnx::RotaryEmbedding.opset23(Tensor x, Tensor cos_cache, Tensor sin_cache,
//   Tensor? position_ids=None, *, bool interleaved=False, int num_heads=0,
//   int rotary_embedding_dim=0) -> Tensor
absl::Status OnnxRotaryEmbedding(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string x, ctx.Input("x"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string cos_cache, ctx.Input("cos_cache"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string sin_cache, ctx.Input("sin_cache"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> positions, ctx.OptionalInput("position_ids"));
  PT2ONNX_ASSIGN_OR_RETURN(bool interleaved, BoolOr(ctx, "interleaved", false));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t num_heads, IntOr(ctx, "num_heads", 0));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rotary_dim, IntOr(ctx, "rotary_embedding_dim", 0));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("x"));
  const size_t rank = meta->sizes.size();
  if (ctx.opset() >= kOnnxOpsOpset) {
    // Defaults are left out; a partial rotation also names the head count,
    // which ONNX Runtime requires then (known statically for 4-D x).
    std::vector<ir::Attribute> attributes;
    if (interleaved) attributes.push_back(ir::Attribute::Int("interleaved", 1));
    if (num_heads == 0 && rotary_dim != 0 && rank == 4 && !meta->sizes[1].is_symbolic) {
      num_heads = meta->sizes[1].value;
    }
    if (num_heads != 0) attributes.push_back(ir::Attribute::Int("num_heads", num_heads));
    if (rotary_dim != 0) attributes.push_back(ir::Attribute::Int("rotary_embedding_dim", rotary_dim));
    return ctx.SetOutput(0, ctx.Op("RotaryEmbedding", {x, cos_cache, sin_cache, positions.value_or("")},
                                   std::move(attributes)));
  }
  if (rank != 3 && rank != 4) return ctx.Invalid("x must be 3-D or 4-D");
  const pt2::SymInt& last = meta->sizes.back();
  if (last.is_symbolic) return ctx.Unsupported("a symbolic head/hidden size (x's last dim)");
  int64_t head_size = last.value;
  std::string x4;  // (batch, seq, heads, head_size)
  if (rank == 4) {
    x4 = ctx.Op("Transpose", {x}, {ir::Attribute::Ints("perm", {0, 2, 1, 3})});
  } else {
    if (num_heads <= 0 || head_size % num_heads != 0) {
      return ctx.Invalid("3-D x needs num_heads > 0 dividing its hidden size");
    }
    head_size /= num_heads;
    x4 = ctx.Op("Reshape", {x, ctx.Op("Concat", {ShapeSlice(ctx, x, 0, 2),
                                                 ctx.ConstantInt64s({num_heads, head_size})},
                                      {ir::Attribute::Int("axis", 0)})});
  }
  if (rotary_dim == 0) rotary_dim = head_size;
  if (rotary_dim < 0 || rotary_dim > head_size || rotary_dim % 2 != 0) {
    return ctx.Invalid(absl::StrCat("rotary_embedding_dim ", rotary_dim,
                                    " must be even and at most the head size ", head_size));
  }
  const int64_t half = rotary_dim / 2;
  std::string rotate = rotary_dim == head_size ? x4 : Slice(ctx, x4, 0, rotary_dim, 3);
  std::string cos = positions ? ctx.Op("Gather", {cos_cache, *positions}, {ir::Attribute::Int("axis", 0)})
                              : cos_cache;
  std::string sin = positions ? ctx.Op("Gather", {sin_cache, *positions}, {ir::Attribute::Int("axis", 0)})
                              : sin_cache;
  cos = Unsqueeze(ctx, cos, {2});
  sin = Unsqueeze(ctx, sin, {2});
  std::string x1 = interleaved ? Slice(ctx, rotate, 0, rotary_dim, 3, 2) : Slice(ctx, rotate, 0, half, 3);
  std::string x2 = interleaved ? Slice(ctx, rotate, 1, rotary_dim, 3, 2) : Slice(ctx, rotate, half, rotary_dim, 3);
  std::string real = ctx.Op("Sub", {ctx.Op("Mul", {cos, x1}), ctx.Op("Mul", {sin, x2})});
  std::string imag = ctx.Op("Add", {ctx.Op("Mul", {sin, x1}), ctx.Op("Mul", {cos, x2})});
  std::string rotated;
  if (interleaved) {
    std::string pairs = ctx.Op("Concat", {Unsqueeze(ctx, real, {4}), Unsqueeze(ctx, imag, {4})},
                               {ir::Attribute::Int("axis", -1)});
    rotated = ctx.Op("Reshape", {pairs, ctx.Op("Shape", {rotate})});
  } else {
    rotated = ctx.Op("Concat", {real, imag}, {ir::Attribute::Int("axis", -1)});
  }
  if (rotary_dim < head_size) {
    rotated = ctx.Op("Concat", {rotated, Slice(ctx, x4, rotary_dim, head_size, 3)},
                     {ir::Attribute::Int("axis", 3)});
  }
  if (rank == 4) {
    return ctx.SetOutput(0, ctx.Op("Transpose", {rotated}, {ir::Attribute::Ints("perm", {0, 2, 1, 3})}));
  }
  return ctx.SetOutput(0, ctx.Op("Reshape", {rotated, ctx.Op("Shape", {x})}));
}

// onnx::Attention.opset23(Tensor Q, Tensor K, Tensor V, Tensor? attn_mask=None,
//   Tensor? past_key=None, Tensor? past_value=None, *, bool is_causal=False,
//   int kv_num_heads=0, int q_num_heads=0, int qk_matmul_output_mode=0,
//   float? scale=None, float softcap=0.0, int? softmax_precision=None)
//   -> (Tensor, Tensor, Tensor, Tensor)
absl::Status OnnxAttention(TranslateContext& ctx) {
  PT2ONNX_ASSIGN_OR_RETURN(std::string q, ctx.Input("Q"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string k, ctx.Input("K"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string v, ctx.Input("V"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> mask, ctx.OptionalInput("attn_mask"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> past_key, ctx.OptionalInput("past_key"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<std::string> past_value, ctx.OptionalInput("past_value"));
  PT2ONNX_ASSIGN_OR_RETURN(bool is_causal, BoolOr(ctx, "is_causal", false));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t kv_heads, IntOr(ctx, "kv_num_heads", 0));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t q_heads, IntOr(ctx, "q_num_heads", 0));
  PT2ONNX_ASSIGN_OR_RETURN(int64_t qk_mode, IntOr(ctx, "qk_matmul_output_mode", 0));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> scale, ctx.OptionalFloat("scale"));
  double softcap = 0;
  if (ctx.Has("softcap")) {
    PT2ONNX_ASSIGN_OR_RETURN(softcap, ctx.Float("softcap"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<int64_t> softmax_precision, ctx.OptionalInt("softmax_precision"));
  if (ctx.opset() >= kOnnxOpsOpset) {
    std::vector<ir::Attribute> attributes = {
        ir::Attribute::Int("is_causal", is_causal ? 1 : 0), ir::Attribute::Int("qk_matmul_output_mode", qk_mode),
        ir::Attribute::Float("softcap", static_cast<float>(softcap))};
    // The head counts only split 3-D inputs; ONNX Runtime 1.32 refuses them
    // on 4-D inputs from opset 25 (its Attention shape inference).
    PT2ONNX_ASSIGN_OR_RETURN(int64_t q_rank, ctx.InputRank("Q"));
    if (q_rank == 3) {
      attributes.push_back(ir::Attribute::Int("kv_num_heads", kv_heads));
      attributes.push_back(ir::Attribute::Int("q_num_heads", q_heads));
    }
    if (scale) attributes.push_back(ir::Attribute::Float("scale", static_cast<float>(*scale)));
    if (softmax_precision) attributes.push_back(ir::Attribute::Int("softmax_precision", *softmax_precision));
    // Without a cache the present key/value are K and V themselves (torch
    // clones them); ONNX Runtime wants present outputs only with past inputs.
    std::vector<std::string> results = ctx.AddNode(
        "Attention", {q, k, v, mask.value_or(""), past_key.value_or(""), past_value.value_or("")},
        std::move(attributes), 4);
    ir::Node& node = ctx.builder().graph().nodes.back();
    if (!past_key) node.outputs[1] = node.outputs[2] = "";
    if (!ctx.OutputUsed(3)) node.outputs[3] = "";
    const std::vector<std::string> values = {results[0], past_key ? results[1] : k,
                                             past_value ? results[2] : v, results[3]};
    for (int i = 0; i < 4 && i < ctx.num_outputs(); ++i) {
      if (i == 3 && !ctx.OutputUsed(3)) continue;
      PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(i, values[i]));
    }
    return absl::OkStatus();
  }
  // Below opset 23: the cases torch computes with scaled_dot_product_attention.
  const std::string below = absl::StrCat(" below opset ", kOnnxOpsOpset, " (use --opset 23)");
  if (softcap != 0 || softmax_precision || qk_mode != 0) {
    return ctx.Unsupported(absl::StrCat("softcap, softmax_precision or qk_matmul_output_mode", below));
  }
  if (ctx.OutputUsed(3)) return ctx.Unsupported(absl::StrCat("reading qk_matmul_output", below));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* q_meta, ctx.InputMeta("Q"));
  PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* k_meta, ctx.InputMeta("K"));
  const DataType dtype = q_meta->dtype;
  if (q_meta->sizes.size() != 4 || k_meta->sizes.size() != 4) {
    return ctx.Unsupported(absl::StrCat("3-D Q/K/V", below));
  }
  DataType mask_dtype = DataType::kBool;
  if (mask) {
    PT2ONNX_ASSIGN_OR_RETURN(mask_dtype, ctx.InputDtype("attn_mask"));
    if (is_causal) return ctx.Invalid("is_causal together with attn_mask");
  }
  if (past_key.has_value() != past_value.has_value()) return ctx.Invalid("past_key without past_value");
  if (past_key) {
    k = ctx.Op("Concat", {*past_key, k}, {ir::Attribute::Int("axis", 2)});
    v = ctx.Op("Concat", {*past_value, v}, {ir::Attribute::Int("axis", 2)});
  }
  std::string present_key = k, present_value = v;
  const pt2::SymInt& hq = q_meta->sizes[1];
  const pt2::SymInt& hk = k_meta->sizes[1];
  if (hq.is_symbolic || hk.is_symbolic) return ctx.Unsupported("a symbolic number of heads");
  if (hk.value <= 0 || hq.value % hk.value != 0) return ctx.Invalid("Q heads are not a multiple of K heads");
  if (hq.value != hk.value) {  // each K/V head serves hq/hk consecutive Q heads
    const int64_t group = hq.value / hk.value;
    auto repeat = [&](const std::string& t) {
      std::string expanded = ctx.Op("Expand", {Unsqueeze(ctx, t, {2}),
                                               ctx.Op("Concat", {ShapeSlice(ctx, t, 0, 2), ctx.ConstantInt64s({group}),
                                                                 ShapeSlice(ctx, t, 2, 4)},
                                                      {ir::Attribute::Int("axis", 0)})});
      return ctx.Op("Reshape", {expanded, ctx.Op("Concat", {ShapeSlice(ctx, t, 0, 1), ctx.ConstantInt64s({hq.value}),
                                                            ShapeSlice(ctx, t, 2, 4)},
                                                 {ir::Attribute::Int("axis", 0)})});
    };
    k = repeat(k);
    v = repeat(v);
  }
  const pt2::SymInt& e = q_meta->sizes[3];
  if (!scale && e.is_symbolic) return ctx.Unsupported("a symbolic head size without an explicit scale");
  const double factor = scale ? *scale : 1.0 / std::sqrt(static_cast<double>(e.value));
  std::string sqrt_scale = ctx.ConstantScalar(dtype, std::sqrt(factor));
  std::string k_t = ctx.Op("Transpose", {k}, {ir::Attribute::Ints("perm", {0, 1, 3, 2})});
  std::string scores = ctx.Op("MatMul", {ctx.Op("Mul", {q, sqrt_scale}), ctx.Op("Mul", {k_t, sqrt_scale})});
  std::string neg_inf = ctx.ConstantScalar(dtype, -INFINITY);
  std::string keep;
  if (is_causal) {  // top-left aligned, as torch's ones(L, S).tril()
    std::string size = ctx.Op("Concat", {ShapeSlice(ctx, q, 2, 3), ShapeSlice(ctx, k, 2, 3)},
                              {ir::Attribute::Int("axis", 0)});
    keep = ctx.CastTo(ctx.Op("Trilu", {ctx.Op("Expand", {ctx.ConstantScalar(DataType::kFloat, 1.0), size})},
                             {ir::Attribute::Int("upper", 0)}),
                      DataType::kFloat, DataType::kBool);
  } else if (mask && mask_dtype == DataType::kBool) {
    keep = *mask;
  } else if (mask) {  // a float mask is added (torch's manual path: no safe softmax)
    scores = ctx.Op("Add", {scores, ctx.CastTo(*mask, mask_dtype, dtype)});
  }
  std::string weights;
  if (keep.empty()) {
    weights = ctx.Op("Softmax", {scores}, {ir::Attribute::Int("axis", -1)});
  } else {
    scores = ctx.Op("Where", {keep, scores, neg_inf});
    weights = ctx.Op("Softmax", {scores}, {ir::Attribute::Int("axis", -1)});
    // A row with every position masked: torch's safe softmax gives 0, not NaN.
    std::string any_kept = ctx.CastTo(
        ctx.Op("ReduceMax", {ctx.CastTo(keep, DataType::kBool, DataType::kInt32), ctx.ConstantInt64s({-1})},
               {ir::Attribute::Int("keepdims", 1)}),
        DataType::kInt32, DataType::kBool);
    weights = ctx.Op("Where", {any_kept, weights, ctx.ConstantScalar(dtype, 0.0)});
  }
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.Op("MatMul", {weights, v})));
  if (ctx.num_outputs() > 1) PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, present_key));
  if (ctx.num_outputs() > 2) PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(2, present_value));
  return absl::OkStatus();
}

}  // namespace

void RegisterOnnxOps(OpRegistry& r) {
  r.Add("onnx_symbolic::_symbolic.default", OnnxSymbolic);
  r.Add("onnx_symbolic::_symbolic_multi_out.default", OnnxSymbolicMultiOut);
  r.Add("onnx::Attention.opset23", OnnxAttention);
  r.Add("onnx::RotaryEmbedding.opset23", OnnxRotaryEmbedding);
}

}  // namespace pt2onnx::ops
