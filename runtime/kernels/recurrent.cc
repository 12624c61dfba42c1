// File: runtime/kernels/recurrent.cc
// -----------------------------------------------------------------------------
// LSTM, GRU and RNN as the ONNX spec defines them (gate orders i,o,f,c for
// LSTM and z,r,h for GRU; B = [Wb, Rb]; both layouts; sequence_lens;
// peepholes; GRU's linear_before_reset both ways). Activations are the
// spec's defaults or any of Sigmoid / Tanh / Relu per position; clip and
// input_forget=1 are refused. Portable loops: the input products of every
// time step are computed first, then the recurrence, accumulating in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/kernels/kernel.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {
namespace {

enum class Cell { kLstm, kGru, kRnn };
enum class Act { kSigmoid, kTanh, kRelu };

// In the tensor's dtype, as torch's CPU cells compute their gates.
template <typename T>
T Apply(Act a, T v) {
  switch (a) {
    case Act::kSigmoid: return T(1) / (T(1) + std::exp(-v));
    case Act::kTanh: return std::tanh(v);
    case Act::kRelu: return v > 0 ? v : T(0);
  }
  return v;
}

const char* Name(Cell c) { return c == Cell::kLstm ? "LSTM" : c == Cell::kGru ? "GRU" : "RNN"; }
int64_t GateCount(Cell c) { return c == Cell::kLstm ? 4 : c == Cell::kGru ? 3 : 1; }
size_t ActsPerDirection(Cell c) { return c == Cell::kLstm ? 3 : c == Cell::kGru ? 2 : 1; }

template <Cell kCell>
class RecurrentKernel : public OpKernel {
 public:
  absl::Status Init(const KernelCreateInfo& info) {
    const ir::Node& node = info.node;
    hidden_ = AttrInt(node, "hidden_size", 0);
    if (hidden_ <= 0) return Error("hidden_size must be a positive attribute");
    std::string direction = AttrString(node, "direction", "forward");
    if (direction == "bidirectional") dirs_ = 2;
    else if (direction == "reverse") reverse_ = true;
    else if (direction != "forward") return Error(absl::StrCat("unknown direction '", direction, "'"));
    layout_ = AttrInt(node, "layout", 0);
    if (layout_ != 0 && layout_ != 1) return Error(absl::StrCat("layout must be 0 or 1, got ", layout_));
    if (HasAttr(node, "clip")) return Unsupported("the clip attribute");
    if (AttrInt(node, "input_forget", 0) != 0) return Unsupported("input_forget=1");
    linear_before_reset_ = AttrInt(node, "linear_before_reset", 0) != 0;
    const size_t per = ActsPerDirection(kCell);
    std::vector<Act> defaults = kCell == Cell::kLstm  ? std::vector<Act>{Act::kSigmoid, Act::kTanh, Act::kTanh}
                                : kCell == Cell::kGru ? std::vector<Act>{Act::kSigmoid, Act::kTanh}
                                                      : std::vector<Act>{Act::kTanh};
    acts_ = defaults;
    if (dirs_ == 2) acts_.insert(acts_.end(), defaults.begin(), defaults.end());
    if (HasAttr(node, "activations")) {
      const ir::Attribute* attr = node.FindAttribute("activations");
      std::vector<std::string> names = attr != nullptr && attr->type() == ir::Attribute::Type::kStrings ? attr->strings() : std::vector<std::string>{};
      if (names.size() != per * static_cast<size_t>(dirs_) && names.size() != per) {
        return Error(absl::StrCat("activations lists ", names.size(), " functions; expected ", per * dirs_));
      }
      acts_.clear();
      for (size_t d = 0; d < static_cast<size_t>(dirs_); ++d) {
        for (size_t k = 0; k < per; ++k) {
          const std::string& n = names[names.size() == per ? k : d * per + k];
          if (n == "Sigmoid") acts_.push_back(Act::kSigmoid);
          else if (n == "Tanh") acts_.push_back(Act::kTanh);
          else if (n == "Relu") acts_.push_back(Act::kRelu);
          else return Unsupported(absl::StrCat("activation '", n, "' (Sigmoid, Tanh and Relu are)"));
        }
      }
    }
    return absl::OkStatus();
  }

