// The pt2onnx page: choose one or several .pt2 files, see what the program holds before converting, convert
// with the pt2onnx module, show and offer the results.
//
// The module (./pt2onnx/pt2onnx.mjs, API in pt2onnx.d.ts) runs inspect() and convert() in one Web Worker
// that it keeps for the page (the .wasm is fetched once); a cancelled conversion terminates that worker and
// the next call starts a new one. Each view has its own file; this one wires them together.
//
// What inspect() finds decides what Convert offers for one file: a file it cannot read, or a program with
// operators that have no translation, is not offered for conversion (its reason is shown once, in the
// inspect view); nor is a conversion that just failed, until the file or an option changes.

import { createApplyWeightsView } from "./apply-weights-view.mjs";
import { $, breakable, span } from "./dom.mjs";
import { createErrorView, errorCode } from "./error-view.mjs";
import { createFolderView, isExportFolder, nameInFolder } from "./folder-view.mjs";
import { formatBytes, formatDuration } from "./format.mjs";
import { createInspectView } from "./inspect-view.mjs";
import { createOptions } from "./options.mjs";
import { createQueueView } from "./queue-view.mjs";
import { createResultView } from "./result-view.mjs";
import { createSupportedOps } from "./supported-ops.mjs";
import { createVerifyView } from "./verify-view.mjs";

const MODULE_URL = "./pt2onnx/pt2onnx.mjs";

// Progress stages in pipeline order, with the words the page shows.
const STAGES = [
  ["read", "Reading"],
  ["translate", "Translating"],
  ["optimize", "Optimizing"],
  ["write", "Writing"],
];

// The converter module, loaded once when the page starts. loaded() is the module once it has arrived (null
// before); getApi() waits for it, or rejects with loadError set when it cannot be loaded.
function loadConverter() {
  let api = null;
  const apiReady = import(MODULE_URL).then((m) => {
    api = m;
    $("version").textContent = m.version ?? "";
    return m;
  });
  apiReady.catch(() => { $("version").textContent = "(converter not loaded)"; });
  const getApi = () => api ?? apiReady.catch((err) => {
    throw Object.assign(new Error(`Could not load ${MODULE_URL}: ${err?.message ?? err}`), { loadError: true });
  });
  return { getApi, loaded: () => api };
}

// ---- The Convert button: what it offers, from the queue, the inspection and the last outcome ----

// What to do when one file is not offered for conversion, by why (page.convertState.refused, or failed).
const NOT_OFFERED = {
  unreadable: "Nothing to convert: choose another file.",
  unsupported: "Nothing to convert until its operators are translated: see above.",
  options: "Change the options to convert.",
  module: "Reload the page: see above.",
  failed: "Change the file or an option to convert again.",
};

function refreshConvert(page) {
  const { el, convertState: s, items } = page;
  if (page.folder) {
    el.convert.disabled = !!page.running;
    el.convert.textContent = s.converted ? "Convert the folder again" : "Convert the export folder";
    el.convertHint.hidden = true;
    return;
  }
  const n = items.length;
  const batch = n > 1;
  const why = batch ? null : s.refused ?? (s.failed ? "failed" : null);
  el.convert.disabled = !!page.running || n === 0 || why !== null;
  el.convert.textContent = batch ? (s.converted ? `Convert ${n} files again` : `Convert ${n} files to ONNX`)
    : s.converted ? "Convert again" : "Convert to ONNX";
  el.convertHint.textContent = why ? NOT_OFFERED[why] : "";
  el.convertHint.hidden = !why;
}

// ---- File intake: the picker, the drop zone and the whole window as drop target ----

