// File: runtime/kernels/recurrent.cc
// -----------------------------------------------------------------------------
// LSTM, GRU and RNN as the ONNX spec defines them (gate orders i,o,f,c for
// LSTM and z,r,h for GRU; B = [Wb, Rb]; both layouts; sequence_lens;
// peepholes; GRU's linear_before_reset both ways). Activations are the
// spec's defaults or any of Sigmoid / Tanh / Relu per position; clip and
// input_forget=1 are refused. As ONNX Runtime does: the input products of
// every time step and direction first, in one matrix product
// (kernels/recurrent_weights.h), then per step the product H_{t-1} R^T for
// the whole batch and the gates, in the tensor's dtype (half types come as
// float32: HalfMode::kViaFloat32), as torch's CPU cells compute them.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/kernels/accelerated.h"
#include "runtime/kernels/gate_activations.h"
#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/recurrent_cells.h"
#include "runtime/kernels/recurrent_weights.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

using Act = GateActivation;
using Cell = RecurrentCell;

const char* Name(Cell c) { return c == Cell::kLstm ? "LSTM" : c == Cell::kGru ? "GRU" : "RNN"; }
size_t ActsPerDirection(Cell c) { return c == Cell::kLstm ? 3 : c == Cell::kGru ? 2 : 1; }

// The pieces of a run's scratch buffer start at multiples of 16 elements.
int64_t Padded(int64_t n) { return (n + 15) / 16 * 16; }

template <Cell kCell>
class RecurrentKernel : public OpKernel {
 public:
  explicit RecurrentKernel(bool accelerate) : accelerate_(accelerate) {}

  absl::Status Init(const KernelCreateInfo& info);
  absl::Status Run(KernelContext& ctx) override;
  bool PackedInput(size_t i) const override {
    return packed_ != nullptr && (i == 1 || i == 2 || i == 3 || (kCell == Cell::kLstm && i == 7));
  }

 private:
  // The inputs and outputs of one run, with its scratch.
  template <typename T>
  struct Problem {
    const T* x; const T* h0; const T* c0;
    T* y; T* yh; T* yc;
    int64_t seq, batch;
    const std::vector<int64_t>* lens;
    const RecurrentWeights<T>* weights;
    const T* projected;  // [seq * batch, dirs * gates], rows in X's order
    T *gates, *h, *c, *reset_h, *reset_product, *scratch;
    pthreadpool_t pool;  // for the per-step products
  };

  absl::Status CheckWeights(const Dims& w, const Dims& r, const Tensor* b, const Tensor* p) const;
  template <typename T>
  absl::Status RunTyped(KernelContext& ctx, const Tensor& x);
  template <typename T>
  absl::Status Direction(const Problem<T>& pr, int64_t d) const;

  // Element offsets in layout 0 / 1 (rows of X and of the projection, states, Y).
  int64_t Row(int64_t t, int64_t n, int64_t seq, int64_t batch) const {
    return layout_ == 0 ? t * batch + n : n * seq + t;
  }
  int64_t StateAt(int64_t d, int64_t n, int64_t batch) const {
    return (layout_ == 0 ? d * batch + n : n * shape_.directions + d) * shape_.hidden;
  }
  int64_t YAt(int64_t t, int64_t d, int64_t n, int64_t seq, int64_t batch) const {
    const int64_t dirs = shape_.directions;
    return (layout_ == 0 ? (t * dirs + d) * batch + n : (n * seq + t) * dirs + d) * shape_.hidden;
  }
  CellActivations ActsOf(int64_t d) const {
    const size_t per = ActsPerDirection(kCell), at = static_cast<size_t>(d) * per;
    return {acts_[at], acts_[at + std::min<size_t>(1, per - 1)], acts_[at + per - 1]};
  }

  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(Name(kCell), ": ", what));
  }
  absl::Status Unsupported(const std::string& what) const {
    return absl::UnimplementedError(absl::StrCat(Name(kCell), ": ", what, " is not supported"));
  }

  bool accelerate_;
  RecurrentShape shape_;  // input is known at run time unless the weights are packed
  bool reverse_ = false;
  int64_t layout_ = 0;
  std::vector<Act> acts_;
  // Constant float32 weights, prepared at creation; W's dims for messages.
  std::unique_ptr<RecurrentWeights<float>> packed_;
  Dims packed_w_dims_;
};

