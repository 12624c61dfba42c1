// What a new user met on the page, checked in headless Chromium: the file:// message, options reset on a
// new file, the inspect view (symbols in position with ranges, named in place), one advice on unsupported
// operators, no stale error, several files as a queue with Cancel and a zip, one worker and one .wasm
// fetch, output name, copy report, Netron only on request, and a phone-width layout without clipping.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { launchBrowser, startServer } from "./browser.mjs";
import { runCli } from "./cli.mjs";
import { CLI, FIXTURES, SITE, requireBuilt } from "./paths.mjs";

requireBuilt(CLI, "the pt2onnx CLI");
requireBuilt(join(SITE, "index.html"), "the page (bazel build //web:site)");

let server;
let browser;
before(async () => {
  server = await startServer(SITE);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const uploads = mkdtempSync(join(tmpdir(), "pt2onnx-ux-"));
// A fixture under its own name, as a user's file would be named. Copied once: rewriting a file the page
// holds would make its File unreadable (the browser checks it did not change).
function upload(name) {
  const path = join(uploads, `${name.replaceAll("/", "_")}.pt2`);
  if (!existsSync(path)) copyFileSync(join(FIXTURES, name, "model.pt2"), path);
  return path;
}

async function openPage(contextOptions = {}) {
  const context = await browser.newContext({ acceptDownloads: true, ...contextOptions });
  const page = await context.newPage();
  const seen = { errors: [], requests: [], workers: 0 };
  page.on("pageerror", (e) => seen.errors.push(String(e)));
  page.on("request", (r) => seen.requests.push(r.url()));
  page.on("worker", () => { seen.workers++; });
  await page.goto(server.url);
  await page.waitForFunction(() => document.getElementById("version").textContent !== "");
  return { page, seen };
}

async function pick(page, ...paths) {
  await page.setInputFiles("#file-input", paths);
  if (paths.length === 1) await page.waitForSelector("#inspect-body:not([hidden])");
}

async function convertAndWait(page) {
  await page.click("#convert");
  await page.waitForSelector('body[data-state="done"], body[data-state="error"], body[data-state="batch-done"]');
  return page.evaluate(() => document.body.dataset.state);
}

async function download(page, selector) {
  const [file] = await Promise.all([page.waitForEvent("download"), page.click(selector)]);
  return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()) };
}

const cliInspect = (path) => JSON.parse(spawnSync(CLI, [path, "--inspect", "--json"], { encoding: "utf8" }).stdout);

test("opened from file:// the page says how to serve it", async () => {
  const page = await browser.newPage();
  await page.goto(`file://${resolve(SITE, "index.html")}`);
  await page.waitForSelector("#no-module:not([hidden])");
  assert.match(await page.textContent("#no-module"), /bazel run \/\/web:serve/);
  assert.equal(await page.evaluate(() => document.body.dataset.state), "no-module");
  await page.close();
});

test("served but with its modules failing, the page says so instead of staying dead", async () => {
  const page = await browser.newPage();
  await page.route("**/app.mjs", (route) => route.fulfill({ status: 404, body: "" }));
  await page.goto(server.url);
  await page.waitForSelector("#no-module:not([hidden])");
  assert.match(await page.textContent("#no-module"), /did not start/);
  await page.close();
});

test("served, the file:// message stays hidden", async () => {
  const { page } = await openPage();
  await page.evaluate(() => new Promise((r) => (document.readyState === "complete" ? r() : addEventListener("load", r))));
  assert.ok(!(await page.isVisible("#no-module")));
  await page.context().close();
});

