// File: wasm/generation_api.h
// -----------------------------------------------------------------------------
// Greedy generation through a converted export folder from JavaScript: the
// same ReadGenerationFolder() / GenerateGreedy() (export/generation.h) that
// `pt2onnx verify-generation OUTDIR` runs, so both give the same tokens.
#ifndef PT2ONNX_WASM_GENERATION_API_H_
#define PT2ONNX_WASM_GENERATION_API_H_

#include <emscripten/val.h>

namespace pt2onnx::wasm {

// `files`: an object whose keys are the converted folder's file names
// ("export.json", "prefill.onnx", "prefill.onnx.data", "config.json", ...)
// and whose values are readers (js_input_file.h); `options`: { prompt:
// number[], tokens: number, inputs?: Uint8Array (an .npz of arrays every step
// takes by name) }, already checked by js/pt2onnx-generate.mjs.
// Returns { ok: true, tokens: number[], lastLogits: Float32Array } or
// Convert's error object (io 3: a file is missing; invalid_input 4: not a
// converted generation folder; 7: the executor cannot run a component).
emscripten::val Generate(emscripten::val files, emscripten::val options);

}  // namespace pt2onnx::wasm

#endif  // PT2ONNX_WASM_GENERATION_API_H_
