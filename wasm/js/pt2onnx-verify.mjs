// verify(): the CLI's --verify for JavaScript, re-exported by pt2onnx.mjs and
// documented in pt2onnx.d.ts. The .pt2 is converted as convert() does, then
// pt2onnx's ATen reference interpreter and its executor run the program and
// the converted model on the same inputs (given, the archive's example
// inputs, else the CLI's seeded ones) and compare them as torch.onnx does.
// The C++ behind it is the CLI's (export/verify_pt2: the same conversion and
// checks, then both engines), so the numbers and refusals are too.

// wasm/verify_api.h: the whole .pt2 enters wasm memory, so there is a limit.
export const MAX_VERIFY_BYTES = 1.5 * 1024 ** 3;

const VERIFY_KEYS = new Set(["opset", "inputNames", "outputNames", "dimNames", "modelName", "optimize",
  "outputName", "translations", "overrideBuiltins", "translationsAsFunctions", "intermediates", "inputs",
  "onProgress", "signal", "workerUrl"]);
// The converter's own options, checked as convert() checks them.
const CONVERT_KEYS = ["opset", "inputNames", "outputNames", "dimNames", "modelName", "optimize", "outputName",
  "translations", "overrideBuiltins", "translationsAsFunctions", "onProgress", "signal", "workerUrl"];

// The dtype a typed array holds unless the input says otherwise (Uint8Array
// stands for uint8; a bool input says dtype: "bool").
const DTYPE_OF = new Map([[Float32Array, "float32"], [Float64Array, "float64"], [Int8Array, "int8"],
  [Int16Array, "int16"], [Int32Array, "int32"], [BigInt64Array, "int64"], [Uint8Array, "uint8"],
  [Uint16Array, "uint16"], [Uint32Array, "uint32"], [BigUint64Array, "uint64"]]);

const typeName = (value) => value?.constructor?.name ?? (value === null ? "null" : typeof value);

function gib(bytes) {
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

// The module's pieces it needs (pt2onnx.mjs): onPage says whether calls go to
// the worker (a page's main thread), callCore makes one call into the core.
export function makeVerify({ ConversionError, checkOptions, translationLibraries, loadCore, callCore, runInWorker,
  inPlace, onPage }) {
  const usage = (message) => new ConversionError("usage", message);

  function checkVerifyOptions(options) {
    if (options === null || typeof options !== "object") throw usage("options must be an object");
    if (options.kvCache === "static") {
      throw usage("verify() runs the program's own inputs, which kvCache: \"static\" replaces (buffers and " +
        "past_length): verify the default form, whose numbers the static form keeps");
    }
    for (const key of Object.keys(options)) {
      if (key === "kvCache" && options.kvCache === "dynamic") continue;
      if (!VERIFY_KEYS.has(key)) throw usage(`unknown verify() option '${key}'; known: ${[...VERIFY_KEYS].join(", ")}`);
    }
    const shared = {};
    for (const key of CONVERT_KEYS) if (options[key] !== undefined) shared[key] = options[key];
    checkOptions(shared);
    if (options.intermediates !== undefined && typeof options.intermediates !== "boolean") {
      throw usage("options.intermediates must be a boolean");
    }
    const { inputs } = options;
    if (inputs === undefined || inputs === "seeded" || inputs instanceof Uint8Array || inputs instanceof ArrayBuffer ||
        (typeof Blob !== "undefined" && inputs instanceof Blob)) return;
    if (inputs === null || typeof inputs !== "object" || Array.isArray(inputs)) {
      throw usage("options.inputs must be \"seeded\", the bytes of an .npz (Uint8Array, ArrayBuffer, Blob) or " +
        `an object mapping input names to { data, dims }, got ${typeName(inputs)}`);
    }
    for (const [name, value] of Object.entries(inputs)) {
      const where = `options.inputs.${name}`;
      if (value === null || typeof value !== "object" || !ArrayBuffer.isView(value.data) || !Array.isArray(value.dims)) {
        throw new ConversionError("invalid_input", `${where} must be { data: TypedArray, dims: number[] }`);
      }
      if (value.dims.some((d) => !Number.isSafeInteger(d) || d < 0)) {
        throw new ConversionError("invalid_input", `${where}.dims must be non-negative integers`);
      }
      if (value.dtype === undefined && !DTYPE_OF.has(value.data.constructor)) {
        throw new ConversionError("invalid_input", `${where}: cannot tell the dtype of a ${typeName(value.data)}; ` +
          "give { data, dims, dtype }");
      }
    }
  }

  // The inputs option as wasm/verify_api.h takes it.
  async function coreInputs(inputs) {
    if (inputs === undefined || inputs === "seeded") return inputs;
    if (inputs instanceof Uint8Array) return { npz: inputs, name: "inputs.npz" };
    if (inputs instanceof ArrayBuffer) return { npz: new Uint8Array(inputs), name: "inputs.npz" };
    if (typeof Blob !== "undefined" && inputs instanceof Blob) {
      return { npz: new Uint8Array(await inputs.arrayBuffer()), name: inputs.name || "inputs.npz" };
    }
    return {
      tensors: Object.entries(inputs).map(([name, { data, dims, dtype }]) => ({
        name, dtype: dtype ?? DTYPE_OF.get(data.constructor), dims,
        bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      })),
    };
  }

  async function verifyHere(input, options) {
    const size = input instanceof ArrayBuffer ? input.byteLength : (input.size ?? input.length);
    if (size > MAX_VERIFY_BYTES) {
      // Before reading: the core would refuse it anyway, after a copy the tab may not survive.
      throw new ConversionError("unsupported", `verify() needs the whole .pt2 in WebAssembly memory and this one is ` +
        `${gib(size)}, over the ${gib(MAX_VERIFY_BYTES)} limit of the browser build; verify it with the CLI ` +
        "(pt2onnx model.pt2 --verify)");
    }
    const bytes = input instanceof Uint8Array ? input
      : input instanceof ArrayBuffer ? new Uint8Array(input) : new Uint8Array(await input.arrayBuffer());
    const core = await loadCore();
    const { onProgress, signal, workerUrl, inputs, ...rest } = options;
    if (rest.translations !== undefined) rest.translations = translationLibraries(rest.translations);
    const coreOptions = { ...rest, inputs: await coreInputs(inputs),
      inputName: typeof input?.name === "string" && input.name ? input.name : "model.pt2" };
    const out = callCore((progress) => core.verify(bytes, coreOptions, progress),
      { onProgress, stopped: "verification stopped",
        hint: "; the model may be too large for this browser's WebAssembly memory" });
    const { ok, ...result } = out;
    return result;
  }

  return async function verify(input, options = {}) {
    const isBytes = input instanceof Uint8Array || input instanceof ArrayBuffer;
    const isBlob = typeof Blob !== "undefined" && input instanceof Blob;
    if (!isBytes && !isBlob) {
      throw usage("verify() takes a File, Blob, ArrayBuffer or Uint8Array holding a .pt2 file");
    }
    checkVerifyOptions(options);
    // On a page the two engines would freeze it: always in the worker.
    if (onPage) return runInWorker("verify", input, options);
    return inPlace(() => verifyHere(input, options), options.signal);
  };
}
