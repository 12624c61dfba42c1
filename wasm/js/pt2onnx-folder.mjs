// convertFolder(): a model library's export folder (transformers'
// `save_pretrained` of an exporter: export.json and one .pt2 per component)
// to the ONNX folder the CLI's `pt2onnx DIR -o OUTDIR` writes, file for file.
// Re-exported by pt2onnx.mjs and documented in pt2onnx.d.ts.

const FOLDER_KEYS = new Set(["opset", "optimize", "includeWeights", "weightsAsInputs", "kvCache", "onProgress",
  "signal", "workerUrl"]);

const isInput = (x) => x instanceof Uint8Array || x instanceof ArrayBuffer ||
  (typeof Blob !== "undefined" && x instanceof Blob);

// A file of a picked or dropped folder by its name inside the folder: a
// directory picker's File says "qwen3/export.json" in webkitRelativePath.
function nameInFolder(file) {
  const path = typeof file.webkitRelativePath === "string" && file.webkitRelativePath !== ""
    ? file.webkitRelativePath : file.name;
  const slash = path.indexOf("/");
  return slash < 0 ? path : path.slice(slash + 1);
}

// [name, input] pairs from a Map, a plain object, or an array / FileList of
// Files (named as in their folder); `what` names the function in messages.
export function folderEntries(files, usage, what) {
  let entries;
  if (files instanceof Map) entries = [...files.entries()];
  else if (Array.isArray(files) || (typeof FileList !== "undefined" && files instanceof FileList)) {
    entries = [...files].map((file) => {
      if (typeof Blob === "undefined" || !(file instanceof Blob) || typeof file.name !== "string") {
        throw usage(`${what} takes an array of Files (named), a Map or an object of name -> input`);
      }
      return [nameInFolder(file), file];
    });
  } else if (files !== null && typeof files === "object" && !isInput(files)) entries = Object.entries(files);
  else throw usage(`${what} takes the folder's files: a Map or an object of name -> File, Blob, ` +
    "ArrayBuffer or Uint8Array, or an array of Files");
  const seen = new Set();
  for (const [name, input] of entries) {
    if (typeof name !== "string" || name === "") throw usage("every file of the folder needs a name");
    if (!isInput(input)) throw usage(`${name}: not a File, Blob, ArrayBuffer or Uint8Array`);
    if (seen.has(name)) throw usage(`the folder holds two files named ${name}`);
    seen.add(name);
  }
  return entries;
}

// The pieces of pt2onnx.mjs it needs: sourceOf(input) gives a reader, onPage
// says whether calls go to the worker (a page's main thread).
export function makeConvertFolder({ ConversionError, checkOptions, loadCore, callCore, sourceOf, runInWorker,
  inPlace, outputBlob, onPage }) {
  const usage = (message) => new ConversionError("usage", message);
  const entriesOf = (files) => folderEntries(files, usage, "convertFolder()");

  async function convertHere(entries, options) {
    const readers = {};
    for (const [name, input] of entries) readers[name] = (await sourceOf(input)).source;
    const core = await loadCore();
    const { onProgress, signal, workerUrl, ...rest } = options;
    const out = callCore((progress) => core.convertFolder(readers, rest, progress), { onProgress });
    return {
      files: out.files.map(({ name, output }) => ({ name, blob: outputBlob(output) })),
      components: out.components,
      sharedBytes: out.sharedBytes,
      sharedTensors: out.sharedTensors,
      report: out.report,
    };
  }

  /**
   * The folder's files in (export.json and the .pt2 files it names), the
   * ONNX folder out: every file as a Blob, named as the CLI names it.
   */
  return async function convertFolder(files, options = {}) {
    const entries = entriesOf(files);
    if (options === null || typeof options !== "object") throw usage("options must be an object");
    for (const key of Object.keys(options)) {
      if (!FOLDER_KEYS.has(key)) {
        throw usage(`unknown convertFolder() option '${key}'; known: ${[...FOLDER_KEYS].join(", ")} ` +
          "(names, dims and external data are the folder's own)");
      }
    }
    checkOptions(options);
    const anyBlob = entries.some(([, input]) => !(input instanceof Uint8Array || input instanceof ArrayBuffer));
    if (anyBlob && onPage) return runInWorker("convertFolder", new Map(entries), options);
    return inPlace(() => convertHere(entries, options), options.signal);
  };
}
