#include "core/pt2/pickle_reader.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"

namespace pt2onnx::pt2 {
namespace {

// The opcodes torch.save emits at protocol 2, plus the few more torch's own
// weights-only unpickler accepts (pt2-format.md section 4). Nothing else.
enum Op : uint8_t {
  kProto = 0x80, kStop = '.', kMark = '(', kBinPersId = 'Q', kGlobal = 'c',
  kNone = 'N', kNewTrue = 0x88, kNewFalse = 0x89, kBinInt = 'J',
  kBinInt1 = 'K', kBinInt2 = 'M', kLong1 = 0x8a, kBinFloat = 'G',
  kBinUnicode = 'X', kShortBinString = 'U', kBinString = 'T',
  kEmptyDict = '}', kEmptyList = ']', kEmptyTuple = ')', kEmptySet = 0x8f,
  kTuple = 't', kTuple1 = 0x85, kTuple2 = 0x86, kTuple3 = 0x87,
  kSetItem = 's', kSetItems = 'u', kAppend = 'a', kAppends = 'e',
  kReduce = 'R', kBuild = 'b', kNewObj = 0x81,
  kBinPut = 'q', kLongBinPut = 'r', kBinGet = 'h', kLongBinGet = 'j',
};

// Names of opcodes we reject, so the error says what the file used.
struct ForeignOp {
  uint8_t op;
  absl::string_view name;
};
constexpr ForeignOp kForeignOps[] = {
    {'B', "BINBYTES (protocol 3)"},     {'C', "SHORT_BINBYTES (protocol 3)"},
    {0x8c, "SHORT_BINUNICODE (proto 4)"}, {0x93, "STACK_GLOBAL (protocol 4)"},
    {0x94, "MEMOIZE (protocol 4)"},     {0x95, "FRAME (protocol 4)"},
    {'i', "INST"},    {'o', "OBJ"},     {'l', "LIST"},    {'d', "DICT"},
    {'I', "INT"},     {'L', "LONG"},    {'F', "FLOAT"},   {'S', "STRING"},
    {'V', "UNICODE"}, {'P', "PERSID"},  {'g', "GET"},     {'p', "PUT"},
    {'0', "POP"},     {'1', "POP_MARK"}, {'2', "DUP"},
};

absl::string_view ForeignOpName(uint8_t op) {
  for (const ForeignOp& f : kForeignOps) {
    if (f.op == op) return f.name;
  }
  return "";
}

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
  return absl::InvalidArgumentError(
      absl::StrCat("pickle global '", module, ".", name,
                   "' is not allowed; pt2onnx only loads tensors and "
                   "containers"));
}

// The unpickling machine: a value stack, MARK positions and the memo, all
// holding ids into `values_`. ReadPickle is its only user.
class Unpickler {
 public:
  Unpickler(ByteSpan data, const PickleLimits& limits)
      : data_(data), limits_(limits) {}

