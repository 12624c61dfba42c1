// File: translate/weight_initializers.cc
// -----------------------------------------------------------------------------
// See weight_initializers.h.
#include "translate/weight_initializers.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/ir/graph.h"
#include "core/status_macros.h"
#include "translate/metadata.h"
#include "translate/translator.h"

namespace pt2onnx::translate {
namespace {

constexpr char kPersistentKey[] = "pkg.torch.export.graph_signature.InputSpec.persistent";
constexpr char kOriginalNameKey[] = "pkg.torch.onnx.original_node_name";

// Counts bytes copied out of the file (re-laid-out views); refuses past
// the limit, so a small file cannot claim gigabytes of copies.
absl::Status ChargeMaterialized(const pt2::Weight& weight, uint64_t limit,
                                uint64_t& materialized_bytes) {
  std::optional<int64_t> product = std::max(ElementSize(weight.dtype), 1);
  for (int64_t size : weight.sizes) {
    if (product.has_value()) product = size < 0 ? std::nullopt : CheckedMul(*product, size);
  }
  int64_t bytes = product.value_or(-1);
  if (bytes < 0 || static_cast<uint64_t>(bytes) > limit - std::min(limit, materialized_bytes)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "re-laying out the stored tensor '", weight.name, "' needs ", bytes,
        " bytes, over the limit of ", limit, " bytes of copied weights (the input's size plus ",
        kMaterializeSlackBytes >> 20, " MiB)"));
  }
  materialized_bytes += static_cast<uint64_t>(bytes);
  return absl::OkStatus();
}

std::string ShapeConstant(GraphBuilder& builder, const std::vector<int64_t>& sizes,
                          const std::string& fqn) {
  std::string name = builder.AddNode(
      "Constant", {},
      {ir::Attribute::TensorValue(
          "value", ir::Tensor::Int64s({static_cast<int64_t>(sizes.size())}, sizes))},
      1, "")[0];
  builder.graph().nodes.back().name = absl::StrCat("node_", fqn, "_shape");
  return name;
}

}  // namespace

absl::Status AddWeightInitializer(const pt2::InputSpec& spec, const pt2::Weight& weight,
                                  uint64_t max_materialized_bytes, uint64_t& materialized_bytes,
                                  GraphBuilder& builder) {
  ir::Initializer init;
  init.name = spec.target;
  std::string value = init.name;  // what the FX placeholder reads
  if (std::optional<FileSlice> slice = weight.ContiguousSlice()) {
    init.tensor = ir::Tensor::FromFile(weight.dtype, weight.sizes, *std::move(slice));
  } else {
    // Strided or aliased views need their own row-major bytes. Broadcast
    // (stride-0) dims and all-zero records are stored once and expanded by
    // the model: the file chooses their sizes, so their bytes are not
    // multiplied out here.
    pt2::Weight stored = weight;
    bool broadcast = false;
    for (size_t d = 0; d < stored.sizes.size(); ++d) {
      const bool zero_stride = d < stored.strides.size() && stored.strides[d] == 0;
      if ((zero_stride || stored.storage.size() == 0) && stored.sizes[d] > 1) {
        stored.sizes[d] = 1;
        broadcast = true;
      }
    }
    PT2ONNX_RETURN_IF_ERROR(ChargeMaterialized(stored, max_materialized_bytes, materialized_bytes));
    PT2ONNX_ASSIGN_OR_RETURN(std::string copy, stored.Materialize());
    init.tensor = ir::Tensor::Owned(stored.dtype, stored.sizes, std::move(copy));
    if (broadcast) {
      value = builder.AddNode("Expand",
                              {init.name, ShapeConstant(builder, weight.sizes, spec.target)}, {},
                              1, "")[0];
      builder.graph().nodes.back().name = absl::StrCat("node_", spec.target, "_expand");
    }
  }
  init.metadata.emplace_back(kInputKindKey, pt2::InputKindName(spec.kind));
  if (spec.kind == pt2::InputSpec::Kind::kBuffer) {
    init.metadata.emplace_back(kPersistentKey, spec.persistent ? "True" : "False");
  }
  init.metadata.emplace_back(kOriginalNameKey, spec.arg.name);
  builder.Bind(spec.arg.name, value);
  builder.MarkExternal(init.name);
  builder.Take(init.name);
  builder.graph().initializers.push_back(std::move(init));
  return absl::OkStatus();
}

}  // namespace pt2onnx::translate
