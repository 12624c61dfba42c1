// The worker pt2onnx.mjs starts for convert() calls made on a page's main
// thread (and for inspect()): here FileReaderSync can read the File piece by
// piece.
import { convert, inspect, ConversionError } from "./pt2onnx.mjs";

self.onmessage = async ({ data }) => {
  const onProgress = ({ stage, fraction }) => self.postMessage({ type: "progress", stage, fraction });
  try {
    const result = data.op === "inspect"
      ? await inspect(data.input, data.options)
      : await convert(data.input, { ...data.options, onProgress });
    self.postMessage({ type: "result", result });
  } catch (e) {
    self.postMessage({
      type: "error",
      // Only our own codes cross over: a DOMException's numeric code or a
      // node "ENOENT" would mean nothing to the page.
      error: e instanceof ConversionError
        ? { code: e.code, message: e.message, unsupportedOps: e.unsupportedOps }
        : { code: "internal", message: String(e?.message ?? e), unsupportedOps: [] },
    });
  }
};