  absl::StatusOr<PickleId> Run();
  std::vector<PickleValue> TakeValues() { return std::move(values_); }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "pickle opcode 0x", absl::Hex(op_, absl::kZeroPad2), " at offset ",
        op_pos_, ": ", what));
  }
  absl::Status Need(size_t n) const;
  uint64_t ReadLe(size_t n);  // after Need(n)
  absl::StatusOr<std::string> ReadLine();

  // New adds a value to the arena; Push also puts it on the stack.
  absl::StatusOr<PickleId> New(PickleValue value);
  absl::StatusOr<PickleId> Push(PickleValue value);
  absl::StatusOr<PickleId> Pop();
  // Top is the last value above the innermost MARK (Python's unpickler
  // starts a fresh stack at each MARK, so nothing below it is reachable).
  absl::StatusOr<PickleId> Top(absl::string_view what) const;
  absl::StatusOr<std::vector<PickleId>> PopMark();
  PickleValue& V(PickleId id) { return values_[id]; }

  absl::Status Step(uint8_t op, bool& stop);
  absl::Status OnGlobal();
  absl::Status OnPersistentId();
  absl::Status OnCall();  // REDUCE and NEWOBJ
  // SETITEM(S) into the dict / APPEND(S) into the list below the items.
  absl::Status OnAddItems(PickleKind target, bool many);
  absl::Status OnLong1();

  absl::StatusOr<PickleId> Call(PickleId callable, PickleId args);
  absl::StatusOr<PickleId> RebuildTensor(const std::vector<PickleId>& args,
                                         bool v3);
  absl::StatusOr<PickleId> RebuildParameter(const std::vector<PickleId>& args);
  absl::StatusOr<PickleId> RebuildFromType(const std::vector<PickleId>& args);
  absl::StatusOr<std::vector<int64_t>> IntTuple(PickleId id,
                                                absl::string_view what);
  absl::StatusOr<int64_t> Int(PickleId id, absl::string_view what);
  absl::Status Expect(PickleId id, PickleKind kind, absl::string_view what);

  ByteSpan data_;
  PickleLimits limits_;
  size_t pos_ = 0;
  size_t op_pos_ = 0;
  uint8_t op_ = 0;
  std::vector<PickleValue> values_;
  std::vector<PickleId> stack_;
  std::vector<size_t> marks_;
  absl::flat_hash_map<uint32_t, PickleId> memo_;
};

absl::Status Unpickler::Need(size_t n) const {
  if (n > data_.size() - pos_) {
    return Error(absl::StrCat("pickle truncated: needs ", n,
                              " more bytes, has ", data_.size() - pos_));
  }
  return absl::OkStatus();
}

uint64_t Unpickler::ReadLe(size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{data_[pos_ + i]} << (8 * i);
  pos_ += n;
  return v;
}

absl::StatusOr<std::string> Unpickler::ReadLine() {
  constexpr size_t kMaxLine = 256;  // longest torch module path is ~40
  for (size_t i = pos_; i < data_.size() && i - pos_ <= kMaxLine; ++i) {
    if (data_[i] == '\n') {
      std::string line(AsStringView(data_.subspan(pos_, i - pos_)));
      pos_ = i + 1;
      return line;
    }
  }
  return Error("pickle truncated or corrupt: GLOBAL name has no newline");
}

absl::StatusOr<PickleId> Unpickler::New(PickleValue value) {
  if (values_.size() >= limits_.max_values) {
    return Error(absl::StrCat("more than ", limits_.max_values,
                              " values; refusing an oversized pickle"));
  }
  values_.push_back(std::move(value));
  return static_cast<PickleId>(values_.size() - 1);
}

absl::StatusOr<PickleId> Unpickler::Push(PickleValue value) {
  PT2ONNX_ASSIGN_OR_RETURN(PickleId id, New(std::move(value)));
  stack_.push_back(id);
  return id;
}

absl::StatusOr<PickleId> Unpickler::Top(absl::string_view what) const {
  const size_t floor = marks_.empty() ? 0 : marks_.back();
  if (stack_.size() <= floor) return Error(absl::StrCat(what, ": empty stack"));
  return stack_.back();
}

absl::StatusOr<PickleId> Unpickler::Pop() {
  PT2ONNX_ASSIGN_OR_RETURN(PickleId id, Top("stack underflow"));
  stack_.pop_back();
  return id;
}

absl::StatusOr<std::vector<PickleId>> Unpickler::PopMark() {
  if (marks_.empty()) return Error("no MARK to pop to");
  std::vector<PickleId> items(stack_.begin() + marks_.back(), stack_.end());
  stack_.resize(marks_.back());
  marks_.pop_back();
  return items;
}

