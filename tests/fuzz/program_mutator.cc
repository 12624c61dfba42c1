#include "tests/fuzz/program_mutator.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <utility>

#include "absl/strings/match.h"
#include "core/archive/crc32.h"
#include "core/archive/zip_reader.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace pt2onnx::fuzz {
namespace {

using rapidjson::Document;
using rapidjson::Value;
using Random = std::mt19937;

void PutU16(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(v & 0xff);
  out.push_back((v >> 8) & 0xff);
}

void PutU32(std::vector<uint8_t>& out, uint32_t v) {
  PutU16(out, v & 0xffff);
  PutU16(out, v >> 16);
}

size_t Pick(Random& rng, size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

// Values a dim, size, step or count is most likely to be mishandled at.
int64_t InterestingInt(Random& rng, int64_t old) {
  static const int64_t kValues[] = {
      0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 7, 8, 16, 255, 256, 65535, 65536,
      std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(),
      int64_t{1} << 31, int64_t{1} << 32, -(int64_t{1} << 32), int64_t{1} << 40,
      std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
      std::numeric_limits<int64_t>::max() - 1, std::numeric_limits<int64_t>::min() + 1};
  switch (Pick(rng, 4)) {
    case 0:
      // Near the old value (off by one); wraps like the file's writer might.
      return static_cast<int64_t>(static_cast<uint64_t>(old) + Pick(rng, 9) - 4);
    case 1:
      return static_cast<int64_t>(0 - static_cast<uint64_t>(old));
    default:
      return kValues[Pick(rng, sizeof(kValues) / sizeof(kValues[0]))];
  }
}

struct Pools {
  std::vector<std::string> tensor_names;  // keys of graph.tensor_values
  std::vector<std::string> arg_names;     // "name" of every node input
  std::vector<std::string> strings;       // every string value of the graph
};

// Every value of the tree under `v` (metadata skipped: free text the
// converter does not read), for the generic mutations.
void CollectValues(Value& v, std::vector<Value*>& out, Pools& pools) {
  out.push_back(&v);
  if (v.IsObject()) {
    for (auto& m : v.GetObject()) {
      if (std::strcmp(m.name.GetString(), "metadata") == 0) continue;
      CollectValues(m.value, out, pools);
    }
  } else if (v.IsArray()) {
    for (auto& e : v.GetArray()) CollectValues(e, out, pools);
  } else if (v.IsString() && pools.strings.size() < 4096) {
    pools.strings.emplace_back(v.GetString(), v.GetStringLength());
  }
}

void SetString(Value& v, const std::string& s, Document::AllocatorType& a) {
  v.SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// An argument of a new kind, made from what the program already holds.
void RandomArgument(Value& arg, Random& rng, const Pools& pools, Document::AllocatorType& a) {
  static const char* const kKinds[] = {"as_none",  "as_int",    "as_ints",   "as_float",  "as_floats",
                                       "as_bool",  "as_bools",  "as_string", "as_tensor", "as_tensors",
                                       "as_sym_int", "as_sym_ints", "as_scalar_type", "as_memory_format",
                                       "as_layout", "as_device", "as_optional_tensors", "as_int_lists"};
  const char* kind = kKinds[Pick(rng, sizeof(kKinds) / sizeof(kKinds[0]))];
  auto tensor_ref = [&]() {
    Value ref(rapidjson::kObjectType);
    Value name;
    SetString(name, pools.tensor_names.empty() ? std::string("t") : pools.tensor_names[Pick(rng, pools.tensor_names.size())], a);
    ref.AddMember("name", name, a);
    return ref;
  };
  Value payload;
  std::string k = kind;
  if (k == "as_none" || k == "as_bool") {
    payload.SetBool(Pick(rng, 2) == 1);
  } else if (k == "as_int" || k == "as_scalar_type" || k == "as_memory_format" || k == "as_layout") {
    payload.SetInt64(InterestingInt(rng, 1));
  } else if (k == "as_float") {
    static const double kFloats[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e308, -1e308, 1e-310, 3.0e9};
    payload.SetDouble(kFloats[Pick(rng, sizeof(kFloats) / sizeof(kFloats[0]))]);
  } else if (k == "as_ints" || k == "as_floats" || k == "as_bools" || k == "as_int_lists") {
    payload.SetArray();
    size_t n = Pick(rng, 5);
    for (size_t i = 0; i < n; ++i) {
      Value e;
      if (k == "as_bools") {
        e.SetBool(Pick(rng, 2) == 1);
      } else if (k == "as_int_lists") {
        e.SetArray();
        e.PushBack(Value(InterestingInt(rng, 1)), a);
      } else {
        e.SetInt64(InterestingInt(rng, 1));
      }
      payload.PushBack(e, a);
    }
  } else if (k == "as_string") {
    SetString(payload, pools.strings.empty() ? std::string("x") : pools.strings[Pick(rng, pools.strings.size())], a);
  } else if (k == "as_tensor") {
    payload = tensor_ref();
  } else if (k == "as_tensors" || k == "as_optional_tensors") {
    payload.SetArray();
    size_t n = Pick(rng, 4);
    for (size_t i = 0; i < n; ++i) {
      if (k == "as_tensors") {
        payload.PushBack(tensor_ref(), a);
      } else {
        Value opt(rapidjson::kObjectType);
        opt.AddMember("as_tensor", tensor_ref(), a);
        payload.PushBack(opt, a);
      }
    }
  } else if (k == "as_sym_int") {
    payload.SetObject();
    payload.AddMember("as_int", Value(InterestingInt(rng, 1)), a);
  } else if (k == "as_sym_ints") {
    payload.SetArray();
    Value e(rapidjson::kObjectType);
    e.AddMember("as_int", Value(InterestingInt(rng, 1)), a);
    payload.PushBack(e, a);
  } else {  // as_device
    payload.SetObject();
    payload.AddMember("type", "cpu", a);
    payload.AddMember("index", Value(rapidjson::kNullType), a);
  }
  arg.SetObject();
  Value key;
  SetString(key, k, a);
  arg.AddMember(key, payload, a);
}

// Generic mutation of one value of the tree, by its JSON type.
void MutateValue(Value& v, Random& rng, const Pools& pools, Document::AllocatorType& a) {
  if (v.IsNumber()) {
    int64_t old = v.IsInt64() ? v.GetInt64() : 0;
    if (Pick(rng, 8) == 0) {
      v.SetUint64(uint64_t{1} << 63);  // just past int64
    } else {
      v.SetInt64(InterestingInt(rng, old));
    }
  } else if (v.IsString()) {
    if (!pools.strings.empty() && Pick(rng, 4) != 0) {
      SetString(v, pools.strings[Pick(rng, pools.strings.size())], a);
    } else {
      std::string s(v.GetString(), v.GetStringLength());
      if (!s.empty() && Pick(rng, 2) == 0) {
        s.erase(Pick(rng, s.size()), 1);
      } else {
        s += "_";
      }
      SetString(v, s, a);
    }
  } else if (v.IsArray()) {
    auto n = v.Size();
    switch (Pick(rng, 4)) {
      case 0:
        if (n > 0) v.Erase(v.Begin() + Pick(rng, n));
        break;
      case 1:
        if (n > 0) {
          Value copy(v[static_cast<rapidjson::SizeType>(Pick(rng, n))], a);
          v.PushBack(copy, a);
        }
        break;
      case 2:
        v.Clear();
        break;
      default:
        if (n > 1) {
          auto i = static_cast<rapidjson::SizeType>(Pick(rng, n));
          auto j = static_cast<rapidjson::SizeType>((i + 1 + Pick(rng, n - 1)) % n);
          v[i].Swap(v[j]);
        }
        break;
    }
  } else if (v.IsObject()) {
    auto n = v.MemberCount();
    if (n == 1 && absl::StartsWith(v.MemberBegin()->name.GetString(), "as_")) {
      RandomArgument(v, rng, pools, a);  // an argument union: retype it
    } else if (n > 0 && Pick(rng, 2) == 0) {
      v.EraseMember(v.MemberBegin() + Pick(rng, n));
    } else if (n > 0) {
      // A repeated key: a decoder must not take the first or last silently.
      auto& m = v.MemberBegin()[Pick(rng, n)];
      Value name(m.name, a), value(m.value, a);
      v.AddMember(name, value, a);
    }
  } else if (v.IsBool()) {
    v.SetBool(!v.GetBool());
  } else {
    v.SetInt64(InterestingInt(rng, 0));
  }
}

// Mutations aimed at one node: its target, one of its arguments.
void MutateNode(Value& node, Random& rng, const Pools& pools, const std::vector<std::string>& targets,
                Document::AllocatorType& a) {
  if (!node.IsObject()) return;
  Value* inputs = node.HasMember("inputs") && node["inputs"].IsArray() ? &node["inputs"] : nullptr;
  size_t n = inputs != nullptr ? inputs->Size() : 0;
  switch (Pick(rng, 7)) {
    case 0:  // another operator on the same arguments
      if (!targets.empty() && node.HasMember("target")) SetString(node["target"], targets[Pick(rng, targets.size())], a);
      return;
    case 1:  // an argument renamed
      if (n > 0 && !pools.arg_names.empty()) {
        Value& input = (*inputs)[static_cast<rapidjson::SizeType>(Pick(rng, n))];
        if (input.IsObject() && input.HasMember("name")) {
          SetString(input["name"], pools.arg_names[Pick(rng, pools.arg_names.size())], a);
        }
      }
      return;
    case 2:  // an argument dropped or repeated
      if (n == 0) return;
      if (Pick(rng, 2) == 0) {
        inputs->Erase(inputs->Begin() + Pick(rng, n));
      } else {
        Value copy((*inputs)[static_cast<rapidjson::SizeType>(Pick(rng, n))], a);
        inputs->PushBack(copy, a);
      }
      return;
    case 3:  // an argument retyped
      if (n > 0) {
        Value& input = (*inputs)[static_cast<rapidjson::SizeType>(Pick(rng, n))];
        if (input.IsObject() && input.HasMember("arg")) RandomArgument(input["arg"], rng, pools, a);
      }
      return;
    default: {  // an integer of an argument (dims, sizes, steps...) set to an extreme
      std::vector<Value*> ints;
      std::vector<Value*> lists;
      for (rapidjson::SizeType i = 0; i < n; ++i) {
        Value& input = (*inputs)[i];
        if (!input.IsObject() || !input.HasMember("arg") || !input["arg"].IsObject()) continue;
        for (auto& m : input["arg"].GetObject()) {
          if (m.value.IsNumber()) ints.push_back(&m.value);
          if (m.value.IsArray()) {
            lists.push_back(&m.value);
            for (auto& e : m.value.GetArray()) {
              if (e.IsNumber()) ints.push_back(&e);
            }
          }
        }
      }
      if (!lists.empty() && Pick(rng, 4) == 0) {
        MutateValue(*lists[Pick(rng, lists.size())], rng, pools, a);
      } else if (!ints.empty()) {
        MutateValue(*ints[Pick(rng, ints.size())], rng, pools, a);
      }
      return;
    }
  }
}

std::string Serialize(const Document& doc) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

bool IsJsonEntry(const std::string& name) {
  return absl::EndsWith(name, ".json") &&
         (absl::StrContains(name, "/models/") || absl::StrContains(name, "_config.json"));
}

}  // namespace

bool ReadZipEntries(ByteSpan archive, std::vector<ZipFileEntry>& entries) {
  absl::StatusOr<archive::ZipArchive> zip = archive::ZipArchive::Open(archive);
  if (!zip.ok()) return false;
  for (const archive::ZipEntry& e : zip->entries()) {
    absl::StatusOr<ByteSpan> data = zip->Read(e);
    if (!data.ok()) return false;
    entries.push_back({e.name, std::vector<uint8_t>(data->begin(), data->end())});
  }
  return true;
}

std::vector<uint8_t> WriteZip(const std::vector<ZipFileEntry>& entries) {
  std::vector<uint8_t> out, central;
  for (const ZipFileEntry& e : entries) {
    uint32_t crc = archive::Crc32(ByteSpan(e.data.data(), e.data.size()));
    uint32_t offset = static_cast<uint32_t>(out.size());
    auto header = [&](std::vector<uint8_t>& h, bool central_record) {
      PutU32(h, central_record ? 0x02014b50 : 0x04034b50);
      if (central_record) PutU16(h, 20);  // made by
      PutU16(h, 20);                      // needed
      PutU16(h, 0);                       // flags
      PutU16(h, 0);                       // stored
      PutU32(h, 0);                       // time, date
      PutU32(h, crc);
      PutU32(h, static_cast<uint32_t>(e.data.size()));
      PutU32(h, static_cast<uint32_t>(e.data.size()));
      PutU16(h, static_cast<uint32_t>(e.name.size()));
      PutU16(h, 0);  // extra
      if (central_record) {
        PutU16(h, 0);  // comment
        PutU16(h, 0);  // disk
        PutU16(h, 0);  // internal attributes
        PutU32(h, 0);  // external attributes
        PutU32(h, offset);
      }
      h.insert(h.end(), e.name.begin(), e.name.end());
    };
    header(out, false);
    out.insert(out.end(), e.data.begin(), e.data.end());
    header(central, true);
  }
  uint32_t central_offset = static_cast<uint32_t>(out.size());
  out.insert(out.end(), central.begin(), central.end());
  PutU32(out, 0x06054b50);
  PutU32(out, 0);  // disks
  PutU16(out, static_cast<uint32_t>(entries.size()));
  PutU16(out, static_cast<uint32_t>(entries.size()));
  PutU32(out, static_cast<uint32_t>(central.size()));
  PutU32(out, central_offset);
  PutU16(out, 0);  // comment
  return out;
}

std::string KeyToTarget(const std::string& key) {
  size_t colons = key.find("::");
  if (colons == std::string::npos) return key;
  std::string ns = key.substr(0, colons);
  std::string dotted = ns + "." + key.substr(colons + 2);
  if (ns == "_operator" || ns == "torch" || ns == "builtins" || ns == "math") return dotted;
  return "torch.ops." + dotted;
}

std::vector<uint8_t> MutateArchive(ByteSpan archive, uint32_t seed, const std::vector<std::string>& targets,
                                   const ByteMutator& bytes) {
  std::vector<ZipFileEntry> entries;
  if (!ReadZipEntries(archive, entries)) return {};
  std::vector<size_t> programs, configs;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!IsJsonEntry(entries[i].name)) continue;
    (absl::StrContains(entries[i].name, "/models/") ? programs : configs).push_back(i);
  }
  if (programs.empty()) return {};
  Random rng(seed);
  size_t choice = Pick(rng, 10);
  // 1 in 10: the config records instead of the program.
  size_t index = choice == 0 && !configs.empty() ? configs[Pick(rng, configs.size())] : programs[Pick(rng, programs.size())];
  std::vector<uint8_t>& text = entries[index].data;
  if (choice == 1 && bytes) {
    // Byte-level edits of the JSON text itself, with the CRC made right after.
    size_t size = text.size();
    text.resize(size + size / 8 + 64);
    text.resize(bytes(text.data(), size, text.size()));
    return WriteZip(entries);
  }
  Document doc;
  doc.Parse(reinterpret_cast<const char*>(text.data()), text.size());
  if (doc.HasParseError() || !doc.IsObject()) return {};
  Document::AllocatorType& a = doc.GetAllocator();

