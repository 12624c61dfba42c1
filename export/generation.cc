#include "export/generation.h"

#include <cstring>
#include <map>
#include <memory>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/onnx/model_reader.h"
#include "core/status_macros.h"
#include "export/folder_manifest_json.h"
#include "passes/static_kv_cache.h"
#include "rapidjson/document.h"

namespace pt2onnx {
namespace {

absl::StatusOr<Tensor> Int64s(const Dims& dims, const std::function<int64_t(int64_t)>& value) {
  PT2ONNX_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(DataType::kInt64, dims, nullptr));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = value(i);
  return t;
}

// The cache path an input or output carries: its name without the
// "input." / "output." transformers adds to a value both taken and returned.
std::string CacheKey(absl::string_view name) {
  absl::ConsumePrefix(&name, "input.");
  absl::ConsumePrefix(&name, "output.");
  return std::string(name);
}

struct Step {
  const char* component;
  std::vector<int64_t> ids;
  int64_t position = 0;  // of ids[0]
};

// One run: the inputs built from `step` and `past` (and `extra`, by input
// name), the outputs back.
absl::StatusOr<std::vector<NamedTensor>> RunStep(runtime::Session& session, const Step& step,
                                                 const std::map<std::string, Tensor>& past, int64_t past_length,
                                                 int64_t sliding_window,
                                                 const std::map<std::string, Tensor>& extra = {}) {
  const int64_t n = static_cast<int64_t>(step.ids.size());
  std::vector<NamedTensor> inputs;
  for (const ir::ValueInfo& input : session.inputs()) {
    Tensor t;
    if (input.name == "input_ids" || input.name == "decoder_input_ids") {
      PT2ONNX_ASSIGN_OR_RETURN(t, Int64s({1, n}, [&](int64_t i) { return step.ids[i]; }));
    } else if (input.name == "position_ids") {
      PT2ONNX_ASSIGN_OR_RETURN(t, Int64s({1, n}, [&](int64_t i) { return step.position + i; }));
    } else if (input.name == "cache_position") {
      PT2ONNX_ASSIGN_OR_RETURN(t, Int64s({n}, [&](int64_t i) { return step.position + i; }));
    } else if (input.name == "attention_mask") {
      PT2ONNX_ASSIGN_OR_RETURN(t, Int64s({1, past_length + n}, [](int64_t) { return 1; }));
    } else if (auto named = extra.find(input.name); named != extra.end()) {
      t = named->second;
    } else if (auto it = past.find(CacheKey(input.name)); it != past.end()) {
      t = it->second;
    } else if (absl::EndsWith(input.name, "._sliding_window_tensor") && sliding_window > 0) {
      PT2ONNX_ASSIGN_OR_RETURN(t, Int64s({}, [&](int64_t) { return sliding_window; }));
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          step.component, " input '", input.name,
          "' is neither a token input (input_ids, decoder_input_ids, position_ids, cache_position, "
          "attention_mask), a cache the previous step returned, nor one of the inputs given (--inputs: e.g. an "
          "encoder-decoder model's encoder_outputs.last_hidden_state)"));
    }
    inputs.push_back({input.name, std::move(t)});
  }
  absl::StatusOr<std::vector<NamedTensor>> outputs = session.Run(inputs);
  if (!outputs.ok()) {
    return absl::Status(outputs.status().code(),
                        absl::StrCat(step.component, ": ", outputs.status().message()));
  }
  return outputs;
}

// The argmax of the last position's logits, and that row.
absl::StatusOr<std::pair<int64_t, Tensor>> NextToken(const std::vector<NamedTensor>& outputs,
                                                     const char* component) {
  const NamedTensor* logits = nullptr;
  for (const NamedTensor& out : outputs) {
    if (out.name == "logits") logits = &out;
  }
  if (logits == nullptr) return absl::InvalidArgumentError(absl::StrCat(component, " has no output 'logits'"));
  const Tensor& t = logits->tensor;
  if (t.dtype() != DataType::kFloat || t.rank() != 3 || t.dim(0) != 1 || t.dim(1) < 1 || t.dim(2) < 1) {
    return absl::InvalidArgumentError(absl::StrCat(component, "'s logits are ", DimsString(t.dims()),
                                                   "; expected float32 [1, tokens, vocab]"));
  }
  const int64_t vocab = t.dim(2);
  const float* row = t.data<float>() + (t.dim(1) - 1) * vocab;
  int64_t best = 0;
  for (int64_t v = 1; v < vocab; ++v) {
    if (row[v] > row[best]) best = v;  // first maximum, as torch.argmax
  }
  PT2ONNX_ASSIGN_OR_RETURN(Tensor last, Tensor::Allocate(DataType::kFloat, {vocab}, nullptr));
  std::copy(row, row + vocab, last.data<float>());
  return std::make_pair(best, std::move(last));
}

