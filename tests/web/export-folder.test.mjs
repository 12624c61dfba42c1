// Export folders in JavaScript: convertFolder() (and the node CLI's
// `pt2onnx DIR -o OUTDIR`) on transformers' exporter folders write the files
// the native CLI writes, byte for byte; a folder that cannot convert is
// refused with the file at fault named.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { CLI, FIXTURES, PACKAGE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const { convertFolder, ConversionError } = await import(join(PACKAGE, "pt2onnx.mjs"));

const EXPORTS = join(FIXTURES, "hf_exports");
const FOLDERS = readdirSync(EXPORTS).filter((name) => existsSync(join(EXPORTS, name, "export.json")));
const read = (path) => new Uint8Array(readFileSync(path));

// The files convertFolder() reads: export.json, every .pt2 and the configs that travel with the model.
const KEPT = new Set(["export.json", "config.json", "generation_config.json"]);
function folderMap(folder, drop = null) {
  const files = new Map();
  for (const name of readdirSync(folder)) {
    if ((KEPT.has(name) || name.endsWith(".pt2")) && name !== drop) files.set(name, read(join(folder, name)));
  }
  return files;
}

// name -> bytes of the folder `pt2onnx DIR -o OUT` (native, or the node CLI with `node`) writes.
function cliFolder(folder, node = false, flags = []) {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-folder-"));
  try {
    const out = join(dir, "out");
    const command = node ? [process.execPath, [join(PACKAGE, "cli.mjs"), folder, "-o", out, "-q", ...flags]]
      : [CLI, [folder, "-o", out, "-q", ...flags]];
    const run = spawnSync(...command, { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    return new Map(readdirSync(out).sort().map((name) => [name, readFileSync(join(out, name))]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function sameFiles(result, expected, label) {
  assert.deepEqual(result.files.map((f) => f.name).sort(), [...expected.keys()], label);
  for (const { name, blob } of result.files) {
    assert.ok(Buffer.from(await blob.arrayBuffer()).equals(expected.get(name)), `${label}: ${name} differs from the CLI's`);
  }
}

test("export folders: at least the four committed transformers exports", () => {
  assert.ok(FOLDERS.length >= 4, FOLDERS.join(", "));
});

for (const name of FOLDERS) {
  test(`convertFolder(${name}) writes the native CLI's files`, async () => {
    const folder = join(EXPORTS, name);
    const native = cliFolder(folder);
    assert.ok([...native.keys()].some((f) => f.endsWith(".onnx.data")), [...native.keys()].join(", "));
    const result = await convertFolder(folderMap(folder));
    await sameFiles(result, native, name);
    assert.ok(result.components.length >= 2, JSON.stringify(result.components));
    for (const c of result.components) {
      assert.ok(native.has(c.onnxName) && native.has(c.dataName), JSON.stringify(c));
      assert.ok(c.parameters > 0, JSON.stringify(c));
    }
    assert.match(result.report, /wrote /);
  });
}

test("convertFolder: opset and the node CLI agree with the native CLI", async () => {
  const folder = join(EXPORTS, FOLDERS[0]);
  const native = cliFolder(folder, false, ["--opset", "23", "--no-optimize"]);
  await sameFiles(await convertFolder(folderMap(folder), { opset: 23, optimize: false }), native, "opset 23");
  const node = cliFolder(folder, true, ["--opset", "23", "--no-optimize"]);
  assert.deepEqual([...node.keys()], [...native.keys()]);
  for (const [file, bytes] of native) assert.ok(node.get(file).equals(bytes), `node CLI: ${file}`);
});

test("convertFolder takes an object and an array of Files too", async () => {
  const folder = join(EXPORTS, FOLDERS[0]);
  const native = cliFolder(folder);
  const map = folderMap(folder);
  await sameFiles(await convertFolder(Object.fromEntries(map)), native, "object");
  const files = [...map].map(([file, bytes]) => new File([bytes], file));
  await sameFiles(await convertFolder(files), native, "array of Files");
});

test("convertFolder refuses what it cannot convert, naming the file", async () => {
  const folder = join(EXPORTS, FOLDERS[0]);
  const refused = async (files, options, code, pattern, file) => {
    await assert.rejects(convertFolder(files, options), (e) => {
      assert.ok(e instanceof ConversionError, String(e));
      assert.equal(e.code, code, e.message);
      assert.match(e.message, pattern);
      if (file !== undefined) assert.equal(e.file, file, e.message);
      return true;
    });
  };
  await refused(folderMap(folder, "export.json"), {}, "io", /no export\.json/, "export.json");
  await refused(folderMap(folder, "decode.pt2"), {}, "io", /decode\.pt2/, "decode.pt2");
  await refused(new Map([["export.json", new TextEncoder().encode("{ not json")]]), {}, "invalid_input",
    /export\.json/, "export.json");
  await refused(folderMap(folder), { inputNames: ["x"] }, "usage", /unknown convertFolder\(\) option 'inputNames'/);
  await refused(folderMap(folder), { opset: 3 }, "usage", /opset/);
  await refused("model.pt2", {}, "usage", /folder's files/);
  const truncated = folderMap(folder);
  truncated.set("decode.pt2", truncated.get("decode.pt2").slice(0, 100));
  await refused(truncated, {}, "invalid_input", /decode\.pt2/, "decode.pt2");
});

test("node CLI: a folder needs -o and takes no single-file flags", () => {
  const folder = join(EXPORTS, FOLDERS[0]);
  for (const [flags, pattern] of [[[], /give the output folder with -o/],
    [["-o", "x", "--verify"], /--verify of a folder needs the native pt2onnx/], [["-o", "x", "--json"], /do not apply to a folder/],
    [["-o", "x", "--input-names", "a"], /do not apply to a folder/]]) {
    const run = spawnSync(process.execPath, [join(PACKAGE, "cli.mjs"), folder, ...flags], { encoding: "utf8" });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, pattern);
  }
});