  Pools pools;
  std::vector<Value*> values;
  Value* graph = nullptr;
  if (doc.HasMember("graph_module") && doc["graph_module"].IsObject() && doc["graph_module"].HasMember("graph")) {
    graph = &doc["graph_module"]["graph"];
  }
  Value* nodes = graph != nullptr && graph->IsObject() && graph->HasMember("nodes") && (*graph)["nodes"].IsArray()
                     ? &(*graph)["nodes"]
                     : nullptr;
  if (graph != nullptr && graph->IsObject() && graph->HasMember("tensor_values") &&
      (*graph)["tensor_values"].IsObject()) {
    for (auto& m : (*graph)["tensor_values"].GetObject()) pools.tensor_names.emplace_back(m.name.GetString());
  }
  if (nodes != nullptr) {
    for (auto& node : nodes->GetArray()) {
      if (!node.IsObject() || !node.HasMember("inputs") || !node["inputs"].IsArray()) continue;
      for (auto& input : node["inputs"].GetArray()) {
        if (input.IsObject() && input.HasMember("name") && input["name"].IsString()) {
          pools.arg_names.emplace_back(input["name"].GetString());
        }
      }
    }
  }
  CollectValues(doc, values, pools);
  // One edit per call: libFuzzer stacks them as the corpus evolves.
  if (index == programs.front() && nodes != nullptr && nodes->Size() > 0 && Pick(rng, 2) == 0) {
    MutateNode((*nodes)[static_cast<rapidjson::SizeType>(Pick(rng, nodes->Size()))], rng, pools, targets, a);
  } else {
    MutateValue(*values[Pick(rng, values.size())], rng, pools, a);
  }
  std::string json = Serialize(doc);
  text.assign(json.begin(), json.end());
  return WriteZip(entries);
}

}  // namespace pt2onnx::fuzz
