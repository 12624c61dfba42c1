// Control flow and custom translations in the page (headless Chromium): every
// control-flow fixture, and the custom-operator fixture with its translation
// library uploaded, download the native CLI's exact bytes, and those bytes,
// run by the package's executor, give torch's recorded outputs.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runCli } from "./cli.mjs";
import { reluAsNegLibrary } from "./libraries.mjs";
import { readNpz } from "./npz.mjs";
import { pageHarness } from "./page-harness.mjs";
import { CLI, FIXTURES, PACKAGE, REPO, requireBuilt } from "./paths.mjs";
import { mismatch, outputTolerance } from "./runtime-fixtures.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const api = await import(join(PACKAGE, "pt2onnx.mjs"));

const LIBRARY = join(REPO, "examples", "translations", "mylib.onnxlib");
const CONTROL_FLOW = readdirSync(join(FIXTURES, "ops")).filter((name) => {
  const meta = join(FIXTURES, "ops", name, "meta.json");
  return existsSync(meta) && JSON.parse(readFileSync(meta, "utf8")).group === "control_flow";
}).sort();

const { openPage, convert, consoleErrors } = pageHarness();

// Chooses `path`, and the translation library when given, converts; returns the final state.
async function convertIn(page, path, { library, asFunctions = false } = {}) {
  return convert(page, async () => {
    await page.setInputFiles("#file-input", path);
    if (library) {
      await page.evaluate(() => { document.getElementById("options").open = true; });
      await page.setInputFiles("#opt-translations", library);
      if (asFunctions) await page.check("#opt-as-functions");
    }
    await page.click("#convert");
  });
}

async function downloadOnnx(page) {
  const [file] = await Promise.all([page.waitForEvent("download"), page.click("#download-onnx")]);
  return readFileSync(await file.path());
}

// The first difference between `model` run by the package's executor and torch's outputs, or null.
async function outputsDiffer(model, folder) {
  const meta = JSON.parse(readFileSync(join(folder, "meta.json"), "utf8"));
  for (const suffix of ["", "_alt"]) {
    if (!existsSync(join(folder, `inputs${suffix}.npz`))) continue;
    const inputs = Object.fromEntries(readNpz(readFileSync(join(folder, `inputs${suffix}.npz`))).map((t) => [t.name, t]));
    const expected = readNpz(readFileSync(join(folder, `expected${suffix}.npz`)));
    const outputs = Object.values(await api.run(new Uint8Array(model), inputs));
    if (outputs.length !== expected.length) return `${outputs.length} outputs, torch has ${expected.length}`;
    for (let i = 0; i < expected.length; ++i) {
      const [atol, rtol] = outputTolerance(meta, expected[i].dtype);
      const problem = mismatch(outputs[i], expected[i], `${expected[i].name}${suffix}`, atol, rtol);
      if (problem) return problem;
    }
  }
  return null;
}

test("the control-flow fixtures are all there", () => {
  for (const name of ["cond_branches", "cond_nested", "cond_sym_pred", "while_loop_counter",
    "while_loop_data_stop", "cond_in_loop", "scan_carries", "scan_dim1_reverse", "map_body"]) {
    assert.ok(CONTROL_FLOW.includes(name), `${name} missing from ${CONTROL_FLOW.join(", ")}`);
  }
});

test("page: every control-flow fixture downloads the CLI's bytes, which reproduce torch's outputs", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-cf-page-"));
  const page = await openPage();
  const problems = [];
  for (const name of CONTROL_FLOW) {
    const folder = join(FIXTURES, "ops", name);
    const upload = join(dir, `${name}.pt2`);
    writeFileSync(upload, readFileSync(join(folder, "model.pt2")));
    const expected = runCli(upload, `${name}.onnx`);
    assert.equal(expected.status, 0, `${name}: ${expected.stderr}`);
    if (await convertIn(page, upload) !== "done") {
      problems.push(`${name}: ${await page.textContent("#error-message")}`);
      continue;
    }
    const onnx = await downloadOnnx(page);
    if (!onnx.equals(expected.onnx)) problems.push(`${name}: the page's bytes differ from the CLI's`);
    const wrong = await outputsDiffer(onnx, folder);
    if (wrong) problems.push(`${name}: ${wrong}`);
  }
  await page.context().close();
  assert.deepEqual(problems, []);
});

