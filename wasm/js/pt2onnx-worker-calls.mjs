// Calls from a page's main thread into the shared conversion worker
// (pt2onnx-worker.mjs), for pt2onnx.mjs: the worker runs the same API in
// place and posts back progress, the result or the error.

import { fromOutputParts, withBlobBytes } from "./pt2onnx-results.mjs";

export function abortError(signal) {
  const reason = signal?.reason;
  if (reason instanceof Error && reason.name === "AbortError") return reason;
  return new DOMException("the conversion was cancelled", "AbortError");
}

// On a page's main thread a Blob cannot be read synchronously, and a long
// conversion would freeze the page: run it in a module worker instead. One
// worker serves every call (it keeps the loaded .wasm), calls run one after
// another; a cancelled call terminates it, the next call starts a fresh one.
// `ConversionError` is pt2onnx.mjs's error class: the worker's errors come
// back as its instances. Returns runInWorker(op, input, options).
export function makeRunInWorker(ConversionError) {
  let sharedWorker = null;  // { worker, url, calls: Map<id, {resolve, reject, onProgress}> }
  let nextCallId = 1;

  function workerScriptUrl(workerUrl) {
    const url = new URL(workerUrl ?? "./pt2onnx-worker.mjs", import.meta.url);
    // A worker script must come from the page's origin. From a CDN, start a
    // same-origin blob: worker that imports the real one (served with CORS);
    // its own import.meta.url stays the CDN's, so the .wasm loads from there.
    if (typeof location !== "undefined" && url.origin !== location.origin) {
      const shim = new Blob([`import ${JSON.stringify(url.href)};`], { type: "text/javascript" });
      return { href: URL.createObjectURL(shim), key: url.href };
    }
    return { href: url.href, key: url.href };
  }

  function failAll(state, error) {
    for (const call of state.calls.values()) call.reject(error);
    state.calls.clear();
  }

  function startWorker(workerUrl) {
    const { href, key } = workerScriptUrl(workerUrl);
    if (sharedWorker && sharedWorker.key === key) return sharedWorker;
    sharedWorker?.worker.terminate();
    const state = { worker: new Worker(href, { type: "module" }), key, calls: new Map() };
    state.worker.onmessage = ({ data }) => {
      const call = state.calls.get(data.id);
      if (!call) return;
      if (data.type === "progress") {
        try {
          call.onProgress?.({ stage: data.stage, fraction: data.fraction });
        } catch {
          // ignore, as in place
        }
        return;
      }
      state.calls.delete(data.id);
      if (data.type === "result") call.resolve(call.op === "applyWeights" ? withBlobBytes(data.result) : data.result);
      else if (data.type === "parts") call.resolve(fromOutputParts(data.parts, call.input));
      else {
        const error = new ConversionError(data.error.code, data.error.message, data.error.unsupportedOps);
        if (data.error.report !== undefined) error.report = data.error.report;
        if (data.error.file !== undefined) error.file = data.error.file;
        call.reject(error);
      }
    };
    state.worker.onerror = (event) => {
      event.preventDefault?.();
      // Most often the worker script itself could not be fetched or parsed.
      stopWorker(state, new ConversionError("load", `the conversion worker (pt2onnx-worker.mjs) failed: ` +
        `${event.message ?? "it could not be loaded"}`));
    };
    sharedWorker = state;
    return state;
  }

  function stopWorker(state, error) {
    state.worker.terminate();  // frees the worker's wasm memory
    if (sharedWorker === state) sharedWorker = null;
    failAll(state, error);
  }

  function runInWorker(op, input, options) {
    const { onProgress, signal, workerUrl, ...rest } = options;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const state = startWorker(workerUrl);
    const id = nextCallId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        // The wasm call is synchronous and cannot be interrupted: the worker is
        // terminated (with any call queued behind this one, which fail with
        // the same AbortError) and the next call starts a new one.
        if (state.calls.has(id)) stopWorker(state, abortError(signal));
      };
      const done = (fn) => (value) => {
        signal?.removeEventListener("abort", onAbort);
        fn(value);
      };
      state.calls.set(id, { resolve: done(resolve), reject: done(reject), onProgress, input, op });
      signal?.addEventListener("abort", onAbort, { once: true });
      state.worker.postMessage({ id, op, input, options: rest, progress: onProgress !== undefined });
    });
  }

  return runInWorker;
}
