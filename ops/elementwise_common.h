// File: ops/elementwise_common.h
// -----------------------------------------------------------------------------
// What the elementwise families (arithmetic.cc, comparison.cc, logical.cc,
// unary_math.cc; symbolic.cc for its comparisons) share: torch's result_type
// over a node's arguments, the comparisons, and the emission of Python-style
// integer and float division.
#ifndef PT2ONNX_OPS_ELEMENTWISE_COMMON_H_
#define PT2ONNX_OPS_ELEMENTWISE_COMMON_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "ops/translate_api.h"
#include "translate/translate_context.h"

namespace pt2onnx::ops {

// torch.result_type over the named Tensor/Scalar arguments of the node
// (core/aten/type_promotion.h on their dtypes): dimensioned tensors outrank
// 0-d tensors, which outrank Python scalars.
absl::StatusOr<DataType> ResultType(const TranslateContext& ctx,
                                    std::vector<absl::string_view> args);

// Both operands (`a_arg`, `b_arg`) in the output dtype, then `op_type`,
// bound as the result (in-place overloads included).
absl::Status BinaryInOutputType(TranslateContext& ctx, absl::string_view op_type,
                                absl::string_view a_arg = "self",
                                absl::string_view b_arg = "other");

// eq/ne/lt/le/gt/ge as one ONNX comparison, negated for ne (ONNX has no
// NotEqual). Shared by the tensor comparisons (comparison.cc) and the
// SymInt/SymFloat ones (symbolic.cc), which differ only in how the operands
// meet and how the result is bound.
struct Comparison {
  absl::string_view op_type;
  bool negate;
};
inline constexpr Comparison kCompareEq{"Equal", false};
inline constexpr Comparison kCompareNe{"Equal", true};
inline constexpr Comparison kCompareLt{"Less", false};
inline constexpr Comparison kCompareLe{"LessOrEqual", false};
inline constexpr Comparison kCompareGt{"Greater", false};
inline constexpr Comparison kCompareGe{"GreaterOrEqual", false};

// Less, Greater and the like have no BOOL kernels; Equal has.
inline bool ComparesBools(Comparison comparison) { return comparison.op_type == "Equal"; }

// The BOOL result of `comparison` on `a` and `b` (same dtype).
std::string EmitComparison(TranslateContext& ctx, Comparison comparison, const std::string& a,
                           const std::string& b);

// <cmath>'s M_PI family is POSIX, not C++17.
inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kLn2 = 0.69314718055994530942;
inline constexpr double kLn10 = 2.30258509299404568402;

std::string Zero(TranslateContext& ctx, DataType dtype);
// trunc for floats: ONNX has no Trunc operator.
std::string TruncFloat(TranslateContext& ctx, const std::string& x, DataType dtype);
// Python floor division for integers (ONNX Div truncates toward zero).
std::string FloorDivInt(TranslateContext& ctx, const std::string& a, const std::string& b,
                        DataType dtype);
// Floor division for floats as ATen computes it (from fmod).
std::string FloorDivFloat(TranslateContext& ctx, const std::string& a, const std::string& b,
                          DataType dtype);
// Python modulo: the result has the divisor's sign.
std::string PythonMod(TranslateContext& ctx, const std::string& a, const std::string& b,
                      DataType dtype);

}  // namespace pt2onnx::ops

#endif  // PT2ONNX_OPS_ELEMENTWISE_COMMON_H_
