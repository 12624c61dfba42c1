#include "core/pt2/json_numbers.h"

#include <cstdint>

#include "absl/strings/str_cat.h"

namespace pt2onnx::pt2::internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Decimal magnitude of a double's range: values at or above 10^309 overflow.
constexpr int64_t kMaxMagnitude = 309;
// Exponents are clamped here while read; far beyond any double.
constexpr int64_t kExponentClamp = 1'000'000;

struct NumberShape {
  size_t end = 0;              // one past the token
  size_t significant = 0;      // digits from the first non-zero one on
  int64_t magnitude = 0;       // value in [10^(m-1), 10^m), if non-zero
  bool is_zero = true;
};

// Reads the number token at `at` ('-' or a digit) leniently: RapidJSON
// judges its grammar, this only measures it.
NumberShape MeasureNumber(absl::string_view s, size_t at) {
  NumberShape n;
  size_t i = at;
  if (i < s.size() && s[i] == '-') ++i;
  int64_t integer_digits = 0;  // significant digits before the point
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    if (n.is_zero && s[i] == '0') continue;
    n.is_zero = false;
    ++n.significant;
    ++integer_digits;
  }
  int64_t fraction_zeros = 0;  // zeros after the point before the first digit
  if (i < s.size() && s[i] == '.') {
    for (++i; i < s.size() && IsDigit(s[i]); ++i) {
      if (n.is_zero && s[i] == '0') {
        ++fraction_zeros;
        continue;
      }
      n.is_zero = false;
      ++n.significant;
    }
  }
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    for (; i < s.size() && IsDigit(s[i]); ++i) {
      if (exponent < kExponentClamp) exponent = exponent * 10 + (s[i] - '0');
    }
    if (negative) exponent = -exponent;
  }
  n.end = i;
  n.magnitude = (integer_digits > 0 ? integer_digits : -fraction_zeros) + exponent;
  return n;
}

}  // namespace

absl::Status CheckJsonNumbers(absl::string_view json, absl::string_view what,
                              size_t from, bool first_value_only) {
  size_t depth = 0;
  size_t i = from;
  while (i < json.size()) {
    const char c = json[i];
    if (c == '"') {
      for (++i; i < json.size() && json[i] != '"'; ++i) {
        if (json[i] == '\\') ++i;  // the escaped character is skipped
      }
      ++i;
      if (first_value_only && depth == 0) break;
      continue;
    }
    if (c == '-' || IsDigit(c)) {
      const NumberShape n = MeasureNumber(json, i);
      if (n.significant > kMaxNumberDigits) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": number at offset ", i, " has ", n.significant,
            " significant digits (at most ", kMaxNumberDigits,
            " are accepted); the file is corrupted or was not written by "
            "torch.export.save"));
      }
      if (!n.is_zero && n.magnitude > kMaxMagnitude) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": number at offset ", i, " is about 1e", n.magnitude - 1,
            ", beyond the range of a double; the file is corrupted or was "
            "not written by torch.export.save"));
      }
      i = n.end > i ? n.end : i + 1;
      if (first_value_only && depth == 0) break;
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
      if (first_value_only && depth == 0) break;
    }
    ++i;
  }
  return absl::OkStatus();
}

}  // namespace pt2onnx::pt2::internal
