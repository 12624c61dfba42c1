// The default pass order: the only place that decides it.
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
  Stage simplify;
  simplify.max_rounds = 4;
  // Translations alias values through Identity; removing them first lets
  // every later pattern see producer and consumer directly.
  simplify.passes.push_back(Make("identity_elimination", options));
  // Constant nodes as initializers: folding, dedup and CSE then deal with
  // one kind of constant only.
  simplify.passes.push_back(Make("lift_constants", options));
  // Static dims read through Shape become constants, which folding then
  // carries through Gather/Unsqueeze/Concat chains.
  simplify.passes.push_back(Make("shape_simplification", options));
  // Symbolic reshape targets the output's type already fixes: the Shape /
  // Concat chains computing them become dead.
  simplify.passes.push_back(Make("reshape_shape_materialization", options));
  // Evaluates what the two passes above made constant (weight transposes,
  // shape arithmetic).
  simplify.passes.push_back(Make("constant_folding", options));
  // Cleanups of layout ops, after folding so they see only the ones that
  // act on run-time values; each may expose another (Cast of a Cast...).
  simplify.passes.push_back(Make("cast_elimination", options));
  simplify.passes.push_back(Make("transpose_elimination", options));
  simplify.passes.push_back(Make("reshape_elimination", options));
  // Decomposed bmm (batch dims merged by Reshape around a 3-D MatMul) after
  // the reshape cleanups, on static shapes folding has settled.
  simplify.passes.push_back(Make("matmul_reshape_elimination", options));
  // Merges duplicates the translation made per use (Shape of the same
  // input, the same constant Reshape); the merged nodes may fold next round.
  simplify.passes.push_back(Make("common_subexpression_elimination", options));
  // Drops what the passes above left unread, so the next round's
  // single-consumer tests see the real consumers.
  simplify.passes.push_back(Make("dead_code_elimination", options));
  pipeline.push_back(std::move(simplify));

  // Stage 2, once: fusions on the simplified graph.
  Stage fuse;
  // Eval-mode BatchNorm statistics are constants only after folding.
  fuse.passes.push_back(Make("conv_batchnorm_folding", options));
  // After cleanups, so the MatMul's bias Add is its only consumer.
  fuse.passes.push_back(Make("matmul_add_to_gemm", options));
  // Norms and activations, on float32 casts already removed. Layer norm
  // first: its centred input would otherwise pass for an RMS norm's.
  fuse.passes.push_back(Make("layer_norm_fusion", options));
  fuse.passes.push_back(Make("rms_norm_fusion", options));
  fuse.passes.push_back(Make("gelu_fusion", options));
  // Attention last: it reads the declared shapes of q/k/v, which the norm
  // and activation fusions keep (their outputs keep their names).
  fuse.passes.push_back(Make("attention_fusion", options));
  // Independent of attention_fusion (it reads q and k, which keep their names).
  fuse.passes.push_back(Make("rotary_embedding_fusion", options));
  pipeline.push_back(std::move(fuse));

  // Stage 3, once: storage and bookkeeping of the final graph.
  Stage finish;
  // Tied weights and repeated constants: one initializer each.
  finish.passes.push_back(Make("initializer_deduplication", options));
  // Dedup makes nodes read the same initializer: they may now be equal.
  finish.passes.push_back(Make("common_subexpression_elimination", options));
  finish.passes.push_back(Make("dead_code_elimination", options));
  // Last: only the domains still used keep their opset import.
  finish.passes.push_back(Make("unused_opset_removal", options));
  pipeline.push_back(std::move(finish));
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
