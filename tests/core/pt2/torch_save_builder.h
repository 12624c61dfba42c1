// File: tests/core/pt2/torch_save_builder.h
// -----------------------------------------------------------------------------
// Test helpers that assemble protocol-2 pickles opcode by opcode, laid out
// the way torch.save writes them (compare `python -m pickletools` on a real
// data.pkl), and wrap them in torch.save zips via ZipBuilder. Tests state
// the pickle they feed the reader instead of depending on binary fixtures.
//
//   PickleBuilder p;
//   p.EmptyDict().Mark().Str("w").Tensor({"FloatStorage", "0", 6}, 0, {2, 3},
//                                        {3, 1}).SetItems().Stop();
//   std::string file = TorchSaveZip(p.bytes(), {{"0", FloatBytes(...)}});
#ifndef PT2ONNX_TESTS_CORE_PT2_TORCH_SAVE_BUILDER_H_
#define PT2ONNX_TESTS_CORE_PT2_TORCH_SAVE_BUILDER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace pt2onnx::testutil {

struct StorageSpec {
  std::string storage_class;  // "FloatStorage", "UntypedStorage", ...
  std::string key;
  int64_t numel;
  std::string location = "cpu";
};

class PickleBuilder {
 public:
  PickleBuilder();  // starts with PROTO 2

  PickleBuilder& Raw(absl::string_view bytes);
  PickleBuilder& Op(uint8_t op);
  PickleBuilder& Mark() { return Op('('); }
  PickleBuilder& Stop() { return Op('.'); }
  PickleBuilder& None() { return Op('N'); }
  PickleBuilder& Bool(bool v) { return Op(v ? 0x88 : 0x89); }
  PickleBuilder& EmptyDict() { return Op('}'); }
  PickleBuilder& EmptyList() { return Op(']'); }
  PickleBuilder& EmptyTuple() { return Op(')'); }
  PickleBuilder& Tuple() { return Op('t'); }
  PickleBuilder& TupleN(int n) { return Op(static_cast<uint8_t>(0x84 + n)); }
  PickleBuilder& Reduce() { return Op('R'); }
  PickleBuilder& Build() { return Op('b'); }
  PickleBuilder& NewObj() { return Op(0x81); }
  PickleBuilder& SetItem() { return Op('s'); }
  PickleBuilder& SetItems() { return Op('u'); }
  PickleBuilder& Append() { return Op('a'); }
  PickleBuilder& Appends() { return Op('e'); }
  PickleBuilder& BinPersId() { return Op('Q'); }
  PickleBuilder& Str(absl::string_view s);  // BINUNICODE
  PickleBuilder& Int(int64_t v);  // smallest of BININT1/2, BININT, LONG1
  PickleBuilder& Float(double v);  // BINFLOAT
  PickleBuilder& Global(absl::string_view module, absl::string_view name);
  PickleBuilder& Put(uint32_t key);  // BINPUT or LONG_BINPUT
  PickleBuilder& Get(uint32_t key);  // BINGET or LONG_BINGET

  // torch's layouts:
  PickleBuilder& IntTuple(const std::vector<int64_t>& values);
  PickleBuilder& OrderedDict();  // collections.OrderedDict() via REDUCE
  PickleBuilder& Storage(const StorageSpec& s);  // ('storage', ...) BINPERSID
  // _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks)
  PickleBuilder& Tensor(const StorageSpec& s, int64_t offset,
                        const std::vector<int64_t>& sizes,
                        const std::vector<int64_t>& strides,
                        bool requires_grad = false);
  // _rebuild_parameter(<Tensor(...)>, requires_grad, OrderedDict())
  PickleBuilder& Parameter(const StorageSpec& s, int64_t offset,
                           const std::vector<int64_t>& sizes,
                           const std::vector<int64_t>& strides,
                           bool requires_grad = true);

  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

// A torch.save zip (PyTorchFileWriter layout under `root`) holding data.pkl,
// the usual bookkeeping records and data/<key> for each storage.
std::string TorchSaveZip(absl::string_view pickle,
                         const std::map<std::string, std::string>& storages,
                         absl::string_view root = "archive");

std::string FloatBytes(const std::vector<float>& values);
std::vector<float> ToFloats(absl::string_view bytes);

}  // namespace pt2onnx::testutil

#endif  // PT2ONNX_TESTS_CORE_PT2_TORCH_SAVE_BUILDER_H_