// Returns { chooseFiles(files), which resets the page for a new choice of files, and reinspect(), for
// options that change what inspect() says (opset, model, translation library) }.
function createFileIntake(page, converter) {
  const { el, options, inspectView, queue } = page;
  let inspecting = null;  // the inspection awaited (a later one makes an earlier result stale)

  async function inspectFile(file, names) {
    // Not cancelled when another file is chosen: that would cost the worker and its loaded .wasm, and an
    // inspection is quick. Its result is dropped instead.
    const mine = {};
    inspecting = mine;
    page.inspection = null;
    options.setInspection(null);
    page.convertState.refused = null;
    refreshConvert(page);
    inspectView.showLoading(file.name);
    try {
      await options.libraryPending();
      const info = await (await converter.getApi()).inspect(file, { opset: Number($("opt-opset").value),
        modelName: options.modelName(), ...options.inspectOptions() });
      if (inspecting !== mine) return;
      inspectView.render(info);
      inspectView.restoreNames(names);
      page.inspection = info;
      options.setInspection(info);
      page.convertState.refused = (info.unsupported ?? []).length ? "unsupported" : null;
    } catch (err) {
      if (inspecting !== mine) return;
      inspectView.showFailure(err);
      // A fault of inspect() itself says nothing about the file: converting stays offered.
      const code = errorCode(err);
      page.convertState.refused = { internal: null, usage: "options", load: "module" }[code] ?? "unreadable";
      // "Does not end in .pt2, you can still try" is moot once the file is refused: the reason says it.
      if (page.convertState.refused === "unreadable") el.fileWarning.hidden = true;
    }
    refreshConvert(page);
  }

  function reinspect() {
    if (page.items.length !== 1) return;
    if (page.running) {
      page.reinspectAfterRun = true;
      return;
    }
    inspectFile(page.items[0].file, inspectView.typedNames());
  }

  // An exporter's folder: converted whole by convertFolder(), its components named by export.json.
  function chooseFolder(files) {
    const hadDimNames = inspectView.hasNames();
    page.clearOutput();
    inspectView.clear();
    el.progressArea.hidden = true;
    page.setState("idle");
    options.resetForNewFile({ fileName: "", batch: true, hadDimNames });
    page.items = queue.reset([]);
    const relative = files.find((f) => f.webkitRelativePath)?.webkitRelativePath ?? "";
    page.folder = { files, name: relative.includes("/") ? relative.slice(0, relative.indexOf("/")) : "folder" };
    page.convertState = { refused: null, failed: false, converted: false };
    page.inspection = null;
    inspecting = null;
    const programs = files.map(nameInFolder).filter((n) => /\.pt2$/i.test(n) && !n.includes("/"));
    el.fileInfo.hidden = false;
    el.fileInfo.textContent = `Export folder ${page.folder.name}: export.json and ${programs.length} programs ` +
      `(${programs.join(", ")}), ${formatBytes(files.reduce((n, f) => n + f.size, 0))}`;
    el.dropZone.classList.add("has-file");
    el.fileWarning.hidden = true;
    refreshConvert(page);
  }

  function chooseFiles(files) {
    if (page.running || files.length === 0) return;
    if (isExportFolder(files)) {
      chooseFolder(files);
      return;
    }
    page.folder = null;
    const batch = files.length > 1;
    const hadDimNames = inspectView.hasNames();
    page.clearOutput();
    inspectView.clear();
    el.progressArea.hidden = true;
    page.setState("idle");
    options.resetForNewFile({ fileName: files[0].name, batch, hadDimNames });
    page.items = queue.reset(files);
    page.convertState = { refused: null, failed: false, converted: false };
    page.inspection = null;
    inspecting = null;  // an inspection of an earlier choice is dropped when it arrives
    el.fileInfo.hidden = false;
    if (batch) {
      el.fileInfo.textContent = `${files.length} files, ${formatBytes(files.reduce((n, f) => n + f.size, 0))}`;
    } else {
      // A long name wraps between its parts inside the pill, never past the page's edge.
      const name = span("file-name", "");
      name.append(...breakable(files[0].name));
      el.fileInfo.replaceChildren(name, span("file-size", formatBytes(files[0].size)));
    }
    el.dropZone.classList.add("has-file");
    const odd = files.filter((f) => !/\.pt2$/i.test(f.name)).map((f) => `"${f.name}"`);
    el.fileWarning.hidden = odd.length === 0;
    el.fileWarning.textContent = odd.length === 0 ? "" : `${odd.join(", ")} ${odd.length === 1 ? "does" : "do"} ` +
      "not end in .pt2. You can still try: the converter will say what it finds.";
    refreshConvert(page);
    if (!batch) inspectFile(files[0]);
  }

  const openPicker = () => { if (!page.running) el.fileInput.click(); };
  el.dropZone.addEventListener("click", openPicker);
  el.dropZone.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      openPicker();
    }
  });
  for (const input of [el.fileInput, el.folderInput]) {
    input.addEventListener("change", () => {
      const files = [...(input.files ?? [])];
      input.value = "";  // so that choosing the same file again (e.g. after re-exporting it) is seen
      chooseFiles(files);
      el.convert.focus();
    });
  }
  $("choose-folder").addEventListener("click", () => { if (!page.running) el.folderInput.click(); });
  acceptDrops(page, chooseFiles);
  return { chooseFiles, reinspect };
}

