// ParseOpSchema on schema strings as torch prints them, and the generated
// default table (core/aten/aten_schemas.inc).
#include "core/aten/op_schema.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "core/pt2/schema.h"
#include "gtest/gtest.h"

namespace pt2onnx::aten {
namespace {

using Kind = pt2::Argument::Kind;

TEST(ParseOpSchemaTest, AddTensorWithKwargOnlyAlpha) {
  absl::StatusOr<OpSchema> s =
      ParseOpSchema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->name, "aten::add");
  EXPECT_EQ(s->overload, "Tensor");
  EXPECT_EQ(s->Key(), "aten::add.Tensor");
  EXPECT_EQ(s->num_returns, 1);
  ASSERT_EQ(s->arguments.size(), 3u);
  EXPECT_EQ(s->arguments[0].name, "self");
  EXPECT_EQ(s->arguments[0].type, "Tensor");
  EXPECT_FALSE(s->arguments[0].kwarg_only);
  EXPECT_FALSE(s->arguments[0].default_value.has_value());
  EXPECT_FALSE(s->arguments[1].kwarg_only);
  const SchemaArgument* alpha = s->FindArgument("alpha");
  ASSERT_NE(alpha, nullptr);
  EXPECT_EQ(alpha->type, "Scalar");
  EXPECT_TRUE(alpha->kwarg_only);
  ASSERT_TRUE(alpha->default_value.has_value());
  EXPECT_EQ(alpha->default_value->kind, Kind::kInt);
  EXPECT_EQ(alpha->default_value->i, 1);
  EXPECT_EQ(s->FindArgument("beta"), nullptr);
}

TEST(ParseOpSchemaTest, MaxPool2dListDefaults) {
  absl::StatusOr<OpSchema> s = ParseOpSchema(
      "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
      "int[2] dilation=1, bool ceil_mode=False) -> Tensor");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->overload, "default");
  EXPECT_EQ(s->Key(), "aten::max_pool2d.default");
  ASSERT_EQ(s->arguments.size(), 6u);
  EXPECT_EQ(s->arguments[1].type, "int[2]");
  EXPECT_FALSE(s->arguments[1].default_value.has_value());

  const SchemaArgument* stride = s->FindArgument("stride");
  ASSERT_NE(stride, nullptr);
  ASSERT_TRUE(stride->default_value.has_value());
  EXPECT_EQ(stride->default_value->kind, Kind::kInts);
  EXPECT_TRUE(stride->default_value->ints.empty());

  // A scalar default of an int[N] argument is broadcast to N entries.
  const SchemaArgument* padding = s->FindArgument("padding");
  ASSERT_NE(padding, nullptr);
  ASSERT_TRUE(padding->default_value.has_value());
  EXPECT_EQ(padding->default_value->kind, Kind::kInts);
  EXPECT_EQ(padding->default_value->ints, (std::vector<int64_t>{0, 0}));
  const SchemaArgument* dilation = s->FindArgument("dilation");
  ASSERT_NE(dilation, nullptr);
  ASSERT_TRUE(dilation->default_value.has_value());
  EXPECT_EQ(dilation->default_value->ints, (std::vector<int64_t>{1, 1}));

  const SchemaArgument* ceil = s->FindArgument("ceil_mode");
  ASSERT_NE(ceil, nullptr);
  ASSERT_TRUE(ceil->default_value.has_value());
  EXPECT_EQ(ceil->default_value->kind, Kind::kBool);
  EXPECT_FALSE(ceil->default_value->b);
}

