// pt2onnx: PyTorch exported programs (.pt2, from torch.export.save) to ONNX,
// in a browser or in node. The API is documented in pt2onnx.d.ts.
//
// How big models fit in a tab: the WebAssembly converter reads the input
// through a synchronous reader (FileReaderSync on File.slice in a worker), so
// only the archive directory and the program description enter wasm memory.
// Weights come back as { offset, length } parts, turned into File.slice()
// Blob parts, which the browser assembles without copying.

import { makeRunApi, RunError } from "./pt2onnx-run.mjs";
import { makeVerify, MAX_VERIFY_BYTES } from "./pt2onnx-verify.mjs";
import { abortError, makeRunInWorker } from "./pt2onnx-worker-calls.mjs";
import { blobReader, bytesReader } from "./pt2onnx-readers.mjs";
import { outputBlob, withOutputBlobs } from "./pt2onnx-results.mjs";
import { makeConvertFolder } from "./pt2onnx-folder.mjs";
import { makeGenerate, MAX_GENERATED_TOKENS } from "./pt2onnx-generate.mjs";

export const version = "0.2.0";

const inNode = typeof process !== "undefined" && !!process.versions?.node &&
  typeof window === "undefined";
const canReadBlobSync = typeof FileReaderSync !== "undefined";
const onPageThread = typeof window !== "undefined" && typeof document !== "undefined";

const OPTION_KEYS = new Set(["opset", "externalData", "inputNames", "outputNames", "dimNames",
  "modelName", "optimize", "includeWeights", "weightsAsInputs", "outputName", "onProgress", "signal", "workerUrl",
  "translations", "overrideBuiltins", "translationsAsFunctions", "kvCache"]);
const EXIT_CODES = { internal: 1, usage: 2, io: 3, invalid_input: 4, unsupported: 5, load: 1, verify_unavailable: 7 };

export class ConversionError extends Error {
  constructor(code, message, unsupportedOps = []) {
    super(message);
    this.name = "ConversionError";
    this.code = code;
    this.exitCode = EXIT_CODES[code] ?? 1;
    this.unsupportedOps = unsupportedOps;
  }
}

let corePromise = null;

function loadCore() {
  corePromise ??= loadCoreOnce().catch((e) => {
    corePromise = null;  // let a later call try again (e.g. once the file is in place)
    throw new ConversionError("load", `could not load the converter (pt2onnx-core.mjs/.wasm beside ` +
      `pt2onnx.mjs): ${e?.message ?? e}`);
  });
  return corePromise;
}

// Imports made at run time, not bundled: bundlers leave a computed import()
// alone, so the core glue (and, in node, node's own modules) is loaded from
// beside this file wherever it ends up (docs/javascript.md).
const runtimeImport = (specifier) => import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);

async function loadCoreOnce() {
  const moduleOptions = {};
  if (inNode) {
    // Emscripten 3.1.6's ES-module glue still uses CommonJS globals under node.
    const { createRequire } = await runtimeImport("node:module");
    const { fileURLToPath } = await runtimeImport("node:url");
    const { dirname } = await runtimeImport("node:path");
    const { readFileSync } = await runtimeImport("node:fs");
    globalThis.require ??= createRequire(import.meta.url);
    globalThis.__dirname ??= dirname(fileURLToPath(import.meta.url));
    moduleOptions.wasmBinary = readFileSync(new URL("./pt2onnx-core.wasm", import.meta.url));
  }
  const { default: createPt2OnnxCore } = await runtimeImport(new URL("./pt2onnx-core.mjs", import.meta.url).href);
  return createPt2OnnxCore(moduleOptions);
}

function usage(message) {
  return new ConversionError("usage", message);
}

function checkNames(value, key) {
  if (!Array.isArray(value) || value.some((n) => typeof n !== "string" || n.trim() === "")) {
    throw usage(`options.${key} must be an array of non-empty strings`);
  }
}

