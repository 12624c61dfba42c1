#include "wasm/run_api.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <emscripten/val.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "export/engines.h"

namespace pt2onnx::wasm {
namespace {

using emscripten::val;

struct LiveSession {
  std::unique_ptr<runtime::Session> session;
};

std::map<int, std::unique_ptr<LiveSession>>& Sessions() {
  static auto* const sessions = new std::map<int, std::unique_ptr<LiveSession>>();
  return *sessions;
}

// onnxrun's exit codes: 4 invalid model or inputs, 5 cannot run, 1 internal.
val Error(const absl::Status& status) {
  int exit_code = 1;
  const char* code = "internal";
  switch (status.code()) {
    case absl::StatusCode::kUnimplemented: exit_code = 5, code = "unsupported"; break;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kResourceExhausted: exit_code = 4, code = "invalid_input"; break;
    default: break;
  }
  val error = val::object();
  error.set("ok", false);
  error.set("exitCode", exit_code);
  error.set("code", std::string(code));
  error.set("message", std::string(status.message()));
  return error;
}

val Describe(const std::vector<ir::ValueInfo>& values) {
  val list = val::array();
  for (const ir::ValueInfo& info : values) {
    val entry = val::object();
    entry.set("name", info.name);
    entry.set("dtype", std::string(DataTypeName(info.dtype)));
    if (info.shape.has_value()) {
      val dims = val::array();
      for (const auto& d : *info.shape) {
        if (d.is_static()) dims.call<void>("push", static_cast<double>(d.value));
        else if (!d.param.empty()) dims.call<void>("push", d.param);
        else dims.call<void>("push", val::null());
      }
      entry.set("dims", dims);
    } else {
      entry.set("dims", val::null());
    }
    list.call<void>("push", entry);
  }
  return list;
}

absl::StatusOr<DataType> DtypeNamed(const std::string& name) {
  for (DataType t : {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16, DataType::kDouble, DataType::kInt8,
                     DataType::kInt16, DataType::kInt32, DataType::kInt64, DataType::kUint8, DataType::kUint16,
                     DataType::kUint32, DataType::kUint64, DataType::kBool}) {
    if (DataTypeName(t) == name) return t;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype '", name, "'"));
}

}  // namespace

absl::StatusOr<NamedTensor> TensorFromJs(const val& js) {
  NamedTensor named;
  named.name = js["name"].as<std::string>();
  auto dtype = DtypeNamed(js["dtype"].as<std::string>());
  if (!dtype.ok()) return absl::InvalidArgumentError(absl::StrCat("input '", named.name, "': ", dtype.status().message()));
  Dims dims;
  const val js_dims = js["dims"];
  const int rank = js_dims["length"].as<int>();
  for (int i = 0; i < rank; ++i) {
    const double d = js_dims[i].as<double>();
    if (!(d >= 0 && d <= 9007199254740991.0) || d != static_cast<double>(static_cast<int64_t>(d))) {
      return absl::InvalidArgumentError(absl::StrCat("input '", named.name, "': dim ", i, " is not a size"));
    }
    dims.push_back(static_cast<int64_t>(d));
  }
  auto tensor = Tensor::Allocate(*dtype, dims, nullptr);
  if (!tensor.ok()) return absl::InvalidArgumentError(absl::StrCat("input '", named.name, "': ", tensor.status().message()));
  const val bytes = js["bytes"];
  const double length = bytes["length"].as<double>();
  if (length != static_cast<double>(tensor->byte_size())) {
    return absl::InvalidArgumentError(absl::StrCat("input '", named.name, "' has ", static_cast<int64_t>(length),
                                                   " bytes of data but dims ", DimsString(dims), " need ",
                                                   tensor->byte_size()));
  }
  if (tensor->byte_size() > 0) {
    val(emscripten::typed_memory_view(tensor->byte_size(), tensor->raw())).call<void>("set", bytes);
  }
  named.tensor = std::move(*tensor);
  return named;
}

val CreateSession(val bytes) {
  auto live = std::make_unique<LiveSession>();
  absl::StatusOr<ir::Model> model;
  {
    // The model owns its weights (copied out of the bytes, which are freed
    // here); the session takes them from the model.
    std::string model_bytes(bytes["length"].as<size_t>(), '\0');
    if (!model_bytes.empty()) {
      val(emscripten::typed_memory_view(model_bytes.size(), reinterpret_cast<uint8_t*>(&model_bytes[0])))
          .call<void>("set", bytes);
    }
    model = ReadOnnxModel(ByteSpan(reinterpret_cast<const uint8_t*>(model_bytes.data()), model_bytes.size()));
  }
  if (!model.ok()) return Error(model.status());
  auto session = CreateExecutorSession(std::move(*model), runtime::SessionOptions{});
  if (!session.ok()) return Error(session.status());
  live->session = std::move(*session);
  static int next_id = 1;
  const int id = next_id++;
  val result = val::object();
  result.set("ok", true);
  result.set("id", id);
  result.set("inputs", Describe(live->session->inputs()));
  result.set("outputs", Describe(live->session->outputs()));
  Sessions()[id] = std::move(live);
  return result;
}

val RunSession(int id, val inputs) {
  auto it = Sessions().find(id);
  if (it == Sessions().end()) return Error(absl::InvalidArgumentError("the session was released"));
  std::vector<NamedTensor> tensors;
  const int count = inputs["length"].as<int>();
  for (int i = 0; i < count; ++i) {
    auto tensor = TensorFromJs(inputs[i]);
    if (!tensor.ok()) return Error(tensor.status());
    tensors.push_back(std::move(*tensor));
  }
  auto outputs = it->second->session->Run(tensors);
  if (!outputs.ok()) return Error(outputs.status());
  val list = val::array();
  for (const NamedTensor& o : *outputs) {
    val entry = val::object();
    entry.set("name", o.name);
    entry.set("dtype", std::string(DataTypeName(o.tensor.dtype())));
    val dims = val::array();
    for (int64_t d : o.tensor.dims()) dims.call<void>("push", static_cast<double>(d));
    entry.set("dims", dims);
    entry.set("bytes", val(emscripten::typed_memory_view(o.tensor.byte_size(), o.tensor.raw())).call<val>("slice"));
    list.call<void>("push", entry);
  }
  val result = val::object();
  result.set("ok", true);
  result.set("outputs", list);
  return result;
}

void FreeSession(int id) { Sessions().erase(id); }

}  // namespace pt2onnx::wasm
