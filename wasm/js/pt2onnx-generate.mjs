// generate(): greedy generation through a converted export folder (what
// convertFolder() or `pt2onnx DIR -o OUTDIR` wrote) in pt2onnx's executor,
// the same code as the CLI's `pt2onnx verify-generation OUTDIR`: prefill on
// the prompt, then decode once per further token, each step's caches fed
// back (static --kv-cache buffers filled in), the argmax of the last logits.
// Re-exported by pt2onnx.mjs and documented in pt2onnx.d.ts.
import { folderEntries } from "./pt2onnx-folder.mjs";

const GENERATE_KEYS = new Set(["prompt", "tokens", "inputs", "signal", "workerUrl"]);
export const MAX_GENERATED_TOKENS = 100000;

// The pieces of pt2onnx.mjs it needs (see makeConvertFolder).
export function makeGenerate({ ConversionError, loadCore, callCore, sourceOf, runInWorker, inPlace, onPage }) {
  const usage = (message) => new ConversionError("usage", message);

  function checkGenerateOptions(options) {
    if (options === null || typeof options !== "object") throw usage("options must be an object");
    for (const key of Object.keys(options)) {
      if (!GENERATE_KEYS.has(key)) throw usage(`unknown generate() option '${key}'; known: ${[...GENERATE_KEYS].join(", ")}`);
    }
    const { prompt = [1, 2, 3, 4], tokens = 8 } = options;
    if (!Array.isArray(prompt) || prompt.length === 0 ||
        prompt.some((id) => !Number.isSafeInteger(id) || id < 0)) {
      throw usage("options.prompt must be a non-empty array of token ids (integers >= 0)");
    }
    if (!Number.isInteger(tokens) || tokens < 1 || tokens > MAX_GENERATED_TOKENS) {
      throw usage(`options.tokens must be an integer from 1 to ${MAX_GENERATED_TOKENS}, got ${tokens}`);
    }
    const { inputs } = options;
    const isBytes = inputs instanceof Uint8Array || inputs instanceof ArrayBuffer ||
      (typeof Blob !== "undefined" && inputs instanceof Blob);
    if (inputs !== undefined && !isBytes) {
      throw usage("options.inputs must be an .npz's bytes (a File, Blob, ArrayBuffer or Uint8Array)");
    }
    return { prompt, tokens, inputs };
  }

  async function generateHere(entries, checked) {
    const readers = {};
    for (const [name, input] of entries) readers[name] = (await sourceOf(input)).source;
    const core = await loadCore();
    const { inputs, ...rest } = checked;
    const coreOptions = inputs === undefined ? rest
      : { ...rest, inputs: inputs instanceof Uint8Array ? inputs
        : new Uint8Array(inputs instanceof ArrayBuffer ? inputs : await inputs.arrayBuffer()) };
    const out = callCore(() => core.generate(readers, coreOptions), { stopped: "the generation stopped" });
    return { tokens: out.tokens, lastLogits: out.lastLogits };
  }

  /**
   * The converted folder's files in (export.json, the components' .onnx and
   * .onnx.data, config.json), { tokens, lastLogits } out.
   */
  return async function generate(files, options = {}) {
    const entries = folderEntries(files, usage, "generate()");
    const checked = checkGenerateOptions(options);
    const anyBlob = entries.some(([, input]) => !(input instanceof Uint8Array || input instanceof ArrayBuffer));
    if (anyBlob && onPage) return runInWorker("generate", new Map(entries), options);
    return inPlace(() => generateHere(entries, checked), options.signal);
  };
}
