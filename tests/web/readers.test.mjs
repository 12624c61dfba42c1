// The caching reader a worker reads a File through (pt2onnx-readers.mjs): every read returns the file's
// bytes, small files cost one underlying read, large ones a read per missing run of blocks, and a file that
// changes size is reported, not thrown.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { PACKAGE, requireBuilt } from "./paths.mjs";

requireBuilt(join(PACKAGE, "pt2onnx-readers.mjs"), "the npm package (bazel build //wasm:package)");
const { cachingReader, BLOCK_BYTES, CACHED_BLOCKS, DIRECT_BYTES, WHOLE_FILE_BYTES } =
  await import(join(PACKAGE, "pt2onnx-readers.mjs"));

function fileOf(size) {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 2654435761) >>> 24;
  const ranges = [];
  const reader = cachingReader(size, (begin, end) => {
    ranges.push([begin, end]);
    return bytes.slice(begin, end);
  });
  return { bytes, ranges, reader };
}

function check(file, offset, length) {
  const dst = new Uint8Array(length);
  assert.equal(file.reader.readInto(offset, dst), undefined);
  assert.ok(Buffer.from(dst).equals(Buffer.from(file.bytes.subarray(offset, offset + length))), `${offset}+${length}`);
}

test("a small file is read once, whole", () => {
  const file = fileOf(100_000);
  for (const [o, n] of [[0, 2], [99_000, 1000], [5, 70_000], [99_999, 1], [0, 100_000]]) check(file, o, n);
  assert.deepEqual(file.ranges, [[0, 100_000]]);
  assert.equal(file.reader.stats.reads, 1);
});

test("a large file: random reads return its bytes; blocks are reused, large reads go straight through", () => {
  const size = WHOLE_FILE_BYTES * 3 + 12_345;
  const file = fileOf(size);
  let seed = 7;
  const random = (n) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let i = 0; i < 400; i++) {
    const length = 1 + random(i % 10 === 0 ? DIRECT_BYTES * 2 : 5000);
    check(file, random(size - length + 1), length);
  }
  check(file, size - 1, 1);  // the last, short block
  check(file, BLOCK_BYTES - 10, 20);  // across two blocks
  for (const [begin, end] of file.ranges) {
    assert.ok(end - begin >= DIRECT_BYTES || (begin % BLOCK_BYTES === 0 && (end % BLOCK_BYTES === 0 || end === size)));
  }
  const before = file.reader.stats.reads;
  check(file, size - 1, 1);
  check(file, size - 20, 10);
  assert.equal(file.reader.stats.reads, before, "a block just read is kept");
  assert.ok(CACHED_BLOCKS * BLOCK_BYTES <= 4 << 20, "the cache stays small");
});

test("a file that comes back short is an error message, not an exception", () => {
  const reader = cachingReader(1000, () => new Uint8Array(10));
  assert.match(reader.readInto(0, new Uint8Array(4)), /changed while it was being read/);
  const failing = cachingReader(1000, () => { throw new Error("NotReadableError"); });
  assert.equal(failing.readInto(0, new Uint8Array(4)), "NotReadableError");
});