function checkOptions(options) {
  if (options === null || typeof options !== "object") throw usage("options must be an object");
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) {
      throw usage(`unknown option '${key}'; known: ${[...OPTION_KEYS].join(", ")}`);
    }
  }
  const { opset, externalData, dimNames, modelName, optimize, outputName, onProgress } = options;
  if (opset !== undefined && !(Number.isInteger(opset) && opset >= 18 && opset <= 26)) {
    throw usage(`options.opset must be an integer from 18 to 26, got ${opset}`);
  }
  if (options.kvCache !== undefined) {
    if (!["dynamic", "static"].includes(options.kvCache)) {
      throw usage(`options.kvCache must be "dynamic" or "static", got ${options.kvCache}`);
    }
    if (options.kvCache === "static" && (opset ?? 20) < 24) {
      throw usage("kvCache: \"static\" needs opset 24 or higher (TensorScatter); add opset: 24");
    }
  }
  if (externalData !== undefined && !["auto", "always", "never"].includes(externalData)) {
    throw usage(`options.externalData must be "auto", "always" or "never", got ${externalData}`);
  }
  if (options.inputNames !== undefined) checkNames(options.inputNames, "inputNames");
  if (options.outputNames !== undefined) checkNames(options.outputNames, "outputNames");
  if (dimNames !== undefined) {
    if (dimNames === null || typeof dimNames !== "object" ||
        Object.values(dimNames).some((n) => typeof n !== "string" || n.trim() === "")) {
      throw usage("options.dimNames must map dimension names to non-empty strings, e.g. { s0: \"batch\" }");
    }
  }
  if (modelName !== undefined && typeof modelName !== "string") throw usage("options.modelName must be a string");
  if (optimize !== undefined && typeof optimize !== "boolean") throw usage("options.optimize must be a boolean");
  for (const key of ["includeWeights", "weightsAsInputs"]) {
    if (options[key] !== undefined && typeof options[key] !== "boolean") throw usage(`options.${key} must be a boolean`);
  }
  for (const key of ["overrideBuiltins", "translationsAsFunctions"]) {
    if (options[key] !== undefined && typeof options[key] !== "boolean") throw usage(`options.${key} must be a boolean`);
  }
  if (options.translations !== undefined) translationLibraries(options.translations);
  if (options.translationsAsFunctions && options.translations === undefined) {
    throw usage("options.translationsAsFunctions needs a library (options.translations)");
  }
  if (outputName !== undefined &&
      (typeof outputName !== "string" || outputName.slice(outputName.lastIndexOf("/") + 1).trim() === "")) {
    throw usage("options.outputName must be a file name such as \"model.onnx\"");
  }
  if (onProgress !== undefined && typeof onProgress !== "function") {
    throw usage("options.onProgress must be a function");
  }
  if (options.signal !== undefined && (options.signal === null || typeof options.signal.aborted !== "boolean")) {
    throw usage("options.signal must be an AbortSignal");
  }
  if (options.workerUrl !== undefined && typeof options.workerUrl !== "string" &&
      !(typeof URL !== "undefined" && options.workerUrl instanceof URL)) {
    throw usage("options.workerUrl must be a URL or a string");
  }
}

// options.translations (the bytes of one ONNX function library, or an array
// of them, as --translations FILE) as an array of Uint8Array.
function translationLibraries(value) {
  const list = Array.isArray(value) ? value : [value];
  return list.map((bytes) => {
    if (bytes instanceof Uint8Array) return bytes;
    if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
    throw usage("options.translations must be the bytes of an ONNX function library (.onnxlib) as a " +
      "Uint8Array or ArrayBuffer, or an array of them");
  });
}

// "cnn.pt2" -> "cnn.onnx", as the CLI names its default output.
function defaultOutputName(input) {
  const name = typeof input?.name === "string" && input.name !== "" ? input.name : "model.pt2";
  return (name.endsWith(".pt2") ? name.slice(0, -4) : name) + ".onnx";
}

// The synchronous reader the converter pulls bytes through, and how to cut
// the weights' Blob parts out of the input.
async function sourceOf(input) {
  if (input instanceof Uint8Array || input instanceof ArrayBuffer) {
    // Copied: the caller's array may change before the result's Blob is built.
    const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
    return { source: bytesReader(bytes), slice: (a, b) => bytes.slice(a, b), lazySlices: false };
  }
  if (canReadBlobSync) {
    // A file small enough to be read whole gives its weights' Blob parts from
    // those bytes: each File.slice() costs a call into the blob store.
    const source = blobReader(input);
    return { source, slice: (a, b) => source.wholeFile()?.subarray(a, b) ?? input.slice(a, b), lazySlices: true };
  }
  // node (no FileReaderSync): Blobs are read whole.
  const bytes = new Uint8Array(await input.arrayBuffer());
  return { source: bytesReader(bytes), slice: (a, b) => bytes.subarray(a, b), lazySlices: true };
}

const MEMORY_HINT = "; the model may be too large for this browser's WebAssembly memory";