// Every output but the logits, by cache path: the next step's past.
std::map<std::string, Tensor> Present(const std::vector<NamedTensor>& outputs) {
  std::map<std::string, Tensor> present;
  for (const NamedTensor& out : outputs) {
    if (out.name != "logits") present[CacheKey(out.name)] = out.tensor;
  }
  return present;
}

// The static cache contract of a decode model (--kv-cache static,
// passes/static_kv_cache.h): per group, its past_length input and caches
// by cache path with their sequence axis. Empty for the default form.
struct StaticGroup {
  std::string past_length;
  std::vector<std::pair<std::string, int64_t>> caches;  // cache path, axis
  int64_t filled = 0;
};

absl::StatusOr<std::vector<StaticGroup>> StaticGroups(const ir::Model& decode) {
  std::vector<StaticGroup> groups;
  for (const auto& [key, value] : decode.metadata) {
    if (key != passes::kKvCacheMetadataKey) continue;
    rapidjson::Document doc;
    doc.Parse(value.data(), value.size());
    const auto bad = absl::InvalidArgumentError(absl::StrCat("decode's ", key, " metadata is not the layout pt2onnx writes"));
    if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("groups") || !doc["groups"].IsArray()) return bad;
    for (const rapidjson::Value& g : doc["groups"].GetArray()) {
      if (!g.IsObject() || !g.HasMember("past_length") || !g["past_length"].IsString() || !g.HasMember("caches") ||
          !g["caches"].IsArray()) {
        return bad;
      }
      StaticGroup group;
      group.past_length = g["past_length"].GetString();
      for (const rapidjson::Value& c : g["caches"].GetArray()) {
        if (!c.IsObject() || !c.HasMember("input") || !c["input"].IsString() || !c.HasMember("axis") ||
            !c["axis"].IsInt64()) {
          return bad;
        }
        group.caches.emplace_back(CacheKey(c["input"].GetString()), c["axis"].GetInt64());
      }
      groups.push_back(std::move(group));
    }
  }
  return groups;
}

