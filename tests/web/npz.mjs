// NumPy .npz (np.savez: a zip of .npy files, stored or deflated) -> typed
// arrays, for comparing the wasm executor's outputs with torch's recorded ones;
// and back (writeNpz), for hand-made inputs.
import { crc32, inflateRawSync } from "node:zlib";

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
  // bfloat16: numpy.save writes ml_dtypes.bfloat16 arrays as '<V2' (np.load's view of them, saved again, '|V2').
  const [dtype, Array] = known ?? (descr === "|V2" || descr === "<V2" ? ["bfloat16", Uint16Array] : [null, null]);
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

// [{ name, dtype, dims, data }] (readNpz's arrays) -> the bytes of an .npz
// as np.savez writes it (stored entries, .npy format 1.0).
export function writeNpz(arrays) {
  const descrOf = { ...Object.fromEntries(Object.entries(NPY_DTYPES).map(([descr, [dtype]]) => [dtype, descr])),
    bfloat16: "<V2" };
  const parts = [];
  const central = [];
  let offset = 0;
  for (const { name, dtype, dims, data } of arrays) {
    const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(", ")})`;
    let header = `{'descr': '${descrOf[dtype]}', 'fortran_order': False, 'shape': ${shape}, }`;
    header = header.padEnd(Math.ceil((header.length + 11) / 64) * 64 - 11) + "\n";
    const body = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const npy = new Uint8Array(10 + header.length + body.length);
    npy.set([0x93, ..."NUMPY"].map((c) => (typeof c === "string" ? c.charCodeAt(0) : c)));
    npy.set([1, 0, header.length & 0xff, header.length >> 8], 6);
    npy.set(new TextEncoder().encode(header), 10);
    npy.set(body, 10 + header.length);
    const fileName = new TextEncoder().encode(`${name}.npy`);
    const crc = crc32(npy);
    // The local header (30 bytes) and the central one (46: "version made by" first, the offset last).
    const entry = (central) => {
      const h = new DataView(new ArrayBuffer(central ? 46 : 30));
      const q = central ? 2 : 0;
      h.setUint32(0, central ? 0x02014b50 : 0x04034b50, true);
      if (central) h.setUint16(4, 20, true);
      h.setUint16(4 + q, 20, true);
      h.setUint32(14 + q, crc, true);
      h.setUint32(18 + q, npy.length, true);
      h.setUint32(22 + q, npy.length, true);
      h.setUint16(26 + q, fileName.length, true);
      if (central) h.setUint32(42, offset, true);
      return new Uint8Array(h.buffer);
    };
    const local = entry(false);
    central.push(entry(true), fileName);
    parts.push(local, fileName, npy);
    offset += local.length + fileName.length + npy.length;
  }
  const centralSize = central.reduce((n, b) => n + b.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, arrays.length, true);
  end.setUint16(10, arrays.length, true);
  end.setUint32(12, centralSize, true);
  end.setUint32(16, offset, true);
  const all = [...parts, ...central, new Uint8Array(end.buffer)];
  const out = new Uint8Array(all.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of all) { out.set(b, at); at += b.length; }
  return out;
}
