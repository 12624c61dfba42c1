// File: wasm/convert_api.h
// -----------------------------------------------------------------------------
// The conversion as the JavaScript side sees it (embind values in and out).
// js/pt2onnx.mjs wraps these in the documented API (js/pt2onnx.d.ts); this
// layer only maps options and results, the work is export/'s, exactly as
// in the CLI, so both write identical bytes.
//
// Ownership: every value returned is a fresh JS object; no pointer into wasm
// memory escapes (byte parts are copied out with Uint8Array.slice).
#ifndef PT2ONNX_WASM_CONVERT_API_H_
#define PT2ONNX_WASM_CONVERT_API_H_

#include <emscripten/val.h>

namespace pt2onnx::wasm {

// Converts the .pt2 behind `reader` (see js_input_file.h) with `options`
// (the ConvertOptions of pt2onnx.d.ts, already type-checked by the wrapper,
// plus `inputName` for the report); calls progress(stage, fraction).
// Returns { ok: true, model: Part[], data: Part[] | null, onnxName, dataName,
// summary, warnings, report, bytesRead } where a Part is a Uint8Array or
// { offset, length } of the input; or { ok: false, code, exitCode, message,
// unsupportedOps }.
emscripten::val Convert(emscripten::val reader, emscripten::val options,
                        emscripten::val progress);

// Describes the .pt2 behind `reader` without converting it; `options` may
// carry `opset`, `modelName` and `inputName`. Returns { ok: true, json, text }
// with json what `pt2onnx --inspect --json` prints and text what `--inspect`
// prints (naming the file `inputName`), or the error object of Convert.
emscripten::val Inspect(emscripten::val reader, emscripten::val options);

// The supported ATen overloads, sorted.
emscripten::val SupportedOps();
// The overloads deliberately not translated: [{ op, reason }] (--list-refused).
emscripten::val RefusedOps();

// The library version ("0.2.0").
emscripten::val Version();

}  // namespace pt2onnx::wasm

#endif  // PT2ONNX_WASM_CONVERT_API_H_
