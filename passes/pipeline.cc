// The default pass order, and the loop that runs it.
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_util.h"
#include "passes/passes.h"

namespace pt2onnx::passes {

std::vector<std::unique_ptr<Pass>> DefaultPipeline() {
  std::vector<std::unique_ptr<Pass>> pipeline;
  // Identities first: translations alias values through them, and removing
  // them exposes nodes that nothing reads any more.
  pipeline.push_back(CreateIdentityEliminationPass());
  // Last: drops whatever the passes before left unused (constants, weights).
  pipeline.push_back(CreateDeadCodeEliminationPass());
  return pipeline;
}

absl::Status RunPipeline(const std::vector<std::unique_ptr<Pass>>& pipeline, ir::Model& model,
                         bool verify, int max_iterations) {
  std::vector<std::string> ran;
  for (int round = 0; round < max_iterations; ++round) {
    bool changed = false;
    for (const std::unique_ptr<Pass>& pass : pipeline) {
      absl::StatusOr<bool> result = pass->Run(model);
      absl::Status status = result.status();
      if (status.ok() && verify) status = ir::Verify(model.graph);
      if (!status.ok()) {
        return AnnotateStatus(status, absl::StrCat("pass '", pass->Name(), "' (after ",
                                                   ran.empty() ? "none" : absl::StrJoin(ran, ", "),
                                                   ")"));
      }
      ran.push_back(pass->Name());
      changed = changed || *result;
    }
    if (!changed) break;
  }
  return absl::OkStatus();
}

}  // namespace pt2onnx::passes
