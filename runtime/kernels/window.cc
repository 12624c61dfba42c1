#include "runtime/kernels/window.h"

#include "absl/strings/str_cat.h"
#include "runtime/kernels/kernel_util.h"
#include "core/status_macros.h"

namespace pt2onnx::runtime {

absl::StatusOr<WindowAttrs> ReadWindowAttrs(const ir::Node& node) {
  WindowAttrs a;
  a.kernel_shape = AttrInts(node, "kernel_shape");
  a.strides = AttrInts(node, "strides");
  a.dilations = AttrInts(node, "dilations");
  a.pads = AttrInts(node, "pads");
  a.auto_pad = AttrString(node, "auto_pad", "NOTSET");
  a.ceil_mode = AttrInt(node, "ceil_mode", 0) != 0;
  if (a.auto_pad != "NOTSET" && a.auto_pad != "VALID" && a.auto_pad != "SAME_UPPER" && a.auto_pad != "SAME_LOWER") {
    return absl::InvalidArgumentError("unknown auto_pad '" + a.auto_pad + "'");
  }
  return a;
}

absl::StatusOr<std::vector<WindowDim>> ResolveWindow(const WindowAttrs& attrs, const Dims& in,
                                                     const Dims& kernel, const char* op) {
  const size_t n = in.size();
  if (n < 1 || n > 3) return absl::UnimplementedError(absl::StrCat(op, ": ", n, "-d windows are not supported"));
  if (kernel.size() != n) return absl::InvalidArgumentError(absl::StrCat(op, ": kernel rank differs from input"));
  auto check_len = [&](const std::vector<int64_t>& v, size_t want, const char* name) -> absl::Status {
    if (!v.empty() && v.size() != want) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": ", name, " has ", v.size(), " values, expected ", want));
    }
    return absl::OkStatus();
  };
  for (auto [v, want, name] : {std::tuple{&attrs.strides, n, "strides"}, {&attrs.dilations, n, "dilations"},
                               {&attrs.pads, 2 * n, "pads"}}) {
    PT2ONNX_RETURN_IF_ERROR(check_len(*v, want, name));
  }
  std::vector<WindowDim> dims(n);
  for (size_t i = 0; i < n; ++i) {
    WindowDim& d = dims[i];
    d.in = in[i];
    d.kernel = kernel[i];
    d.stride = attrs.strides.empty() ? 1 : attrs.strides[i];
    d.dilation = attrs.dilations.empty() ? 1 : attrs.dilations[i];
    if (d.kernel < 1 || d.stride < 1 || d.dilation < 1 || d.kernel > (int64_t{1} << 31) ||
        d.stride > (int64_t{1} << 31) || d.dilation > (int64_t{1} << 31)) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": kernel, stride and dilation must be in [1, 2^31]"));
    }
    const int64_t span = d.dilation * (d.kernel - 1) + 1;
    if (attrs.auto_pad == "SAME_UPPER" || attrs.auto_pad == "SAME_LOWER") {
      d.out = (d.in + d.stride - 1) / d.stride;
      int64_t total = std::max<int64_t>(0, (d.out - 1) * d.stride + span - d.in);
      d.pad_begin = attrs.auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      d.pad_end = total - d.pad_begin;
      continue;
    }
    if (attrs.auto_pad == "NOTSET" && !attrs.pads.empty()) {
      d.pad_begin = attrs.pads[i];
      d.pad_end = attrs.pads[i + n];
      if (d.pad_begin < 0 || d.pad_end < 0 || d.pad_begin > (int64_t{1} << 31) || d.pad_end > (int64_t{1} << 31)) {
        return absl::InvalidArgumentError(absl::StrCat(op, ": pads must be in [0, 2^31]"));
      }
    }
    const int64_t room = d.in + d.pad_begin + d.pad_end - span;
    if (room < 0) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": the window (", span, ") is larger than the padded input (",
                                                     d.in + d.pad_begin + d.pad_end, ")"));
    }
    d.out = (attrs.ceil_mode ? (room + d.stride - 1) / d.stride : room / d.stride) + 1;
    // ceil_mode: the last window must start inside the input or its left padding.
    if (attrs.ceil_mode && (d.out - 1) * d.stride >= d.in + d.pad_begin) --d.out;
  }
  return dims;
}

}  // namespace pt2onnx::runtime