  absl::Status Run(KernelContext& ctx) override {
    PT2ONNX_INPUT(x, 0);
    PT2ONNX_INPUT(w, 1);
    PT2ONNX_INPUT(r, 2);
    if (x.rank() != 3 || w.rank() != 3 || r.rank() != 3) return Error("X, W and R must be 3-D");
    const int64_t seq = layout_ == 0 ? x.dim(0) : x.dim(1);
    const int64_t batch = layout_ == 0 ? x.dim(1) : x.dim(0);
    const int64_t in = x.dim(2);
    const int64_t gh = GateCount(kCell) * hidden_;
    if (w.dim(0) != dirs_ || w.dim(1) != gh || w.dim(2) != in) {
      return Error(absl::StrCat("W is ", DimsString(w.dims()), "; expected [", dirs_, ", ", gh, ", ", in, "]"));
    }
    if (r.dim(0) != dirs_ || r.dim(1) != gh || r.dim(2) != hidden_) {
      return Error(absl::StrCat("R is ", DimsString(r.dims()), "; expected [", dirs_, ", ", gh, ", ", hidden_, "]"));
    }
    const Tensor* b = ctx.input(3);
    const Tensor* lens = ctx.input(4);
    const Tensor* h0 = ctx.input(5);
    const Tensor* c0 = kCell == Cell::kLstm ? ctx.input(6) : nullptr;
    const Tensor* p = kCell == Cell::kLstm ? ctx.input(7) : nullptr;
    for (const Tensor* t : {&w, &r, b, h0, c0, p}) {
      if (t != nullptr && t->dtype() != x.dtype()) return Error("inputs must share X's dtype");
    }
    if (b != nullptr && (b->numel() != dirs_ * 2 * gh)) return Error("B must be [num_directions, 2 * gates * hidden]");
    if (p != nullptr && p->numel() != dirs_ * 3 * hidden_) return Error("P must be [num_directions, 3 * hidden]");
    const Dims state = layout_ == 0 ? Dims{dirs_, batch, hidden_} : Dims{batch, dirs_, hidden_};
    for (const Tensor* t : {h0, c0}) {
      if (t != nullptr && t->dims() != state) return Error(absl::StrCat("initial states must be ", DimsString(state)));
    }
    std::vector<int64_t> seq_lens(static_cast<size_t>(batch), seq);
    if (lens != nullptr) {
      PT2ONNX_ASSIGN_OR_RETURN(auto v, ReadInts(*lens, "sequence_lens"));
      if (static_cast<int64_t>(v.size()) != batch) return Error("sequence_lens must hold one length per batch entry");
      for (size_t i = 0; i < v.size(); ++i) {
        if ((v)[i] < 0 || (v)[i] > seq) return Error(absl::StrCat("sequence length ", (v)[i], " outside [0, ", seq, "]"));
        seq_lens[i] = (v)[i];
      }
    }
    Dims ydims = layout_ == 0 ? Dims{seq, dirs_, batch, hidden_} : Dims{batch, seq, dirs_, hidden_};
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
    auto run = [&](auto tag) {
      using T = decltype(tag);
      Problem<T> pr{x.data<T>(), w.data<T>(), r.data<T>(), b ? b->data<T>() : nullptr,
                    h0 ? h0->data<T>() : nullptr, c0 ? c0->data<T>() : nullptr, p ? p->data<T>() : nullptr,
                    y ? y->data<T>() : nullptr, yh ? yh->data<T>() : nullptr, yc ? yc->data<T>() : nullptr,
                    seq, batch, in, &seq_lens};
      for (int64_t d = 0; d < dirs_; ++d) Direction(pr, d);
    };
    // float32 and float64 only (half types come as float32: HalfMode::kViaFloat32).
    if (x.dtype() == DataType::kFloat) {
      run(float{});
    } else if (x.dtype() == DataType::kDouble) {
      run(double{});
    } else {
      return UnsupportedDtype(Name(kCell), x.dtype());
    }
    return absl::OkStatus();
  }

 private:
  template <typename T>
  struct Problem {
    const T* x; const T* w; const T* r; const T* b; const T* h0; const T* c0; const T* p;
    T* y; T* yh; T* yc;
    int64_t seq, batch, in;
    const std::vector<int64_t>* lens;
  };