// The whole window takes drops: a file dropped beside the zone must not make the browser open it instead.
function acceptDrops(page, chooseFiles) {
  const { el } = page;
  let dragDepth = 0;
  const hasFiles = (e) => e.dataTransfer && [...e.dataTransfer.types].includes("Files");
  document.addEventListener("dragenter", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    if (dragDepth++ === 0 && !page.running) el.dropZone.classList.add("dragging");
  });
  document.addEventListener("dragleave", (e) => {
    if (!hasFiles(e)) return;
    if (--dragDepth <= 0) { dragDepth = 0; el.dropZone.classList.remove("dragging"); }
  });
  document.addEventListener("dragover", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = page.running ? "none" : "copy";
  });
  document.addEventListener("drop", async (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    dragDepth = 0;
    el.dropZone.classList.remove("dragging");
    // A dropped folder comes as a directory entry: its files are read from it (entries die with the event,
    // so they are taken before the first await).
    const entries = [...e.dataTransfer.items].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
    const files = entries.some((entry) => entry.isDirectory)
      ? await filesOfEntries(entries) : [...e.dataTransfer.files];
    chooseFiles(files);
    el.convert.focus();
  });
}

// The files under dropped entries, a folder's named "folder/file" as a directory picker names them.
async function filesOfEntries(entries, prefix = "") {
  const files = [];
  for (const entry of entries) {
    if (entry.isFile) {
      const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
      const path = prefix + file.name;
      files.push(path.includes("/") ? Object.defineProperty(file, "webkitRelativePath", { value: path }) : file);
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (batch.length === 0) break;
        files.push(...await filesOfEntries(batch, `${prefix}${entry.name}/`));
      }
    }
  }
  return files;
}

// ---- Conversion queue: convert every queued file in turn, with progress and cancel ----