template <Cell kCell>
absl::Status RecurrentKernel<kCell>::Init(const KernelCreateInfo& info) {
  const ir::Node& node = info.node;
  shape_.cell = kCell;
  shape_.hidden = AttrInt(node, "hidden_size", 0);
  if (shape_.hidden <= 0) return Error("hidden_size must be a positive attribute");
  std::string direction = AttrString(node, "direction", "forward");
  if (direction == "bidirectional") shape_.directions = 2;
  else if (direction == "reverse") reverse_ = true;
  else if (direction != "forward") return Error(absl::StrCat("unknown direction '", direction, "'"));
  layout_ = AttrInt(node, "layout", 0);
  if (layout_ != 0 && layout_ != 1) return Error(absl::StrCat("layout must be 0 or 1, got ", layout_));
  if (HasAttr(node, "clip")) return Unsupported("the clip attribute");
  if (AttrInt(node, "input_forget", 0) != 0) return Unsupported("input_forget=1");
  shape_.linear_before_reset = AttrInt(node, "linear_before_reset", 0) != 0;
  const size_t per = ActsPerDirection(kCell);
  const int64_t dirs = shape_.directions;
  std::vector<Act> defaults = kCell == Cell::kLstm  ? std::vector<Act>{Act::kSigmoid, Act::kTanh, Act::kTanh}
                              : kCell == Cell::kGru ? std::vector<Act>{Act::kSigmoid, Act::kTanh}
                                                    : std::vector<Act>{Act::kTanh};
  acts_ = defaults;
  if (dirs == 2) acts_.insert(acts_.end(), defaults.begin(), defaults.end());
  if (HasAttr(node, "activations")) {
    const ir::Attribute* attr = node.FindAttribute("activations");
    std::vector<std::string> names = attr != nullptr && attr->type() == ir::Attribute::Type::kStrings ? attr->strings() : std::vector<std::string>{};
    if (names.size() != per * static_cast<size_t>(dirs) && names.size() != per) {
      return Error(absl::StrCat("activations lists ", names.size(), " functions; expected ", per * dirs));
    }
    acts_.clear();
    for (size_t d = 0; d < static_cast<size_t>(dirs); ++d) {
      for (size_t k = 0; k < per; ++k) {
        const std::string& n = names[names.size() == per ? k : d * per + k];
        if (n == "Sigmoid") acts_.push_back(Act::kSigmoid);
        else if (n == "Tanh") acts_.push_back(Act::kTanh);
        else if (n == "Relu") acts_.push_back(Act::kRelu);
        else return Unsupported(absl::StrCat("activation '", n, "' (Sigmoid, Tanh and Relu are)"));
      }
    }
  }
  // Constant float32 W, R, B and P are prepared once; anything else (half
  // weights come widened per run) at every run.
  auto constant = [&](size_t i) -> const Tensor* {
    return i < node.inputs.size() && !node.inputs[i].empty() && i < info.constant_inputs.size()
               ? info.constant_inputs[i] : nullptr;
  };
  auto given = [&](size_t i) { return i < node.inputs.size() && !node.inputs[i].empty(); };
  const Tensor* w = constant(1);
  const Tensor* r = constant(2);
  const Tensor* b = constant(3);
  const Tensor* p = kCell == Cell::kLstm ? constant(7) : nullptr;
  auto is_f32 = [](const Tensor* t) { return t != nullptr && t->dtype() == DataType::kFloat; };
  if (!is_f32(w) || !is_f32(r) || (given(3) && !is_f32(b)) || (kCell == Cell::kLstm && given(7) && !is_f32(p))) {
    return absl::OkStatus();
  }
  if (w->rank() != 3 || r->rank() != 3) return Error("W and R must be 3-D");
  PT2ONNX_RETURN_IF_ERROR(CheckWeights(w->dims(), r->dims(), b, p));
  shape_.input = w->dim(2);
  packed_ = std::make_unique<RecurrentWeights<float>>(PrepareRecurrentWeights<float>(
      shape_, w->data<float>(), r->data<float>(), b ? b->data<float>() : nullptr, p ? p->data<float>() : nullptr,
      accelerate_));
  packed_w_dims_ = w->dims();
  return absl::OkStatus();
}

