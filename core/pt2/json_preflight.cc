#include "core/pt2/json_preflight.h"

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace pt2onnx::pt2::internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Decimal magnitude of a double's range: values at or above 10^309 overflow.
constexpr int64_t kMaxMagnitude = 309;
// RapidJSON's exact fast path covers scales up to 10^22 either way.
constexpr int64_t kMaxZeroScale = 22;
// Exponents are clamped here while read; far beyond any double.
constexpr int64_t kExponentClamp = 1'000'000;

struct NumberShape {
  size_t end = 0;              // one past the token
  size_t significant = 0;      // digits from the first non-zero one on
  int64_t magnitude = 0;       // value in [10^(m-1), 10^m), if non-zero
  int64_t zero_scale = 0;      // if zero: its exponent less its fraction digits
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
  n.zero_scale = exponent - fraction_zeros;
  return n;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of the \uXXXX escape whose backslash is at `at`, or -1.
int EscapedUnit(absl::string_view s, size_t at) {
  if (at + 6 > s.size() || s[at] != '\\' || s[at + 1] != 'u') return -1;
  int unit = 0;
  for (size_t k = at + 2; k < at + 6; ++k) {
    const int h = HexValue(s[k]);
    if (h < 0) return -1;
    unit = unit * 16 + h;
  }
  return unit;
}

bool IsHighSurrogate(int unit) { return unit >= 0xD800 && unit <= 0xDBFF; }
bool IsLowSurrogate(int unit) { return unit >= 0xDC00 && unit <= 0xDFFF; }

// Checks the string whose opening quote is at `at`; returns one past its
// closing quote (or the end of the text).
absl::StatusOr<size_t> SkipString(absl::string_view s, size_t at,
                                  absl::string_view what) {
  size_t i = at + 1;
  bool after_high = false;  // the previous character was a \uD800-\uDBFF escape
  while (i < s.size() && s[i] != '"') {
    if (s[i] != '\\') {
      after_high = false;
      ++i;
      continue;
    }
    const int unit = EscapedUnit(s, i);
    if (IsLowSurrogate(unit) && !after_high) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": string escape at offset ", i, " is a lone low surrogate (\\u",
          absl::Hex(unit, absl::kZeroPad4), "), which is not Unicode text; the "
          "file is corrupted or was not written by torch.export.save"));
    }
    after_high = IsHighSurrogate(unit);
    i += unit >= 0 ? 6 : 2;  // \uXXXX, or a one-character escape
  }
  return i + 1;
}

}  // namespace

absl::Status PreflightJson(absl::string_view json, absl::string_view what,
                           size_t from, bool first_value_only) {
  size_t depth = 0;
  size_t i = from;
  while (i < json.size()) {
    const char c = json[i];
    if (c == '"') {
      absl::StatusOr<size_t> end = SkipString(json, i, what);
      if (!end.ok()) return end.status();
      i = *end;
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
      // RapidJSON parses a zero scaled beyond 10^±22 on its slow path, which
      // takes clz(0) (undefined behaviour). Python writes zero as 0 or 0.0.
      if (n.is_zero && (n.zero_scale > kMaxZeroScale || n.zero_scale < -kMaxZeroScale)) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": number at offset ", i, " is a zero written with a scale of 1e",
            n.zero_scale, " (at most 1e", kMaxZeroScale, " either way is accepted); the "
            "file is corrupted or was not written by torch.export.save"));
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
