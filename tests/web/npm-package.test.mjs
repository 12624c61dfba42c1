// The packed package as a hub installs it (`npm install ./pt2onnx.tgz`, offline): its node CLI against the
// native one (same bytes, same exit codes and messages, atomic output), its API in node, and the README's
// embedding example run as written in Chromium, bundled with esbuild and through an import map.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, startServer } from "./browser.mjs";
import { CLI, FIXTURES, REPO, requireBuilt } from "./paths.mjs";

const TARBALL = process.env.PT2ONNX_TARBALL ?? join(REPO, "out", "wasm", "pt2onnx.tgz");
requireBuilt(TARBALL, "the packed package (bazel build //wasm:npm_pack)");
requireBuilt(CLI, "the pt2onnx CLI");

const hub = mkdtempSync(join(tmpdir(), "pt2onnx-npm-"));
const BIN = join(hub, "node_modules", ".bin", "pt2onnx");
const fixture = (name) => join(FIXTURES, name, "model.pt2");

before(() => {
  writeFileSync(join(hub, "package.json"), JSON.stringify({ name: "hub", private: true, type: "module" }));
  cpSync(TARBALL, join(hub, "pt2onnx.tgz"));
  const install = spawnSync("npm", ["install", "./pt2onnx.tgz", "--offline", "--no-audit", "--no-fund", "--loglevel=error"],
    { cwd: hub, encoding: "utf8", env: { ...process.env, npm_config_cache: join(hub, ".npm") } });
  assert.equal(install.status, 0, install.stderr);
});

function both(args, dir) {
  const native = spawnSync(CLI, args(join(dir, "native")), { encoding: "utf8" });
  const node = spawnSync(BIN, args(join(dir, "node")), { encoding: "utf8" });
  return { native, node };
}

test("package.json is publishable: no private flag, exports, types, bin, files", () => {
  const pkg = JSON.parse(readFileSync(join(hub, "node_modules", "pt2onnx", "package.json"), "utf8"));
  assert.equal(pkg.private, undefined);
  assert.equal(pkg.exports["."].types, "./pt2onnx.d.ts");
  assert.equal(pkg.bin.pt2onnx, "./cli.mjs");
  assert.equal(pkg.license, "Apache-2.0");
  for (const file of ["README.md", "LICENSE", "THIRD_PARTY_NOTICES"]) {
    assert.ok(existsSync(join(hub, "node_modules", "pt2onnx", file)), file);
  }
  const npx = spawnSync("npx", ["--offline", "pt2onnx", "--version"], { cwd: hub, encoding: "utf8" });
  assert.equal(npx.status, 0, npx.stderr);
  assert.equal(npx.stdout, spawnSync(CLI, ["--version"], { encoding: "utf8" }).stdout);
});

const CONVERSIONS = [
  ["cnn", []],
  ["gpt_block", ["--external-data"]],
  ["dynamic_batch_seq", ["--dim-name", "s54=batch", "--input-names", "tokens"]],
  ["mlp_dict_list", ["--no-optimize", "--opset", "19", "--output-names=y0"]],
  ["cnn_torch27", []],
];

for (const [name, flags] of CONVERSIONS) {
  test(`npx pt2onnx ${name} ${flags.join(" ")} writes the native CLI's bytes`, () => {
    const dir = mkdtempSync(join(tmpdir(), "pt2onnx-npm-cli-"));
    mkdirSync(join(dir, "native"));
    mkdirSync(join(dir, "node"));
    const { native, node } = both((d) => [fixture(name), "-o", join(d, "m.onnx"), "-q", ...flags], dir);
    assert.equal(native.status, 0, native.stderr);
    assert.equal(node.status, 0, node.stderr);
    assert.equal(node.stderr, "");
    assert.deepEqual(readdirSync(join(dir, "node")).sort(), readdirSync(join(dir, "native")).sort());
    for (const file of readdirSync(join(dir, "native"))) {
      assert.ok(readFileSync(join(dir, "node", file)).equals(readFileSync(join(dir, "native", file))), file);
    }
  });
}

test("--inspect and --inspect --json print the native CLI's text", () => {
  for (const flags of [["--inspect"], ["--inspect", "--json"], ["--inspect", "--opset", "23"]]) {
    for (const name of ["named_dims", "unsupported_aten_op"]) {
      const native = spawnSync(CLI, [fixture(name), ...flags], { encoding: "utf8" });
      const node = spawnSync(BIN, [fixture(name), ...flags], { encoding: "utf8" });
      assert.equal(node.status, native.status);
      assert.equal(node.stdout, native.stdout, `${name} ${flags}`);
    }
  }
});