// W's input size is X's, checked at run time; the rest here.
template <Cell kCell>
absl::Status RecurrentKernel<kCell>::CheckWeights(const Dims& w, const Dims& r, const Tensor* b,
                                                  const Tensor* p) const {
  const int64_t dirs = shape_.directions, gh = shape_.gates(), hidden = shape_.hidden;
  if (w[0] != dirs || w[1] != gh) {
    return Error(absl::StrCat("W is ", DimsString(w), "; expected [", dirs, ", ", gh, ", ", w[2], "]"));
  }
  if (r[0] != dirs || r[1] != gh || r[2] != hidden) {
    return Error(absl::StrCat("R is ", DimsString(r), "; expected [", dirs, ", ", gh, ", ", hidden, "]"));
  }
  if (b != nullptr && (b->numel() != dirs * 2 * gh)) return Error("B must be [num_directions, 2 * gates * hidden]");
  if (p != nullptr && p->numel() != dirs * 3 * hidden) return Error("P must be [num_directions, 3 * hidden]");
  return absl::OkStatus();
}

template <Cell kCell>
absl::Status RecurrentKernel<kCell>::Run(KernelContext& ctx) {
  PT2ONNX_INPUT(x, 0);
  // float32 and float64 only (half types come as float32: HalfMode::kViaFloat32).
  if (x.dtype() == DataType::kFloat) return RunTyped<float>(ctx, x);
  if (x.dtype() == DataType::kDouble && packed_ == nullptr) return RunTyped<double>(ctx, x);
  if (x.dtype() == DataType::kDouble) return Error("inputs must share X's dtype");
  return UnsupportedDtype(Name(kCell), x.dtype());
}