// One call into the core, `call(progress)`: a throwing onProgress is ignored
// (it must not unwind through the core); an abort drops the core (an aborted
// module cannot be reused) and rejects as "internal" with `stopped`'s words;
// a refusal rejects with its ConversionError, which carries the report of the
// failed run where the core renders one (verify()).
function callCore(call, { onProgress, stopped = "the converter stopped", hint = "" } = {}) {
  // Without a listener the core makes no progress calls at all.
  const progress = onProgress === undefined ? undefined : (stage, fraction) => {
    try {
      onProgress({ stage, fraction });
    } catch {
      // ignored, see above
    }
  };
  let out;
  try {
    out = call(progress);
  } catch (e) {
    corePromise = null;
    throw new ConversionError("internal", `${stopped} (${e?.message ?? e})${hint}`);
  }
  if (!out.ok) {
    const error = new ConversionError(out.code, out.message, out.unsupportedOps);
    if (typeof out.report === "string") error.report = out.report;
    if (typeof out.file === "string") error.file = out.file;  // convertFolder(): the file at fault
    throw error;
  }
  return out;
}

async function convertHere(input, options) {
  const { source, slice, lazySlices } = await sourceOf(input);
  const core = await loadCore();
  const { onProgress, signal, workerUrl, ...rest } = options;
  if (rest.translations !== undefined) rest.translations = translationLibraries(rest.translations);
  const coreOptions = { ...rest, outputName: options.outputName ?? defaultOutputName(input),
    inputName: typeof input?.name === "string" && input.name ? input.name : "model.pt2" };
  const out = callCore((progress) => core.convert(source, coreOptions, progress), { onProgress, hint: MEMORY_HINT });
  return withOutputBlobs(out, slice, { summary: out.summary, warnings: out.warnings, report: out.report },
    { lazySlices, wholeFile: source.wholeFile?.() ?? null });
}

const runInWorker = makeRunInWorker(ConversionError);

export async function convert(input, options = {}) {
  const isBytes = input instanceof Uint8Array || input instanceof ArrayBuffer;
  const isBlob = typeof Blob !== "undefined" && input instanceof Blob;
  if (!isBytes && !isBlob) {
    throw usage("convert() takes a File, Blob, ArrayBuffer or Uint8Array holding a .pt2 file");
  }
  checkOptions(options);
  if (isBlob && onPageThread && !canReadBlobSync) return runInWorker("convert", input, options);
  return inPlace(() => convertHere(input, options), options.signal);
}

const APPLY_OPTION_KEYS = new Set([...OPTION_KEYS].filter((k) => k !== "includeWeights" && k !== "weightsAsInputs"));

function nameOf(input, fallback) {
  return typeof input?.name === "string" && input.name !== "" ? input.name : fallback;
}

async function applyHere({ model, weights }, options) {
  const target = await sourceOf(model);
  const source = await sourceOf(weights);
  const core = await loadCore();
  const { onProgress, signal, workerUrl, ...rest } = options;
  if (rest.translations !== undefined) rest.translations = translationLibraries(rest.translations);
  const coreOptions = { ...rest, outputName: options.outputName ?? nameOf(model, "model.onnx"),
    targetName: nameOf(model, "model.onnx"), weightsName: nameOf(weights, "model.pt2") };
  const out = callCore(() => core.applyWeights(target.source, source.source, coreOptions));
  return withOutputBlobs(out, source.slice, { report: out.report });
}

/**
 * The ONNX model `onnx` (typically converted with includeWeights: false) with
 * the weights of `pt2`, another .pt2 of the same program: what the CLI's
 * `apply-weights` writes, byte for byte.
 */
export async function applyWeights(onnx, pt2, options = {}) {
  const isInput = (x) => x instanceof Uint8Array || x instanceof ArrayBuffer ||
    (typeof Blob !== "undefined" && x instanceof Blob);
  if (!isInput(onnx) || !isInput(pt2)) {
    throw usage("applyWeights() takes the ONNX model and the .pt2 as Files, Blobs, ArrayBuffers or Uint8Arrays");
  }
  if (options === null || typeof options !== "object") throw usage("options must be an object");
  for (const key of Object.keys(options)) {
    if (!APPLY_OPTION_KEYS.has(key)) {
      throw usage(`unknown applyWeights() option '${key}'; known: ${[...APPLY_OPTION_KEYS].join(", ")}`);
    }
  }
  checkOptions(options);
  const anyBlob = !(onnx instanceof Uint8Array || onnx instanceof ArrayBuffer) ||
    !(pt2 instanceof Uint8Array || pt2 instanceof ArrayBuffer);
  const input = { model: onnx, weights: pt2 };
  if (anyBlob && onPageThread && !canReadBlobSync) return runInWorker("applyWeights", input, options);
  return inPlace(() => applyHere(input, options), options.signal);
}

