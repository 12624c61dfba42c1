// The allow-listed GLOBALs of the Unpickler (unpickler.h) and what calling
// them builds: torch's tensor and parameter rebuild functions
// (torch/_utils.py, torch/_tensor.py), containers, bytes and opaque objects.
// Anything not listed here is rejected, which is what keeps unpickling from
// running code.
#include "core/pt2/unpickler.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/dtype.h"
#include "core/status_macros.h"

namespace pt2onnx::pt2::internal {
namespace {

// What an allow-listed GLOBAL does when called (REDUCE / NEWOBJ).
enum class Callable {
  kNotCallable,  // a class or constant that only appears as an argument
  kRebuildTensorV2,
  kRebuildTensorV3,
  kRebuildParameter,  // also _rebuild_parameter_with_state
  kRebuildFromTypeV2,
  kOrderedDict,
  kSet,
  kBytearray,
  kCodecsEncode,
  kSize,
  kOpaque,  // torch.device, builtins.complex, torch.serialization._get_layout
};

struct AllowedGlobal {
  absl::string_view module;
  absl::string_view name;
  Callable call;
};

constexpr AllowedGlobal kAllowedGlobals[] = {
    {"torch._utils", "_rebuild_tensor_v2", Callable::kRebuildTensorV2},
    {"torch._utils", "_rebuild_tensor_v3", Callable::kRebuildTensorV3},
    {"torch._utils", "_rebuild_parameter", Callable::kRebuildParameter},
    {"torch._utils", "_rebuild_parameter_with_state",
     Callable::kRebuildParameter},
    {"torch._tensor", "_rebuild_from_type_v2", Callable::kRebuildFromTypeV2},
    {"collections", "OrderedDict", Callable::kOrderedDict},
    {"builtins", "set", Callable::kSet},
    {"__builtin__", "set", Callable::kSet},
    {"builtins", "bytearray", Callable::kBytearray},
    {"__builtin__", "bytearray", Callable::kBytearray},
    {"_codecs", "encode", Callable::kCodecsEncode},
    {"torch", "Size", Callable::kSize},
    {"torch", "device", Callable::kOpaque},
    {"builtins", "complex", Callable::kOpaque},
    {"__builtin__", "complex", Callable::kOpaque},
    {"torch.serialization", "_get_layout", Callable::kOpaque},
    {"torch", "Tensor", Callable::kNotCallable},
    {"torch.nn.parameter", "Parameter", Callable::kNotCallable},
    {"torch", "UntypedStorage", Callable::kNotCallable},
};

// Dtype names torch has but pt2onnx cannot represent: an honest
// Unimplemented instead of "not allowed".
constexpr absl::string_view kUnsupportedTorchDtypes[] = {
    "complex32", "chalf", "quint8", "qint8", "qint32", "quint4x2", "quint2x4",
    "bits1x8", "bits2x4", "bits4x2", "bits8", "bits16", "float8_e8m0fnu",
    "float4_e2m1fn_x2"};

// Resolves "module.name" of a kGlobal to its behaviour. Storage classes and
// dtypes are recognised through core/dtype.h so the lists cannot drift.
absl::StatusOr<Callable> LookupGlobal(absl::string_view module,
                                      absl::string_view name) {
  for (const AllowedGlobal& g : kAllowedGlobals) {
    if (g.module == module && g.name == name) return g.call;
  }
  if (module == "torch") {
    if (FromTorchStorageName(name).ok() || FromTorchDtypeName(name).ok()) {
      return Callable::kNotCallable;
    }
    for (absl::string_view unsupported : kUnsupportedTorchDtypes) {
      if (name == unsupported) {
        return absl::UnimplementedError(
            absl::StrCat("torch dtype '", name, "' is not supported"));
      }
    }
  }
  if (module == "torch._utils" && name == "_rebuild_wrapper_subclass") {
    // A tensor subclass parameter (torchao's quantize_ keeps quantized
    // weights so): its data lives in attributes only its class can read.
    return absl::UnimplementedError(
        "a tensor subclass (such as torchao's quantized weights) is saved here; pt2onnx reads plain "
        "tensors only: export after torchao.utils.unwrap_tensor_subclass(model), which stores the "
        "quantized data, scales and zero points as plain tensors");
  }
  return absl::InvalidArgumentError(
      absl::StrCat("pickle global '", module, ".", name,
                   "' is not allowed; pt2onnx only loads tensors and "
                   "containers"));
}

}  // namespace

absl::Status Unpickler::CheckGlobal(absl::string_view module,
                                    absl::string_view name) const {
  return LookupGlobal(module, name).status();
}

absl::StatusOr<PickleId> Unpickler::Call(PickleId callable, PickleId args_id) {
  const PickleValue& fn = V(callable);
  if (fn.kind != PickleKind::kGlobal) {
    return Error(absl::StrCat("call of a ", PickleKindName(fn.kind)));
  }
  PT2ONNX_RETURN_IF_ERROR(
      Expect(args_id, PickleKind::kTuple, "call arguments"));
  const std::string name = fn.text;
  const std::vector<PickleId> args = V(args_id).items;
  const size_t dot = name.rfind('.');
  PT2ONNX_ASSIGN_OR_RETURN(
      Callable call, LookupGlobal(name.substr(0, dot), name.substr(dot + 1)));

  PickleValue v;
  switch (call) {
    case Callable::kRebuildTensorV2:
    case Callable::kRebuildTensorV3:
      return RebuildTensor(args, call == Callable::kRebuildTensorV3);
    case Callable::kRebuildParameter:
      return RebuildParameter(args);
    case Callable::kRebuildFromTypeV2:
      return RebuildFromType(args);
    case Callable::kOrderedDict:
    case Callable::kSet:
      v.kind = call == Callable::kSet ? PickleKind::kSet : PickleKind::kDict;
      v.ordered = call == Callable::kOrderedDict;
      if (args.size() == 1 && call == Callable::kSet) {
        const PickleKind k = V(args[0]).kind;
        if (k != PickleKind::kList && k != PickleKind::kTuple &&
            k != PickleKind::kSet) {
          return Error(absl::StrCat("set() of a ", PickleKindName(k)));
        }
        v.items = V(args[0]).items;
      } else if (!args.empty()) {
        return Error(absl::StrCat(name, "() with arguments is not supported"));
      }
      return New(std::move(v));
    case Callable::kSize:
      // torch.Size(t) is a tuple subclass; tuples are immutable, so share.
      if (args.size() != 1) return Error("torch.Size takes one tuple");
      PT2ONNX_RETURN_IF_ERROR(
          Expect(args[0], PickleKind::kTuple, "torch.Size argument"));
      return args[0];
    case Callable::kCodecsEncode:
    case Callable::kBytearray: {
      // Protocol 2 pickles bytes as _codecs.encode(<latin-1 text>, 'latin1'):
      // each code point (UTF-8 encoded in the pickle) is one byte.
      v.kind = PickleKind::kBytes;
      if (args.empty() && call == Callable::kBytearray) return New(v);
      if (args.size() == 1 && V(args[0]).kind == PickleKind::kBytes) {
        v.text = V(args[0]).text;
        return New(std::move(v));
      }
      if (args.size() != 2 || V(args[0]).kind != PickleKind::kString ||
          V(args[1]).kind != PickleKind::kString ||
          (V(args[1]).text != "latin1" && V(args[1]).text != "latin-1")) {
        return Error(absl::StrCat(name, " expects (str, 'latin1')"));
      }
      const std::string& s = V(args[0]).text;
      for (size_t i = 0; i < s.size(); ++i) {
        const uint8_t c = static_cast<uint8_t>(s[i]);
        if (c < 0x80) {
          v.text.push_back(static_cast<char>(c));
        } else if ((c == 0xC2 || c == 0xC3) && i + 1 < s.size()) {
          v.text.push_back(static_cast<char>(((c & 0x03) << 6) |
                                             (s[++i] & 0x3F)));
        } else {
          return Error("latin-1 text has a code point above U+00FF");
        }
      }
      return New(std::move(v));
    }
    case Callable::kOpaque:
      v.kind = PickleKind::kObject;
      v.text = name;
      v.items = args;
      return New(std::move(v));
    case Callable::kNotCallable:
      break;
  }
  return Error(absl::StrCat("'", name, "' cannot be called"));
}

absl::StatusOr<PickleId> Unpickler::NewTensor(
    std::shared_ptr<const PickleTensor> tensor) {
  PickleValue v;
  v.kind = PickleKind::kTensor;
  v.tensor = std::move(tensor);
  return New(std::move(v));
}

absl::StatusOr<PickleId> Unpickler::RebuildTensor(
    const std::vector<PickleId>& args, bool v3) {
  // v2: (storage, offset, size, stride, requires_grad, hooks[, metadata])
  // v3: (storage, offset, size, stride, requires_grad, hooks, dtype[, meta])
  const size_t min_args = v3 ? 7 : 6;
  const char* fn = v3 ? "_rebuild_tensor_v3" : "_rebuild_tensor_v2";
  if (args.size() < min_args || args.size() > min_args + 1) {
    return Error(absl::StrCat(fn, " takes ", min_args, " or ", min_args + 1,
                              " arguments, got ", args.size()));
  }
  PT2ONNX_RETURN_IF_ERROR(
      Expect(args[0], PickleKind::kStorage, "tensor storage"));
  auto tensor = std::make_shared<PickleTensor>();
  tensor->storage = *V(args[0]).storage;
  PT2ONNX_ASSIGN_OR_RETURN(tensor->storage_offset,
                           Int(args[1], "storage_offset"));
  PT2ONNX_ASSIGN_OR_RETURN(tensor->sizes, IntTuple(args[2], "tensor size"));
  PT2ONNX_ASSIGN_OR_RETURN(tensor->strides,
                           IntTuple(args[3], "tensor stride"));
  PT2ONNX_RETURN_IF_ERROR(Expect(args[4], PickleKind::kBool, "requires_grad"));
  tensor->requires_grad = V(args[4]).bool_value;
  if (tensor->sizes.size() != tensor->strides.size()) {
    return Error(absl::StrCat("tensor has ", tensor->sizes.size(),
                              " sizes but ", tensor->strides.size(),
                              " strides"));
  }
  if (v3) {
    const PickleValue& dtype = V(args[6]);
    absl::string_view name = dtype.text;
    if (dtype.kind != PickleKind::kGlobal ||
        !absl::ConsumePrefix(&name, "torch.")) {
      return Error("_rebuild_tensor_v3 dtype is not a torch dtype global");
    }
    absl::StatusOr<DataType> dt = FromTorchDtypeName(name);
    if (!dt.ok()) return dt.status();
    tensor->dtype = *dt;
  } else {
    if (tensor->storage.untyped) {
      return Error("_rebuild_tensor_v2 on an UntypedStorage has no dtype");
    }
    tensor->dtype = tensor->storage.dtype;
  }
  return NewTensor(std::move(tensor));
}

absl::StatusOr<PickleId> Unpickler::RebuildParameter(
    const std::vector<PickleId>& args) {
  // (data, requires_grad, hooks[, state])
  if (args.size() < 3 || args.size() > 4) {
    return Error("_rebuild_parameter takes 3 or 4 arguments");
  }
  PT2ONNX_RETURN_IF_ERROR(
      Expect(args[0], PickleKind::kTensor, "parameter data"));
  auto tensor = std::make_shared<PickleTensor>(*V(args[0]).tensor);
  PT2ONNX_RETURN_IF_ERROR(Expect(args[1], PickleKind::kBool, "requires_grad"));
  tensor->requires_grad = V(args[1]).bool_value;
  tensor->is_param = true;
  return NewTensor(std::move(tensor));
}

absl::StatusOr<PickleId> Unpickler::RebuildFromType(
    const std::vector<PickleId>& args) {
  // (func, type, func_args, state): func(*func_args) re-typed to `type`.
  // Only torch.Tensor and Parameter pass the GLOBAL allow-list as `type`;
  // real subclasses (DTensor, quantized wrappers) are rejected there.
  if (args.size() != 4) return Error("_rebuild_from_type_v2 takes 4 arguments");
  const PickleValue& type = V(args[1]);
  if (type.kind != PickleKind::kGlobal ||
      (type.text != "torch.Tensor" &&
       type.text != "torch.nn.parameter.Parameter")) {
    return absl::UnimplementedError(absl::StrCat(
        "tensor subclass '", type.text, "' at pickle offset ", op_pos_,
        " is not supported"));
  }
  const bool is_param = type.text == "torch.nn.parameter.Parameter";
  PT2ONNX_ASSIGN_OR_RETURN(PickleId result, Call(args[0], args[2]));
  if (V(result).kind != PickleKind::kTensor) {
    return Error("_rebuild_from_type_v2 did not rebuild a tensor");
  }
  if (is_param && !V(result).tensor->is_param) {
    auto tensor = std::make_shared<PickleTensor>(*V(result).tensor);
    tensor->is_param = true;
    V(result).tensor = std::move(tensor);
  }
  return result;
}

}  // namespace pt2onnx::pt2::internal
