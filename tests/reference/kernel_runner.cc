// File: tests/reference/kernel_runner.cc
// -----------------------------------------------------------------------------
#include "tests/reference/kernel_runner.h"

#include <cmath>
#include <utility>

#include "core/aten/op_schema.h"
#include "gtest/gtest.h"
#include "reference/registry.h"

namespace pt2onnx::reference {

Tensor F32(const Dims& dims, const std::vector<double>& v) { return *FromDoubles(DataType::kFloat, dims, v); }
Tensor I64(const Dims& dims, const std::vector<int64_t>& v) { return *FromInts(DataType::kInt64, dims, v); }

KernelRun RunKernel(const std::string& overload, std::vector<pt2::NamedArgument> args, ValueMap values,
                    int num_outputs) {
  static const RefRegistry* registry = new RefRegistry(CreateReferenceRegistry());
  pt2::Node node;
  const size_t sep = overload.find("::");
  node.target = "torch.ops." + overload.substr(0, sep) + "." + overload.substr(sep + 2);
  node.inputs = std::move(args);
  for (int i = 0; i < num_outputs; ++i) {
    pt2::Argument out;
    out.kind = pt2::Argument::Kind::kTensor;
    out.name = "out" + std::to_string(i);
    node.outputs.push_back(out);
  }
  pt2::Graph graph;
  RefCall call(node, aten::SchemaTable::Default().Find(overload), graph, values);
  KernelRun run;
  RefKernel kernel = registry->Find(overload);
  if (kernel == nullptr) {
    run.status = absl::NotFoundError(overload);
    return run;
  }
  run.status = kernel(call);
  run.results = call.results();
  return run;
}

void ExpectValues(const RefValue& v, const Dims& dims, const std::vector<double>& want, double rtol) {
  ASSERT_EQ(v.kind, RefValue::Kind::kTensor);
  EXPECT_EQ(v.tensor.dims(), dims);
  const std::vector<double> got = ToDoubles(v.tensor);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], rtol * std::fabs(want[i]) + 1e-6) << "at " << i;
}

}  // namespace pt2onnx::reference
