// File: passes/fusion_match.h
// -----------------------------------------------------------------------------
// Pattern matching for the fusion passes (layer_norm_fusion, rms_norm_fusion,
// gelu_fusion): a FusionMatch walks producers back from a candidate node,
// records every node it takes, and at the end checks that the pattern's
// intermediate values are read by nothing outside it, so removing the
// pattern loses no value anyone else needs.
#ifndef PT2ONNX_PASSES_FUSION_MATCH_H_
#define PT2ONNX_PASSES_FUSION_MATCH_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "core/ir/graph.h"
#include "core/ir/rewrite.h"
#include "passes/pass_util.h"

namespace pt2onnx::passes {

class FusionMatch {
 public:
  FusionMatch(ir::GraphEditor& editor, const ValueIndex& index) : editor_(&editor), index_(&index) {}

  // The live ai.onnx `op_type` node (one output, some input) producing
  // `value`, taken into the pattern; null otherwise.
  const ir::Node* Take(const std::string& value, const char* op_type);
  // Takes node `i` itself (the pattern's root or a node found forward).
  void TakeIndex(size_t i) { nodes_.insert(i); }
  // The sole reader of `value` if it is a live ai.onnx `op_type` node and
  // `value` has no other use; its index in `index_out`.
  const ir::Node* SoleReader(const std::string& value, const char* op_type, size_t* index_out) const;
  // The leaves of the Mul tree computing `value`: Mul nodes whose result is
  // read only by the tree are opened (and taken); anything else is a leaf.
  std::vector<std::string> MulLeaves(const std::string& value);

  // The rank of `value`: declared, else that of a Reshape to a constant
  // shape or of a broadcasting Add/Sub/Mul/Div/Pow (a few producers deep).
  std::optional<size_t> Rank(const std::string& value, int depth = 0) const;
  // The value of `value` if it is a one-element float32 constant of rank at
  // most `max_rank` (so that it broadcasts without growing the other operand).
  std::optional<double> Scalar(const std::string& value, size_t max_rank) const;
  // True if Scalar(value) is `expected` to within float32 rounding.
  bool ScalarIs(const std::string& value, double expected, size_t max_rank) const;
  // The other input of a two-input node, given one of them ("" if neither).
  static std::string Other(const ir::Node& node, const std::string& one);

  // True if every output of a taken node other than `result` is read only
  // by taken nodes (never by a graph output or a subgraph).
  bool Contained(const std::string& result) const;
  // Removes the taken nodes and puts `fused` (which produces `result`) at
  // node `root`, with the root's metadata and, where missing, that of
  // `origin` (the pattern's first node).
  void Replace(size_t root, ir::Node fused, const ir::Node& origin);
  // The same with several nodes in order, the last producing `result`; all
  // get the root's metadata (the last also its name).
  void Replace(size_t root, std::vector<ir::Node> fused, const ir::Node& origin);

  const ValueIndex& index() const { return *index_; }
  ir::GraphEditor& editor() { return *editor_; }

 private:
  // Pointers, not references: a tentative match is a copy, kept on success.
  ir::GraphEditor* editor_;
  const ValueIndex* index_;
  absl::flat_hash_set<size_t> nodes_;
};

// The normalized axes a ReduceMean reduces with keepdims=1 (from its axes
// input or attribute), when they are the trailing dims of an input of known
// rank: the first of them; nullopt otherwise.
std::optional<int64_t> TrailingReduceAxis(const ir::Node& reduce_mean, const FusionMatch& match);

// Mean-square normalization core shared by the norm fusions:
//   numerator / Sqrt(ReduceMean(numerator^2) + eps)
// or numerator * Reciprocal(Sqrt(...)), where numerator^2 is Pow(n, 2) or
// Mul(n, n), over trailing axes. Matches backward from the Div/Mul node
// `norm_index` (one output), which it takes.
// eps is a float32 constant, so (ONNX's Add and Mul taking one type) the
// whole pattern computes in float32, even where value_info is missing.
struct NormCore {
  std::string numerator;
  int64_t axis = 0;  // first normalized axis
  double epsilon = 0;
  const ir::Node* square = nullptr;  // the pattern's first node
};
std::optional<NormCore> MatchNormCore(FusionMatch& match, size_t norm_index);

// The static dims of `value` when it can be a normalization's scale or bias
// for `x` normalized from `axis`: float32 with exactly x's trailing dims.
bool IsNormParameter(const FusionMatch& match, const std::string& value, const std::string& x, int64_t axis);

// Takes the sole reader of `*result` when it is `op_type` (Mul for a scale,
// Add for a bias) and its other operand is a norm parameter (above): the
// parameter is returned, `*result` and `*root` move to that reader. Empty
// (nothing taken) otherwise.
std::string AbsorbNormParameter(FusionMatch& match, const char* op_type, const std::string& x,
                                int64_t axis, std::string* result, size_t* root);

// True if x's dims from `axis` are static and hold one element in all:
// ONNX Runtime refuses LayerNormalization and RMSNormalization there ("Size
// of X.shape[axis:] must be larger than 1"), so such a norm stays decomposed.
bool NormalizesOneElement(const FusionMatch& match, const std::string& x, int64_t axis);

// Adds a float32 initializer of ones shaped like x's dims from `axis` (the
// scale of a norm written without one) and returns its name; "" (nothing
// added) if those dims are not static, or over `kMaxOnesElements`.
inline constexpr int64_t kMaxOnesElements = int64_t{1} << 20;
std::string AddOnesScale(FusionMatch& match, const std::string& x, int64_t axis);

// The loop every fusion pass runs: from opset `min_opset` on, `fuse_at` is
// called for each live node of the main graph in order (it records its
// rewrites in the editor), then the edits are committed. True if anything
// changed.
absl::StatusOr<bool> RunFusion(
    ir::Model& model, int64_t min_opset,
    absl::FunctionRef<void(ir::GraphEditor& editor, const ValueIndex& index, size_t i)> fuse_at);

}  // namespace pt2onnx::passes

#endif  // PT2ONNX_PASSES_FUSION_MATCH_H_
