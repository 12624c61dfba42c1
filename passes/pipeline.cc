// The default pass order: the only place that decides it.
#include <initializer_list>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/pass.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {

#define PT2ONNX_PASS(name, factory) std::unique_ptr<Pass> factory(const PipelineOptions& options);
#include "passes/pass_list.inc"
#undef PT2ONNX_PASS

namespace {

struct PassEntry {
  const char* name;
  std::unique_ptr<Pass> (*create)(const PipelineOptions& options);
};

// Every pass, in the order the default pipeline first runs it.
const std::vector<PassEntry>& Registry() {
  static const std::vector<PassEntry>* entries = new std::vector<PassEntry>{
#define PT2ONNX_PASS(name, factory) {name, &factory},
#include "passes/pass_list.inc"
#undef PT2ONNX_PASS
  };
  return *entries;
}

std::unique_ptr<Pass> Make(const char* name, const PipelineOptions& options) {
  for (const PassEntry& entry : Registry()) {
    if (absl::string_view(entry.name) == name) return entry.create(options);
  }
  return nullptr;  // unreachable: names below are the registry's
}

// A stage of the registry's passes `names`, in order, run up to `max_rounds`
// rounds (to a fixed point).
Stage MakeStage(const PipelineOptions& options, int max_rounds, std::initializer_list<const char*> names) {
  Stage stage;
  stage.max_rounds = max_rounds;
  for (const char* name : names) stage.passes.push_back(Make(name, options));
  return stage;
}

}  // namespace

std::vector<std::string> PassNames() {
  std::vector<std::string> names;
  for (const PassEntry& entry : Registry()) names.push_back(entry.name);
  return names;
}

absl::StatusOr<std::unique_ptr<Pass>> CreatePass(const std::string& name, const PipelineOptions& options) {
  for (const PassEntry& entry : Registry()) {
    if (entry.name == name) return entry.create(options);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown pass '", name, "' (known: ", absl::StrJoin(PassNames(), ", "), ")"));
}

absl::StatusOr<Pipeline> BuildPipeline(const PipelineOptions& options) {
  Pipeline pipeline;
  if (!options.only.empty()) {
    Stage stage;
    stage.max_rounds = 4;
    for (const std::string& name : options.only) {
      absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass(name, options);
      if (!pass.ok()) return pass.status();
      stage.passes.push_back(std::move(*pass));
    }
    pipeline.push_back(std::move(stage));
    return pipeline;
  }
  // Stage 1, to a fixed point: simplifications that feed each other.
  pipeline.push_back(MakeStage(options, 4, {
      // Translations alias values through Identity; removing them first lets
      // every later pattern see producer and consumer directly.
      "identity_elimination",
      // Constant nodes as initializers: folding, dedup and CSE then deal with
      // one kind of constant only.
      "lift_constants",
      // Static dims read through Shape become constants, which folding then
      // carries through Gather/Unsqueeze/Concat chains.
      "shape_simplification",
      // Symbolic reshape targets the output's type already fixes: the Shape /
      // Concat chains computing them become dead.
      "reshape_shape_materialization",
      // Evaluates what the two passes above made constant (weight transposes,
      // shape arithmetic).
      "constant_folding",
      // Cleanups of layout ops, after folding so they see only the ones that
      // act on run-time values; each may expose another (Cast of a Cast...).
      "cast_elimination",
      "transpose_elimination",
      "reshape_elimination",
      // Decomposed bmm (batch dims merged by Reshape around a 3-D MatMul) after
      // the reshape cleanups, on static shapes folding has settled.
      "matmul_reshape_elimination",
      // Merges duplicates the translation made per use (Shape of the same
      // input, the same constant Reshape); the merged nodes may fold next round.
      "common_subexpression_elimination",
      // Drops what the passes above left unread, so the next round's
      // single-consumer tests see the real consumers.
      "dead_code_elimination",
  }));

  // Stage 2, once: fusions on the simplified graph.
  pipeline.push_back(MakeStage(options, 1, {
      // Eval-mode BatchNorm statistics are constants only after folding.
      "conv_batchnorm_folding",
      // After cleanups, so the MatMul's bias Add is its only consumer.
      "matmul_add_to_gemm",
      // Norms and activations, on float32 casts already removed. Layer norm
      // first: its centred input would otherwise pass for an RMS norm's.
      "layer_norm_fusion",
      "rms_norm_fusion",
      "gelu_fusion",
      // Attention last: it reads the declared shapes of q/k/v, which the norm
      // and activation fusions keep (their outputs keep their names).
      "attention_fusion",
      // Independent of attention_fusion (it reads q and k, which keep their names).
      "rotary_embedding_fusion",
      // After attention_fusion, which takes the guards it fuses: the rest
      // are dropped or computed from their (smaller) mask.
      "softmax_guard_simplification",
  }));

  // Stage 3, once: storage and bookkeeping of the final graph.
  pipeline.push_back(MakeStage(options, 1, {
      // Tied weights and repeated constants: one initializer each.
      "initializer_deduplication",
      // Dedup makes nodes read the same initializer: they may now be equal.
      "common_subexpression_elimination",
      "dead_code_elimination",
      // Last: only the domains still used keep their opset import.
      "unused_opset_removal",
  }));
  return pipeline;
}

absl::Status RunPipeline(const std::vector<std::unique_ptr<Pass>>& passes, ir::Model& model, bool verify,
                         int max_iterations) {
  // Non-owning stage: the caller keeps the passes.
  class Borrowed : public Pass {
   public:
    explicit Borrowed(const Pass& pass) : pass_(pass) {}
    std::string Name() const override { return pass_.Name(); }
    absl::StatusOr<bool> Run(ir::Model& m) const override { return pass_.Run(m); }

   private:
    const Pass& pass_;
  };
  Pipeline pipeline(1);
  pipeline[0].max_rounds = max_iterations;
  for (const std::unique_ptr<Pass>& pass : passes) pipeline[0].passes.push_back(std::make_unique<Borrowed>(*pass));
  PipelineOptions options;
  options.verify = verify;
  return RunPipeline(pipeline, model, options);
}

}  // namespace pt2onnx::passes
