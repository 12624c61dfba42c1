// File: wasm/run_api.h
// -----------------------------------------------------------------------------
// The executor (runtime) as the JavaScript side sees it. js/pt2onnx.mjs
// wraps these in run() / createSession() (documented in js/pt2onnx.d.ts).
// Sessions live in a handle table so weights are packed once and reused by
// every run; the JS side frees them.
//
// Ownership: tensor bytes are copied in (Uint8Array views of the caller's
// typed arrays) and out (Uint8Array.slice): no pointer into wasm memory escapes.
#ifndef PT2ONNX_WASM_RUN_API_H_
#define PT2ONNX_WASM_RUN_API_H_

#include <emscripten/val.h>

#include "absl/status/statusor.h"
#include "export/engines.h"

namespace pt2onnx::wasm {

// Reads the ONNX model in `bytes` (a Uint8Array) and prepares a session.
// Returns { ok: true, id, inputs, outputs } where inputs/outputs are
// [{ name, dtype, dims }] (a symbolic dim is its name, an unknown one null),
// or { ok: false, code, exitCode, message } with onnxrun's exit codes.
emscripten::val CreateSession(emscripten::val bytes);

// Runs session `id` on [{ name, dtype, dims, bytes }] (bytes: Uint8Array).
// Returns { ok: true, outputs: [{ name, dtype, dims, bytes }] } or the error
// object of CreateSession.
emscripten::val RunSession(int id, emscripten::val inputs);

// One { name, dtype, dims, bytes } (bytes: Uint8Array), copied into a tensor;
// dims and the byte count are checked.
absl::StatusOr<NamedTensor> TensorFromJs(const emscripten::val& js);

// Frees session `id` (a no-op for an unknown id).
void FreeSession(int id);

}  // namespace pt2onnx::wasm

#endif  // PT2ONNX_WASM_RUN_API_H_