test("errors: same exit codes and messages, --json records alike, no output left behind", () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-npm-err-"));
  const cnn = readFileSync(fixture("cnn"));
  const broken = join(dir, "broken.pt2");
  writeFileSync(broken, cnn.subarray(0, cnn.length - 100));
  const cases = [
    [[broken], 4],
    [[fixture("unsupported_aten_op")], 5],
    [[join(dir, "missing.pt2")], 3],
    [[fixture("cnn"), "--opset", "99"], 2],
    [[fixture("cnn"), "--frobnicate"], 2],
    [[fixture("cnn"), "--dim-name", "s0"], 2],
    [[fixture("named_dims"), "--dim-name", "nope=batch"], 4],
    [[fixture("cnn"), "-o", join(dir, "no", "such", "dir", "x.onnx")], 3],
  ];
  for (const [args, code] of cases) {
    mkdirSync(join(dir, "native"), { recursive: true });
    mkdirSync(join(dir, "node"), { recursive: true });
    const hasOutput = args.includes("-o");
    const { native, node } = both((d) => [...args, ...(hasOutput ? [] : ["-o", join(d, "out.onnx")]), "-q", "--json"], dir);
    assert.equal(native.status, code, `${args}: ${native.stderr}`);
    assert.equal(node.status, code, `${args}: ${node.stderr}`);
    if (code !== 3) assert.equal(node.stderr, native.stderr, String(args));
    if (code !== 2) {
      const strip = (r) => { const j = JSON.parse(r.stdout); delete j.seconds; if (code === 3) delete j.message; return j; };
      assert.deepEqual(strip(node), strip(native), String(args));
    }
    assert.deepEqual(readdirSync(join(dir, "node")), [], `${args}: nothing written`);
  }
});

test("the API in node, by package name", () => {
  writeFileSync(join(hub, "api.mjs"), `
    import { readFileSync } from "node:fs";
    import { convert, inspect, supportedOps } from "pt2onnx";
    const bytes = readFileSync(${JSON.stringify(fixture("named_dims"))});
    const info = await inspect(bytes);
    const r = await convert(bytes, { dimNames: { [info.symbols[0].name]: "batch" }, outputName: "n.onnx" });
    const aborted = await convert(bytes, { signal: AbortSignal.abort() }).catch((e) => e.name);
    console.log(info.symbols.length, r.onnxName, r.summary.inputs[0].shape[0], aborted, (await supportedOps()).length > 100);
  `);
  const run = spawnSync(process.execPath, ["api.mjs"], { cwd: hub, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), "4 n.onnx batch AbortError true");
});

// ---- The README's page, as written ----

function readmeBlock(lang) {
  const readme = readFileSync(join(hub, "node_modules", "pt2onnx", "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```(\w+)\n([\s\S]*?)```/g)].filter((m) => m[1] === lang);
  return blocks[0][2];
}

function esbuildBin() {
  const require = createRequire(join(REPO, "tests", "web", "package.json"));
  const pkg = process.env.ESBUILD_PACKAGE ?? require.resolve("esbuild/package.json");
  return join(pkg, "..", "bin", "esbuild");
}

let server;
let browser;
after(async () => {
  await browser?.close();
  await server?.close();
});

async function runReadmePage(root, path) {
  server ??= await startServer(hub);
  browser ??= await launchBrowser();
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${server.url}${path}`);
  await page.setInputFiles("#file", fixture("dynamic_batch_seq"));
  await page.waitForFunction(() => document.getElementById("link").download !== "" ||
    document.getElementById("info").textContent.includes(":"), null, { timeout: 60_000 });
  assert.deepEqual(errors, []);
  const name = await page.getAttribute("#link", "download");
  assert.equal(name, "model.onnx", await page.textContent("#info"));
  const bytes = Buffer.from(await page.evaluate(async () =>
    [...new Uint8Array(await (await fetch(document.getElementById("link").href)).arrayBuffer())]));
  await page.close();
  return bytes;
}

function expectedForReadme(dir) {
  const info = JSON.parse(spawnSync(CLI, [fixture("dynamic_batch_seq"), "--inspect", "--json"], { encoding: "utf8" }).stdout);
  const out = join(dir, "expected.onnx");
  const flags = info.symbols.flatMap((s, i) => ["--dim-name", `${s.name}=dim${i}`]);
  assert.equal(spawnSync(CLI, [fixture("dynamic_batch_seq"), "-o", out, "-q", ...flags]).status, 0);
  return readFileSync(out);
}

test("README example, bundled with esbuild, converts in Chromium like the CLI", async () => {
  const app = join(hub, "bundled");
  mkdirSync(join(app, "dist"), { recursive: true });
  writeFileSync(join(hub, "main.js"), readmeBlock("js"));
  const bundle = spawnSync(esbuildBin(), ["main.js", "--bundle", "--format=esm", "--outdir=bundled/dist", "--log-level=warning"],
    { cwd: hub, encoding: "utf8" });
  assert.equal(bundle.status, 0, bundle.stderr);
  assert.equal(bundle.stderr, "", "esbuild warns about nothing");
  // The README's copy step, then its page with the bundle instead of the import map.
  for (const f of ["pt2onnx.mjs", "pt2onnx-run.mjs", "pt2onnx-verify.mjs", "pt2onnx-folder.mjs", "pt2onnx-generate.mjs", "pt2onnx-worker.mjs", "pt2onnx-worker-calls.mjs", "pt2onnx-readers.mjs", "pt2onnx-results.mjs", "pt2onnx-core.mjs", "pt2onnx-core.wasm"]) {
    cpSync(join(hub, "node_modules", "pt2onnx", f), join(app, "dist", f));
  }
  writeFileSync(join(app, "index.html"), readmeBlock("html")
    .replace(/<script type="importmap">.*<\/script>\n/, "").replace('src="main.js"', 'src="dist/main.js"'));
  assert.ok((await runReadmePage(app, "bundled/index.html")).equals(expectedForReadme(app)));
});

test("README example through its import map converts in Chromium like the CLI", async () => {
  writeFileSync(join(hub, "main.js"), readmeBlock("js"));
  writeFileSync(join(hub, "index.html"), readmeBlock("html"));
  assert.ok((await runReadmePage(hub, "index.html")).equals(expectedForReadme(hub)));
});