TEST(ParseOpSchemaTest, SplitReturnsTensorList) {
  absl::StatusOr<OpSchema> s = ParseOpSchema(
      "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->Key(), "aten::split.Tensor");
  EXPECT_EQ(s->num_returns, 1);
  ASSERT_EQ(s->arguments.size(), 3u);
  EXPECT_EQ(s->arguments[0].name, "self");
  EXPECT_EQ(s->arguments[1].name, "split_size");
  const SchemaArgument* dim = s->FindArgument("dim");
  ASSERT_NE(dim, nullptr);
  ASSERT_TRUE(dim->default_value.has_value());
  EXPECT_EQ(dim->default_value->kind, Kind::kInt);
  EXPECT_EQ(dim->default_value->i, 0);
}

TEST(ParseOpSchemaTest, MultipleReturns) {
  absl::StatusOr<OpSchema> s = ParseOpSchema(
      "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->Key(), "aten::max.dim");
  EXPECT_EQ(s->num_returns, 2);
  ASSERT_EQ(s->arguments.size(), 3u);
  EXPECT_EQ(s->arguments[2].name, "keepdim");
}

TEST(ParseOpSchemaTest, StringAndNoneDefaults) {
  absl::StatusOr<OpSchema> s =
      ParseOpSchema("aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor");
  ASSERT_TRUE(s.ok()) << s.status();
  const SchemaArgument* approximate = s->FindArgument("approximate");
  ASSERT_NE(approximate, nullptr);
  EXPECT_TRUE(approximate->kwarg_only);
  ASSERT_TRUE(approximate->default_value.has_value());
  EXPECT_EQ(approximate->default_value->kind, Kind::kString);
  EXPECT_EQ(approximate->default_value->s, "none");

  absl::StatusOr<OpSchema> sum = ParseOpSchema(
      "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
      "ScalarType? dtype=None) -> Tensor");
  ASSERT_TRUE(sum.ok()) << sum.status();
  const SchemaArgument* dtype = sum->FindArgument("dtype");
  ASSERT_NE(dtype, nullptr);
  EXPECT_EQ(dtype->type, "ScalarType?");
  ASSERT_TRUE(dtype->default_value.has_value());
  EXPECT_EQ(dtype->default_value->kind, Kind::kNone);
  EXPECT_FALSE(sum->FindArgument("dim")->default_value.has_value());
}

// torch schemas may end in a vararg "..." (aten::einsum.sublist, aten::format,
// aten::has_torch_function, aten::percentFormat in aten_schemas.inc).
TEST(ParseOpSchemaTest, VarargSchema) {
  absl::StatusOr<OpSchema> s = ParseOpSchema("aten::format(str self, ...) -> str");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->Key(), "aten::format.default");
  ASSERT_NE(s->FindArgument("self"), nullptr);
  EXPECT_EQ(s->num_returns, 1);
}

TEST(ParseOpSchemaTest, MalformedTextIsInvalidArgument) {
  absl::StatusOr<OpSchema> s = ParseOpSchema("aten::broken(Tensor self");
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << s.status();
  EXPECT_TRUE(absl::StrContains(s.status().message(), "aten::broken")) << s.status();
}

TEST(SchemaTableTest, DefaultTable) {
  const SchemaTable& table = SchemaTable::Default();
  EXPECT_GT(table.size(), 2000u);
  EXPECT_EQ(&table, &SchemaTable::Default());
  // The default table parses an entry when it is first looked up: every
  // generated text must parse, under the key the lazy table indexed it by.
  SchemaTable parsed_now(SchemaTable::DefaultTexts());
  EXPECT_EQ(parsed_now.num_rejected(), 0u);
  EXPECT_EQ(parsed_now.size(), table.size());
  for (absl::string_view text : SchemaTable::DefaultTexts()) {
    absl::StatusOr<OpSchema> schema = ParseOpSchema(text);
    ASSERT_TRUE(schema.ok()) << schema.status();
    const OpSchema* found = table.Find(schema->Key());
    ASSERT_NE(found, nullptr) << schema->Key();
    EXPECT_EQ(found->arguments.size(), schema->arguments.size()) << schema->Key();
  }
  EXPECT_EQ(table.num_rejected(), 0u);

  const OpSchema* addmm = table.Find("aten::addmm.default");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->name, "aten::addmm");
  const SchemaArgument* beta = addmm->FindArgument("beta");
  ASSERT_NE(beta, nullptr);
  EXPECT_TRUE(beta->kwarg_only);
  ASSERT_TRUE(beta->default_value.has_value());
  EXPECT_EQ(beta->default_value->i, 1);

  // In-place overloads resolve to the functional schema.
  const OpSchema* add_ = table.Find("aten::add_.Tensor");
  ASSERT_NE(add_, nullptr);
  ASSERT_NE(add_->FindArgument("alpha"), nullptr);
  EXPECT_TRUE(add_->FindArgument("alpha")->kwarg_only);

  EXPECT_EQ(table.Find("mylib::weird_op.default"), nullptr);
  EXPECT_EQ(table.Find("aten::no_such_op.default"), nullptr);
}

TEST(SchemaTableTest, RejectedEntriesAreCounted) {
  SchemaTable table({"aten::relu(Tensor self) -> Tensor", "not a schema",
                     "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"});
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.num_rejected(), 1u);
  EXPECT_NE(table.Find("aten::relu.default"), nullptr);
  EXPECT_NE(table.Find("aten::add.Tensor"), nullptr);
}


// In-place overloads name the mutated tensor `self` even where the functional
// twin says `input` (dropout), so argument checks accept real in-place nodes.
TEST(SchemaTableTest, InPlaceTwinNamesItsFirstTensorSelf) {
  const OpSchema* in_place = SchemaTable::Default().Find("aten::dropout_.default");
  ASSERT_NE(in_place, nullptr);
  EXPECT_EQ(in_place->arguments[0].name, "self");
  EXPECT_NE(in_place->FindArgument("train"), nullptr);
  const OpSchema* functional = SchemaTable::Default().Find("aten::dropout.default");
  ASSERT_NE(functional, nullptr);
  EXPECT_EQ(functional->arguments[0].name, "input");
  EXPECT_EQ(SchemaTable::Default().Find("aten::add_.Tensor"),
            SchemaTable::Default().Find("aten::add.Tensor"));
}

}  // namespace
}  // namespace pt2onnx::aten