test("inspect view: inputs with each symbol at its position, ranges, symbols in input order", async () => {
  const { page } = await openPage();
  await pick(page, upload("named_dims"));
  const rows = await page.$$eval("#inspect-io-body tr", (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.deepEqual(rows[0].slice(0, 3), ["input", "x", "float32"]);
  assert.match(rows[0][3], /^\[s31, s27, 16\]s31 ∈ \[0, ∞\), s27 ∈ \[2, 512\]$/);
  const symbols = await page.$$eval("#inspect-symbols-body tr", (trs) => trs.map((tr) => [...tr.cells].slice(0, 3).map((c) => c.textContent)));
  const cli = cliInspect(join(FIXTURES, "named_dims", "model.pt2"));
  assert.deepEqual(symbols.map((s) => s[0]), cli.symbols.map((s) => s.name));
  assert.deepEqual(symbols.map((s) => s[0]), ["s31", "s27", "s68", "s32"]);  // by position, not sorted
  assert.deepEqual(symbols[1], ["s27", "[2, 512]", "x[1], mask[1]"]);
  assert.equal(symbols[0][1], "[0, ∞)");
  assert.match(await page.textContent("#inspect-facts"), /torch 2\.\d+/);
  assert.ok(!(await page.isVisible("#inspect-unsupported")));

  // Named in place: the shapes show the new name, and the conversion is the CLI's with --dim-name.
  await page.fill('#inspect input[data-symbol="s27"]', "seq");
  assert.equal(await page.textContent("#inspect-io-body tr:first-child .shape"), "[s31, seq, 16]");
  assert.equal(await page.textContent("#inspect-io-body tr:first-child .ranges"), "s31 ∈ [0, ∞), seq ∈ [2, 512]");
  assert.equal(await convertAndWait(page), "done");
  const got = await download(page, "#download-onnx");
  const expected = runCli(upload("named_dims"), "named_dims.onnx", { dimNames: { s27: "seq" } });
  assert.ok(got.bytes.equals(expected.onnx));

  // Two symbols given one name is caught before converting.
  await page.fill('#inspect input[data-symbol="s68"]', "seq");
  await page.click("#convert");
  assert.match(await page.textContent("#dim-names-error"), /s27 and s68 are both named "seq"/);
  assert.ok(!(await page.isVisible("#result")), "the earlier result is cleared");
  await page.context().close();
});

test("a new file resets the file-specific options, keeps the opset, and says so", async () => {
  const { page } = await openPage();
  await pick(page, upload("named_dims"));
  await page.evaluate(() => { document.getElementById("options").open = true; });
  await page.selectOption("#opt-opset", "18");
  await page.fill("#opt-input-names", "a, b, c");
  await page.fill("#opt-output-name", "named.onnx");
  await page.fill('#inspect input[data-symbol="s31"]', "batch");
  await pick(page, upload("cnn"));
  for (const id of ["#opt-input-names", "#opt-output-names", "#opt-model", "#opt-output-name"]) {
    assert.equal(await page.inputValue(id), "", id);
  }
  assert.equal(await page.inputValue("#opt-opset"), "18");
  const notice = await page.textContent("#options-notice");
  assert.match(notice, /Cleared the dimension names, input names, output file name set for the previous file/);
  assert.match(notice, /Opset, external data and optimization are kept/);
  assert.equal(await convertAndWait(page), "done", await page.textContent("body"));
  const got = await download(page, "#download-onnx");
  assert.ok(got.bytes.equals(runCli(upload("cnn"), "cnn.onnx", { opset: 18 }).onnx));
  await page.context().close();
});

test("unsupported operators: one advice before converting, and in the supported-ops search", async () => {
  const { page } = await openPage();
  const path = upload("unsupported_aten_op");
  const advice = cliInspect(path).advice;
  assert.match(advice, /^What to do, in order: \(1\) re-export with ep = ep\.run_decompositions\(\)/);
  await pick(page, path);
  assert.equal(await page.textContent("#inspect-advice"), advice);
  assert.ok(await page.isVisible("#inspect-unsupported-ops li"));
  assert.doesNotMatch(await page.textContent("#inspect-unsupported"), /torch\.onnx\.export|Rewrite the model/);
  assert.ok(await page.isDisabled("#convert"), "a program that cannot be converted is not offered for it");
  await page.click("#supported-ops summary");
  await page.waitForSelector("#supported-ops-filter:visible");
  await page.fill("#supported-ops-filter", "no_such_op_at_all");
  assert.equal(await page.textContent("#supported-ops-status"),
    `No supported overload matches "no_such_op_at_all": it is not supported yet. ${advice}`);
  await page.context().close();
});

test("a form error after a failure does not leave the old error on screen", async () => {
  const { page } = await openPage();
  await pick(page, upload("named_dims"));
  await page.evaluate(() => { document.getElementById("options").open = true; });
  await page.fill("#opt-output-names", "x");  // an output named like an input: the converter refuses it
  assert.equal(await convertAndWait(page), "error");
  await page.fill("#opt-output-names", "");
  await page.fill("#opt-output-name", "folder/x.onnx");
  await page.click("#convert");
  assert.match(await page.textContent("#opt-output-name-error"), /without folders/);
  assert.ok(!(await page.isVisible("#error")));
  await page.context().close();
});

test("a batch of 3, the first cancelled while converting: the others convert, zip holds both", async () => {
  const { page, seen } = await openPage();
  const names = ["gpt_block", "cnn", "mlp_dict_list"];
  await pick(page, ...names.map(upload));
  assert.equal(await page.$$eval("#queue-list li", (li) => li.length), 3);
  assert.ok(await page.isVisible("#queue"));
  assert.ok(await page.isDisabled("#opt-input-names"), "per-file names are not offered for a batch");
  // Cancel right after Convert, in the same task: the first conversion has started and is stopped.
  await page.evaluate(() => {
    document.getElementById("convert").click();
    document.querySelector('#queue-list li[data-index="0"] .cancel').click();
  });
  await page.waitForSelector('body[data-state="batch-done"]');
  const statuses = await page.$$eval("#queue-list li", (li) => li.map((l) => l.dataset.status));
  assert.deepEqual(statuses, ["cancelled", "done", "done"]);
  assert.match(await page.textContent("#progress-label"), /2 of 3 converted, 1 cancelled/);
  for (const [i, name] of [[1, "cnn"], [2, "mlp_dict_list"]]) {
    const got = await download(page, `#queue-list li[data-index="${i}"] a.download`);
    assert.equal(got.name, `${name}.onnx`);
    assert.ok(got.bytes.equals(runCli(upload(name), `${name}.onnx`).onnx), name);
  }
  await page.click("#download-all");
  const zip = await download(page, "#zip-link");
  assert.equal(zip.name, "pt2onnx-results.zip");
  const zipPath = join(uploads, "all.zip");
  writeFileSync(zipPath, zip.bytes);
  const listed = spawnSync("python3", ["-c", "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); " +
    "assert z.testzip() is None; print(' '.join(f'{i.filename}:{i.file_size}' for i in z.infolist()))", zipPath],
  { encoding: "utf8" });
  assert.equal(listed.status, 0, listed.stderr);
  assert.equal(listed.stdout.trim(), `cnn.onnx:${runCli(upload("cnn"), "cnn.onnx").onnx.length} ` +
    `mlp_dict_list.onnx:${runCli(upload("mlp_dict_list"), "mlp_dict_list.onnx").onnx.length}`);
  assert.deepEqual(seen.errors, []);
  await page.context().close();
});

test("several files dropped are all queued", async () => {
  const { page } = await openPage();
  await page.evaluate(() => {
    const dt = new DataTransfer();
    for (const name of ["a.pt2", "b.pt2", "c.pt2"]) dt.items.add(new File(["x"], name));
    document.getElementById("drop-zone").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  assert.deepEqual(await page.$$eval("#queue-list li .file-name", (s) => s.map((e) => e.textContent)),
    ["a.pt2", "b.pt2", "c.pt2"]);
  assert.equal(await page.textContent("#convert"), "Convert 3 files to ONNX");
  await page.context().close();
});

test("one worker and one .wasm fetch for inspecting and converting several files in turn", async () => {
  const { page, seen } = await openPage();
  for (const name of ["cnn", "dynamic_batch_seq", "cnn_torch28"]) {
    await pick(page, upload(name));
    assert.equal(await convertAndWait(page), "done");
  }
  assert.equal(seen.workers, 1);
  assert.equal(seen.requests.filter((u) => u.endsWith("pt2onnx-core.wasm")).length, 1);
  await page.context().close();
});

test("output name, copy report, and Netron only as a link the user follows", async () => {
  const { page, seen } = await openPage({ permissions: ["clipboard-read", "clipboard-write"] });
  await pick(page, upload("cnn"));
  await page.evaluate(() => { document.getElementById("options").open = true; });
  assert.equal(await page.getAttribute("#opt-output-name", "placeholder"), "cnn.onnx");
  await page.fill("#opt-output-name", "renamed");
  assert.equal(await convertAndWait(page), "done");
  const got = await download(page, "#download-onnx");
  assert.equal(got.name, "renamed.onnx");
  assert.ok(got.bytes.equals(runCli(upload("cnn"), "renamed.onnx").onnx));
  await page.click("#copy-report");
  await page.waitForFunction(() => document.getElementById("copy-status").textContent !== "");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.textContent("#report"));
  assert.equal(await page.getAttribute("#open-netron", "href"), "https://netron.app/");
  assert.equal(await page.getAttribute("#open-netron", "target"), "_blank");
  assert.match(await page.textContent(".netron"), /This page sends it nothing/);
  const origin = new URL(server.url).origin;
  assert.deepEqual(seen.requests.filter((u) => !u.startsWith(origin) && !u.startsWith("blob:") && !u.startsWith("data:")), []);
  await page.context().close();
});

test("at 390 px shapes wrap inside their column and the torch version stays whole", async () => {
  const { page } = await openPage({ viewport: { width: 390, height: 844 } });
  await pick(page, upload("named_dims"));
  assert.equal(await convertAndWait(page), "done");
  const overflow = await page.evaluate(() => [...document.querySelectorAll(".table-wrap")].filter((w) => w.offsetParent)
    .map((w) => w.scrollWidth - w.clientWidth));
  assert.ok(overflow.length >= 2 && overflow.every((d) => d <= 0), `overflow ${overflow}`);
  const clipped = await page.evaluate(() => [...document.querySelectorAll(".shape, #inspect input")].filter((s) => s.offsetParent)
    .filter((s) => s.getBoundingClientRect().right > s.closest(".table-wrap").getBoundingClientRect().right + 0.5).length);
  assert.equal(clipped, 0);
  assert.equal(await page.evaluate(() => document.querySelector("#sum-torch .nowrap").getClientRects().length), 1);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth));
  await page.context().close();
});

test("JS API on a page: an AbortSignal stops convert() and the next call works", async () => {
  const { page } = await openPage();
  const bytes = [...readFileSync(join(FIXTURES, "gpt_block", "model.pt2"))];
  const outcome = await page.evaluate(async (data) => {
    const m = await import("./pt2onnx/pt2onnx.mjs");
    const file = new File([new Uint8Array(data)], "gpt.pt2");
    const controller = new AbortController();
    const first = m.convert(file, { signal: controller.signal });
    controller.abort();
    const err = await first.then(() => null, (e) => e);
    const pre = await m.convert(file, { signal: AbortSignal.abort() }).then(() => null, (e) => e.name);
    const again = await m.convert(file);
    return [err?.name, pre, again.onnxName];
  }, bytes);
  assert.deepEqual(outcome, ["AbortError", "AbortError", "gpt.onnx"]);
  await page.context().close();
});
