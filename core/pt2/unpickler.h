// File: core/pt2/unpickler.h
// -----------------------------------------------------------------------------
// Internal to //core/pt2:storage (listed in its srcs, not hdrs): the
// unpickling machine behind ReadPickle (pickle_reader.h). Its definitions are
// split by what changes independently:
//   - unpickler.cc: the opcode interpreter (stack, MARKs, memo, limits) —
//     follows the pickle protocol;
//   - unpickler_calls.cc: the GLOBAL allow-list and what each allowed
//     callable builds (tensor/parameter rebuilds, containers, bytes) —
//     follows torch's serialization code.
//
//   Unpickler unpickler(data, limits);
//   PT2ONNX_ASSIGN_OR_RETURN(PickleId root, unpickler.Run());
//   std::vector<PickleValue> values = unpickler.TakeValues();
//
// Lifetimes: `data` must outlive the Unpickler; values own their strings.
#ifndef PT2ONNX_CORE_PT2_UNPICKLER_H_
#define PT2ONNX_CORE_PT2_UNPICKLER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/bytes.h"
#include "core/pt2/pickle_reader.h"

namespace pt2onnx::pt2::internal {

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

  // Allow-listed globals and the callables torch pickles (defined in
  // unpickler_calls.cc). CheckGlobal rejects a GLOBAL outside the allow-list
  // when it is loaded; Call runs REDUCE/NEWOBJ of an allowed one.
  absl::Status CheckGlobal(absl::string_view module,
                           absl::string_view name) const;
  absl::StatusOr<PickleId> Call(PickleId callable, PickleId args);
  // A kTensor value holding `tensor` (the rebuilds' common result).
  absl::StatusOr<PickleId> NewTensor(
      std::shared_ptr<const PickleTensor> tensor);
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

}  // namespace pt2onnx::pt2::internal

#endif  // PT2ONNX_CORE_PT2_UNPICKLER_H_
