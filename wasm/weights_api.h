// File: wasm/weights_api.h
// -----------------------------------------------------------------------------
// applyWeights() as the JavaScript side sees it: export/apply_weights.h with
// both files behind readers (js_input_file.h) and the output as Blob parts
// (parts_sink.h), so the bytes are the CLI's `apply-weights`.
#ifndef PT2ONNX_WASM_WEIGHTS_API_H_
#define PT2ONNX_WASM_WEIGHTS_API_H_

#include <emscripten/val.h>

namespace pt2onnx::wasm {

// `model_reader`: the ONNX model; `weights_reader`: the .pt2 whose weights
// it gets. `options` as convert()'s (opset, names, modelName, optimize,
// externalData, outputName) plus `targetName`/`weightsName` (the
// files' names) for messages. Returns
// { ok: true, model: Part[], data: Part[] | null, onnxName, dataName, report }
// (Parts are bytes or { offset, length } of the .pt2) or { ok: false, code,
// exitCode, message, unsupportedOps }.
emscripten::val ApplyWeights(emscripten::val model_reader, emscripten::val weights_reader,
                             emscripten::val options);

}  // namespace pt2onnx::wasm

#endif  // PT2ONNX_WASM_WEIGHTS_API_H_
