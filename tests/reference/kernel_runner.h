// File: tests/reference/kernel_runner.h
// -----------------------------------------------------------------------------
// Runs one reference kernel on a one-node program, for the kernel tests.
#ifndef PT2ONNX_TESTS_REFERENCE_KERNEL_RUNNER_H_
#define PT2ONNX_TESTS_REFERENCE_KERNEL_RUNNER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/pt2/schema.h"
#include "reference/ref_call.h"
#include "reference/ref_tensor.h"

namespace pt2onnx::reference {

Tensor F32(const Dims& dims, const std::vector<double>& v);
Tensor I64(const Dims& dims, const std::vector<int64_t>& v);

struct KernelRun {
  absl::Status status;
  std::vector<RefValue> results;
};

// Runs `overload` ("aten::col2im.default") on `args`, tensors bound in
// `values`; its outputs are named out0, out1, ...
KernelRun RunKernel(const std::string& overload, std::vector<pt2::NamedArgument> args, ValueMap values,
                    int num_outputs = 1);

// `v` is a tensor of `dims` holding `want` within rtol * |want| + 1e-6.
void ExpectValues(const RefValue& v, const Dims& dims, const std::vector<double>& want, double rtol = 2e-6);

}  // namespace pt2onnx::reference

#endif  // PT2ONNX_TESTS_REFERENCE_KERNEL_RUNNER_H_