absl::StatusOr<PickleId> Unpickler::Run() {
  bool stop = false;
  while (!stop) {
    if (pos_ >= data_.size()) {
      op_pos_ = pos_;
      return absl::InvalidArgumentError(absl::StrCat(
          "pickle truncated: ends at offset ", pos_, " without STOP"));
    }
    op_pos_ = pos_;
    op_ = data_[pos_++];
    PT2ONNX_RETURN_IF_ERROR(Step(op_, stop));
  }
  return Top("STOP");
}

absl::Status Unpickler::Step(uint8_t op, bool& stop) {
  PickleValue v;
  switch (op) {
    case kProto: {
      PT2ONNX_RETURN_IF_ERROR(Need(1));
      const uint64_t proto = ReadLe(1);
      if (proto < 2 || proto > 5) {
        return Error(absl::StrCat("unsupported pickle protocol ", proto));
      }
      return absl::OkStatus();
    }
    case kStop:
      stop = true;
      return absl::OkStatus();
    case kMark:
      if (marks_.size() >= limits_.max_mark_depth) {
        return Error(absl::StrCat("MARK nesting deeper than ",
                                  limits_.max_mark_depth));
      }
      marks_.push_back(stack_.size());
      return absl::OkStatus();
    case kNone:
      return Push(std::move(v)).status();
    case kNewTrue:
    case kNewFalse:
      v.kind = PickleKind::kBool;
      v.bool_value = op == kNewTrue;
      return Push(std::move(v)).status();
    case kBinInt:
    case kBinInt1:
    case kBinInt2: {
      const size_t n = op == kBinInt ? 4 : op == kBinInt1 ? 1 : 2;
      PT2ONNX_RETURN_IF_ERROR(Need(n));
      const uint64_t raw = ReadLe(n);
      v.kind = PickleKind::kInt;
      v.int_value = op == kBinInt
                        ? static_cast<int64_t>(static_cast<int32_t>(raw))
                        : static_cast<int64_t>(raw);
      return Push(std::move(v)).status();
    }
    case kLong1:
      return OnLong1();
    case kBinFloat: {
      PT2ONNX_RETURN_IF_ERROR(Need(8));
      uint64_t bits = 0;  // big-endian, unlike every other field
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | data_[pos_ + i];
      pos_ += 8;
      v.kind = PickleKind::kFloat;
      std::memcpy(&v.float_value, &bits, sizeof(bits));
      return Push(std::move(v)).status();
    }
    case kBinUnicode:
    case kShortBinString:
    case kBinString: {
      const size_t n_len = op == kShortBinString ? 1 : 4;
      PT2ONNX_RETURN_IF_ERROR(Need(n_len));
      uint64_t len = ReadLe(n_len);
      if (op == kBinString && static_cast<int32_t>(len) < 0) {
        return Error("negative BINSTRING length");
      }
      PT2ONNX_RETURN_IF_ERROR(Need(len));
      v.kind = PickleKind::kString;
      v.text.assign(AsStringView(data_.subspan(pos_, len)));
      pos_ += len;
      return Push(std::move(v)).status();
    }
    case kEmptyTuple:
    case kEmptyList:
    case kEmptyDict:
    case kEmptySet:
      v.kind = op == kEmptyTuple  ? PickleKind::kTuple
               : op == kEmptyList ? PickleKind::kList
               : op == kEmptyDict ? PickleKind::kDict
                                  : PickleKind::kSet;
      return Push(std::move(v)).status();
    case kTuple: {
      PT2ONNX_ASSIGN_OR_RETURN(v.items, PopMark());
      v.kind = PickleKind::kTuple;
      return Push(std::move(v)).status();
    }
    case kTuple1:
    case kTuple2:
    case kTuple3: {
      const size_t n = op - kTuple1 + 1;
      v.kind = PickleKind::kTuple;
      v.items.resize(n);
      for (size_t i = n; i-- > 0;) {
        PT2ONNX_ASSIGN_OR_RETURN(v.items[i], Pop());
      }
      return Push(std::move(v)).status();
    }
    case kGlobal:
      return OnGlobal();
    case kBinPersId:
      return OnPersistentId();
    case kReduce:
    case kNewObj:
      return OnCall();
    case kBuild: {
      // BUILD sets state on the object below it. torch uses it for an
      // OrderedDict's _metadata and tensors' Python attributes, neither of
      // which affects the weights, so the state is checked and dropped.
      PT2ONNX_RETURN_IF_ERROR(Pop().status());
      PT2ONNX_ASSIGN_OR_RETURN(PickleId obj, Pop());
      const PickleKind kind = V(obj).kind;
      if (kind != PickleKind::kDict && kind != PickleKind::kTensor &&
          kind != PickleKind::kObject) {
        return Error(absl::StrCat("BUILD on a ", PickleKindName(kind)));
      }
      stack_.push_back(obj);
      return absl::OkStatus();
    }
    case kSetItem:
    case kSetItems:
      return OnAddItems(PickleKind::kDict, op == kSetItems);
    case kAppend:
    case kAppends:
      return OnAddItems(PickleKind::kList, op == kAppends);
    case kBinPut:
    case kLongBinPut: {
      const size_t n = op == kBinPut ? 1 : 4;
      PT2ONNX_RETURN_IF_ERROR(Need(n));
      const uint32_t key = static_cast<uint32_t>(ReadLe(n));
      PT2ONNX_ASSIGN_OR_RETURN(PickleId top, Top("BINPUT"));
      if (memo_.size() >= limits_.max_memo_entries && !memo_.contains(key)) {
        return Error(absl::StrCat("memo holds more than ",
                                  limits_.max_memo_entries, " entries"));
      }
      memo_[key] = top;
      return absl::OkStatus();
    }
    case kBinGet:
    case kLongBinGet: {
      const size_t n = op == kBinGet ? 1 : 4;
      PT2ONNX_RETURN_IF_ERROR(Need(n));
      const uint32_t key = static_cast<uint32_t>(ReadLe(n));
      auto it = memo_.find(key);
      if (it == memo_.end()) {
        return Error(absl::StrCat("memo key ", key, " was never stored"));
      }
      stack_.push_back(it->second);
      return absl::OkStatus();
    }
    default: {
      const absl::string_view name = ForeignOpName(op);
      return Error(absl::StrCat(
          "unsupported opcode", name.empty() ? "" : " ", name,
          "; torch.save writes protocol-2 pickles with a small opcode set"));
    }
  }
}

