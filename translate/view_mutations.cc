// File: translate/view_mutations.cc
// -----------------------------------------------------------------------------
// Write-back of in-place ops on slice/select views (see view_mutations.h).
//
// Names: `current` maps an FX value to the name that holds its latest
// contents; every node's inputs (and the program's outputs) are read through
// it. A write-back gives the base a fresh name (`<base>_written`, made
// unique) holding the scattered result. Staleness is judged on the original
// program: `last_read` is the index of the last node reading a value (graph
// outputs read at the end).
#include "translate/view_mutations.h"

#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/status_macros.h"
#include "translate/registry.h"

namespace pt2onnx::translate {
namespace {

using pt2::Argument;
using Kind = pt2::Argument::Kind;

constexpr size_t kAtEnd = std::numeric_limits<size_t>::max();
constexpr absl::string_view kAdvice =
    "; re-export with ep = ep.run_decompositions(), which makes the program functional";

enum class ViewKind { kSlice, kSelect, kOther };

// Ops whose result shares storage with `self` (in-place ops through them write
// into `self`). reshape and flatten are views for contiguous inputs.
bool IsOtherView(absl::string_view key) {
  static const auto* kViews = new absl::flat_hash_set<std::string>{
      "aten::view.default",      "aten::reshape.default",    "aten::_unsafe_view.default",
      "aten::transpose.int",     "aten::permute.default",    "aten::unsqueeze.default",
      "aten::squeeze.default",   "aten::squeeze.dim",        "aten::squeeze.dims",
      "aten::expand.default",    "aten::t.default",          "aten::narrow.default",
      "aten::diagonal.default",  "aten::as_strided.default", "aten::alias.default",
      "aten::detach.default",    "aten::unflatten.int",      "aten::flatten.using_ints",
      "aten::movedim.int",       "aten::swapaxes.default",   "aten::unfold.default",
      "aten::mT.default",        "aten::numpy_T.default",    "aten::view_as.default",
  };
  return kViews->contains(key);
}

// Ops returning a list of views of `self`.
bool IsListView(absl::string_view key) {
  return key == "aten::split.Tensor" || key == "aten::split_with_sizes.default" ||
         key == "aten::chunk.default" || key == "aten::unbind.int" ||
         key == "aten::tensor_split.sections" || key == "aten::tensor_split.indices";
}

// "aten::add_.Tensor" is in-place; "aten::__and__.Tensor" is not.
bool IsInPlaceKey(absl::string_view key) {
  size_t colons = key.find("::");
  if (colons == absl::string_view::npos) return false;
  absl::string_view name = key.substr(colons + 2);
  name = name.substr(0, name.find('.'));
  return !name.empty() && name.back() == '_' && !absl::StartsWith(name, "__");
}


std::string TensorInput(const pt2::Node& node, absl::string_view arg) {
  for (const pt2::NamedArgument& a : node.inputs) {
    if (a.name == arg && a.arg.kind == Kind::kTensor) return a.arg.name;
  }
  return "";
}

std::string FirstTensorOutput(const pt2::Node& node) {
  if (node.outputs.empty() || node.outputs[0].kind != Kind::kTensor) return "";
  return node.outputs[0].name;
}

struct View {
  ViewKind kind = ViewKind::kOther;
  std::string base;       // the base's original FX name
  std::string base_seen;  // the name the view read the base under
  size_t node = 0;
};

class Rewriter {
 public:
  explicit Rewriter(const pt2::ExportedProgram& program) : in_(program), out_(program) {
    for (size_t i = 0; i < program.graph.nodes.size(); ++i) {
      pt2::Node node = program.graph.nodes[i];
      for (pt2::NamedArgument& a : node.inputs) {
        pt2::ForEachValueName(a.arg, [&](std::string& n) { last_read_[n] = i; });
      }
      for (Argument out : node.outputs) {
        pt2::ForEachValueName(out, [&](std::string& n) { taken_.insert(n); });
      }
    }
    for (Argument out : program.graph.outputs) {
      pt2::ForEachValueName(out, [&](std::string& n) { last_read_[n] = kAtEnd; });
    }
    for (const auto& [name, meta] : program.graph.tensor_values) taken_.insert(name);
  }