  // Element offsets in layout 0 / 1.
  int64_t XAt(int64_t t, int64_t n, int64_t seq, int64_t batch, int64_t in) const {
    return (layout_ == 0 ? t * batch + n : n * seq + t) * in;
  }
  int64_t StateAt(int64_t d, int64_t n, int64_t batch) const {
    return (layout_ == 0 ? d * batch + n : n * dirs_ + d) * hidden_;
  }
  int64_t YAt(int64_t t, int64_t d, int64_t n, int64_t seq, int64_t batch) const {
    return (layout_ == 0 ? (t * dirs_ + d) * batch + n : (n * seq + t) * dirs_ + d) * hidden_;
  }

  template <typename T>
  void Direction(const Problem<T>& pr, int64_t d) {
    const int64_t H = hidden_, G = GateCount(kCell) * H;
    const bool backward = reverse_ || d == 1;
    const T* w = pr.w + d * G * pr.in;
    const T* r = pr.r + d * G * H;
    const T* wb = pr.b ? pr.b + d * 2 * G : nullptr;
    const T* rb = pr.b ? wb + G : nullptr;
    const T* peep = pr.p ? pr.p + d * 3 * H : nullptr;
    const size_t per = ActsPerDirection(kCell);
    const Act f = acts_[static_cast<size_t>(d) * per];
    const Act g = per > 1 ? acts_[static_cast<size_t>(d) * per + 1] : f;
    const Act h_act = per > 2 ? acts_[static_cast<size_t>(d) * per + 2] : g;
    // W and R transposed ([in, G], [H, G]): each step's products become rows
    // scaled and added (contiguous, vectorised), in the dtype as torch's
    // CPU kernels compute them.
    std::vector<T> wt(static_cast<size_t>(G * pr.in)), rt(static_cast<size_t>(G * H));
    for (int64_t k = 0; k < G; ++k) {
      for (int64_t i = 0; i < pr.in; ++i) wt[i * G + k] = w[k * pr.in + i];
      for (int64_t i = 0; i < H; ++i) rt[i * G + k] = r[k * H + i];
    }
    std::vector<T> xg(static_cast<size_t>(G)), hg(static_cast<size_t>(G));
    std::vector<T> h(static_cast<size_t>(H)), c(static_cast<size_t>(H)), rh(static_cast<size_t>(H));
    for (int64_t n = 0; n < pr.batch; ++n) {
      const int64_t len = (*pr.lens)[static_cast<size_t>(n)];
      for (int64_t j = 0; j < H; ++j) {
        h[j] = pr.h0 ? pr.h0[StateAt(d, n, pr.batch) + j] : T(0);
        c[j] = pr.c0 ? pr.c0[StateAt(d, n, pr.batch) + j] : T(0);
      }
      if (pr.y) {
        for (int64_t t = len; t < pr.seq; ++t) {
          std::fill_n(pr.y + YAt(t, d, n, pr.seq, pr.batch), H, T(0));  // padding steps read 0
        }
      }
      for (int64_t s = 0; s < len; ++s) {
        const int64_t t = backward ? len - 1 - s : s;
        const T* xt = pr.x + XAt(t, n, pr.seq, pr.batch, pr.in);
        AddRows(wb, wt.data(), xt, pr.in, G, xg.data());  // W x + Wb
        AddRows(rb, rt.data(), h.data(), H, G, hg.data());  // R h + Rb
        Step(f, g, h_act, peep, rt.data(), rb, xg, hg, h, c, rh);
        if (pr.y) {
          T* yt = pr.y + YAt(t, d, n, pr.seq, pr.batch);
          for (int64_t j = 0; j < H; ++j) yt[j] = h[j];
        }
      }
      if (pr.yh) for (int64_t j = 0; j < H; ++j) pr.yh[StateAt(d, n, pr.batch) + j] = h[j];
      if (pr.yc) for (int64_t j = 0; j < H; ++j) pr.yc[StateAt(d, n, pr.batch) + j] = c[j];
    }
  }

