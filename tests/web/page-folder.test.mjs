// The page with an exporter's folder, in headless Chromium: chosen with the folder picker (or as files
// that include export.json), converted by convertFolder() into the files the native CLI writes, byte for
// byte, each named by its component, with a .zip of all; the generation check in the tab gives torch's
// model.generate() tokens; a folder that cannot convert names the file at fault.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pageHarness } from "./page-harness.mjs";
import { CLI, FIXTURES, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
const { openPage, convert, consoleErrors } = pageHarness();
const EXPORTS = join(FIXTURES, "hf_exports");

function nativeFolder(folder, flags = []) {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-page-folder-"));
  try {
    const out = join(dir, "out");
    const run = spawnSync(CLI, [folder, "-o", out, "-q", ...flags], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    return new Map(readdirSync(out).sort().map((name) => [name, readFileSync(join(out, name))]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// name -> bytes of every file the folder view offers.
async function offeredFiles(page) {
  const files = await page.evaluate(async () => Promise.all([...document.querySelectorAll("#folder-files a")]
    .map(async (a) => [a.download, [...new Uint8Array(await (await fetch(a.href)).arrayBuffer())]])));
  return new Map(files.map(([name, bytes]) => [name, Buffer.from(bytes)]));
}

const FOLDERS = readdirSync(EXPORTS).filter((n) => existsSync(join(EXPORTS, n, "export.json")));
test("page: every committed export folder", () => assert.ok(FOLDERS.length >= 5, FOLDERS.join(", ")));

for (const [name, opset] of FOLDERS.map((n, i) => [n, i % 2 ? 24 : 20])) {
  test(`page: the ${name} export folder converts to the CLI's files and generates torch's tokens`, async () => {
    const folder = join(EXPORTS, name);
    const expected = nativeFolder(folder, ["--opset", String(opset)]);
    const page = await openPage();
    const state = await convert(page, async () => {
      await page.setInputFiles("#folder-input", folder);
      await page.waitForFunction(() => document.getElementById("convert").textContent.includes("export folder"));
      assert.match(await page.textContent("#file-info"), new RegExp(`Export folder ${name}: export\\.json and 2 programs`));
      await page.evaluate(() => { document.getElementById("options").open = true; });
      await page.selectOption("#opt-opset", String(opset));
      await page.click("#convert");
    });
    assert.equal(state, "done", await page.textContent("#error-message"));
    const offered = await offeredFiles(page);
    assert.deepEqual([...offered.keys()].sort(), [...expected.keys()]);
    for (const [file, bytes] of expected) assert.ok(offered.get(file).equals(bytes), `${file} differs from the CLI's`);
    assert.match(await page.textContent("#folder-files"), /decode: [\d,]+ parameters/);
    await page.waitForSelector("#folder-zip:not([hidden])");
    assert.equal(await page.getAttribute("#folder-zip", "download"), `${name}-onnx.zip`);

    const rec = JSON.parse(readFileSync(join(folder, "generation.json"), "utf8"));
    await page.fill("#gen-prompt", rec.prompt_ids.join(", "));
    await page.fill("#gen-tokens", String(rec.new_tokens));
    // An encoder-decoder export takes the encoder's output as fixed inputs.
    if (rec.fixed_inputs) await page.setInputFiles("#gen-inputs", join(folder, rec.fixed_inputs));
    await page.click("#gen-run");
    await page.waitForSelector("#gen-result:not([hidden])", { timeout: 120_000 });
    assert.equal(await page.textContent("#gen-tokens-out"), rec.tokens.join(" "));
    await page.close();
  });
}

test("page: files chosen together with export.json are a folder; a missing component is named", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pt2onnx-page-folder-"));
  try {
    for (const f of ["export.json", "config.json", "prefill.pt2"]) cpSync(join(EXPORTS, "qwen3", f), join(dir, f));
    const page = await openPage();
    const state = await convert(page, async () => {
      await page.setInputFiles("#file-input", ["export.json", "config.json", "prefill.pt2"].map((f) => join(dir, f)));
      await page.waitForFunction(() => document.getElementById("convert").textContent.includes("export folder"));
      await page.click("#convert");
    });
    assert.equal(state, "error");
    assert.match(await page.textContent("#error-message"), /decode\.pt2/);
    await page.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("page: each file of a batch can be inspected in its row, as the CLI's --inspect describes it", async () => {
  const files = ["cnn", "gpt_block", "unsupported_op"].map((n) => join(FIXTURES, n, "model.pt2"));
  const page = await openPage();
  await page.setInputFiles("#file-input", files);
  await page.waitForSelector("#queue:not([hidden])");
  for (const [i, file] of files.entries()) {
    const info = JSON.parse(spawnSync(CLI, [file, "--inspect", "--json"], { encoding: "utf8" }).stdout);
    const row = page.locator("#queue-list > li").nth(i);
    await row.locator(".row-inspect summary").click();
    await row.locator(".row-inspection").waitFor();
    const text = await row.locator(".row-inspection").textContent();
    for (const v of [...info.inputs, ...info.outputs]) assert.ok(text.includes(v.name), `${file}: ${v.name} in ${text}`);
    assert.equal(text.includes("Not translated yet"), (info.unsupported ?? []).length > 0, text);
  }
  await page.close();
});

test("page: no console errors", () => assert.deepEqual(consoleErrors, []));
