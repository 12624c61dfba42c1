// The worker pt2onnx.mjs starts for calls made on a page's main thread: here
// FileReaderSync can read the File piece by piece. One worker serves every
// call of a page (the .wasm is loaded once); messages carry an id.
import { applyWeights, convert, inspect, supportedOps, verify, ConversionError } from "./pt2onnx.mjs";

self.onmessage = async ({ data }) => {
  const { id } = data;
  const onProgress = ({ stage, fraction }) => self.postMessage({ id, type: "progress", stage, fraction });
  try {
    const result = data.op === "inspect" ? await inspect(data.input, data.options)
      : data.op === "supportedOps" ? await supportedOps()
        : data.op === "applyWeights" ? await applyWeights(data.input.model, data.input.weights, data.options)
          : data.op === "verify" ? await verify(data.input, { ...data.options, onProgress })
            : await convert(data.input, { ...data.options, onProgress });
    self.postMessage({ id, type: "result", result });
  } catch (e) {
    self.postMessage({
      id,
      type: "error",
      // Only our own codes cross over: a DOMException's numeric code or a
      // node "ENOENT" would mean nothing to the page.
      error: e instanceof ConversionError
        ? { code: e.code, message: e.message, unsupportedOps: e.unsupportedOps, report: e.report }
        : { code: "internal", message: String(e?.message ?? e), unsupportedOps: [] },
    });
  }
};