function createConversion(page, converter) {
  const { el, options, inspectView, resultView, errorView, queue } = page;

  let pending = null;  // the latest progress event, drawn once per frame: the module may report far more often
  function drawProgress() {
    const e = pending;
    pending = null;
    const running = page.running;
    if (!e || !running) return;
    const i = Math.max(0, STAGES.findIndex(([s]) => s === e.stage));
    const f = Math.min(1, Math.max(0, Number(e.fraction) || 0));
    el.progress.value = (i + f) / STAGES.length;
    const of = page.items.length > 1 ? `${running.file.name} (${running.index + 1} of ${page.items.length}): ` : "";
    const label = `${of}${STAGES[i][1]}… (step ${i + 1} of ${STAGES.length})`;
    // Written only on change: the label is a live region and would otherwise be re-announced constantly.
    if (el.progressLabel.textContent !== label) el.progressLabel.textContent = label;
  }

  function cancel(item) {
    if (item.status === "queued") {
      item.status = "cancelled";
      queue.update(item);
    } else if (item.status === "converting") {
      item.controller.abort();
    }
  }

  // ---- Results: the outcome of one item, in the result or the error view ----
  function showOutcome(item) {
    page.clearOutput();
    if (item.status === "done") {
      resultView.show(item.file.name, item.result, item.ms, { graphOnly: item.options.includeWeights === false,
        inspection: page.items.length === 1 ? page.inspection : null });
      page.verifyView.offer(item.file, item.options);
    } else if (item.status === "failed") errorView.show(item.error, { namesGiven: item.namesGiven });
  }

  async function convertOne(m, item, opts) {
    item.status = "converting";
    item.controller = new AbortController();
    queue.update(item);
    page.running = item;
    el.progress.value = 0;
    el.progressLabel.textContent = page.items.length > 1 ? `${item.file.name}: starting…` : "Starting…";
    const t0 = performance.now();
    try {
      item.result = await m.convert(item.file, { ...opts, outputName: options.outputNameFor(item.file, opts),
        signal: item.controller.signal, onProgress: (e) => {
        if (!pending) requestAnimationFrame(drawProgress);
        pending = e;
      } });
      item.ms = performance.now() - t0;
      item.status = "done";
    } catch (err) {
      item.error = err;
      item.status = err?.name === "AbortError" ? "cancelled" : "failed";
    }
    pending = null;  // a frame still queued must not overwrite the final label
    queue.update(item);
  }

  // The export folder: one convertFolder() call, its files in the folder view.
  async function convertFolderNow() {
    const opts = options.read({ batch: true });
    if (!opts) return;
    page.clearOutput();
    const folderOptions = { opset: opts.opset, optimize: opts.optimize };
    if (opts.includeWeights === false) folderOptions.includeWeights = false;
    const controller = new AbortController();
    page.running = { file: { name: page.folder.name }, index: 0, controller };
    page.setState("converting");
    refreshConvert(page);
    el.cancel.hidden = false;
    el.progressArea.hidden = false;
    el.progress.value = 0;
    el.progressLabel.textContent = "Starting…";
    const t0 = performance.now();
    let outcome;
    try {
      const m = await converter.getApi();
      const result = await m.convertFolder(page.folder.files, { ...folderOptions, signal: controller.signal,
        onProgress: (e) => {
          if (!pending) requestAnimationFrame(drawProgress);
          pending = e;
        } });
      page.folderView.show(result, performance.now() - t0, page.folder.name);
      outcome = "done";
    } catch (err) {
      outcome = err?.name === "AbortError" ? "cancelled" : "error";
      if (outcome === "error") errorView.show(err, { namesGiven: false });
    }
    pending = null;
    page.running = null;
    el.cancel.hidden = true;
    page.convertState.converted = outcome === "done";
    el.progress.value = 1;
    el.progressLabel.textContent = outcome === "done" ? `Done in ${formatDuration(performance.now() - t0)}.`
      : outcome === "cancelled" ? "Cancelled." : "Failed.";
    refreshConvert(page);
    page.setState(outcome);
  }

  async function convertAll() {
    if (page.folder) return convertFolderNow();
    const items = page.items;
    if (page.running || items.length === 0) return;
    const batch = items.length > 1;
    const dims = batch ? { value: undefined } : inspectView.dimNames();
    page.clearOutput();  // an earlier result or error must not stay under a new form error
    $("dim-names-error").textContent = dims.error ?? "";
    $("dim-names-error").hidden = !dims.error;
    const opts = options.read({ dimNames: dims.value, batch });
    if (!opts || dims.error) return;
    // Only while a just-chosen library is read: otherwise no await, so a Cancel right after Convert applies.
    const libraryPending = options.libraryPending();
    if (libraryPending) await libraryPending;
    const namesGiven = !!(opts.modelName || opts.inputNames || opts.outputNames || opts.dimNames);
    for (const item of items) {
      Object.assign(item, { status: "queued", result: null, error: null, namesGiven, options: opts });
      queue.update(item);
    }
    page.setState("converting");
    page.running = items[0];  // until the first item really starts: Convert is not offered meanwhile
    refreshConvert(page);
    el.cancel.hidden = false;
    el.dropZone.setAttribute("aria-disabled", "true");
    el.progressArea.hidden = false;
    // No await before the first convert() when the module is loaded: a Cancel right after Convert applies.
    const m = converter.loaded() ?? await converter.getApi().catch((err) => err);
    for (const item of items) {
      if (item.status !== "queued") continue;
      if (m instanceof Error) Object.assign(item, { status: "failed", error: m });
      else await convertOne(m, item, opts);
    }
    page.running = null;
    el.cancel.hidden = true;
    el.dropZone.removeAttribute("aria-disabled");
    const count = (s) => items.filter((i) => i.status === s).length;
    const done = count("done");
    page.convertState.converted = done > 0;
    page.convertState.failed = !batch && items[0].status === "failed";
    refreshConvert(page);
    el.progress.value = 1;
    el.progressLabel.textContent = !batch ? (done ? "Done." : count("cancelled") ? "Cancelled." : "Failed.")
      : `${done} of ${items.length} converted` +
        `${count("failed") ? `, ${count("failed")} failed` : ""}${count("cancelled") ? `, ${count("cancelled")} cancelled` : ""}.`;
    if (!batch) showOutcome(items[0]);
    page.setState(batch ? "batch-done" : items[0].status === "done" ? "done" : items[0].status === "failed" ? "error"
      : "cancelled");
    if (page.reinspectAfterRun) {
      page.reinspectAfterRun = false;
      page.reinspect();
    }
  }

  el.cancel.addEventListener("click", () => {
    if (page.folder && page.running) page.running.controller.abort();
    else if (page.running) cancel(page.running);
  });
  el.convert.addEventListener("click", convertAll);
  $("options-form").addEventListener("submit", (e) => { e.preventDefault(); convertAll(); });
  return { cancel, showOutcome };
}

