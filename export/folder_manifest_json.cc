#include "export/folder_manifest_json.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "export/report.h"
#include "rapidjson/document.h"
#include "rapidjson/prettywriter.h"
#include "rapidjson/stringbuffer.h"

namespace pt2onnx {
namespace {

using Value = rapidjson::Value;

constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;

absl::Status Bad(absl::string_view what) { return absl::InvalidArgumentError(absl::StrCat("export.json: ", what)); }

absl::StatusOr<rapidjson::Document> Parse(absl::string_view json) {
  rapidjson::Document doc;
  doc.Parse<kParseFlags>(json.data(), json.size());
  if (doc.HasParseError()) {
    return Bad(absl::StrCat("not valid JSON (at byte ", doc.GetErrorOffset(), ")"));
  }
  if (!doc.IsObject()) return Bad("not a JSON object");
  return doc;
}

std::string StringOr(const Value& object, const char* key, std::string fallback) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsString()) return fallback;
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

void SetString(Value& object, const char* key, absl::string_view value, rapidjson::Document::AllocatorType& a) {
  Value v(value.data(), static_cast<rapidjson::SizeType>(value.size()), a);
  auto it = object.FindMember(key);
  if (it != object.MemberEnd()) {
    it->value = v;
  } else {
    object.AddMember(Value(key, a), v, a);
  }
}

}  // namespace

absl::StatusOr<FolderManifestFields> ReadFolderManifestFields(absl::string_view json) {
  absl::StatusOr<rapidjson::Document> parsed = Parse(json);
  if (!parsed.ok()) return parsed.status();
  const rapidjson::Document& doc = *parsed;
  FolderManifestFields fields;
  auto version = doc.FindMember("schema_version");
  if (version != doc.MemberEnd()) {
    if (!version->value.IsInt64()) return Bad("schema_version is not an integer");
    fields.schema_version = version->value.GetInt64();
  }
  auto format = doc.FindMember("export_format");
  if (format == doc.MemberEnd() || !format->value.IsString()) return Bad("no export_format string");
  fields.export_format = format->value.GetString();
  auto components = doc.FindMember("components");
  if (components == doc.MemberEnd() || !components->value.IsObject()) return Bad("no components object");
  for (auto it = components->value.MemberBegin(); it != components->value.MemberEnd(); ++it) {
    FolderManifestFields::Component c;
    c.name = std::string(it->name.GetString(), it->name.GetStringLength());
    if (!it->value.IsObject()) return Bad(absl::StrCat("component '", c.name, "' is not an object"));
    auto file = it->value.FindMember("file");
    if (file == it->value.MemberEnd() || !file->value.IsString()) {
      return Bad(absl::StrCat("component '", c.name, "' has no file"));
    }
    c.file = file->value.GetString();
    auto metadata = it->value.FindMember("metadata");
    if (metadata != it->value.MemberEnd() && metadata->value.IsObject()) {
      c.in_spec = StringOr(metadata->value, "in_spec", "");
      c.out_spec = StringOr(metadata->value, "out_spec", "");
    }
    if (fields.export_format == "dynamo" && (c.in_spec.empty() || c.out_spec.empty())) {
      return Bad(absl::StrCat("component '", c.name, "' has no metadata.in_spec / out_spec strings"));
    }
    fields.components.push_back(std::move(c));
  }
  return fields;
}

absl::StatusOr<std::string> RenderOnnxFolderManifest(const FolderManifest& manifest) {
  absl::StatusOr<rapidjson::Document> parsed = Parse(manifest.text);
  if (!parsed.ok()) return parsed.status();
  rapidjson::Document& doc = *parsed;
  auto& a = doc.GetAllocator();
  const std::string source_format = StringOr(doc, "export_format", "");
  SetString(doc, "export_format", "onnx", a);
  Value& components = doc["components"];
  for (const FolderComponent& component : manifest.components) {
    auto it = components.FindMember(component.name.c_str());
    if (it == components.MemberEnd()) continue;
    SetString(it->value, "file", component.name + ".onnx", a);
    auto metadata = it->value.FindMember("metadata");
    if (metadata == it->value.MemberEnd() || !metadata->value.IsObject()) continue;
    auto config = metadata->value.FindMember("export_config");
    if (config != metadata->value.MemberEnd() && config->value.IsObject()) {
      SetString(config->value, "export_format", "onnx", a);
    }
  }
  Value by(rapidjson::kObjectType);
  const std::string producer = ProducerName();
  by.AddMember("producer", Value(producer.c_str(), a), a);
  by.AddMember("source_format", Value(source_format.c_str(), a), a);
  doc.AddMember("converted_by", by, a);
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
  writer.SetIndent(' ', 2);
  doc.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace pt2onnx