  absl::StatusOr<pt2::ExportedProgram> Run() {
    std::vector<pt2::Node> nodes;
    const std::vector<pt2::Node>& original = in_.graph.nodes;
    for (size_t i = 0; i < original.size(); ++i) {
      pt2::Node node = original[i];
      for (pt2::NamedArgument& a : node.inputs) pt2::ForEachValueName(a.arg, resolve_);
      std::string key = TargetToKey(node.target);
      std::string self = TensorInput(original[i], "self");
      std::string result = FirstTensorOutput(original[i]);
      nodes.push_back(std::move(node));
      if (!self.empty() && !result.empty()) RecordView(key, self, result, i);
      if (!self.empty() && IsListView(key) && !original[i].outputs.empty()) {
        for (const std::string& element : original[i].outputs[0].names) {
          views_[element] = View{ViewKind::kOther, self, Resolve(self), i};
          views_of_[self].push_back(element);
        }
      }
      if (!IsInPlaceKey(key) || self.empty()) continue;
      PT2ONNX_RETURN_IF_ERROR(NoStaleViews(self, "", i));
      PT2ONNX_RETURN_IF_ERROR(WriteBack(self, result.empty() ? self : result, i, nodes));
    }
    out_.graph.nodes = std::move(nodes);
    for (Argument& out : out_.graph.outputs) pt2::ForEachValueName(out, resolve_);
    for (pt2::OutputSpec& spec : out_.signature.output_specs) {
      pt2::ForEachValueName(spec.arg, resolve_);
    }
    return std::move(out_);
  }

 private:
  bool ReadAfter(const std::string& name, size_t i) const {
    auto it = last_read_.find(name);
    return it != last_read_.end() && it->second > i;
  }

  std::string Resolve(const std::string& name) const {
    auto it = current_.find(name);
    return it == current_.end() ? name : it->second;
  }

  void RecordView(const std::string& key, const std::string& self, const std::string& result,
                  size_t i) {
    ViewKind kind;
    if (key == "aten::slice.Tensor") {
      kind = ViewKind::kSlice;
    } else if (key == "aten::select.int") {
      kind = ViewKind::kSelect;
    } else if (IsOtherView(key)) {
      kind = ViewKind::kOther;
    } else {
      return;
    }
    views_[result] = View{kind, self, Resolve(self), i};
    views_of_[self].push_back(result);
  }

  // After mutating `tensor` at node i, a view of it (other than `except`)
  // that is still read would hold the old contents.
  absl::Status NoStaleViews(const std::string& tensor, const std::string& except, size_t i) {
    auto it = views_of_.find(tensor);
    if (it == views_of_.end()) return absl::OkStatus();
    for (const std::string& view : it->second) {
      if (view == except) continue;
      if (ReadAfter(view, i)) {
        return absl::UnimplementedError(absl::StrCat(
            "node '", in_.graph.nodes[i].name, "' (", TargetToKey(in_.graph.nodes[i].target),
            ") writes into '", tensor, "' while its view '", view,
            "' is read later; such aliasing is not supported", kAdvice));
      }
      PT2ONNX_RETURN_IF_ERROR(NoStaleViews(view, "", i));
    }
    return absl::OkStatus();
  }

  std::string Fresh(const std::string& base) {
    std::string name = absl::StrCat(base, "_written");
    for (int k = 1; taken_.contains(name); ++k) name = absl::StrCat(base, "_written_", k);
    taken_.insert(name);
    return name;
  }

