// File: core/pt2/symbol_order.h
// -----------------------------------------------------------------------------
// Symbolic dimensions listed the way a user reads a program: by first
// appearance walking the user inputs in signature order and each input's
// dims in order, then the user outputs, then the other values in graph
// order. Sorting by name put "s27" before "s54" whatever their position,
// and users renamed the wrong one.
#ifndef PT2ONNX_CORE_PT2_SYMBOL_ORDER_H_
#define PT2ONNX_CORE_PT2_SYMBOL_ORDER_H_

#include <string>
#include <vector>

#include "core/pt2/schema.h"

namespace pt2onnx::pt2 {

// The dim_param texts of every symbolic size ("s27", "2*s27"), each once.
std::vector<std::string> DimNamesInInputOrder(const ExportedProgram& program);

// The free symbols of those sizes ("s27"), each once, with each derived dim
// that has its own range constraint ("2*s27") where it first appears;
// then symbols only the range constraints name (e.g. "u0"), in file order.
std::vector<std::string> SymbolsInInputOrder(const ExportedProgram& program);

// The range-constrained symbols in the order the file lists them (symbols
// of a hand-built program without that order follow, sorted).
std::vector<std::string> RangeConstraintSymbols(const ExportedProgram& program);

}  // namespace pt2onnx::pt2

#endif  // PT2ONNX_CORE_PT2_SYMBOL_ORDER_H_
