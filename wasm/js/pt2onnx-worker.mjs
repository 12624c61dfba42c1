// The worker pt2onnx.mjs starts for calls made on a page's main thread: here
// FileReaderSync can read the File piece by piece. One worker serves every
// call of a page (the .wasm is loaded once); messages carry an id.
import { applyWeights, convert, convertFolder, generate, inspect, refusedOps, supportedOps, verify, ConversionError } from "./pt2onnx.mjs";
import { outputParts } from "./pt2onnx-results.mjs";

// Progress crosses only when the caller listens, at a new stage or at most
// once a frame: the core reports up to ~60 times per conversion, and each
// message costs both threads more than a small model's whole conversion step.
const FRAME_MS = 16;

function progressPoster(id) {
  let stage = null;
  let posted = -Infinity;
  return (event) => {
    const now = performance.now();
    if (event.stage === stage && now - posted < FRAME_MS) return;
    stage = event.stage;
    posted = now;
    self.postMessage({ id, type: "progress", stage: event.stage, fraction: event.fraction });
  };
}

self.onmessage = async ({ data }) => {
  const { id } = data;
  const onProgress = data.progress ? progressPoster(id) : undefined;
  try {
    const result = data.op === "inspect" ? await inspect(data.input, data.options)
      : data.op === "supportedOps" ? await supportedOps()
      : data.op === "refusedOps" ? await refusedOps()
        : data.op === "applyWeights" ? await applyWeights(data.input.model, data.input.weights, data.options)
          : data.op === "verify" ? await verify(data.input, { ...data.options, onProgress })
            : data.op === "convertFolder" ? await convertFolder(data.input, { ...data.options, onProgress })
            : data.op === "generate" ? await generate(data.input, data.options)
            : await convert(data.input, { ...data.options, onProgress });
    // A conversion's Blobs are built on the page when first read (pt2onnx-results.mjs).
    const parts = data.op === "convert" ? outputParts(result) : null;
    if (parts !== null) self.postMessage({ id, type: "parts", parts: parts.message }, parts.transfer);
    else self.postMessage({ id, type: "result", result });
  } catch (e) {
    self.postMessage({
      id,
      type: "error",
      // Only our own codes cross over: a DOMException's numeric code or a
      // node "ENOENT" would mean nothing to the page.
      error: e instanceof ConversionError
        ? { code: e.code, message: e.message, unsupportedOps: e.unsupportedOps, report: e.report, file: e.file }
        : { code: "internal", message: String(e?.message ?? e), unsupportedOps: [] },
    });
  }
};