template <Cell kCell>
template <typename T>
absl::Status RecurrentKernel<kCell>::RunTyped(KernelContext& ctx, const Tensor& x) {
  if (x.rank() != 3) return Error("X, W and R must be 3-D");
  const int64_t seq = layout_ == 0 ? x.dim(0) : x.dim(1);
  const int64_t batch = layout_ == 0 ? x.dim(1) : x.dim(0);
  const int64_t in = x.dim(2), dirs = shape_.directions, hidden = shape_.hidden, gh = shape_.gates();
  RecurrentWeights<T> per_run;
  const RecurrentWeights<T>* weights = nullptr;
  if constexpr (std::is_same_v<T, float>) weights = packed_.get();
  if (weights != nullptr) {
    if (in != shape_.input) {
      return Error(absl::StrCat("W is ", DimsString(packed_w_dims_), "; expected [", dirs, ", ", gh, ", ", in, "]"));
    }
  } else {
    PT2ONNX_INPUT(w, 1);
    PT2ONNX_INPUT(r, 2);
    if (w.rank() != 3 || r.rank() != 3) return Error("X, W and R must be 3-D");
    const Tensor* b = ctx.input(3);
    const Tensor* p = kCell == Cell::kLstm ? ctx.input(7) : nullptr;
    for (const Tensor* t : {&w, &r, b, p}) {
      if (t != nullptr && t->dtype() != x.dtype()) return Error("inputs must share X's dtype");
    }
    if (w.dim(0) != dirs || w.dim(1) != gh || w.dim(2) != in) {
      return Error(absl::StrCat("W is ", DimsString(w.dims()), "; expected [", dirs, ", ", gh, ", ", in, "]"));
    }
    PT2ONNX_RETURN_IF_ERROR(CheckWeights(w.dims(), r.dims(), b, p));
    RecurrentShape shape = shape_;
    shape.input = in;
    per_run = PrepareRecurrentWeights<T>(shape, w.data<T>(), r.data<T>(), b ? b->data<T>() : nullptr,
                                         p ? p->data<T>() : nullptr, accelerate_);
    weights = &per_run;
  }
  const Tensor* lens = ctx.input(4);
  const Tensor* h0 = ctx.input(5);
  const Tensor* c0 = kCell == Cell::kLstm ? ctx.input(6) : nullptr;
  for (const Tensor* t : {h0, c0}) {
    if (t != nullptr && t->dtype() != x.dtype()) return Error("inputs must share X's dtype");
  }
  const Dims state = layout_ == 0 ? Dims{dirs, batch, hidden} : Dims{batch, dirs, hidden};
  for (const Tensor* t : {h0, c0}) {
    if (t != nullptr && t->dims() != state) return Error(absl::StrCat("initial states must be ", DimsString(state)));
  }
  std::vector<int64_t> seq_lens(static_cast<size_t>(batch), seq);
  if (lens != nullptr) {
    PT2ONNX_ASSIGN_OR_RETURN(auto v, ReadInts(*lens, "sequence_lens"));
    if (static_cast<int64_t>(v.size()) != batch) return Error("sequence_lens must hold one length per batch entry");
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] < 0 || v[i] > seq) return Error(absl::StrCat("sequence length ", v[i], " outside [0, ", seq, "]"));
      seq_lens[i] = v[i];
    }
  }
  Dims ydims = layout_ == 0 ? Dims{seq, dirs, batch, hidden} : Dims{batch, seq, dirs, hidden};
  Tensor* y = nullptr;
  Tensor* yh = nullptr;
  Tensor* yc = nullptr;
  Tensor** slots[3] = {&y, &yh, &yc};
  const Dims* shapes[3] = {&ydims, &state, &state};
  const size_t outputs = std::min<size_t>(ctx.num_outputs(), kCell == Cell::kLstm ? 3 : 2);
  for (size_t i = 0; i < outputs; ++i) {
    PT2ONNX_ASSIGN_OR_RETURN(auto out, ctx.AllocateOutput(i, x.dtype(), *shapes[i]));
    *slots[i] = out;
  }
  if (batch == 0) return absl::OkStatus();

  const int64_t rows = seq * batch, state_size = Padded(batch * hidden);
  const int64_t sizes[] = {Padded(rows * dirs * gh), Padded(batch * shape_.hidden_product_columns()), state_size,
                           state_size, state_size, state_size, Padded(hidden)};
  int64_t total = 0;
  for (int64_t s : sizes) total += s;
  std::shared_ptr<Buffer> buffer = ctx.pool()->Acquire(static_cast<size_t>(total) * sizeof(T));
  T* next = reinterpret_cast<T*>(buffer->data());
  T* pieces[7];
  for (size_t i = 0; i < 7; ++i) {
    pieces[i] = next;
    next += sizes[i];
  }
  Problem<T> pr{x.data<T>(), h0 ? h0->data<T>() : nullptr, c0 ? c0->data<T>() : nullptr,
                y ? y->data<T>() : nullptr, yh ? yh->data<T>() : nullptr, yc ? yc->data<T>() : nullptr,
                seq, batch, &seq_lens, weights, pieces[0], pieces[1], pieces[2], pieces[3], pieces[4], pieces[5],
                pieces[6], ctx.threadpool_for(static_cast<double>(batch) * gh * hidden, kMinParallelMacs)};
  absl::Status status = weights->input->Run(
      pr.x, rows, pieces[0], ctx.threadpool_for(static_cast<double>(rows) * dirs * gh * in, kMinParallelMacs));
  for (int64_t d = 0; d < dirs && status.ok(); ++d) status = Direction(pr, d);
  ctx.pool()->Release(std::move(buffer));
  return status;
}

