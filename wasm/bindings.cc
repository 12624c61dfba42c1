// Embind registrations: the functions js/pt2onnx.mjs calls on the module
// object that createPt2OnnxCore() resolves to.
#include <emscripten/bind.h>

#include "wasm/convert_api.h"
#include "wasm/folder_api.h"
#include "wasm/generation_api.h"
#include "wasm/run_api.h"
#include "wasm/verify_api.h"
#include "wasm/weights_api.h"

EMSCRIPTEN_BINDINGS(pt2onnx) {
  emscripten::function("convert", &pt2onnx::wasm::Convert);
  emscripten::function("convertFolder", &pt2onnx::wasm::ConvertFolder);
  emscripten::function("inspect", &pt2onnx::wasm::Inspect);
  emscripten::function("applyWeights", &pt2onnx::wasm::ApplyWeights);
  emscripten::function("supportedOps", &pt2onnx::wasm::SupportedOps);
  emscripten::function("refusedOps", &pt2onnx::wasm::RefusedOps);
  emscripten::function("version", &pt2onnx::wasm::Version);
  emscripten::function("createSession", &pt2onnx::wasm::CreateSession);
  emscripten::function("runSession", &pt2onnx::wasm::RunSession);
  emscripten::function("freeSession", &pt2onnx::wasm::FreeSession);
  emscripten::function("verify", &pt2onnx::wasm::Verify);
  emscripten::function("generate", &pt2onnx::wasm::Generate);
}
