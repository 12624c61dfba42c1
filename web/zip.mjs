// A minimal zip writer for the page's "download all": entries are STORED (not
// compressed: ONNX weights barely compress), so the archive is assembled from
// the result Blobs without copying them; only their CRC-32 is computed, in
// chunks. No zip64: an archive above 4 GiB is refused (download one by one).

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 of `bytes`, continuing from `crc` (pass the previous result). */
export function crc32(bytes, crc = 0) {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

async function blobCrc32(blob) {
  const CHUNK = 8 << 20;
  let crc = 0;
  for (let at = 0; at < blob.size; at += CHUNK) {
    crc = crc32(new Uint8Array(await blob.slice(at, at + CHUNK).arrayBuffer()), crc);
  }
  return crc;
}

const LIMIT = 0xffffffff;

/**
 * [{ name, blob }] -> a zip Blob. Names are stored as UTF-8; a repeated name
 * is an error (the caller makes them unique).
 */
export async function zipBlobs(entries, { date = new Date() } = {}) {
  const encoder = new TextEncoder();
  const dosTime = (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1);
  const dosDate = ((date.getFullYear() - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate();
  const parts = [];
  const central = [];
  const seen = new Set();
  let offset = 0;
  for (const { name, blob } of entries) {
    if (seen.has(name)) throw new Error(`two files are named ${name}`);
    seen.add(name);
    const nameBytes = encoder.encode(name);
    const crc = await blobCrc32(blob);
    if (blob.size > LIMIT || offset + 30 + nameBytes.length + blob.size > LIMIT) {
      throw new Error("the results are over 4 GiB together: download them one by one");
    }
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);       // version needed: 2.0
    local.setUint16(6, 0x0800, true);   // UTF-8 names
    local.setUint16(8, 0, true);        // STORED
    local.setUint16(10, dosTime, true);
    local.setUint16(12, dosDate, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, blob.size, true);
    local.setUint32(22, blob.size, true);
    local.setUint16(26, nameBytes.length, true);
    local.setUint16(28, 0, true);
    parts.push(local.buffer, nameBytes, blob);

    const entry = new DataView(new ArrayBuffer(46));
    entry.setUint32(0, 0x02014b50, true);
    entry.setUint16(4, 20, true);
    entry.setUint16(6, 20, true);
    entry.setUint16(8, 0x0800, true);
    entry.setUint16(10, 0, true);
    entry.setUint16(12, dosTime, true);
    entry.setUint16(14, dosDate, true);
    entry.setUint32(16, crc, true);
    entry.setUint32(20, blob.size, true);
    entry.setUint32(24, blob.size, true);
    entry.setUint16(28, nameBytes.length, true);
    entry.setUint32(42, offset, true);  // the rest (extra, comment, disk, attributes) stays 0
    central.push(entry.buffer, nameBytes);
    offset += 30 + nameBytes.length + blob.size;
  }
  const centralSize = central.reduce((n, p) => n + p.byteLength, 0);
  if (offset + centralSize + 22 > LIMIT) throw new Error("the results are over 4 GiB together: download them one by one");
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, centralSize, true);
  end.setUint32(16, offset, true);
  return new Blob([...parts, ...central, end.buffer], { type: "application/zip" });
}