for (const asFunctions of [false, true]) {
  test(`page: the custom operator with its library uploaded${asFunctions ? ", kept as a local function," : ""} ` +
       "downloads the CLI's bytes and reproduces torch", async () => {
    const folder = join(FIXTURES, "unsupported_op");
    const dir = mkdtempSync(join(tmpdir(), "pt2onnx-cf-page-"));
    const upload = join(dir, "custom.pt2");
    writeFileSync(upload, readFileSync(join(folder, "model.pt2")));
    const flags = ["--translations", LIBRARY, ...(asFunctions ? ["--translations-as-functions"] : [])];
    const expected = runCli(upload, "custom.onnx", {}, flags);
    assert.equal(expected.status, 0, expected.stderr);
    const page = await openPage();
    assert.equal(await convertIn(page, upload, { library: LIBRARY, asFunctions }), "done",
      await page.textContent("body"));
    const onnx = await downloadOnnx(page);
    assert.ok(onnx.equals(expected.onnx), "the page's bytes differ from the CLI's");
    assert.equal(await outputsDiffer(onnx, folder), null);
    await page.context().close();
  });
}

test("page: without the library the custom operator is listed as unsupported, with the library it is not", async () => {
  const page = await openPage();
  await page.setInputFiles("#file-input", join(FIXTURES, "unsupported_op", "model.pt2"));
  await page.waitForSelector("#inspect-unsupported:not([hidden])");
  const ops = await page.$$eval("#inspect-unsupported-ops li", (items) => items.map((li) => li.textContent));
  assert.ok(ops.some((op) => op.includes("mylib::weird_op.default")), ops.join("; "));
  assert.ok(await page.isDisabled("#convert"));
  // The library chosen, the program is inspected again and offered for conversion.
  await page.evaluate(() => { document.getElementById("options").open = true; });
  await page.setInputFiles("#opt-translations", LIBRARY);
  await page.waitForSelector("#inspect-body:not([hidden]) #inspect-unsupported[hidden]", { state: "attached" });
  assert.ok(!(await page.isDisabled("#convert")));
  await page.context().close();
});

test("page: a library clashing with a built-in is refused unless it overrides", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-cf-page-"));
  const library = join(dir, "relu.onnxlib");
  writeFileSync(library, reluAsNegLibrary());
  const relu = join(FIXTURES, "ops", "relu", "model.pt2");
  const page = await openPage();
  await page.setInputFiles("#file-input", relu);
  await page.waitForSelector("#inspect-body:not([hidden])");
  await page.evaluate(() => { document.getElementById("options").open = true; });
  await page.setInputFiles("#opt-translations", library);
  // inspect() takes the library as convert() does: the clash is said before converting.
  await page.waitForSelector("#inspect-refused:not([hidden])");
  assert.match(await page.textContent("#inspect-refused-message"), /conflicts with pt2onnx's own translation/);
  assert.equal(await page.getAttribute("#inspect-refused", "data-code"), "usage");
  assert.ok(await page.isDisabled("#convert"));
  await page.check("#opt-override");
  await page.waitForSelector("#inspect-body:not([hidden])");
  await page.click("#convert");
  await page.waitForSelector('body[data-state="done"], body[data-state="error"]', { timeout: 60_000 });
  assert.equal(await page.evaluate(() => document.body.dataset.state), "done", await page.textContent("body"));
  const expected = runCli(relu, "relu.onnx", {}, ["--translations", library, "--override"]);
  assert.equal(expected.status, 0, expected.stderr);
  assert.ok((await downloadOnnx(page)).equals(expected.onnx));
  await page.context().close();
});

test("page: no console errors", () => {
  assert.deepEqual(consoleErrors, []);
});
