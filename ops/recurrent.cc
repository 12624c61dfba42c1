// File: ops/recurrent.cc
// -----------------------------------------------------------------------------
// Recurrent layers: aten::lstm, gru, rnn_tanh and rnn_relu (.input), the ops
// nn.LSTM / nn.GRU / nn.RNN call. Each layer becomes one ONNX LSTM / GRU /
// RNN node (both directions in one node), the layers stacked in the graph.
//
// torch and ONNX agree on the cell equations once the weights are reordered
// (aten/src/ATen/native/RNN.cpp, LSTMCell / GRUCell / SimpleCell):
// - LSTM: torch stacks the gate rows i,f,g,o; ONNX wants i,o,f,c.
// - GRU: torch stacks r,z,n; ONNX wants z,r,h, and torch applies the reset
//   gate after the recurrent product, n = tanh(W_in x + b_in + r * (W_hn h +
//   b_hn)): ONNX's linear_before_reset=1.
// - biases: torch's b_ih and b_hh are ONNX's Wb and Rb (B = [Wb, Rb]).
// LSTM with proj_size (h = W_hr (o * tanh(c))) has no ONNX equivalent: it is
// unrolled over the (static) time steps into MatMul/Sigmoid/Tanh nodes.
//
// The packed-sequence overloads (.data) take data-dependent batch sizes per
// time step (pack_padded_sequence); they are refused with advice.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/dtype.h"
#include "core/status_macros.h"
#include "ops/translate_api.h"
#include "translate/op_helpers.h"
#include "translate/registry.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {
namespace {

enum class Mode { kLstm, kGru, kRnnTanh, kRnnRelu };

int Gates(Mode m) { return m == Mode::kLstm ? 4 : m == Mode::kGru ? 3 : 1; }

// The unrolled form emits ~20 nodes per step and direction; beyond this many
// steps the graph would be unreasonably large.
constexpr int64_t kMaxUnrolledSteps = 4096;

struct Layout {
  Mode mode = Mode::kLstm;
  int64_t layers = 1;
  int64_t dirs = 1;
  int64_t hidden = 0;    // H
  int64_t proj = 0;      // P (LSTM proj_size), 0 if none
  bool biases = true;
  int64_t per_dir = 0;   // params per layer and direction
  bool batch_first = false;
  DataType dtype = DataType::kFloat;   // the program's
  DataType compute = DataType::kFloat;  // what the ONNX nodes run in
};

int64_t StaticDim(const pt2::TensorMeta* meta, size_t i) {
  if (meta == nullptr || i >= meta->sizes.size() || meta->sizes[i].is_symbolic) return -1;
  return meta->sizes[i].value;
}

// Reads and checks the layer description from the arguments and params' shapes.
absl::StatusOr<Layout> ReadLayout(TranslateContext& ctx, Mode mode) {
  Layout l;
  l.mode = mode;
  PT2ONNX_ASSIGN_OR_RETURN(l.biases, ctx.Bool("has_biases"));
  PT2ONNX_ASSIGN_OR_RETURN(l.layers, ctx.Int("num_layers"));
  PT2ONNX_ASSIGN_OR_RETURN(bool bidirectional, ctx.Bool("bidirectional"));
  PT2ONNX_ASSIGN_OR_RETURN(l.batch_first, ctx.Bool("batch_first"));
  PT2ONNX_ASSIGN_OR_RETURN(double dropout, ctx.Float("dropout"));
  PT2ONNX_ASSIGN_OR_RETURN(bool train, ctx.Bool("train"));
  l.dirs = bidirectional ? 2 : 1;
  if (l.layers < 1 || l.layers > 1024) {
    return ctx.Invalid(absl::StrCat("num_layers must be in [1, 1024], got ", l.layers));
  }
  if (train && dropout > 0 && l.layers > 1) {
    return ctx.Unsupported(absl::StrCat("dropout between layers in training mode (train=True, dropout=",
                                        dropout, ") is random; export the model in eval mode"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(DataType dtype, ctx.InputDtype("input"));
  if (!IsFloatingPoint(dtype) || IsComplex(dtype)) {
    return ctx.Invalid(absl::StrCat("recurrent layers take floating-point input, got ", DataTypeName(dtype)));
  }
  l.dtype = dtype;
  // ONNX Runtime's CPU LSTM/GRU/RNN run float32; other floats are computed
  // in float32 and cast back.
  l.compute = DataType::kFloat;
  PT2ONNX_ASSIGN_OR_RETURN(int64_t rank, ctx.InputRank("input"));
  if (rank != 3) return ctx.Invalid(absl::StrCat("input must be 3-D (time, batch, features), got ", rank, "-D"));

  size_t n = 0;
  while (ctx.InputListMeta("params", n) != nullptr) ++n;
  int64_t base = 2 + (l.biases ? 2 : 0);
  int64_t groups = l.layers * l.dirs;
  if (n == 0 || static_cast<int64_t>(n) % groups != 0) {
    return ctx.Invalid(absl::StrCat(n, " weight tensors do not split into ", l.layers, " layers x ", l.dirs,
                                    " directions"));
  }
  l.per_dir = static_cast<int64_t>(n) / groups;
  if (l.per_dir != base && !(mode == Mode::kLstm && l.per_dir == base + 1)) {
    return ctx.Invalid(absl::StrCat(l.per_dir, " weight tensors per layer and direction; expected ", base,
                                    mode == Mode::kLstm ? absl::StrCat(" (or ", base + 1, " with proj_size)") : ""));
  }
  int64_t rows = StaticDim(ctx.InputListMeta("params", 0), 0);
  if (rows <= 0 || rows % Gates(mode) != 0) {
    return ctx.Invalid("the first input-hidden weight's rows must be a static multiple of the gate count");
  }
  l.hidden = rows / Gates(mode);
  if (l.per_dir == base + 1) {
    l.proj = StaticDim(ctx.InputListMeta("params", static_cast<size_t>(base)), 0);
    if (l.proj <= 0) return ctx.Invalid("the projection weight's rows must be static and positive");
  }
  return l;
}

std::string Param(const std::vector<std::string>& params, const Layout& l, int64_t layer, int64_t dir, int64_t k) {
  return params[static_cast<size_t>((layer * l.dirs + dir) * l.per_dir + k)];
}

// Reorders the gate blocks of a [G*H, ...] weight or [G*H] bias from torch's
// order to ONNX's.
std::string ToOnnxGateOrder(TranslateContext& ctx, const Layout& l, const std::string& w) {
  if (l.mode == Mode::kRnnTanh || l.mode == Mode::kRnnRelu) return w;
  int g = Gates(l.mode);
  std::vector<std::string> parts = ctx.AddNode(
      "Split", {w, ctx.ConstantInt64s(std::vector<int64_t>(static_cast<size_t>(g), l.hidden))},
      {ir::Attribute::Int("axis", 0)}, g);
  std::vector<std::string> order;
  if (l.mode == Mode::kLstm) order = {parts[0], parts[3], parts[1], parts[2]};  // i,f,g,o -> i,o,f,c
  else order = {parts[1], parts[0], parts[2]};                                  // r,z,n -> z,r,h
  return ctx.Op("Concat", order, {ir::Attribute::Int("axis", 0)});
}

// Rows [begin, end) of a stacked state [L*D, B, H].
std::string StateRows(TranslateContext& ctx, const std::string& state, int64_t begin, int64_t end) {
  return ctx.Op("Slice", {state, ctx.ConstantInt64s({begin}), ctx.ConstantInt64s({end}), ctx.ConstantInt64s({0})});
}

struct LayerResult {
  std::string y;  // [T, B, D*Hout]
  std::string h;  // [D, B, Hout]
  std::string c;  // [D, B, H] (LSTM)
};

// One layer as one ONNX LSTM / GRU / RNN node.
LayerResult OnnxLayer(TranslateContext& ctx, const Layout& l, const std::vector<std::string>& params,
                      int64_t layer, const std::string& x, const std::string& h0,
                      const std::optional<std::string>& c0) {
  std::vector<std::string> w, r, b;
  for (int64_t d = 0; d < l.dirs; ++d) {
    w.push_back(Unsqueeze(ctx, ToOnnxGateOrder(ctx, l, Param(params, l, layer, d, 0)), {0}));
    r.push_back(Unsqueeze(ctx, ToOnnxGateOrder(ctx, l, Param(params, l, layer, d, 1)), {0}));
    if (l.biases) {
      std::string both = ctx.Op("Concat", {ToOnnxGateOrder(ctx, l, Param(params, l, layer, d, 2)),
                                            ToOnnxGateOrder(ctx, l, Param(params, l, layer, d, 3))},
                                {ir::Attribute::Int("axis", 0)});
      b.push_back(Unsqueeze(ctx, both, {0}));
    }
  }
  auto stack = [&](const std::vector<std::string>& v) {
    return v.size() == 1 ? v[0] : ctx.Op("Concat", v, {ir::Attribute::Int("axis", 0)});
  };
  std::vector<std::string> inputs = {x, stack(w), stack(r), l.biases ? stack(b) : std::string(), "", h0};
  std::vector<ir::Attribute> attrs = {ir::Attribute::Int("hidden_size", l.hidden),
                                      ir::Attribute::String("direction", l.dirs == 2 ? "bidirectional" : "forward")};
  const char* op = "RNN";
  int outputs = 2;
  if (l.mode == Mode::kLstm) {
    op = "LSTM";
    outputs = 3;
    inputs.push_back(*c0);
  } else if (l.mode == Mode::kGru) {
    op = "GRU";
    attrs.push_back(ir::Attribute::Int("linear_before_reset", 1));
  } else {
    std::string act = l.mode == Mode::kRnnRelu ? "Relu" : "Tanh";
    attrs.push_back(ir::Attribute::Strings("activations", std::vector<std::string>(static_cast<size_t>(l.dirs), act)));
  }
  std::vector<std::string> out = ctx.AddNode(op, inputs, attrs, outputs);
  LayerResult res;
  // Y [T, D, B, H] -> [T, B, D*H], directions side by side as torch has them.
  res.y = ctx.Op("Reshape", {ctx.Op("Transpose", {out[0]}, {ir::Attribute::Ints("perm", {0, 2, 1, 3})}),
                             ctx.ConstantInt64s({0, 0, l.dirs * l.hidden})});
  res.h = out[1];
  if (l.mode == Mode::kLstm) res.c = out[2];
  return res;
}

std::string MatMulT(TranslateContext& ctx, const std::string& x, const std::string& w) {
  return ctx.Op("MatMul", {x, ctx.Op("Transpose", {w}, {ir::Attribute::Ints("perm", {1, 0})})});
}

// One LSTM layer with a projection, unrolled over `steps` time steps
// (torch's LSTMCell with proj: h = W_hr (o * tanh(c)), gates i,f,g,o).
LayerResult UnrolledProjLayer(TranslateContext& ctx, const Layout& l, const std::vector<std::string>& params,
                              int64_t layer, int64_t steps, const std::string& x, const std::string& h0,
                              const std::string& c0) {
  std::vector<std::string> ys, hs, cs;
  for (int64_t d = 0; d < l.dirs; ++d) {
    std::string xw = MatMulT(ctx, x, Param(params, l, layer, d, 0));  // [T, B, 4H]
    if (l.biases) {
      xw = ctx.Op("Add", {xw, ctx.Op("Add", {Param(params, l, layer, d, 2), Param(params, l, layer, d, 3)})});
    }
    std::string rt = ctx.Op("Transpose", {Param(params, l, layer, d, 1)}, {ir::Attribute::Ints("perm", {1, 0})});
    std::string prt = ctx.Op("Transpose", {Param(params, l, layer, d, l.per_dir - 1)},
                             {ir::Attribute::Ints("perm", {1, 0})});
    std::string h = Squeeze(ctx, StateRows(ctx, h0, d, d + 1), {0});
    std::string c = Squeeze(ctx, StateRows(ctx, c0, d, d + 1), {0});
    std::vector<std::string> outs(static_cast<size_t>(steps));
    for (int64_t s = 0; s < steps; ++s) {
      int64_t t = d == 0 ? s : steps - 1 - s;
      std::string g = ctx.Op("Add", {ctx.Op("Gather", {xw, ctx.ConstantInt64(t)}, {ir::Attribute::Int("axis", 0)}),
                                     ctx.Op("MatMul", {h, rt})});
      std::vector<std::string> gates = ctx.AddNode(
          "Split", {g, ctx.ConstantInt64s({l.hidden, l.hidden, l.hidden, l.hidden})},
          {ir::Attribute::Int("axis", 1)}, 4);
      std::string i = ctx.Op("Sigmoid", {gates[0]});
      std::string f = ctx.Op("Sigmoid", {gates[1]});
      std::string cand = ctx.Op("Tanh", {gates[2]});
      std::string o = ctx.Op("Sigmoid", {gates[3]});
      c = ctx.Op("Add", {ctx.Op("Mul", {f, c}), ctx.Op("Mul", {i, cand})});
      h = ctx.Op("MatMul", {ctx.Op("Mul", {o, ctx.Op("Tanh", {c})}), prt});
      outs[static_cast<size_t>(t)] = Unsqueeze(ctx, h, {0});
    }
    ys.push_back(ctx.Op("Concat", outs, {ir::Attribute::Int("axis", 0)}));
    hs.push_back(Unsqueeze(ctx, h, {0}));
    cs.push_back(Unsqueeze(ctx, c, {0}));
  }
  auto cat = [&](const std::vector<std::string>& v, int64_t axis) {
    return v.size() == 1 ? v[0] : ctx.Op("Concat", v, {ir::Attribute::Int("axis", axis)});
  };
  return {cat(ys, 2), cat(hs, 0), cat(cs, 0)};
}

absl::Status Recurrent(TranslateContext& ctx, Mode mode) {
  PT2ONNX_ASSIGN_OR_RETURN(Layout l, ReadLayout(ctx, mode));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> params, ctx.Inputs("params"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string input, ctx.Input("input"));
  std::string h0, c0;
  if (mode == Mode::kLstm) {
    PT2ONNX_ASSIGN_OR_RETURN(std::vector<std::string> hx, ctx.Inputs("hx"));
    if (hx.size() != 2) return ctx.Invalid(absl::StrCat("hx must hold (h0, c0), got ", hx.size(), " tensors"));
    h0 = hx[0];
    c0 = hx[1];
  } else {
    PT2ONNX_ASSIGN_OR_RETURN(h0, ctx.Input("hx"));
  }
  for (std::string& p : params) p = ctx.CastTo(p, l.dtype, l.compute);
  h0 = ctx.CastTo(h0, l.dtype, l.compute);
  if (!c0.empty()) c0 = ctx.CastTo(c0, l.dtype, l.compute);
  std::string x = ctx.CastTo(input, l.dtype, l.compute);
  if (l.batch_first) x = ctx.Op("Transpose", {x}, {ir::Attribute::Ints("perm", {1, 0, 2})});

  int64_t steps = -1;
  if (l.proj > 0) {
    PT2ONNX_ASSIGN_OR_RETURN(const pt2::TensorMeta* meta, ctx.InputMeta("input"));
    steps = StaticDim(meta, l.batch_first ? 1 : 0);
    if (steps < 0) {
      return ctx.Unsupported("LSTM with proj_size over a symbolic number of time steps: ONNX's LSTM has no "
                             "projection, and the unrolled form needs a static sequence length; export with "
                             "a static sequence length");
    }
    if (steps > kMaxUnrolledSteps) {
      return ctx.Unsupported(absl::StrCat("LSTM with proj_size over ", steps, " time steps: the unrolled form is "
                                          "limited to ", kMaxUnrolledSteps, " steps"));
    }
  }
  std::vector<std::string> hn, cn;
  for (int64_t layer = 0; layer < l.layers; ++layer) {
    std::string h = StateRows(ctx, h0, layer * l.dirs, (layer + 1) * l.dirs);
    std::optional<std::string> c;
    if (mode == Mode::kLstm) c = StateRows(ctx, c0, layer * l.dirs, (layer + 1) * l.dirs);
    LayerResult res = steps >= 0 ? UnrolledProjLayer(ctx, l, params, layer, steps, x, h, *c)
                                 : OnnxLayer(ctx, l, params, layer, x, h, c);
    x = res.y;
    hn.push_back(res.h);
    if (mode == Mode::kLstm) cn.push_back(res.c);
  }
  auto cat = [&](const std::vector<std::string>& v) {
    return v.size() == 1 ? v[0] : ctx.Op("Concat", v, {ir::Attribute::Int("axis", 0)});
  };
  if (l.batch_first) x = ctx.Op("Transpose", {x}, {ir::Attribute::Ints("perm", {1, 0, 2})});
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(0, ctx.CastTo(x, l.compute, l.dtype)));
  PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(1, ctx.CastTo(cat(hn), l.compute, l.dtype)));
  if (mode == Mode::kLstm) PT2ONNX_RETURN_IF_ERROR(ctx.SetOutput(2, ctx.CastTo(cat(cn), l.compute, l.dtype)));
  return absl::OkStatus();
}

// aten::lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor, Tensor)
absl::Status AtenLstmInput(TranslateContext& ctx) { return Recurrent(ctx, Mode::kLstm); }
// aten::gru.input(Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor)
absl::Status AtenGruInput(TranslateContext& ctx) { return Recurrent(ctx, Mode::kGru); }
// aten::rnn_tanh.input(Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor)
absl::Status AtenRnnTanhInput(TranslateContext& ctx) { return Recurrent(ctx, Mode::kRnnTanh); }
// aten::rnn_relu.input(...) -> (Tensor, Tensor), as rnn_tanh.input
absl::Status AtenRnnReluInput(TranslateContext& ctx) { return Recurrent(ctx, Mode::kRnnRelu); }

// aten::lstm.data(Tensor data, Tensor batch_sizes, Tensor[] hx, Tensor[] params, ...) and the
// gru/rnn_tanh/rnn_relu .data overloads: packed sequences.
absl::Status PackedSequence(TranslateContext& ctx) {
  return ctx.Unsupported(
      "recurrent layers over packed sequences (nn.utils.rnn.pack_padded_sequence): the batch size of each time "
      "step is data-dependent; run the layer on the padded tensor instead (and mask the outputs)");
}

}  // namespace

void RegisterRecurrentOps(OpRegistry& r) {
  r.Add("aten::lstm.input", &AtenLstmInput);
  r.Add("aten::gru.input", &AtenGruInput);
  r.Add("aten::rnn_tanh.input", &AtenRnnTanhInput);
  r.Add("aten::rnn_relu.input", &AtenRnnReluInput);
  r.Add("aten::lstm.data", &PackedSequence);
  r.Add("aten::gru.data", &PackedSequence);
  r.Add("aten::rnn_tanh.data", &PackedSequence);
  r.Add("aten::rnn_relu.data", &PackedSequence);
}

}  // namespace pt2onnx::ops
