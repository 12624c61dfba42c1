// Export folders (export/model_folder.h): transformers' I/O names from the
// manifest's pytree specs (core/pt2/treespec.h), the manifest checks, and
// weights shared by two models written once (core/onnx/shared_external_data.h).
#include "export/model_folder.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/io/byte_sink.h"
#include "core/ir/graph.h"
#include "core/onnx/model_writer.h"
#include "core/pt2/treespec.h"
#include "gtest/gtest.h"
#include "onnx/onnx-ml.pb.h"

namespace pt2onnx {
namespace {

// A leaf, and a node of `type` over `children` with `context` (JSON text).
std::string Leaf() { return R"({"type": null, "context": null, "children_spec": []})"; }
std::string Node(const std::string& type, const std::string& context, const std::vector<std::string>& children) {
  std::string list;
  for (const std::string& c : children) list += (list.empty() ? "" : ", ") + c;
  std::string quoted;
  for (char ch : context) {
    if (ch == '"' || ch == '\\') quoted += '\\';
    quoted += ch;
  }
  return absl::StrCat(R"({"type": ")", type, R"(", "context": ")", quoted, R"(", "children_spec": [)", list, "]}");
}

// A DynamicCache of `layers` layers, as transformers serializes it.
std::string Cache(int layers) {
  std::string state;
  std::vector<std::string> leaves;
  for (int i = 0; i < layers; ++i) {
    state += absl::StrCat(i ? ", " : "", R"({"_t": "obj", "p": "L", "s": {"keys": {"_t": "tensor", "i": )", 2 * i,
                          R"(}, "values": {"_t": "tensor", "i": )", 2 * i + 1, R"(}, "is_initialized": true}})");
    leaves.push_back(Leaf());
    leaves.push_back(Leaf());
  }
  return Node("transformers.cache_utils:DynamicCache",
              absl::StrCat(R"({"_t": "obj", "p": "C", "s": {"layers": [)", state, "]}}"), leaves);
}

std::string InSpec(int layers) {
  return absl::StrCat("[1, ", Node("builtins.tuple", "null", {Node("builtins.tuple", "null", {}),
      Node("builtins.dict", R"(["input_ids", "position_ids", "past_key_values"])", {Leaf(), Leaf(), Cache(layers)})}),
      "]");
}

std::string OutSpec(int layers) {
  return absl::StrCat("[1, ", Node("transformers.modeling_outputs.CausalLMOutputWithPast",
                                   R"(["logits", "past_key_values"])", {Leaf(), Cache(layers)}), "]");
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string Manifest(const std::string& format, int version) {
  auto component = [](const char* file, int in_layers) {
    return absl::StrCat(R"({"file": ")", file, R"(", "metadata": {"in_spec": )", Quote(InSpec(in_layers)),
                        R"(, "out_spec": )", Quote(OutSpec(2)), R"(, "export_config": {"export_format": "dynamo"}}})");
  };
  return absl::StrCat(R"({"schema_version": )", version, R"(, "export_format": ")", format,
                      R"(", "components": {"prefill": )", component("prefill.pt2", 0),
                      R"(, "decode": )", component("decode.pt2", 2), "}}");
}

TEST(TreeSpec, LeafPathsFollowDictKeysAndCacheState) {
  absl::StatusOr<std::vector<pt2::LeafPath>> leaves = pt2::TreeSpecLeafPaths(OutSpec(1));
  ASSERT_TRUE(leaves.ok()) << leaves.status();
  ASSERT_EQ(leaves->size(), 3u);
  EXPECT_EQ((*leaves)[0], pt2::LeafPath({"logits"}));
  // A cache's child is keyed by the dotted attribute path of its reference.
  EXPECT_EQ((*leaves)[1], pt2::LeafPath({"past_key_values", "layers.0.keys"}));
  EXPECT_EQ((*leaves)[2], pt2::LeafPath({"past_key_values", "layers.0.values"}));
}

TEST(TreeSpec, RefusesWhatIsNotASpec) {
  EXPECT_FALSE(pt2::TreeSpecLeafPaths("{").ok());
  EXPECT_FALSE(pt2::TreeSpecLeafPaths("[2, {}]").ok());
  EXPECT_FALSE(pt2::TreeSpecLeafPaths(R"([1, {"type": "builtins.tuple", "context": "null"}])").ok());
}

TEST(FolderManifest, NamesAsTransformersDoes) {
  absl::StatusOr<FolderManifest> manifest = ParseFolderManifest(Manifest("dynamo", 1));
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  ASSERT_EQ(manifest->components.size(), 2u);
  const FolderComponent& prefill = manifest->components[0];
  const FolderComponent& decode = manifest->components[1];
  EXPECT_EQ(prefill.name, "prefill");
  EXPECT_EQ(prefill.input_names, std::vector<std::string>({"input_ids", "position_ids"}));
  EXPECT_EQ(prefill.output_names[1], "past_key_values.layers.0.keys");
  EXPECT_EQ(decode.input_names[2], "input.past_key_values.layers.0.keys");
  EXPECT_EQ(decode.input_names[5], "input.past_key_values.layers.1.values");
  EXPECT_EQ(decode.output_names[0], "logits");
  EXPECT_EQ(decode.output_names[4], "output.past_key_values.layers.1.values");
}

TEST(FolderManifest, RefusesOtherFormatsVersionsAndPaths) {
  absl::StatusOr<FolderManifest> onnx = ParseFolderManifest(Manifest("onnx", 1));
  EXPECT_TRUE(!onnx.ok() && absl::StrContains(onnx.status().message(), "export_format is 'onnx'"));
  absl::StatusOr<FolderManifest> newer = ParseFolderManifest(Manifest("dynamo", 2));
  EXPECT_TRUE(!newer.ok() && absl::StrContains(newer.status().message(), "schema_version 2"));
  std::string outside = Manifest("dynamo", 1);
  outside.replace(outside.find("decode.pt2"), 10, "../x.pt2");
  absl::StatusOr<FolderManifest> escaped = ParseFolderManifest(outside);
  EXPECT_TRUE(!escaped.ok() && absl::StrContains(escaped.status().message(), "file of the folder"));
  EXPECT_FALSE(ParseFolderManifest("not json").ok());
  std::string twice = Manifest("dynamo", 1);
  twice.replace(twice.find("\"decode\""), 8, "\"prefill\"");
  absl::StatusOr<FolderManifest> duplicate = ParseFolderManifest(twice);
  EXPECT_TRUE(!duplicate.ok() && absl::StrContains(duplicate.status().message(), "twice"));
}

ir::Model ModelWith(const std::vector<std::pair<std::string, std::string>>& weights) {
  ir::Model model;
  model.opset_imports.push_back({"", 20});
  for (const auto& [name, bytes] : weights) {
    model.graph.initializers.push_back(
        {name, ir::Tensor::Owned(DataType::kUint8, {static_cast<int64_t>(bytes.size())}, bytes), {}});
  }
  return model;
}

std::map<std::string, std::string> Locations(const std::string& model_bytes) {
  ::onnx::ModelProto proto;
  EXPECT_TRUE(proto.ParseFromString(model_bytes));
  std::map<std::string, std::string> where;
  for (const auto& t : proto.graph().initializer()) {
    for (const auto& e : t.external_data()) {
      if (e.key() == "location") where[t.name()] = e.value();
    }
  }
  return where;
}

TEST(SharedExternalData, EqualBytesAreWrittenOnceWhateverTheName) {
  const std::string a(4096, 'a'), b(4096, 'b'), b_other(4096, 'c');
  onnx_writer::SharedExternalData shared;
  onnx_writer::WriteOptions options;
  options.external_data = onnx_writer::WriteOptions::ExternalData::kAlways;
  options.shared_data = &shared;
  StringSink first_model, first_data, second_model, second_data;
  options.external_data_location = "first.onnx.data";
  ASSERT_TRUE(onnx_writer::WriteModel(ModelWith({{"w", a}, {"v", b}}), options, first_model, &first_data).ok());
  options.external_data_location = "second.onnx.data";
  // "renamed" has w's bytes; "v" has the same name as before but other bytes.
  ASSERT_TRUE(
      onnx_writer::WriteModel(ModelWith({{"renamed", a}, {"v", b_other}}), options, second_model, &second_data).ok());
  EXPECT_GE(first_data.data().size(), 8192u);
  EXPECT_EQ(second_data.data().size(), 4096u);  // only the new "v"
  EXPECT_EQ(shared.reused_bytes(), 4096u);
  std::map<std::string, std::string> where = Locations(second_model.data());
  EXPECT_EQ(where["renamed"], "first.onnx.data");
  EXPECT_EQ(where["v"], "second.onnx.data");
}

}  // namespace
}  // namespace pt2onnx
