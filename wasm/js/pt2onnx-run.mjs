// The executor of pt2onnx (runtime, XNNPACK's wasm SIMD kernels) for
// ONNX models: run() and createSession(), re-exported by pt2onnx.mjs and
// documented in pt2onnx.d.ts. Runs on the calling thread, single-threaded.

// The typed array that holds each dtype's elements (float16/bfloat16 as raw bits).
const ARRAY_OF = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, bfloat16: Uint16Array,
  int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array, bool: Uint8Array,
};
const EXIT_CODES = { internal: 1, usage: 2, invalid_input: 4, unsupported: 5, load: 1 };

export class RunError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "RunError";
    this.code = code;
    this.exitCode = EXIT_CODES[code] ?? 1;
  }
}

const typeName = (value) => value?.constructor?.name ?? (value === null ? "null" : typeof value);

async function modelBytes(model) {
  if (model instanceof Uint8Array) return model;
  if (model instanceof ArrayBuffer) return new Uint8Array(model);
  if (typeof Blob !== "undefined" && model instanceof Blob) return new Uint8Array(await model.arrayBuffer());
  throw new RunError("usage", `the model must be a Blob, ArrayBuffer or Uint8Array holding an .onnx file, ` +
    `got ${typeName(model)}`);
}

// One input checked against the model's declaration: the typed array of its
// dtype and dims that hold exactly its values. Rank, static and symbolic dims
// are checked by the session itself.
function feedOf(info, value) {
  const where = `input '${info.name}'`;
  if (value === null || typeof value !== "object" || !("data" in value) || !("dims" in value)) {
    throw new RunError("invalid_input", `${where} must be { data, dims }, got ${typeName(value)}`);
  }
  const { data, dims } = value;
  const Expected = ARRAY_OF[info.dtype];
  if (Expected === undefined) throw new RunError("unsupported", `${where} has dtype ${info.dtype}, which run() cannot take`);
  if (!(data instanceof Expected)) {
    throw new RunError("invalid_input", `${where} must be ${info.dtype} (a ${Expected.name}), got ${typeName(data)}`);
  }
  if (!Array.isArray(dims) || dims.some((d) => !Number.isSafeInteger(d) || d < 0)) {
    throw new RunError("invalid_input", `${where}: dims must be an array of non-negative integers`);
  }
  const count = dims.reduce((a, b) => a * b, 1);
  if (count !== data.length) {
    throw new RunError("invalid_input",
      `${where} has ${data.length} values but dims [${dims.join(", ")}] hold ${count}`);
  }
  return { name: info.name, dtype: info.dtype, dims, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

function tensorOf({ dtype, dims, bytes }) {
  const Array = ARRAY_OF[dtype];
  if (Array === undefined) return { dtype, dims, data: bytes };
  // bytes is a fresh copy (Uint8Array.slice): its buffer starts aligned.
  return { dtype, dims, data: new Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / Array.BYTES_PER_ELEMENT) };
}

const finalizer = typeof FinalizationRegistry !== "undefined"
  ? new FinalizationRegistry(({ core, id }) => core.freeSession(id)) : null;

class Session {
  #core;
  #id;
  constructor(core, created) {
    this.#core = core;
    this.#id = created.id;
    this.inputs = created.inputs;
    this.outputs = created.outputs;
    finalizer?.register(this, { core, id: created.id }, this);
  }

  async run(feeds) {
    return this.runSync(feeds);
  }

  runSync(feeds) {
    if (this.#id === null) throw new RunError("usage", "the session was released");
    if (feeds === null || typeof feeds !== "object") {
      throw new RunError("usage", "inputs must be an object mapping input names to { data, dims }");
    }
    const known = new Set(this.inputs.map((i) => i.name));
    for (const name of Object.keys(feeds)) {
      if (!known.has(name)) {
        throw new RunError("invalid_input", `unknown input '${name}'; the model's inputs: ${[...known].join(", ")}`);
      }
    }
    const list = this.inputs.map((info) => {
      if (!(info.name in feeds)) throw new RunError("invalid_input", `missing input '${info.name}'`);
      return feedOf(info, feeds[info.name]);
    });
    let out;
    try {
      out = this.#core.runSession(this.#id, list);
    } catch (e) {
      throw new RunError("internal", `the executor stopped (${e?.message ?? e})`);
    }
    if (!out.ok) throw new RunError(out.code, out.message);
    const result = {};
    for (const o of out.outputs) result[o.name] = tensorOf(o);
    return result;
  }

  release() {
    if (this.#id === null) return;
    finalizer?.unregister(this);
    this.#core.freeSession(this.#id);
    this.#id = null;
  }
}

export function makeRunApi(loadCore) {
  async function createSession(model) {
    const bytes = await modelBytes(model);
    let core;
    try {
      core = await loadCore();
    } catch (e) {
      throw new RunError("load", e?.message ?? String(e));
    }
    let created;
    try {
      created = core.createSession(bytes);
    } catch (e) {
      throw new RunError("internal", `the executor stopped (${e?.message ?? e})`);
    }
    if (!created.ok) throw new RunError(created.code, created.message);
    return new Session(core, created);
  }

  async function run(model, inputs) {
    const session = await createSession(model);
    try {
      return session.runSync(inputs);
    } finally {
      session.release();
    }
  }

  return { createSession, run };
}
