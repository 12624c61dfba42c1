// File: core/aten/op_schema.h
// -----------------------------------------------------------------------------
// ATen operator schemas, as torch prints them:
//   "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
// A .pt2 omits every argument left at its default (a real file's
// aten.leaky_relu.default carries only `self`), so the translator fills them
// from these schemas. The table is generated from torch's own registry by
// tools/gen_aten_schemas.py (core/aten/aten_schemas.inc), never hand-typed.
#ifndef PT2ONNX_CORE_ATEN_OP_SCHEMA_H_
#define PT2ONNX_CORE_ATEN_OP_SCHEMA_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/pt2/schema.h"

namespace pt2onnx::aten {

struct SchemaArgument {
  std::string name;
  std::string type;           // as written: "Tensor?", "int[2]", "SymInt[]", ...
  bool kwarg_only = false;
  // The default as a serialized-style Argument (kNone for "=None"), or
  // nullopt when the argument is required.
  std::optional<pt2::Argument> default_value;
};

struct OpSchema {
  std::string name;      // "aten::add"
  std::string overload;  // "Tensor"; "default" for the unnamed overload
  std::vector<SchemaArgument> arguments;
  int num_returns = 0;

  const SchemaArgument* FindArgument(absl::string_view arg_name) const;
  // Registry key form: "aten::add.Tensor", "aten::addmm.default".
  std::string Key() const;
};

// Parses one schema string. InvalidArgument names the text on failure.
absl::StatusOr<OpSchema> ParseOpSchema(absl::string_view text);

// Immutable lookup by key ("aten::addmm.default").
class SchemaTable {
 public:
  // The table generated from torch (see file banner), parsed once on first
  // use and never modified afterwards. The translator uses it unless
  // TranslateOptions names another table.
  static const SchemaTable& Default();

  // Entries that fail to parse are skipped and counted in num_rejected().
  explicit SchemaTable(const std::vector<absl::string_view>& texts);
  // nullptr when the operator is not in the table (custom ops, HOPs).
  const OpSchema* Find(absl::string_view key) const;
  size_t size() const { return schemas_.size(); }
  size_t num_rejected() const { return num_rejected_; }

 private:
  absl::flat_hash_map<std::string, OpSchema> schemas_;
  // In-place twins whose functional schema names its first tensor other than
  // `self` ("aten::dropout_.default": `self`, not dropout's `input`).
  absl::flat_hash_map<std::string, OpSchema> renamed_in_place_;
  size_t num_rejected_ = 0;
};

}  // namespace pt2onnx::aten

#endif  // PT2ONNX_CORE_ATEN_OP_SCHEMA_H_
