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

#include <memory>
#include <mutex>
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

// Lookup by key ("aten::addmm.default"). A table built from texts parses
// them all at once; the default table (2,000+ generated schemas) parses an
// entry the first time it is looked up, because a conversion touches a few
// dozen of them and parsing all of them was a sixth of a small model's
// conversion time. Find is safe from several threads; what it returns lives
// as long as the table.
class SchemaTable {
 public:
  // The table generated from torch (see file banner), never modified
  // afterwards. The translator uses it unless TranslateOptions names
  // another table.
  static const SchemaTable& Default();
  // The generated schema texts Default() is made of.
  static std::vector<absl::string_view> DefaultTexts();

  // Entries that fail to parse are skipped and counted in num_rejected().
  explicit SchemaTable(const std::vector<absl::string_view>& texts);
  // nullptr when the operator is not in the table (custom ops, HOPs).
  const OpSchema* Find(absl::string_view key) const;
  // Entries known by key (for the default table: parsed or not yet).
  size_t size() const { return size_; }
  // Entries that failed to parse (for the default table: so far).
  size_t num_rejected() const;

 private:
  struct LazyTag {};
  SchemaTable(const std::vector<absl::string_view>& texts, LazyTag);
  // The schema under exactly `key`, parsed now if it was not yet.
  const OpSchema* FindExact(absl::string_view key) const;

  mutable std::mutex mutex_;
  // Parsed entries; nullptr for a text that failed to parse.
  mutable absl::flat_hash_map<std::string, std::unique_ptr<OpSchema>> parsed_;
  // Texts not parsed yet, by key (the default table's are static strings).
  mutable absl::flat_hash_map<std::string, absl::string_view> unparsed_;
  // In-place twins whose functional schema names its first tensor other than
  // `self` ("aten::dropout_.default": `self`, not dropout's `input`).
  mutable absl::flat_hash_map<std::string, std::unique_ptr<OpSchema>> renamed_in_place_;
  size_t size_ = 0;
  mutable size_t num_rejected_ = 0;
};

}  // namespace pt2onnx::aten

#endif  // PT2ONNX_CORE_ATEN_OP_SCHEMA_H_