  // Writes the mutated view `view` (now held by `value`) back into its base,
  // up the chain of slice/select views.
  absl::Status WriteBack(std::string view, std::string value, size_t i,
                         std::vector<pt2::Node>& nodes) {
    const pt2::Node& mutation = in_.graph.nodes[i];
    while (views_.contains(view)) {
      const View v = views_.at(view);
      auto refuse = [&](absl::string_view why) {
        return absl::UnimplementedError(absl::StrCat(
            "node '", mutation.name, "' (", TargetToKey(mutation.target), ") writes into '",
            view, "', ", why, kAdvice));
      };
      if (v.kind == ViewKind::kOther) {
        // Harmless unless the base (or one of its bases) is read afterwards.
        for (std::string b = v.base;; b = views_.at(b).base) {
          if (ReadAfter(b, i)) {
            return refuse(absl::StrCat("a view of '", b, "', which is read later"));
          }
          if (!views_.contains(b)) break;
        }
        return absl::OkStatus();
      }
      if (Resolve(v.base) != v.base_seen) {
        return refuse(absl::StrCat("a view of '", v.base, "' taken before '", v.base,
                                   "' was last modified"));
      }
      PT2ONNX_RETURN_IF_ERROR(NoStaleViews(v.base, view, i));
      const pt2::Node& view_node = in_.graph.nodes[v.node];
      pt2::Node scatter;
      scatter.target = v.kind == ViewKind::kSlice ? "torch.ops.aten.slice_scatter.default"
                                                  : "torch.ops.aten.select_scatter.default";
      std::string written = Fresh(v.base);
      scatter.name = written;
      scatter.metadata = mutation.metadata;
      pt2::NamedArgument self;
      self.name = "self";
      self.arg.kind = Kind::kTensor;
      self.arg.name = Resolve(v.base);
      pt2::NamedArgument src = self;
      src.name = "src";
      src.arg.name = value;
      scatter.inputs = {self, src};
      for (pt2::NamedArgument a : view_node.inputs) {
        if (a.name == "self") continue;
        pt2::ForEachValueName(a.arg, resolve_);
        scatter.inputs.push_back(std::move(a));
      }
      Argument out;
      out.kind = Kind::kTensor;
      out.name = written;
      scatter.outputs.push_back(out);
      auto meta = in_.graph.tensor_values.find(v.base);
      if (meta != in_.graph.tensor_values.end()) out_.graph.tensor_values[written] = meta->second;
      nodes.push_back(std::move(scatter));
      current_[v.base] = written;
      view = v.base;
      value = written;
    }
    return absl::OkStatus();
  }

  const pt2::ExportedProgram& in_;
  pt2::ExportedProgram out_;
  absl::flat_hash_map<std::string, size_t> last_read_;
  absl::flat_hash_set<std::string> taken_;
  absl::flat_hash_map<std::string, std::string> current_;
  absl::flat_hash_map<std::string, View> views_;
  absl::flat_hash_map<std::string, std::vector<std::string>> views_of_;
  std::function<void(std::string&)> resolve_ = [this](std::string& n) { n = Resolve(n); };
};

}  // namespace

absl::StatusOr<std::optional<pt2::ExportedProgram>> WriteBackViewMutations(
    const pt2::ExportedProgram& program) {
  // Only programs with both in-place ops and views can need a write-back (or
  // have a view made stale by a mutation).
  bool has_view = false, has_in_place = false;
  for (const pt2::Node& node : program.graph.nodes) {
    std::string key = TargetToKey(node.target);
    has_view |= key == "aten::slice.Tensor" || key == "aten::select.int" || IsOtherView(key) ||
                IsListView(key);
    has_in_place |= IsInPlaceKey(key);
  }
  if (!has_view || !has_in_place) return std::optional<pt2::ExportedProgram>();
  PT2ONNX_ASSIGN_OR_RETURN(pt2::ExportedProgram rewritten, Rewriter(program).Run());
  return std::optional<pt2::ExportedProgram>(std::move(rewritten));
}

}  // namespace pt2onnx::translate