absl::Status Unpickler::OnLong1() {
  PT2ONNX_RETURN_IF_ERROR(Need(1));
  const size_t n = ReadLe(1);
  PT2ONNX_RETURN_IF_ERROR(Need(n));
  if (n > 8) return Error("LONG1 integer wider than 64 bits");
  uint64_t raw = ReadLe(n);
  if (n > 0 && n < 8 && (raw >> (8 * n - 1)) & 1) {
    raw |= ~uint64_t{0} << (8 * n);  // sign-extend two's complement
  }
  PickleValue v;
  v.kind = PickleKind::kInt;
  v.int_value = static_cast<int64_t>(raw);
  return Push(std::move(v)).status();
}

absl::Status Unpickler::OnGlobal() {
  PT2ONNX_ASSIGN_OR_RETURN(std::string module, ReadLine());
  PT2ONNX_ASSIGN_OR_RETURN(std::string name, ReadLine());
  absl::StatusOr<Callable> call = LookupGlobal(module, name);
  if (!call.ok()) {
    return absl::Status(call.status().code(),
                        absl::StrCat(call.status().message(), " (offset ",
                                     op_pos_, ")"));
  }
  PickleValue v;
  v.kind = PickleKind::kGlobal;
  v.text = absl::StrCat(module, ".", name);
  return Push(std::move(v)).status();
}

