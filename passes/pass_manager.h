// File: passes/pass_manager.h
// -----------------------------------------------------------------------------
// Runs passes in stages: each stage repeats its passes until none changes the
// graph (passes that feed each other: folding exposes dead code, CSE exposes
// folding) or its round limit is reached. Records per-pass statistics and,
// when asked, checks the IR invariants after every pass. Core code makes no
// clock calls, so timing comes from a callback the front end supplies.
#ifndef PT2ONNX_PASSES_PASS_MANAGER_H_
#define PT2ONNX_PASSES_PASS_MANAGER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/ir/graph.h"
#include "passes/pass.h"

namespace pt2onnx::passes {

#ifdef NDEBUG
inline constexpr bool kVerifyByDefault = false;
#else
inline constexpr bool kVerifyByDefault = true;  // tests and debug builds
#endif

// Limits of constant folding, as onnxscript's FoldConstantsPass has them: a
// node reading a constant larger than `max_input_elements` or producing one
// larger than `max_output_elements` stays, except a layout change (Transpose,
// Cast, Reshape...) of a constant it alone reads: that becomes new bytes once.
struct FoldingLimits {
  int64_t max_input_elements = 8192;
  int64_t max_output_elements = 262144;
};

struct PipelineOptions {
  bool verify = kVerifyByDefault;
  // Seconds on some monotonic clock; null: passes are not timed.
  std::function<double()> clock;
  FoldingLimits folding;
  // Non-empty: run only these passes, in this order, as one stage to a
  // fixed point (--passes=a,b,c). Names as PassNames() lists them.
  std::vector<std::string> only;
};

struct PassStats {
  std::string name;
  int64_t runs = 0;
  int64_t changed_runs = 0;
  int64_t nodes_removed = 0;  // nodes (subgraphs included) gone after the pass
  int64_t nodes_added = 0;    // nodes that were not there before it
  // Bytes of main-graph initializers gone after the pass, and new ones (by
  // name and size: a folded weight replaced by another of the same name and
  // size counts in neither).
  uint64_t initializer_bytes_removed = 0;
  uint64_t initializer_bytes_added = 0;
  double seconds = 0;         // 0 without a clock
};

struct Stage {
  std::vector<std::unique_ptr<Pass>> passes;
  int max_rounds = 1;
};
using Pipeline = std::vector<Stage>;

// Every pass name, in default pipeline order.
std::vector<std::string> PassNames();
// The pass called `name` (InvalidArgument naming the known ones if none).
absl::StatusOr<std::unique_ptr<Pass>> CreatePass(const std::string& name, const PipelineOptions& options);
// The default pipeline (pipeline.cc), or options.only as one stage.
absl::StatusOr<Pipeline> BuildPipeline(const PipelineOptions& options);

// Runs `pipeline` on `model`. Errors name the failing pass and the passes run
// before it. `stats` (optional) gets one entry per pass, in first-run order.
absl::Status RunPipeline(const Pipeline& pipeline, ir::Model& model, const PipelineOptions& options,
                         std::vector<PassStats>* stats = nullptr);

// Compatibility: runs `passes` as one stage to a fixed point.
absl::Status RunPipeline(const std::vector<std::unique_ptr<Pass>>& passes, ir::Model& model, bool verify,
                         int max_iterations = 4);

// One line per pass: name, runs, nodes removed/added, milliseconds.
std::string FormatPassStats(const std::vector<PassStats>& stats);

}  // namespace pt2onnx::passes

#endif  // PT2ONNX_PASSES_PASS_MANAGER_H_