  // out[k] = bias[k] (0 without one) + sum_i v[i] rows[i * G + k].
  template <typename T>
  static void AddRows(const T* bias, const T* rows, const T* v, int64_t n, int64_t G, T* out) {
    for (int64_t k = 0; k < G; ++k) out[k] = bias ? bias[k] : T(0);
    for (int64_t i = 0; i < n; ++i) {
      const T vi = v[i];
      const T* row = rows + i * G;
      for (int64_t k = 0; k < G; ++k) out[k] += row[k] * vi;
    }
  }

  // One time step of one batch entry: xg/hg hold W x + Wb and R h + Rb; rt
  // is R transposed ([H, G]).
  template <typename T>
  void Step(Act f, Act g, Act h_act, const T* peep, const T* rt, const T* rb, const std::vector<T>& xg,
            const std::vector<T>& hg, std::vector<T>& h, std::vector<T>& c, std::vector<T>& rh) const {
    const int64_t H = hidden_;
    if constexpr (kCell == Cell::kRnn) {
      for (int64_t j = 0; j < H; ++j) h[j] = Apply(f, xg[j] + hg[j]);
    } else if constexpr (kCell == Cell::kLstm) {
      for (int64_t j = 0; j < H; ++j) {  // gate blocks i, o, f, c; peepholes i, o, f
        const T pi = peep ? peep[j] * c[j] : T(0);
        const T pf = peep ? peep[2 * H + j] * c[j] : T(0);
        const T i = Apply(f, xg[j] + hg[j] + pi);
        const T fg = Apply(f, xg[2 * H + j] + hg[2 * H + j] + pf);
        const T cand = Apply(g, xg[3 * H + j] + hg[3 * H + j]);
        c[j] = fg * c[j] + i * cand;
        const T po = peep ? peep[H + j] * c[j] : T(0);
        const T o = Apply(f, xg[H + j] + hg[H + j] + po);
        h[j] = o * Apply(h_act, c[j]);
      }
    } else {  // GRU: blocks z, r, h
      for (int64_t j = 0; j < H; ++j) rh[j] = Apply(f, xg[H + j] + hg[H + j]) * h[j];  // r * h_prev
      // c is scratch: first (r * h_prev) R_h^T + Rb_h (R_h's rows are columns
      // 2H.. of rt), then, entry by entry after reading it, the new h.
      if (!linear_before_reset_) {
        for (int64_t j = 0; j < H; ++j) c[j] = rb ? rb[2 * H + j] : T(0);
        const int64_t G = 3 * H;
        for (int64_t i = 0; i < H; ++i) {
          const T* row = rt + i * G + 2 * H;
          for (int64_t j = 0; j < H; ++j) c[j] += row[j] * rh[i];
        }
      }
      for (int64_t j = 0; j < H; ++j) {
        const T z = Apply(f, xg[j] + hg[j]);
        const T reset = Apply(f, xg[H + j] + hg[H + j]);
        const T rec = linear_before_reset_ ? reset * hg[2 * H + j] : c[j];
        const T cand = Apply(g, xg[2 * H + j] + rec);
        c[j] = (1 - z) * cand + z * h[j];
      }
      for (int64_t j = 0; j < H; ++j) h[j] = c[j];
    }
  }

  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(Name(kCell), ": ", what));
  }
  absl::Status Unsupported(const std::string& what) const {
    return absl::UnimplementedError(absl::StrCat(Name(kCell), ": ", what, " is not supported"));
  }

  int64_t hidden_ = 0;
  int64_t dirs_ = 1;
  bool reverse_ = false;
  int64_t layout_ = 0;
  bool linear_before_reset_ = false;
  std::vector<Act> acts_;
};

}  // namespace

extern const KernelRegistration kRecurrentKernels[] = {
    {"LSTM", MakeKernel<RecurrentKernel<Cell::kLstm>>, HalfMode::kViaFloat32},
    {"GRU", MakeKernel<RecurrentKernel<Cell::kGru>>, HalfMode::kViaFloat32},
    {"RNN", MakeKernel<RecurrentKernel<Cell::kRnn>>, HalfMode::kViaFloat32},
};
extern const size_t kNumRecurrentKernels = sizeof(kRecurrentKernels) / sizeof(kRecurrentKernels[0]);

}  // namespace pt2onnx::runtime
