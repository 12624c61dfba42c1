// Reference kernels: padding (constant_pad_nd, pad with constant / reflect /
// replicate / circular modes, reflection_pad*d, replication_pad*d). Pads come
// in (before, after) pairs from the last dim backwards; negative pads crop.
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "reference/registry.h"
#include "reference/index_support.h"
#include "reference/kernel_support.h"
#include "core/status_macros.h"

namespace pt2onnx::reference {
namespace {

enum class PadMode { kConstant, kReflect, kReplicate, kCircular };

// Source index along a padded dim, or -1 for the constant fill.
int64_t SourceIndex(int64_t out, int64_t before, int64_t size, PadMode mode) {
  int64_t s = out - before;
  switch (mode) {
    case PadMode::kConstant:
      return s >= 0 && s < size ? s : -1;
    case PadMode::kReflect:
      if (s < 0) s = -s;
      if (s >= size) s = 2 * (size - 1) - s;
      return s;
    case PadMode::kReplicate:
      return s < 0 ? 0 : s >= size ? size - 1 : s;
    case PadMode::kCircular:
      return ((s % size) + size) % size;
  }
  return -1;
}

absl::StatusOr<Tensor> PadTensor(const RefCall& call, const Tensor& self, const std::vector<int64_t>& pads,
                                 PadMode mode, const Tensor& fill) {
  if (pads.size() % 2 != 0) return call.Invalid("the pad list must have an even length");
  const int64_t padded = static_cast<int64_t>(pads.size() / 2);
  if (padded > self.rank()) return call.Invalid("the pad list is longer than twice the input's rank");
  std::vector<int64_t> before(self.rank(), 0), after(self.rank(), 0);
  Dims dims = self.dims();
  for (int64_t k = 0; k < padded; ++k) {
    const int64_t d = self.rank() - 1 - k;
    before[d] = pads[2 * k];
    after[d] = pads[2 * k + 1];
    const int64_t size = self.dims()[d];
    if (mode == PadMode::kReflect && (before[d] >= size || after[d] >= size)) {
      return call.Invalid(absl::StrCat("reflection padding must be smaller than the input size ", size, " of dim ", d));
    }
    if (mode == PadMode::kCircular && (before[d] > size || after[d] > size)) {
      return call.Invalid(absl::StrCat("circular padding may not exceed the input size ", size, " of dim ", d));
    }
    if (mode != PadMode::kConstant && size == 0) return call.Invalid("cannot pad an empty dim in this mode");
    dims[d] = size + before[d] + after[d];
    if (dims[d] < 0) return call.Invalid(absl::StrCat("padding makes dim ", d, " negative"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, NewTensor(self.dtype(), dims));
  const std::vector<int64_t> strides = RowMajorStrides(self.dims());
  for (int64_t i = 0; i < out.numel(); ++i) {
    std::vector<int64_t> c = Coords(i, dims);
    bool inside = true;
    for (int64_t d = 0; d < self.rank() && inside; ++d) {
      c[d] = SourceIndex(c[d], before[d], self.dims()[d], mode);
      inside = c[d] >= 0;
    }
    if (inside) {
      CopyElement(out, i, self, Offset(c, strides));
    } else {
      CopyElement(out, i, fill, 0);
    }
  }
  return out;
}

absl::StatusOr<Tensor> Fill(const Tensor& self, double value) { return ScalarTensor(self.dtype(), value); }

// aten::constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor
absl::Status ConstantPadNd(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> pads, call.Ints("pad"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor value, TensorOrScalar(call, "value"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor fill, CastTensor(value, self.dtype()));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, PadTensor(call, self, pads, PadMode::kConstant, fill));
  return call.SetTensor(std::move(out));
}

// aten::pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor
absl::Status Pad(RefCall& call) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> pads, call.Ints("pad"));
  PT2ONNX_ASSIGN_OR_RETURN(std::string mode_name, call.String("mode"));
  PT2ONNX_ASSIGN_OR_RETURN(std::optional<double> value, call.OptionalDouble("value"));
  PadMode mode;
  if (mode_name == "constant") {
    mode = PadMode::kConstant;
  } else if (mode_name == "reflect") {
    mode = PadMode::kReflect;
  } else if (mode_name == "replicate") {
    mode = PadMode::kReplicate;
  } else if (mode_name == "circular") {
    mode = PadMode::kCircular;
  } else {
    return call.Invalid(absl::StrCat("unknown padding mode '", mode_name, "'"));
  }
  if (mode != PadMode::kConstant && value.has_value() && *value != 0) {
    return call.Invalid(absl::StrCat("padding mode '", mode_name, "' takes no fill value"));
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor fill, Fill(self, value.value_or(0)));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, PadTensor(call, self, pads, mode, fill));
  return call.SetTensor(std::move(out));
}

absl::Status ModePad(RefCall& call, PadMode mode) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor self, call.Input("self"));
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<int64_t> pads, call.Ints("padding"));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor fill, Fill(self, 0));
  PT2ONNX_ASSIGN_OR_RETURN(Tensor out, PadTensor(call, self, pads, mode, fill));
  return call.SetTensor(std::move(out));
}
// aten::reflection_pad{1,2,3}d(Tensor self, SymInt[2|4|6] padding) -> Tensor
absl::Status ReflectionPad(RefCall& call) { return ModePad(call, PadMode::kReflect); }
// aten::replication_pad{1,2,3}d(Tensor self, SymInt[2|4|6] padding) -> Tensor
absl::Status ReplicationPad(RefCall& call) { return ModePad(call, PadMode::kReplicate); }

}  // namespace

void RegisterPaddingRef(RefRegistry& r) {
  r.Add("aten::constant_pad_nd.default", ConstantPadNd);
  r.Add("aten::pad.default", Pad);
  r.Add("aten::reflection_pad1d.default", ReflectionPad);
  r.Add("aten::reflection_pad2d.default", ReflectionPad);
  r.Add("aten::reflection_pad3d.default", ReflectionPad);
  r.Add("aten::replication_pad1d.default", ReplicationPad);
  r.Add("aten::replication_pad2d.default", ReplicationPad);
  r.Add("aten::replication_pad3d.default", ReplicationPad);
}

}  // namespace pt2onnx::reference
