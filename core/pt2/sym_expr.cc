#include "core/pt2/sym_expr.h"

#include <cctype>
#include <memory>
#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace pt2onnx::pt2 {
namespace {

// srepr term: Head(arg, ..., key=value) | 'string' | number.
struct Term {
  std::string head;  // function name, or "" for a literal
  std::string literal;
  std::vector<Term> args;
};

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {}

  bool Parse(Term& out) {
    if (!ParseTerm(out, 0)) return false;
    SkipSpace();
    return pos_ == text_.size();
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool ParseTerm(Term& out, int depth) {
    if (depth > 64) return false;
    SkipSpace();
    if (pos_ >= text_.size()) return false;
    char c = text_[pos_];
    if (c == '\'' || c == '"') {
      size_t end = text_.find(c, pos_ + 1);
      if (end == absl::string_view::npos) return false;
      out.literal = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
      return true;
    }
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
            text_[pos_] == '-' || text_[pos_] == '.')) {
      ++pos_;
    }
    if (pos_ == start) return false;
    std::string word(text_.substr(start, pos_ - start));
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      ++pos_;
      out.head = word;
      while (true) {
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ')') {
          ++pos_;
          return true;
        }
        // Keyword arguments (integer=True) carry assumptions only: skip them.
        // The search stops at the argument's end, so a long list is linear.
        size_t stop = text_.find_first_of(",()=", pos_);
        Term arg;
        if (stop != absl::string_view::npos && text_[stop] == '=') {
          pos_ = stop + 1;
          if (!ParseTerm(arg, depth + 1)) return false;
        } else {
          if (!ParseTerm(arg, depth + 1)) return false;
          out.args.push_back(std::move(arg));
        }
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') ++pos_;
      }
    }
    out.literal = word;
    return true;
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

std::string Render(const Term& t, bool parenthesize);

std::string RenderArgs(const Term& t, absl::string_view sep, bool parenthesize) {
  std::vector<std::string> parts;
  for (const Term& a : t.args) parts.push_back(Render(a, parenthesize));
  return absl::StrJoin(parts, sep);
}

std::string Render(const Term& t, bool parenthesize) {
  if (t.head.empty()) return t.literal;
  if (t.head == "Symbol") return t.args.empty() ? "?" : t.args[0].literal;
  if ((t.head == "Integer" || t.head == "Float") && !t.args.empty()) return t.args[0].literal;
  if (t.head == "Rational" && t.args.size() == 2) {
    return absl::StrCat(t.args[0].literal, "/", t.args[1].literal);
  }
  std::string s;
  if (t.head == "Add") {
    s = RenderArgs(t, " + ", false);
    return parenthesize ? absl::StrCat("(", s, ")") : s;
  }
  if (t.head == "Mul") return RenderArgs(t, "*", true);
  if (t.head == "Pow" && t.args.size() == 2) {
    return absl::StrCat(Render(t.args[0], true), "**", Render(t.args[1], true));
  }
  if ((t.head == "FloorDiv" || t.head == "CleanDiv") && t.args.size() == 2) {
    return absl::StrCat("((", Render(t.args[0], true), ")//(", Render(t.args[1], true), "))");
  }
  return absl::StrCat(t.head, "(", RenderArgs(t, ", ", false), ")");
}

// Appends to `out` the symbols `seen` lacks (a set: an expression may name
// many symbols, and a file can make it long).
void CollectSymbols(const Term& t, std::set<std::string>& seen, std::vector<std::string>& out) {
  if (t.head == "Symbol") {
    if (!t.args.empty() && seen.insert(t.args[0].literal).second) out.push_back(t.args[0].literal);
    return;
  }
  for (const Term& a : t.args) CollectSymbols(a, seen, out);
}

bool IsIdentifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string SymExprToString(absl::string_view expr) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(expr);
  Term term;
  Parser parser(trimmed);
  if (trimmed.find('(') == absl::string_view::npos || !parser.Parse(term)) {
    return std::string(trimmed);
  }
  return Render(term, false);
}

std::vector<std::string> SymExprSymbols(absl::string_view expr) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(expr);
  std::vector<std::string> symbols;
  std::set<std::string> seen;
  Term term;
  Parser parser(trimmed);
  if (trimmed.find("Symbol(") != absl::string_view::npos && parser.Parse(term)) {
    CollectSymbols(term, seen, symbols);
    return symbols;
  }
  // str() form ("2*s0 + 1"): identifiers not followed by '(' (function names).
  for (size_t i = 0; i < trimmed.size();) {
    if (!IsIdentifierStart(trimmed[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < trimmed.size() && IsIdentifierChar(trimmed[end])) ++end;
    size_t next = end;
    while (next < trimmed.size() && trimmed[next] == ' ') ++next;
    std::string word(trimmed.substr(i, end - i));
    if ((next >= trimmed.size() || trimmed[next] != '(') && seen.insert(word).second) {
      symbols.push_back(std::move(word));
    }
    i = end;
  }
  return symbols;
}

}  // namespace pt2onnx::pt2
