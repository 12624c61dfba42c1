// File: core/pt2/sym_expr.h
// -----------------------------------------------------------------------------
// Symbolic sizes arrive as sympy srepr text since torch 2.6
// ("Mul(Integer(2), Symbol('s0', integer=True, positive=True))") and as
// plain str() before. SymExprToString renders either as the short infix form
// torch prints ("2*s0"), which pt2onnx uses as the ONNX dim_param.
#ifndef PT2ONNX_CORE_PT2_SYM_EXPR_H_
#define PT2ONNX_CORE_PT2_SYM_EXPR_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace pt2onnx::pt2 {

// Best effort: text that is not srepr is returned unchanged (whitespace
// trimmed), so a dim_param is always produced.
std::string SymExprToString(absl::string_view expr);

// The free symbols of an expression ("s27", "u0"), each once, in order of
// appearance: Symbol('...') names in srepr text, identifiers in str() text.
std::vector<std::string> SymExprSymbols(absl::string_view expr);

}  // namespace pt2onnx::pt2

#endif  // PT2ONNX_CORE_PT2_SYM_EXPR_H_