absl::Status Unpickler::OnPersistentId() {
  PT2ONNX_ASSIGN_OR_RETURN(PickleId pid, Pop());
  const PickleValue& t = V(pid);
  if (t.kind != PickleKind::kTuple || t.items.size() != 5 ||
      V(t.items[0]).kind != PickleKind::kString ||
      V(t.items[0]).text != "storage") {
    return Error(
        "persistent id is not a ('storage', class, key, location, numel) "
        "tuple");
  }
  const std::vector<PickleId> items = t.items;
  const PickleValue& cls = V(items[1]);
  if (cls.kind != PickleKind::kGlobal) {
    return Error("persistent id storage class is not a global");
  }
  PickleStorage storage;
  if (cls.text == "torch.UntypedStorage") {
    storage.dtype = DataType::kUint8;
    storage.untyped = true;
  } else {
    absl::string_view name = cls.text;
    if (!absl::ConsumePrefix(&name, "torch.")) {
      return Error(absl::StrCat("'", cls.text, "' is not a storage class"));
    }
    absl::StatusOr<DataType> dtype = FromTorchStorageName(name);
    if (!dtype.ok()) return Error(dtype.status().message());
    storage.dtype = *dtype;
  }
  PT2ONNX_RETURN_IF_ERROR(Expect(items[2], PickleKind::kString, "storage key"));
  PT2ONNX_RETURN_IF_ERROR(
      Expect(items[3], PickleKind::kString, "storage location"));
  storage.key = V(items[2]).text;
  storage.location = V(items[3]).text;
  PT2ONNX_ASSIGN_OR_RETURN(storage.numel, Int(items[4], "storage numel"));
  if (storage.numel < 0) return Error("negative storage numel");
  PickleValue v;
  v.kind = PickleKind::kStorage;
  v.storage = std::make_shared<const PickleStorage>(std::move(storage));
  return Push(std::move(v)).status();
}

absl::Status Unpickler::OnCall() {
  PT2ONNX_ASSIGN_OR_RETURN(PickleId args, Pop());
  PT2ONNX_ASSIGN_OR_RETURN(PickleId callable, Pop());
  PT2ONNX_ASSIGN_OR_RETURN(PickleId result, Call(callable, args));
  stack_.push_back(result);
  return absl::OkStatus();
}

absl::Status Unpickler::OnAddItems(PickleKind target, bool many) {
  const bool dict = target == PickleKind::kDict;
  std::vector<PickleId> items;
  if (many) {
    PT2ONNX_ASSIGN_OR_RETURN(items, PopMark());
    if (dict && items.size() % 2 != 0) {
      return Error("SETITEMS with an odd item count");
    }
  } else {
    items.resize(dict ? 2 : 1);
    for (size_t i = items.size(); i-- > 0;) {
      PT2ONNX_ASSIGN_OR_RETURN(items[i], Pop());
    }
  }
  PT2ONNX_ASSIGN_OR_RETURN(PickleId target_id,
                           Top(dict ? "SETITEM" : "APPEND"));
  PickleValue& container = V(target_id);
  if (container.kind != target) {
    return Error(absl::StrCat(dict ? "SETITEM" : "APPEND", " on a ",
                              PickleKindName(container.kind)));
  }
  container.items.insert(container.items.end(), items.begin(), items.end());
  return absl::OkStatus();
}