const INSPECT_OPTION_KEYS = new Set(["opset", "modelName", "signal", "workerUrl", "translations",
  "overrideBuiltins"]);

// In a worker or in node the conversion runs on this thread, synchronously
// once started: the signal is checked before and after, and an abort in
// between discards the result.
async function inPlace(run, signal) {
  if (signal?.aborted) throw abortError(signal);
  const result = await run();
  if (signal?.aborted) throw abortError(signal);
  return result;
}

async function inspectCore(input, options) {
  const { source } = await sourceOf(input);
  const core = await loadCore();
  return callCore(() => core.inspect(source, options));
}

async function inspectHere(input, options) {
  return JSON.parse((await inspectCore(input, options)).json);
}

/**
 * What `pt2onnx FILE --inspect` prints, as text and as the exact JSON text of
 * `--inspect --json` (the node CLI prints these). Runs in place (node or a
 * worker). `fileName` is the name the text shows.
 */
export async function inspectReport(input, { opset, modelName, fileName, translations, overrideBuiltins } = {}) {
  const options = {};
  if (opset !== undefined) options.opset = opset;
  if (modelName !== undefined) options.modelName = modelName;
  if (overrideBuiltins !== undefined) options.overrideBuiltins = overrideBuiltins;
  if (translations !== undefined) options.translations = translations;
  checkOptions(options);
  if (translations !== undefined) options.translations = translationLibraries(translations);
  const out = await inspectCore(input, { ...options, inputName: fileName ?? "model.pt2" });
  return { text: out.text, json: out.json };
}

export async function inspect(input, options = {}) {
  const isBytes = input instanceof Uint8Array || input instanceof ArrayBuffer;
  const isBlob = typeof Blob !== "undefined" && input instanceof Blob;
  if (!isBytes && !isBlob) {
    throw usage("inspect() takes a File, Blob, ArrayBuffer or Uint8Array holding a .pt2 file");
  }
  if (options === null || typeof options !== "object") throw usage("options must be an object");
  for (const key of Object.keys(options)) {
    if (!INSPECT_OPTION_KEYS.has(key)) {
      throw usage(`unknown inspect() option '${key}'; known: ${[...INSPECT_OPTION_KEYS].join(", ")}`);
    }
  }
  checkOptions(options);
  if (isBlob && onPageThread && !canReadBlobSync) return runInWorker("inspect", input, options);
  const { signal, workerUrl, ...rest } = options;
  if (rest.translations !== undefined) rest.translations = translationLibraries(rest.translations);
  return inPlace(() => inspectHere(input, rest), signal);
}

export async function supportedOps(options = {}) {
  // On a page, asked of the worker that converts, so the .wasm is fetched once.
  if (onPageThread && !canReadBlobSync) return runInWorker("supportedOps", null, options);
  const core = await loadCore();
  return core.supportedOps();
}

export async function refusedOps(options = {}) {
  if (onPageThread && !canReadBlobSync) return runInWorker("refusedOps", null, options);
  const core = await loadCore();
  return core.refusedOps();
}

// The executor: run(model, inputs) and createSession(model) (pt2onnx-run.mjs).
export const { run, createSession } = makeRunApi(loadCore);
export { RunError };

// verify(): the CLI's --verify (pt2onnx-verify.mjs).
export const verify = makeVerify({
  ConversionError, checkOptions, translationLibraries, loadCore, callCore, runInWorker, inPlace,
  onPage: onPageThread && !canReadBlobSync,
});
export { MAX_VERIFY_BYTES };

// convertFolder(): an exporter's folder (pt2onnx-folder.mjs).
export const convertFolder = makeConvertFolder({
  ConversionError, checkOptions, loadCore, callCore, sourceOf, runInWorker, inPlace, outputBlob,
  onPage: onPageThread && !canReadBlobSync,
});

// generate(): greedy generation through a converted folder (pt2onnx-generate.mjs).
export const generate = makeGenerate({
  ConversionError, loadCore, callCore, sourceOf, runInWorker, inPlace, onPage: onPageThread && !canReadBlobSync,
});
export { MAX_GENERATED_TOKENS };
