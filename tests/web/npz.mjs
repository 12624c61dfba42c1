// NumPy .npz (np.savez: a zip of .npy files, stored or deflated) -> typed
// arrays, for comparing the wasm executor's outputs with torch's recorded ones.
import { inflateRawSync } from "node:zlib";

const NPY_DTYPES = {
  "<f4": ["float32", Float32Array], "<f8": ["float64", Float64Array], "<f2": ["float16", Uint16Array],
  "|i1": ["int8", Int8Array], "<i2": ["int16", Int16Array], "<i4": ["int32", Int32Array],
  "<i8": ["int64", BigInt64Array], "|u1": ["uint8", Uint8Array], "<u2": ["uint16", Uint16Array],
  "<u4": ["uint32", Uint32Array], "<u8": ["uint64", BigUint64Array], "|b1": ["bool", Uint8Array],
};

function readNpy(bytes, name) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const major = bytes[6];
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  const header = new TextDecoder().decode(bytes.subarray(start, start + headerLength));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*True/.test(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(",").map((s) => s.trim()).filter(Boolean).map(Number);
  const known = NPY_DTYPES[descr];
  // bfloat16 arrays are saved by torch-side tools as raw void2 ('|V2') bits.
  const [dtype, Array] = known ?? (descr === "|V2" ? ["bfloat16", Uint16Array] : [null, null]);
  if (!dtype || fortran) throw new Error(`${name}: unsupported npy array (${header})`);
  const count = shape.reduce((a, b) => a * b, 1);
  const offset = start + headerLength;
  const copy = bytes.slice(offset, offset + count * Array.BYTES_PER_ELEMENT);  // aligned
  return { dtype, dims: shape, data: new Array(copy.buffer, 0, count) };
}

// Arrays in archive order: [{ name, dtype, dims, data }].
export function readNpz(buffer) {
  const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let eocd = bytes.length - 22;
  while (eocd >= 0 && view.getUint32(eocd, true) !== 0x06054b50) --eocd;
  if (eocd < 0) throw new Error("not a zip archive");
  let entries = view.getUint16(eocd + 10, true);
  let p = view.getUint32(eocd + 16, true);
  const arrays = [];
  for (; entries > 0; --entries) {
    const method = view.getUint16(p + 10, true);
    let compressed = view.getUint32(p + 20, true);
    const nameLength = view.getUint16(p + 28, true), extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    let local = view.getUint32(p + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(p + 46, p + 46 + nameLength));
    // ZIP64 (np.savez writes it for big arrays): sizes and offset in the extra field.
    for (let e = p + 46 + nameLength; e < p + 46 + nameLength + extraLength;) {
      const id = view.getUint16(e, true), size = view.getUint16(e + 2, true);
      if (id === 1) {
        let q = e + 4;
        const wide = (v) => { if (v !== 0xffffffff) return v; const x = Number(view.getBigUint64(q, true)); q += 8; return x; };
        wide(view.getUint32(p + 24, true));
        compressed = wide(compressed);
        local = wide(local);
      }
      e += 4 + size;
    }
    const dataStart = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const raw = bytes.subarray(dataStart, dataStart + compressed);
    const npy = method === 0 ? raw : method === 8 ? new Uint8Array(inflateRawSync(raw)) : null;
    if (npy === null) throw new Error(`${name}: zip method ${method}`);
    arrays.push({ name: name.replace(/\.npy$/, ""), ...readNpy(npy, name) });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return arrays;
}
