// The synchronous readers the WebAssembly converter pulls input bytes through
// (wasm/js_input_file.h): { size, readInto(offset, dst) -> error | undefined }.
//
// In a worker a File is read with FileReaderSync, and every read costs a
// round trip to the browser's blob store: 0.3-0.6 ms whether it is 64 bytes
// or 64 KiB (Chromium, measured by tools/bench/wasm_vs_native.mjs). The
// converter makes dozens to hundreds of small reads (the zip directory, a
// local header per tensor, the program JSON, constants it folds), so a
// 85 KiB model took 49 reads and ~16 ms where converting it takes ~1 ms.
// cachingReader reads a small file whole on first use and a large one in
// aligned blocks it keeps a few of; large reads (weights) go straight through.

// A file up to this size is read in one piece on first use.
export const WHOLE_FILE_BYTES = 1 << 20;
// Above it: blocks of this size, the most recently used kept.
export const BLOCK_BYTES = 64 << 10;
export const CACHED_BLOCKS = 32;
// Reads at least this large skip the blocks (they are weights, read once).
export const DIRECT_BYTES = 256 << 10;

export function bytesReader(bytes) {
  return {
    size: bytes.length,
    readInto(offset, dst) {
      dst.set(bytes.subarray(offset, offset + dst.length));
    },
  };
}

// `readRange(begin, end)` returns the file's bytes [begin, end) as a
// Uint8Array (throwing on failure); `size` is the file's size. `stats`
// counts the underlying reads.
export function cachingReader(size, readRange) {
  const block = size <= WHOLE_FILE_BYTES ? Math.max(size, 1) : BLOCK_BYTES;
  const blocks = new Map();  // index -> bytes, oldest use first
  const stats = { reads: 0, bytes: 0 };
  const read = (begin, end) => {
    const bytes = readRange(begin, end);
    if (bytes.length !== end - begin) throw new Error("the file changed while it was being read");
    stats.reads += 1;
    stats.bytes += bytes.length;
    return bytes;
  };
  const use = (index) => {
    const bytes = blocks.get(index);
    blocks.delete(index);  // re-inserted: now the most recent
    blocks.set(index, bytes);
    return bytes;
  };
  return {
    size,
    stats,
    // The whole file's bytes once a small file has been read, else null.
    wholeFile: () => (block >= size && blocks.has(0) ? blocks.get(0) : null),
    readInto(offset, dst) {
      try {
        const end = offset + dst.length;
        if (block < size && dst.length >= DIRECT_BYTES) {
          dst.set(read(offset, end));
          return undefined;
        }
        const first = Math.floor(offset / block);
        const last = Math.floor((end - 1) / block);
        let missing = -1;
        for (let i = first; i <= last && missing < 0; i++) if (!blocks.has(i)) missing = i;
        if (missing >= 0) {
          // One read for the blocks from the first missing one to the last.
          const begin = missing * block;
          const bytes = read(begin, Math.min(size, (last + 1) * block));
          for (let i = missing; i <= last; i++) blocks.set(i, bytes.subarray((i - missing) * block, (i - missing + 1) * block));
        }
        const parts = [];
        for (let i = first; i <= last; i++) parts.push(use(i));
        // The oldest go; this read's blocks (fewer than CACHED_BLOCKS) are the newest.
        while (blocks.size > CACHED_BLOCKS) blocks.delete(blocks.keys().next().value);
        for (let i = first, at = 0; i <= last; i++) {
          const bytes = parts[i - first];
          const from = i === first ? offset - i * block : 0;
          const n = Math.min(bytes.length - from, dst.length - at);
          dst.set(bytes.subarray(from, from + n), at);
          at += n;
        }
      } catch (e) {
        return String(e?.message ?? e);
      }
      return undefined;
    },
  };
}

// A Blob or File read with FileReaderSync (workers only).
export function blobReader(blob) {
  const reader = new FileReaderSync();
  // The whole file is read as it is: a slice() is one more call into the blob store.
  return cachingReader(blob.size, (begin, end) =>
    new Uint8Array(reader.readAsArrayBuffer(begin === 0 && end === blob.size ? blob : blob.slice(begin, end))));
}
