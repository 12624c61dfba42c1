// Symbolic size expressions (core/pt2/sym_expr.h): sympy srepr text (torch
// >= 2.6) rendered as the infix form torch prints, str() text kept as it is,
// free symbols in order of appearance. The text comes from the file, so
// malformed, deeply nested, huge or out-of-range text must give a result
// (the trimmed text at worst) in time linear in its length, never a crash.
#include "core/pt2/sym_expr.h"

#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace pt2onnx::pt2 {
namespace {

using Strings = std::vector<std::string>;

// As torch writes a symbol's assumptions.
std::string Sym(absl::string_view name) {
  return absl::StrCat("Symbol('", name, "', positive=True, integer=True)");
}

// ---- Parsing and rendering srepr ---------------------------------------------

TEST(SymExprToStringTest, SymbolIsItsName) {
  EXPECT_EQ(SymExprToString(Sym("s27")), "s27");
  EXPECT_EQ(SymExprToString("Symbol(\"u0\", integer=True)"), "u0");
  EXPECT_EQ(SymExprToString("Symbol('s0')"), "s0");
}

TEST(SymExprToStringTest, ProductsAndSumsAsTorchPrintsThem) {
  EXPECT_EQ(SymExprToString(absl::StrCat("Mul(Integer(2), ", Sym("s98"), ")")), "2*s98");
  EXPECT_EQ(SymExprToString(absl::StrCat("Add(", Sym("s0"), ", Integer(-1))")), "s0 + -1");
  // A sum inside a product is parenthesized; a product inside a sum is not.
  EXPECT_EQ(SymExprToString(absl::StrCat("Mul(Integer(2), Add(", Sym("s0"), ", Integer(1)))")),
            "2*(s0 + 1)");
  EXPECT_EQ(SymExprToString(absl::StrCat("Add(Mul(Integer(4), ", Sym("s1"), "), ", Sym("s2"), ")")),
            "4*s1 + s2");
}

TEST(SymExprToStringTest, PowersDivisionsAndOtherFunctions) {
  EXPECT_EQ(SymExprToString(absl::StrCat("Pow(", Sym("s0"), ", Integer(2))")), "s0**2");
  EXPECT_EQ(SymExprToString(absl::StrCat("FloorDiv(", Sym("s0"), ", Integer(2))")), "((s0)//(2))");
  EXPECT_EQ(SymExprToString(absl::StrCat("CleanDiv(", Sym("s0"), ", Integer(4))")), "((s0)//(4))");
  EXPECT_EQ(SymExprToString("Rational(1, 2)"), "1/2");
  EXPECT_EQ(SymExprToString("Float(0.5)"), "0.5");
  EXPECT_EQ(SymExprToString(absl::StrCat("Max(", Sym("s0"), ", Integer(1))")), "Max(s0, 1)");
  EXPECT_EQ(SymExprToString(absl::StrCat("Mod(", Sym("s0"), ", Integer(8))")), "Mod(s0, 8)");
}

TEST(SymExprToStringTest, WhitespaceAroundTermsIsIgnored) {
  EXPECT_EQ(SymExprToString("  Mul( Integer( 2 ) ,Symbol( 's5' , integer = True ) )\n"), "2*s5");
}

TEST(SymExprToStringTest, StrFormIsKeptTrimmed) {
  EXPECT_EQ(SymExprToString("s0"), "s0");
  EXPECT_EQ(SymExprToString(" 2*s0 + 1 "), "2*s0 + 1");
  EXPECT_EQ(SymExprToString("17"), "17");
  EXPECT_EQ(SymExprToString(""), "");
}

// ---- Free symbols ---------------------------------------------------------------

TEST(SymExprSymbolsTest, SreprSymbolsOnceInOrderOfAppearance) {
  EXPECT_EQ(SymExprSymbols(absl::StrCat("Add(Mul(", Sym("s54"), ", ", Sym("s27"), "), ", Sym("s54"),
                                        ")")),
            (Strings{"s54", "s27"}));
  EXPECT_EQ(SymExprSymbols("Integer(3)"), Strings{});
  // Assumption keywords and function heads are not symbols.
  EXPECT_EQ(SymExprSymbols(absl::StrCat("FloorDiv(", Sym("u0"), ", Integer(2))")), Strings{"u0"});
}

TEST(SymExprSymbolsTest, StrFormIdentifiersThatAreNotCalls) {
  EXPECT_EQ(SymExprSymbols("2*s0 + s1 - s0"), (Strings{"s0", "s1"}));
  EXPECT_EQ(SymExprSymbols("Max(s3, u1) // 2"), (Strings{"s3", "u1"}));
  EXPECT_EQ(SymExprSymbols("floor (s2)"), Strings{"s2"});
  EXPECT_EQ(SymExprSymbols("42"), Strings{});
  EXPECT_EQ(SymExprSymbols(""), Strings{});
}

// ---- Malformed and hostile text --------------------------------------------------

TEST(SymExprHostileTest, MalformedSreprIsReturnedTrimmed) {
  for (const char* text : {"Mul(Integer(2), Symbol('s0')", "Mul(Integer(2)) extra", "Symbol('s0",
                           "Mul(,)", "Add(Integer(1)", "(((", ")", "Mul(Integer(2), =)",
                           "Symbol('s0', integer=)", "Mul(Integer(2), ())"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(SymExprToString(text), text);
  }
  EXPECT_EQ(SymExprToString("  Mul(Integer(2)  "), "Mul(Integer(2)");
}

TEST(SymExprHostileTest, MalformedShapesStillRender) {
  // Well-formed terms with the wrong number of arguments: no indexing past them.
  EXPECT_EQ(SymExprToString("Symbol()"), "?");
  EXPECT_EQ(SymExprToString("Integer()"), "Integer()");
  EXPECT_EQ(SymExprToString("Rational(1)"), "Rational(1)");
  EXPECT_EQ(SymExprToString("Pow(Integer(2))"), "Pow(2)");
  EXPECT_EQ(SymExprToString("FloorDiv(Integer(2), Integer(3), Integer(4))"), "FloorDiv(2, 3, 4)");
  EXPECT_EQ(SymExprSymbols("Symbol()"), Strings{});
}

TEST(SymExprHostileTest, UnterminatedSymbolInSreprFallsBackToIdentifiers) {
  // Not parseable as srepr: the identifiers of the text, as for str() text.
  EXPECT_EQ(SymExprSymbols("Mul(Symbol('s0'"), (Strings{"s0"}));
}

TEST(SymExprHostileTest, DeepNestingIsRefusedWithoutRecursingFurther) {
  // 64 levels are torch's worst case many times over; 100000 would overflow
  // the stack of a parser without a depth limit.
  std::string shallow = "Symbol('s0')";
  for (int i = 0; i < 60; ++i) shallow = absl::StrCat("Max(", shallow, ")");
  EXPECT_EQ(SymExprSymbols(shallow), Strings{"s0"});
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "Max(";
  deep += "Symbol('s0')";
  for (int i = 0; i < 100000; ++i) deep += ")";
  EXPECT_EQ(SymExprToString(deep), deep);
  // Read as str() text: identifiers that are not calls.
  EXPECT_EQ(SymExprSymbols(deep), Strings{"s0"});
}

TEST(SymExprHostileTest, NumbersBeyondInt64AreTextNotArithmetic) {
  // Literals are rendered, never converted: no overflow, no rounding.
  EXPECT_EQ(SymExprToString(absl::StrCat("Mul(Integer(99999999999999999999999999), ", Sym("s0"), ")")),
            "99999999999999999999999999*s0");
  EXPECT_EQ(SymExprToString("Add(Integer(-9223372036854775808), Integer(-1))"),
            "-9223372036854775808 + -1");
  EXPECT_EQ(SymExprToString("Float(1e999)"), "1e999");
  EXPECT_EQ(SymExprSymbols("Integer(18446744073709551616)"), Strings{});
}

TEST(SymExprHostileTest, LongArgumentListsTakeLinearTime) {
  // 200000 arguments with no '=' anywhere: each argument must not rescan the
  // rest of the text for a keyword (quadratic: minutes at this size).
  std::string sum = "Add(";
  for (int i = 0; i < 200000; ++i) absl::StrAppend(&sum, i == 0 ? "" : ", ", "Integer(1)");
  sum += ")";
  const auto start = std::chrono::steady_clock::now();
  const std::string rendered = SymExprToString(sum);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(rendered.size(), 200000 * 4 - 3);  // "1 + 1 + ... + 1"
  EXPECT_LT(seconds, 5.0);
}

TEST(SymExprHostileTest, ManySymbolsAreListedOnce) {
  std::string product = "Mul(";
  for (int i = 0; i < 20000; ++i) {
    absl::StrAppend(&product, i == 0 ? "" : ", ", Sym(absl::StrCat("s", i % 1000)));
  }
  product += ")";
  Strings symbols = SymExprSymbols(product);
  ASSERT_EQ(symbols.size(), 1000u);
  EXPECT_EQ(symbols.front(), "s0");
  EXPECT_EQ(symbols.back(), "s999");
}

TEST(SymExprHostileTest, ControlAndNonAsciiBytesDoNotCrash) {
  std::string name = "s";
  name.push_back('\0');
  name.push_back('\xff');
  EXPECT_EQ(SymExprToString(absl::StrCat("Mul(Integer(2), Symbol('", name, "'))")),
            absl::StrCat("2*", name));
  std::string noise;
  for (int c = 0; c < 256; ++c) noise.push_back(static_cast<char>(c));
  for (const std::string& text : {noise, absl::StrCat("Symbol(", noise, ")"),
                                  absl::StrCat("Add(", noise, ", ", noise, ")")}) {
    SymExprToString(text);
    SymExprSymbols(text);
  }
}

}  // namespace
}  // namespace pt2onnx::pt2
