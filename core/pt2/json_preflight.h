#ifndef PT2ONNX_CORE_PT2_JSON_PREFLIGHT_H_
#define PT2ONNX_CORE_PT2_JSON_PREFLIGHT_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pt2onnx::pt2::internal {

// The largest number of significant digits a JSON number may have here.
// Python writes at most 17 for a float and 20 for an int64.
inline constexpr size_t kMaxNumberDigits = 400;

// Refuses what RapidJSON 1.1 would mishandle rather than reject:
// - numbers its full-precision parser cannot take safely: a magnitude of 1e309
//   or more (digits and exponent together pass its exponent check, then it
//   reads past its table of powers of ten) or more than kMaxNumberDigits
//   significant digits (its big-integer arithmetic has a fixed size);
// - a \uDC00-\uDFFF escape not preceded by a \uD800-\uDBFF one: a lone low
//   surrogate, which it would decode to invalid UTF-8 (names end in ONNX
//   string fields, which must be valid UTF-8);
// - a zero scaled beyond 10^±22 ("0e300", or more than 22 zero decimals),
//   which its slow path handles with undefined behaviour; torch writes 0.0.
// Nothing torch writes is refused. Scans from byte `from` on; with
// `first_value_only`, stops after the first complete JSON value (as
// kParseStopWhenDoneFlag does). Other malformed text is left to RapidJSON to
// report. InvalidArgument naming
// `what` and the byte offset in `json`.
absl::Status PreflightJson(absl::string_view json, absl::string_view what,
                           size_t from = 0, bool first_value_only = false);

}  // namespace pt2onnx::pt2::internal

#endif  // PT2ONNX_CORE_PT2_JSON_PREFLIGHT_H_
