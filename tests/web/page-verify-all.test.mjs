// verify() on a page in headless Chromium (its worker, the browser's wasm
// SIMD) on every top-level fixture and a sample of the model zoo: the
// positive ones pass at torch's thresholds, the negative ones are refused
// with the native CLI's exit code, and a hand-made mismatch (cnn's inputs
// times 1e5, past torch's absolute threshold) fails at the native CLI's
// first diverging node.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { readNpz, writeNpz } from "./npz.mjs";
import { pageHarness } from "./page-harness.mjs";
import { CLI, FIXTURES, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
const { openPage, consoleErrors } = pageHarness();

const TOP_LEVEL = readdirSync(FIXTURES).filter((name) => existsSync(join(FIXTURES, name, "model.pt2"))).sort();
// Every model of the zoo (a minute at most on the shared machine).
const ZOO = readdirSync(join(FIXTURES, "models")).filter((n) => existsSync(join(FIXTURES, "models", n, "model.pt2"))).sort();

// The loop below makes one test per fixture: a listing that found none would run none.
test("the fixtures are found", () => {
  assert.ok(TOP_LEVEL.length >= 15, `only ${TOP_LEVEL.length} top-level fixtures`);
  assert.ok(ZOO.length >= 40, `only ${ZOO.length} real-model fixtures`);
});

const dir = mkdtempSync(join(tmpdir(), "pt2onnx-page-verify-all-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function nativeVerify(model, extra = []) {
  const run = spawnSync(CLI, [model, "-o", join(dir, "m.onnx"), "-q", "--verify", ...extra], { encoding: "utf8" });
  return { status: run.status, stderr: run.stderr };
}

// One page for every call: files are served to it from the fixtures folder.
let page;
async function verifyInPage(fixture, options = {}) {
  if (!page) {
    page = await openPage();
    await page.route("**/fixture-files/**", (route) => {
      const rel = decodeURIComponent(new URL(route.request().url()).pathname.replace(/^\/fixture-files\//, ""));
      route.fulfill({ body: readFileSync(join(FIXTURES, rel)), contentType: "application/octet-stream" });
    });
  }
  return page.evaluate(async ({ fixture, options }) => {
    const { verify } = await import("./pt2onnx/pt2onnx.mjs");
    const file = await (await fetch(`/fixture-files/${fixture}/model.pt2`)).blob();
    const inputs = options.inputs && Object.fromEntries(Object.entries(options.inputs).map(
      ([name, { data, dims }]) => [name, { data: new Float32Array(data), dims }]));
    try {
      const r = await verify(file, { ...options, inputs });
      return { passed: r.passed, message: r.message, first: r.firstDivergence?.fxNode ?? null,
        outputs: r.outputs.map((c) => ({ name: c.name, passed: c.passed, abs: c.max_abs_diff, rel: c.max_rel_diff })) };
    } catch (e) {
      return { error: e.code, exitCode: e.exitCode, message: e.message };
    }
  }, { fixture, options });
}

for (const fixture of [...TOP_LEVEL, ...ZOO.map((name) => `models/${name}`)]) {
  const negative = JSON.parse(readFileSync(join(FIXTURES, fixture, "meta.json"), "utf8")).negative === true;
  test(`page: verify() on ${fixture} ${negative ? "is refused as by the CLI" : "passes"}`, async () => {
    const r = await verifyInPage(fixture);
    if (negative) {
      const native = nativeVerify(join(FIXTURES, fixture, "model.pt2"));
      assert.notEqual(native.status, 0);
      assert.equal(r.exitCode, native.status, JSON.stringify(r));
      return;
    }
    assert.equal(r.error, undefined, JSON.stringify(r));
    assert.equal(r.passed, true, r.message);
    assert.ok(r.outputs.length > 0);
    for (const c of r.outputs) assert.ok(c.passed && c.abs < 5e-3 && c.rel < 1e-1, JSON.stringify(c));
  });
}

test("page: verify() of a hand-made mismatch fails at the native CLI's first diverging node", async () => {
  const inputs = readNpz(readFileSync(join(FIXTURES, "cnn", "inputs.npz")));
  for (const a of inputs) a.data = a.data.map((v) => v * 1e5);
  writeFileSync(join(dir, "scaled.npz"), writeNpz(inputs));
  const native = nativeVerify(join(FIXTURES, "cnn", "model.pt2"), ["--verify-intermediates", "--inputs", join(dir, "scaled.npz")]);
  assert.equal(native.status, 6, native.stderr);
  const r = await verifyInPage("cnn", { intermediates: true,
    inputs: Object.fromEntries(inputs.map((a) => [a.name, { data: [...a.data], dims: a.dims }])) });
  assert.equal(r.passed, false, JSON.stringify(r));
  assert.equal(r.first, "batch_norm");
  assert.equal(r.first, /first diverging node: '([^']+)'/.exec(native.stderr)?.[1]);
  assert.deepEqual(r.outputs.map((c) => [c.name, c.passed]), [["linear", false]]);
  assert.match(r.message, /^verification failed: output 'linear'/);
});

test("page: no console errors while verifying every fixture", async () => {
  await page?.context().close();
  assert.deepEqual(consoleErrors, []);
});
