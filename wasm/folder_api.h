// File: wasm/folder_api.h
// -----------------------------------------------------------------------------
// A model library's export folder (transformers' export.json and one .pt2 per
// component) converted from JavaScript: the same ExportFolder() the CLI's
// `pt2onnx DIR -o OUTDIR` runs, so both write identical files.
#ifndef PT2ONNX_WASM_FOLDER_API_H_
#define PT2ONNX_WASM_FOLDER_API_H_

#include <emscripten/val.h>

namespace pt2onnx::wasm {

// `files`: an object whose keys are the folder's file names ("export.json",
// "prefill.pt2", ...) and whose values are readers (js_input_file.h);
// `options`: the ConvertOptions of pt2onnx.d.ts that apply to a folder
// (opset, optimize, includeWeights, weightsAsInputs), already checked by
// js/pt2onnx.mjs; progress(stage, fraction) as Convert's.
// Returns { ok: true, files: [{ name, output }], components: [{ name,
// onnxName, dataName, summary }], sharedBytes, sharedTensors, report } where
// an output is what JsParts::Value() gives (written bytes only: no slices),
// or Convert's error object with `file`, the folder file at fault.
emscripten::val ConvertFolder(emscripten::val files, emscripten::val options, emscripten::val progress);

}  // namespace pt2onnx::wasm

#endif  // PT2ONNX_WASM_FOLDER_API_H_
