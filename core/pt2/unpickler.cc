// The opcode interpreter of the Unpickler (unpickler.h): reads opcodes,
// maintains the stack, MARKs and memo within PickleLimits, and hands GLOBAL
// checks and calls to unpickler_calls.cc, persistent ids to
// unpickler_storage.cc.
#include "core/pt2/unpickler.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"

namespace pt2onnx::pt2::internal {
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

}  // namespace

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
  absl::Status allowed = CheckGlobal(module, name);
  if (!allowed.ok()) {
    return absl::Status(allowed.code(),
                        absl::StrCat(allowed.message(), " (offset ",
                                     op_pos_, ")"));
  }
  PickleValue v;
  v.kind = PickleKind::kGlobal;
  v.text = absl::StrCat(module, ".", name);
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

}  // namespace pt2onnx::pt2::internal