absl::Status Unpickler::Expect(PickleId id, PickleKind kind,
                               absl::string_view what) {
  if (V(id).kind != kind) {
    return Error(absl::StrCat(what, " is a ", PickleKindName(V(id).kind),
                              ", expected ", PickleKindName(kind)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Unpickler::Int(PickleId id, absl::string_view what) {
  PT2ONNX_RETURN_IF_ERROR(Expect(id, PickleKind::kInt, what));
  return V(id).int_value;
}

absl::StatusOr<std::vector<int64_t>> Unpickler::IntTuple(
    PickleId id, absl::string_view what) {
  PT2ONNX_RETURN_IF_ERROR(Expect(id, PickleKind::kTuple, what));
  std::vector<int64_t> out;
  const std::vector<PickleId> items = V(id).items;
  for (PickleId item : items) {
    PT2ONNX_ASSIGN_OR_RETURN(int64_t x, Int(item, what));
    out.push_back(x);
  }
  return out;
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
  PickleValue v;
  v.kind = PickleKind::kTensor;
  v.tensor = std::move(tensor);
  return New(std::move(v));
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
  PickleValue v;
  v.kind = PickleKind::kTensor;
  v.tensor = std::move(tensor);
  return New(std::move(v));
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

}  // namespace

absl::string_view PickleKindName(PickleKind kind) {
  // Python's type names, indexed by PickleKind.
  constexpr absl::string_view kNames[] = {
      "None", "bool", "int",    "float",  "str",     "bytes",  "tuple",
      "list", "dict", "set",    "global", "storage", "tensor", "object"};
  const size_t i = static_cast<size_t>(kind);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "?";
}

std::string PickleDocument::DebugString(PickleId id, int max_depth) const {
  constexpr size_t kMaxShown = 16;  // elements per container in the text
  const PickleValue& v = at(id);
  auto join = [&](absl::string_view open, absl::string_view close) {
    if (max_depth <= 0) return absl::StrCat(open, "...", close);
    const size_t step = v.kind == PickleKind::kDict ? 2 : 1;
    std::vector<std::string> parts;
    for (size_t i = 0; i + step <= v.items.size(); i += step) {
      if (parts.size() == kMaxShown) {
        parts.push_back("...");
        break;
      }
      parts.push_back(DebugString(v.items[i], max_depth - 1));
      if (step == 2) {
        absl::StrAppend(&parts.back(), ": ",
                        DebugString(v.items[i + 1], max_depth - 1));
      }
    }
    if (v.kind == PickleKind::kTuple && parts.size() == 1) parts[0] += ",";
    return absl::StrCat(open, absl::StrJoin(parts, ", "), close);
  };
  switch (v.kind) {
    case PickleKind::kNone: return "None";
    case PickleKind::kBool: return v.bool_value ? "True" : "False";
    case PickleKind::kInt: return absl::StrCat(v.int_value);
    case PickleKind::kFloat: return absl::StrCat(v.float_value);
    case PickleKind::kString: return absl::StrCat("'", v.text, "'");
    case PickleKind::kBytes: return absl::StrCat("b<", v.text.size(), ">");
    case PickleKind::kTuple: return join("(", ")");
    case PickleKind::kList: return join("[", "]");
    case PickleKind::kSet: return join("{", "}");
    case PickleKind::kDict: return join("{", "}");
    case PickleKind::kObject: return join(absl::StrCat(v.text, "("), ")");
    case PickleKind::kGlobal: return v.text;
    case PickleKind::kStorage:
      return absl::StrCat("storage(", DataTypeName(v.storage->dtype), ", key='",
                          v.storage->key, "', numel=", v.storage->numel, ")");
    case PickleKind::kTensor: {
      const PickleTensor& t = *v.tensor;
      return absl::StrCat(t.is_param ? "parameter(" : "tensor(",
                          DataTypeName(t.dtype), ", sizes=[",
                          absl::StrJoin(t.sizes, ", "), "], strides=[",
                          absl::StrJoin(t.strides, ", "), "], offset=",
                          t.storage_offset, ", key='", t.storage.key, "')");
    }
  }
  return "?";
}

absl::StatusOr<PickleDocument> ReadPickle(ByteSpan data) {
  return ReadPickle(data, PickleLimits());
}

absl::StatusOr<PickleDocument> ReadPickle(ByteSpan data,
                                          const PickleLimits& limits) {
  Unpickler unpickler(data, limits);
  PT2ONNX_ASSIGN_OR_RETURN(PickleId root, unpickler.Run());
  PickleDocument doc;
  doc.values_ = unpickler.TakeValues();
  doc.root_ = root;
  return doc;
}

}  // namespace pt2onnx::pt2
