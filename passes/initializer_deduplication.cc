// initializer_deduplication: initializers holding equal tensors become one.
//
// Rules: initializers with the same dtype, dims and bytes (tied weights
// stored twice, repeated folded constants) are merged into the first; its
// readers read the first. Slices of the same bytes of the input file (or the
// same transposed slices) compare equal without being read; others are read only when another initializer
// has the same dtype and dims and they are small (kMaxComparedElements, as
// onnxscript's size limit), then compared byte for byte after a hash. Big
// weights of the file are never read here: that would pull every weight of
// a model into memory (a browser tab, a multi-GB model), and tied weights
// are one slice of the file anyway.
// Non-rules: initializers that are also graph inputs (overridable at run
// time) or graph outputs stay distinct.
#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/pass_util.h"
#include "passes/pass_manager.h"

namespace pt2onnx::passes {
namespace {

constexpr int64_t kMaxComparedElements = 1024;

bool SameBytes(const ir::Tensor& a, const ir::Tensor& b) {
  const FileSlice* sa = a.file_slice();
  const FileSlice* sb = b.file_slice();
  if (sa != nullptr && sb != nullptr && sa->file == sb->file && sa->range.offset == sb->range.offset &&
      sa->range.length == sb->range.length) {
    return true;
  }
  const ir::TransposedSlice* ta = a.transposed_slice();
  const ir::TransposedSlice* tb = b.transposed_slice();
  if (ta != nullptr && tb != nullptr && ta->source.file == tb->source.file &&
      ta->source.range == tb->source.range && ta->perm == tb->perm && ta->source_dims == tb->source_dims) {
    return true;
  }
  // A big weight of the file is compared by its slice only (never read).
  const bool big = a.numel() > kMaxComparedElements || b.numel() > kMaxComparedElements;
  if (big && (sa != nullptr || sb != nullptr || ta != nullptr || tb != nullptr)) {
    return false;
  }
  ByteSpan ba = a.bytes(), bb = b.bytes();
  return ba.size() == a.byte_size() && ba.size() == bb.size() &&
         absl::string_view(reinterpret_cast<const char*>(ba.data()), ba.size()) ==
             absl::string_view(reinterpret_cast<const char*>(bb.data()), bb.size());
}

class InitializerDeduplicationPass : public Pass {
 public:
  std::string Name() const override { return "initializer_deduplication"; }

  absl::StatusOr<bool> Run(ir::Model& model) const override {
    ir::Graph& graph = model.graph;
    ValueIndex index(graph);
    // Candidates grouped by dtype and dims first: only groups of two or more are read.
    absl::flat_hash_map<std::string, std::vector<size_t>> groups;
    for (size_t i = 0; i < graph.initializers.size(); ++i) {
      const ir::Initializer& init = graph.initializers[i];
      if (index.Constant(init.name) == nullptr || graph.IsOutput(init.name)) continue;
      if (init.tensor.dtype() == DataType::kString) continue;
      groups[absl::StrCat(static_cast<int>(init.tensor.dtype()), ":", absl::StrJoin(init.tensor.dims(), ","))]
          .push_back(i);
    }
    ir::GraphEditor editor(graph);
    bool changed = false;
    for (const auto& [unused, members] : groups) {
      if (members.size() < 2) continue;
      absl::flat_hash_map<size_t, std::vector<size_t>> by_hash;  // hash -> kept initializers
      for (size_t i : members) {
        const ir::Tensor& t = graph.initializers[i].tensor;
        size_t hash = 0;
        if (t.file_slice() != nullptr && t.numel() > kMaxComparedElements) {
          hash = absl::HashOf(t.file_slice()->range.offset, t.file_slice()->range.length);
        } else if (t.transposed_slice() != nullptr && t.numel() > kMaxComparedElements) {
          const ir::TransposedSlice& transposed = *t.transposed_slice();
          hash = absl::HashOf(transposed.source.range.offset, transposed.source.range.length, transposed.perm);
        } else {
          ByteSpan bytes = t.bytes();
          hash = absl::HashOf(absl::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
        }
        std::vector<size_t>& kept = by_hash[hash];
        bool merged = false;
        for (size_t k : kept) {
          if (!SameBytes(graph.initializers[k].tensor, t)) continue;
          editor.ReplaceAllUses(graph.initializers[i].name, graph.initializers[k].name);
          merged = changed = true;
          break;
        }
        if (!merged) kept.push_back(i);
      }
    }
    if (!changed) return false;
    absl::Status status = editor.Commit();
    if (!status.ok()) return status;
    return true;  // the unread copies go in dead_code_elimination
  }
};

}  // namespace

std::unique_ptr<Pass> CreateInitializerDeduplicationPass(const PipelineOptions&) {
  return std::make_unique<InitializerDeduplicationPass>();
}

}  // namespace pt2onnx::passes