// Wires the views together. `page` is the state they share: the queued items and the one being converted.
function startPage() {
  document.documentElement.dataset.app = "started";  // the inline script's file:// check looks for it
  const el = {
    dropZone: $("drop-zone"), fileInput: $("file-input"), folderInput: $("folder-input"), fileInfo: $("file-info"),
    fileWarning: $("file-warning"),
    convert: $("convert"), cancel: $("cancel"), convertHint: $("convert-hint"),
    progressArea: $("progress-area"), progress: $("progress"), progressLabel: $("progress-label"),
  };
  const converter = loadConverter();
  const supportedOps = createSupportedOps({ getApi: converter.getApi });
  const page = {
    el,
    items: [],
    folder: null,  // { files, name }: an exporter's folder, converted whole
    running: null,  // the item being converted
    inspection: null,  // inspect()'s result for the one chosen file, with the current options
    // What Convert offers: refused ("unreadable", "unsupported") by the inspection, failed with the current
    // file and options, converted before.
    convertState: { refused: null, failed: false, converted: false },
    reinspectAfterRun: false,
    reinspect: () => {},
    options: createOptions({ onProgramOptionsChange: () => page.reinspect() }),
    inspectView: createInspectView({ supportedOps }),
    resultView: createResultView(),
    verifyView: createVerifyView({ getApi: converter.getApi }),
    folderView: createFolderView({ getApi: converter.getApi,
      onError: (err) => page.errorView.show(err, { namesGiven: false }) }),
    errorView: createErrorView({ supportedOps }),
    queue: createQueueView({
      onCancel: (item) => conversion.cancel(item),
      onDetails: (item) => conversion.showOutcome(item),
      // A batch's file described in its row, at the opset and with the library chosen.
      onInspect: async (file) => (await converter.getApi()).inspect(file, { opset: Number($("opt-opset").value),
        ...page.options.inspectOptions() }),
    }),
    setState: (state) => { document.body.dataset.state = state; },
    clearOutput: () => {
      page.resultView.clear();
      page.verifyView.clear();
      page.folderView.clear();
      page.errorView.clear();
    },
  };
  page.reinspect = createFileIntake(page, converter).reinspect;
  // A failed conversion is offered again once something that shapes it changes.
  const changed = () => {
    if (!page.convertState.failed) return;
    page.convertState.failed = false;
    refreshConvert(page);
  };
  for (const id of ["options-form", "inspect"]) {
    $(id).addEventListener("input", changed);
    $(id).addEventListener("change", changed);
  }
  createApplyWeightsView({ getApi: converter.getApi });
  const conversion = createConversion(page, converter);
}

if (typeof document !== "undefined") startPage();