// Prefill's present caches copied into buffers of `capacity` positions
// along each static cache's axis; the groups' filled lengths set.
absl::Status FillBuffers(std::vector<StaticGroup>& groups, int64_t capacity, std::map<std::string, Tensor>& past) {
  for (StaticGroup& group : groups) {
    for (size_t i = 0; i < group.caches.size(); ++i) {
      const auto& [path, axis] = group.caches[i];
      auto it = past.find(path);
      if (it == past.end()) return absl::InvalidArgumentError(absl::StrCat("prefill returns no cache '", path, "'"));
      const Tensor& present = it->second;
      if (axis <= 0 || axis >= present.rank()) {
        return absl::InvalidArgumentError(absl::StrCat("cache '", path, "' has no axis ", axis));
      }
      const int64_t length = present.dim(axis);
      if (i == 0) group.filled = length;
      if (length != group.filled || length > capacity) {
        return absl::InvalidArgumentError(absl::StrCat("prefill's cache '", path, "' holds ", length,
                                                       " positions; its group holds ", group.filled));
      }
      Dims dims = present.dims();
      dims[axis] = capacity;
      PT2ONNX_ASSIGN_OR_RETURN(Tensor buffer, Tensor::Allocate(present.dtype(), dims, nullptr));
      std::memset(buffer.raw(), 0, buffer.byte_size());
      int64_t rows = 1, inner = ElementSize(present.dtype());
      for (int64_t d = 0; d < axis; ++d) rows *= dims[d];
      for (int64_t d = axis + 1; d < present.rank(); ++d) inner *= dims[d];
      for (int64_t r = 0; r < rows; ++r) {
        std::memcpy(buffer.raw() + r * capacity * inner, present.raw() + r * length * inner, length * inner);
      }
      it->second = std::move(buffer);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ir::Model> ReadComponent(const FolderFiles& files, const std::string& file) {
  PT2ONNX_ASSIGN_OR_RETURN(std::unique_ptr<google::protobuf::io::ZeroCopyInputStream> stream,
                           files.open_stream(file));
  absl::StatusOr<ir::Model> model = onnx_reader::ReadModel(*stream, files.read_range);
  if (!model.ok()) return absl::Status(model.status().code(), absl::StrCat(file, ": ", model.status().message()));
  return model;
}

// config.json's sliding_window, at the top or in text_config (0: none).
int64_t SlidingWindow(absl::string_view config_json) {
  rapidjson::Document doc;
  doc.Parse(config_json.data(), config_json.size());
  if (doc.HasParseError() || !doc.IsObject()) return 0;
  const rapidjson::Value* text = doc.HasMember("text_config") ? &doc["text_config"] : nullptr;
  for (const rapidjson::Value* v : {static_cast<const rapidjson::Value*>(&doc), text}) {
    if (v == nullptr || !v->IsObject()) continue;
    auto it = v->FindMember("sliding_window");
    if (it != v->MemberEnd() && it->value.IsInt64()) return it->value.GetInt64();
  }
  return 0;
}

}  // namespace

absl::StatusOr<GenerationModels> ReadGenerationFolder(absl::string_view manifest_json,
                                                      absl::string_view config_json, const FolderFiles& files) {
  PT2ONNX_ASSIGN_OR_RETURN(FolderManifestFields fields, ReadFolderManifestFields(manifest_json));
  if (fields.export_format != "onnx") {
    return absl::InvalidArgumentError(absl::StrCat(
        "export.json's export_format is '", fields.export_format,
        "', not 'onnx': give the folder `pt2onnx DIR -o OUTDIR` wrote (OUTDIR)"));
  }
  std::string prefill, decode;
  for (const FolderManifestFields::Component& c : fields.components) {
    if (c.name == "prefill") prefill = c.file;
    if (c.name == "decode") decode = c.file;
  }
  if (prefill.empty() || decode.empty()) {
    return absl::InvalidArgumentError(
        "export.json has no 'prefill' and 'decode' components: generation needs an export_for_generation folder");
  }
  GenerationModels models;
  PT2ONNX_ASSIGN_OR_RETURN(models.prefill, ReadComponent(files, prefill));
  PT2ONNX_ASSIGN_OR_RETURN(models.decode, ReadComponent(files, decode));
  models.sliding_window = SlidingWindow(config_json);
  return models;
}

absl::StatusOr<Generation> GenerateGreedy(GenerationModels models, const std::vector<int64_t>& prompt,
                                          int new_tokens, const runtime::SessionOptions& options,
                                          const std::map<std::string, Tensor>& fixed_inputs) {
  if (prompt.empty()) return absl::InvalidArgumentError("the prompt has no tokens");
  if (new_tokens < 1) return absl::InvalidArgumentError("generate at least one token");
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<StaticGroup> groups, StaticGroups(models.decode));
  PT2ONNX_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Session> prefill,
                           runtime::Session::Create(std::move(models.prefill), options));
  PT2ONNX_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Session> decode,
                           runtime::Session::Create(std::move(models.decode), options));
  Generation generation;
  PT2ONNX_ASSIGN_OR_RETURN(std::vector<NamedTensor> outputs,
                           RunStep(*prefill, Step{"prefill", prompt, 0}, {}, 0, models.sliding_window, fixed_inputs));
  int64_t length = static_cast<int64_t>(prompt.size());
  for (int i = 0;; ++i) {
    PT2ONNX_ASSIGN_OR_RETURN(auto next, NextToken(outputs, i == 0 ? "prefill" : "decode"));
    generation.tokens.push_back(next.first);
    generation.last_logits = std::move(next.second);
    if (static_cast<int>(generation.tokens.size()) == new_tokens) break;
    std::map<std::string, Tensor> past = Present(outputs);
    // A static decode: buffers that hold every position generation writes.
    if (i == 0 && !groups.empty()) {
      PT2ONNX_RETURN_IF_ERROR(FillBuffers(groups, length + new_tokens, past));
    }
    std::map<std::string, Tensor> lengths = fixed_inputs;
    for (StaticGroup& group : groups) {
      PT2ONNX_ASSIGN_OR_RETURN(lengths[group.past_length], Int64s({}, [&](int64_t) { return group.filled; }));
      ++group.filled;
    }
    PT2ONNX_ASSIGN_OR_RETURN(outputs, RunStep(*decode, Step{"decode", {next.first}, length}, past, length,
                                              models.sliding_window, lengths));
    ++length;
  }
  return generation;
}

}  // namespace pt2onnx