template <Cell kCell>
template <typename T>
absl::Status RecurrentKernel<kCell>::Direction(const Problem<T>& pr, int64_t d) const {
  const int64_t H = shape_.hidden, G = shape_.gates(), stride = shape_.directions * G;
  const bool backward = reverse_ || d == 1;
  const bool gru_reset_first = kCell == Cell::kGru && !shape_.linear_before_reset;
  const CellActivations acts = ActsOf(d);
  const T* peepholes = pr.weights->peepholes.empty() ? nullptr : pr.weights->peepholes.data() + d * 3 * H;
  int64_t max_len = 0;
  for (int64_t n = 0; n < pr.batch; ++n) {
    const int64_t len = (*pr.lens)[static_cast<size_t>(n)];
    max_len = std::max(max_len, len);
    const T* h0 = pr.h0 ? pr.h0 + StateAt(d, n, pr.batch) : nullptr;
    const T* c0 = pr.c0 ? pr.c0 + StateAt(d, n, pr.batch) : nullptr;
    for (int64_t j = 0; j < H; ++j) {
      pr.h[n * H + j] = h0 ? h0[j] : T(0);
      pr.c[n * H + j] = c0 ? c0[j] : T(0);
    }
    if (pr.y) {
      for (int64_t t = len; t < pr.seq; ++t) std::fill_n(pr.y + YAt(t, d, n, pr.seq, pr.batch), H, T(0));  // padding steps read 0
    }
  }
  // Entries past their length keep their state; their rows of the products
  // are computed and ignored.
  if (gru_reset_first) std::fill_n(pr.reset_h, pr.batch * H, T(0));
  auto input_row = [&](int64_t s, int64_t n) {
    const int64_t len = (*pr.lens)[static_cast<size_t>(n)];
    const int64_t t = backward ? len - 1 - s : s;
    return pr.projected + Row(t, n, pr.seq, pr.batch) * stride + d * G;
  };
  auto active = [&](int64_t s, int64_t n) { return s < (*pr.lens)[static_cast<size_t>(n)]; };
  for (int64_t s = 0; s < max_len; ++s) {
    PT2ONNX_RETURN_IF_ERROR(pr.weights->hidden[d]->Run(pr.h, pr.batch, pr.gates, pr.pool));
    if (gru_reset_first) {
      for (int64_t n = 0; n < pr.batch; ++n) {
        if (active(s, n)) {
          GruResetGate(H, acts, pr.gates + n * 2 * H, input_row(s, n), pr.h + n * H, pr.reset_h + n * H);
        }
      }
      PT2ONNX_RETURN_IF_ERROR(pr.weights->reset_hidden[d]->Run(pr.reset_h, pr.batch, pr.reset_product, pr.pool));
    }
    for (int64_t n = 0; n < pr.batch; ++n) {
      if (!active(s, n)) continue;
      const T* in = input_row(s, n);
      T* gates = pr.gates + n * shape_.hidden_product_columns();
      T* h = pr.h + n * H;
      if constexpr (kCell == Cell::kRnn) {
        RnnStep(H, acts, gates, in, h);
      } else if constexpr (kCell == Cell::kLstm) {
        LstmStep(H, acts, gates, in, peepholes, h, pr.c + n * H, pr.scratch);
      } else if (gru_reset_first) {
        GruUpdate(H, acts, gates, in, pr.reset_product + n * H, h);
      } else {
        GruStepResetAfter(H, acts, gates, in, h);
      }
      if (pr.y) {
        const int64_t len = (*pr.lens)[static_cast<size_t>(n)];
        const int64_t t = backward ? len - 1 - s : s;
        std::copy_n(pr.h + n * H, H, pr.y + YAt(t, d, n, pr.seq, pr.batch));
      }
    }
  }
  for (int64_t n = 0; n < pr.batch; ++n) {
    if (pr.yh) std::copy_n(pr.h + n * H, H, pr.yh + StateAt(d, n, pr.batch));
    if (pr.yc) std::copy_n(pr.c + n * H, H, pr.yc + StateAt(d, n, pr.batch));
  }
  return absl::OkStatus();
}

template <Cell kCell, bool kAccelerate>
absl::StatusOr<std::unique_ptr<OpKernel>> CreateRecurrent(const KernelCreateInfo& info) {
  auto kernel = std::make_unique<RecurrentKernel<kCell>>(kAccelerate);
  PT2ONNX_RETURN_IF_ERROR(kernel->Init(info));
  return std::unique_ptr<OpKernel>(std::move(kernel));
}

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateAcceleratedRecurrentKernel(const KernelCreateInfo& info) {
  const std::string& op = info.node.op_type;
  if (op == "LSTM") return CreateRecurrent<Cell::kLstm, true>(info);
  if (op == "GRU") return CreateRecurrent<Cell::kGru, true>(info);
  if (op == "RNN") return CreateRecurrent<Cell::kRnn, true>(info);
  return std::unique_ptr<OpKernel>();
}

extern const KernelRegistration kRecurrentKernels[] = {
    {"LSTM", CreateRecurrent<Cell::kLstm, false>, HalfMode::kViaFloat32},
    {"GRU", CreateRecurrent<Cell::kGru, false>, HalfMode::kViaFloat32},
    {"RNN", CreateRecurrent<Cell::kRnn, false>, HalfMode::kViaFloat32},
};
extern const size_t kNumRecurrentKernels = sizeof(kRecurrentKernels) / sizeof(kRecurrentKernels[0]);

}  // namespace pt2onnx::runtime
