// File: wasm/verify_api.h
// -----------------------------------------------------------------------------
// --verify for JavaScript: converts the .pt2 as convert() does, then runs
// export/verify_run (the same call as the CLI's --verify, so the numbers,
// the seeded inputs and the report are the CLI's). js/pt2onnx-verify.mjs
// wraps it in verify() (documented in js/pt2onnx.d.ts).
//
// Memory: the whole .pt2 is copied into wasm memory (both engines read the
// weights), so files over kMaxVerifyBytes are refused with an error naming
// the limit; the CLI has none.
#ifndef PT2ONNX_WASM_VERIFY_API_H_
#define PT2ONNX_WASM_VERIFY_API_H_

#include <cstdint>

#include <emscripten/val.h>

namespace pt2onnx::wasm {

// 1.5 GiB: the file, the executor's packed weights and both engines' values
// must fit the module's 4 GiB address space together.
inline constexpr uint64_t kMaxVerifyBytes = uint64_t{3} << 29;

// `bytes`: the .pt2 (Uint8Array). `options`: opset, modelName, optimize,
// inputNames, outputNames, dimNames, inputName, outputName, intermediates,
// and inputs: undefined (the archive's example inputs, else seeded),
// "seeded", { npz: Uint8Array, name } or { tensors: [{ name, dtype, dims,
// bytes }] }. Calls progress(stage, fraction). Returns { ok: true, passed,
// exitCode (0 or 6), message, summary, inputsSource, inputLines, outputs,
// intermediates, firstDivergence, histogramEdges, report, nodeData } (see
// pt2onnx.d.ts) or { ok: false, code, exitCode, message, unsupportedOps }.
emscripten::val Verify(emscripten::val bytes, emscripten::val options, emscripten::val progress);

}  // namespace pt2onnx::wasm

#endif  // PT2ONNX_WASM_VERIFY_API_H_
