// Results of convert() and applyWeights() with their `onnx` and `data` Blobs
// built on first read (then kept): building a Blob copies the written bytes
// into the browser's blob store, which costs more than converting a small
// model, and a caller may only want the summary or the report.
//
// A conversion run in the page's worker crosses to the page as its parts
// (outputParts), not as Blobs, so it keeps that: posting the result itself
// would read its getters and build the Blobs in the worker.

// An output as the core returns it (wasm/api_values.h) as Blob parts: the
// bytes it wrote, in chunks (full ones already Blobs, the last a
// Uint8Array), and per part the triple (-1 for a slice of the input else the
// index of its chunk, offset, length).
function blobParts({ chunks, parts }, slice) {
  const list = [];
  for (let i = 0; i < parts.length; i += 3) {
    const offset = parts[i + 1];
    const end = offset + parts[i + 2];
    if (parts[i] < 0) {
      list.push(slice(offset, end));
    } else {
      const chunk = chunks[parts[i]];
      list.push(chunk instanceof Uint8Array ? chunk.subarray(offset, end) : chunk.slice(offset, end));
    }
  }
  return list;
}

// An output made of written bytes only (no slice of an input: convertFolder()'s
// files) as one Blob.
export function outputBlob(output) {
  const noSlice = () => {
    throw new Error("an output part refers to an input file");
  };
  return new Blob(blobParts(output, noSlice), { type: "application/octet-stream" });
}

// The parts' bytes in one new array when every part is in memory, else
// null (a part is a Blob: a full chunk, or a File.slice() of a large input).
function joinedInMemory(list) {
  let size = 0;
  for (const part of list) {
    if (!(part instanceof Uint8Array)) return null;
    size += part.length;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of list) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

// A Blob's bytes in a new array.
async function blobBytes(blob) {
  return new Uint8Array(await blob.arrayBuffer());
}

// The parts' bytes in one new array, Blob parts read asynchronously.
async function joined(list) {
  const inMemory = joinedInMemory(list);
  if (inMemory !== null) return inMemory;
  const read = [];
  for (const part of list) read.push(part instanceof Uint8Array ? part : await blobBytes(part));
  return joinedInMemory(read);
}

// What a result was made of, for outputParts().
const madeOf = new WeakMap();

// `out`: the core's result ({ model, data, onnxName, dataName }); `slice(a,
// b)`: the input's bytes [a, b) as a Blob part. With `lazySlices` (an input
// that cannot change: a Blob) the parts are cut when the Blob is built; else
// now, so a later change to an input array does not show.
export function withOutputBlobs(out, slice, fields, { lazySlices = false, wholeFile = null } = {}) {
  const partsOf = (output) => (output === null ? null : lazySlices ? () => blobParts(output, slice) : blobParts(output, slice));
  let modelParts = partsOf(out.model);
  let dataParts = partsOf(out.data);
  const list = (parts) => (typeof parts === "function" ? parts() : parts);
  const blob = (parts) => new Blob(list(parts), { type: "application/octet-stream" });
  // Until its Blob is built an output's bytes come from its parts, without one.
  const bytes = (parts, built) => (parts !== null ? joined(list(parts)) : blobBytes(built));
  let onnx;
  let data = null;
  const result = {
    get onnx() {
      if (modelParts !== null) [onnx, modelParts] = [blob(modelParts), null];  // the parts are now in the Blob
      return onnx;
    },
    onnxName: out.onnxName,
    get data() {
      if (dataParts !== null) [data, dataParts] = [blob(dataParts), null];
      return data;
    },
    dataName: out.dataName,
    ...fields,
  };
  // Methods, not enumerable: a structured clone of the result leaves them out.
  Object.defineProperties(result, {
    onnxBytes: { value: () => bytes(modelParts, onnx) },
    dataBytes: { value: async () => (out.data === null ? null : bytes(dataParts, data)) },
  });
  if (lazySlices) madeOf.set(result, { model: out.model, data: out.data, wholeFile });
  return result;
}

// A result that crossed from the worker with its Blobs built (applyWeights())
// given the byte accessors, which read the Blobs.
export function withBlobBytes(result) {
  Object.defineProperties(result, {
    onnxBytes: { value: () => blobBytes(result.onnx) },
    dataBytes: { value: async () => (result.data === null ? null : blobBytes(result.data)) },
  });
  return result;
}

// A result of withOutputBlobs(..., { lazySlices: true }) as a message and its
// transfer list: the plain fields, and the parts of outputs not read yet;
// `wholeFile`, the input's bytes when the reader read it whole, gives the
// weights' parts without File.slice() calls. null for another result.
export function outputParts(result) {
  const made = madeOf.get(result);
  if (made === undefined) return null;
  const fields = {};
  for (const [key, { value, enumerable }] of Object.entries(Object.getOwnPropertyDescriptors(result))) {
    if (enumerable && key !== "onnx" && key !== "data") fields[key] = value;
  }
  const transfer = [];
  for (const output of [made.model, made.data]) {
    for (const chunk of output?.chunks ?? []) if (chunk instanceof Uint8Array) transfer.push(chunk.buffer);
    if (output?.parts instanceof Float64Array) transfer.push(output.parts.buffer);  // the triples, moved too
  }
  if (made.wholeFile !== null) transfer.push(made.wholeFile.buffer);
  return { message: { fields, model: made.model, data: made.data, wholeFile: made.wholeFile }, transfer };
}

// outputParts' message back as a result, the weights' parts cut from `input`
// (the Blob the worker read).
export function fromOutputParts({ fields, model, data, wholeFile }, input) {
  const slice = wholeFile !== null ? (a, b) => wholeFile.subarray(a, b) : (a, b) => input.slice(a, b);
  const out = { model, data, onnxName: fields.onnxName, dataName: fields.dataName };
  return withOutputBlobs(out, slice, fields, { lazySlices: true });
}
