// File: export/catalog.h
// -----------------------------------------------------------------------------
// What the front ends show, list or check flags against, from the layers
// below export/: the version, the opset range, the optimization passes, the
// supported ATen operators, and the operators an error says are missing.
// The CLI's --help/--list-ops/--list-refused/--passes and the JS
// version()/supportedOps()
// read the same lists.
#ifndef PT2ONNX_EXPORT_CATALOG_H_
#define PT2ONNX_EXPORT_CATALOG_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pt2onnx {

// "0.2.0".
absl::string_view Version();

// The ONNX opsets a conversion can target, and the one it targets by default.
int MinOpset();
int MaxOpset();
int DefaultOpset();
// The lowest opset of --kv-cache static (TensorScatter).
int StaticKvCacheMinOpset();

// The optimization passes by name, in pipeline order (--passes).
std::vector<std::string> PassNames();

// The ATen overloads the built-in translations cover, sorted.
std::vector<std::string> SupportedOps();

// The overloads deliberately left untranslated, as "key<TAB>reason" lines
// ("prims::*": every prims operator), in the errors' words (--list-refused).
std::vector<std::string> RefusedOps();

// The ATen overloads an Unimplemented conversion error lists (its payload),
// in its order; empty for any other error.
std::vector<std::string> UnsupportedOpsOf(const absl::Status& status);

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_CATALOG_H_
