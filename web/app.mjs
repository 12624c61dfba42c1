// The pt2onnx page: pick a .pt2 file, convert it with the pt2onnx module, show and offer the result.
//
// The module (./pt2onnx/pt2onnx.mjs, API in pt2onnx.d.ts) runs each conversion in its own Web Worker when
// called from a page, so everything here stays on the main thread. The pure helpers below are exported so
// that node can test them without a DOM; the page wiring runs only in a browser.

const MODULE_URL = "./pt2onnx/pt2onnx.mjs";

// Progress stages in pipeline order, with the words the page shows.
const STAGES = [
  ["read", "Reading"],
  ["translate", "Translating"],
  ["optimize", "Optimizing"],
  ["write", "Writing"],
];

const ADVICE = {
  invalid_input: "pt2onnx could not read this file as an exported program. It must be saved with " +
    "torch.export.save (torch 2.6 or newer); files written by torch.save or torch.jit.save are something else.",
  // invalid_input also covers names given in the Options (an unknown program, a clashing tensor name,
  // a dimension or input rename that matches nothing).
  invalid_names: "Check the Options: the message may be about a model or tensor name given there. Otherwise, " +
    "the file must be a program saved with torch.export.save (torch 2.6 or newer).",
  unsupported: "The file was read, but the program uses operators or features pt2onnx cannot convert yet.",
  io: "The file could not be read. If it was moved, changed or is on a removable or network drive, choose it again.",
  usage: "An option was not accepted. Check the Options and try again.",
  internal: "This looks like a bug in pt2onnx. Please report it with the message above.",
  load: "The converter module could not be loaded. Serve this folder from a web server (opening index.html " +
    "from disk does not work) and reload the page.",
};

// ---- Pure helpers ------------------------------------------------------------------------------------------

// Three significant digits: 1.23, 12.3, 123.
function sig3(v) {
  return v >= 99.95 ? v.toFixed(0) : v >= 9.995 ? v.toFixed(1) : v.toFixed(2);
}

// Picks the largest unit the value reaches; 0.9995 so that 999,600 reads "1.00 M", not "1000 k".
function scaled(n, units) {
  let pick = null;
  for (const u of units) if (n >= u[1] * 0.9995) pick = u;
  return pick;
}

/** 46758048 -> "44.6 MiB" (binary units, like the 1.5 GiB and 2 GiB limits). */
export function formatBytes(n) {
  const u = scaled(n, [["KiB", 2 ** 10], ["MiB", 2 ** 20], ["GiB", 2 ** 30], ["TiB", 2 ** 40]]);
  return u ? `${sig3(n / u[1])} ${u[0]}` : `${n} B`;
}

/** 11689512 -> "11.7 M". */
export function formatCount(n) {
  const u = scaled(n, [["k", 1e3], ["M", 1e6], ["B", 1e9], ["T", 1e12]]);
  return u ? `${sig3(n / u[1])} ${u[0]}` : String(n);
}

/** Milliseconds -> "840 ms", "1.25 s", "2 min 05 s". */
export function formatDuration(ms) {
  if (ms < 1000) return `${Math.max(1, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
}

/**
 * "a, b" -> { value: ["a", "b"] }; "" -> { value: undefined } (keep the program's names);
 * problems -> { error }. Names are otherwise free-form: ONNX allows any string.
 */
export function parseNameList(text) {
  if (text.trim() === "") return { value: undefined };
  const names = text.split(",").map((s) => s.trim());
  const empty = names.indexOf("");
  if (empty >= 0) {
    return { error: `Name ${empty + 1} of ${names.length} is empty. Remove the extra comma or fill in a name.` };
  }
  const seen = new Set();
  for (const name of names) {
    if (seen.has(name)) return { error: `"${name}" is given twice. Each name must be unique.` };
    seen.add(name);
  }
  return { value: names };
}

/** "s0=batch, s1=seq" -> { value: { s0: "batch", s1: "seq" } }; "" -> { value: undefined }. */
export function parseDimNames(text) {
  if (text.trim() === "") return { value: undefined };
  const entries = [];
  const parts = text.split(",");
  for (const [i, raw] of parts.entries()) {
    const part = raw.trim();
    if (part === "") {
      return { error: `Entry ${i + 1} of ${parts.length} is empty. Remove the extra comma or fill it in.` };
    }
    const eq = part.indexOf("=");
    if (eq < 0) return { error: `"${part}" is not of the form symbol=name, e.g. s0=batch.` };
    const symbol = part.slice(0, eq).trim();
    const name = part.slice(eq + 1).trim();
    if (symbol === "") return { error: `"${part}" has no symbol before "=".` };
    if (name === "") return { error: `"${part}" has no new name after "=".` };
    if (name.includes("=")) return { error: `"${part}" has more than one "=". Separate entries with commas.` };
    if (entries.some(([s]) => s === symbol)) return { error: `${symbol} is renamed twice.` };
    entries.push([symbol, name]);
  }
  // fromEntries defines own properties, so even a symbol named "__proto__" stays plain data.
  return { value: Object.fromEntries(entries) };
}

/** A ConversionError, told apart by shape: it may have been rebuilt from a worker's message. */
function isConversionError(err) {
  return err != null && err.name === "ConversionError" && typeof err.code === "string";
}

// ---- Page ----------------------------------------------------------------------------------------------------

function startPage() {
  const $ = (id) => document.getElementById(id);
  const el = {
    dropZone: $("drop-zone"), fileInput: $("file-input"), fileInfo: $("file-info"), fileWarning: $("file-warning"),
    options: $("options"), convert: $("convert"),
    progressArea: $("progress-area"), progress: $("progress"), progressLabel: $("progress-label"),
    result: $("result"), error: $("error"), version: $("version"),
  };
  const fields = {
    opset: $("opt-opset"), external: $("opt-external"), inputNames: $("opt-input-names"),
    outputNames: $("opt-output-names"), dimNames: $("opt-dim-names"), model: $("opt-model"),
    optimize: $("opt-optimize"),
  };

  let file = null;
  let busy = false;
  let objectUrls = [];
  let api = null;

  // Started at once so the module (and whatever it preloads) is ready by the time a file is chosen.
  const apiReady = import(MODULE_URL).then((m) => {
    api = m;
    el.version.textContent = m.version ?? "";
    return m;
  });
  apiReady.catch(() => { el.version.textContent = "(converter not loaded)"; });

  const setState = (state) => { document.body.dataset.state = state; };

  function revokeUrls() {
    for (const url of objectUrls) URL.revokeObjectURL(url);
    objectUrls = [];
  }

  function clearOutput() {
    revokeUrls();
    el.result.hidden = true;
    el.error.hidden = true;
  }

  // ---- File choice ----

  function chooseFile(f) {
    if (busy) return;
    file = f;
    clearOutput();
    el.progressArea.hidden = true;
    setState("idle");
    el.fileInfo.hidden = false;
    el.fileInfo.replaceChildren(span("file-name", f.name), " ", span("file-size", formatBytes(f.size)));
    el.dropZone.classList.add("has-file");
    const looksRight = /\.pt2$/i.test(f.name);
    el.fileWarning.hidden = looksRight;
    el.fileWarning.textContent = looksRight ? "" :
      `"${f.name}" does not end in .pt2. You can still try: the converter will say what it finds in it.`;
    el.convert.disabled = false;
    el.convert.textContent = "Convert to ONNX";
  }

  const openPicker = () => { if (!busy) el.fileInput.click(); };
  el.dropZone.addEventListener("click", openPicker);
  el.dropZone.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      openPicker();
    }
  });
  el.fileInput.addEventListener("change", () => {
    const f = el.fileInput.files?.[0];
    if (!f) return;
    el.fileInput.value = "";  // so that choosing the same file again (e.g. after re-exporting it) is seen
    chooseFile(f);
    el.convert.focus();
  });

  // The whole window takes drops: a file dropped beside the zone must not make the browser open it instead.
  let dragDepth = 0;
  const hasFiles = (e) => e.dataTransfer && [...e.dataTransfer.types].includes("Files");
  document.addEventListener("dragenter", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    if (dragDepth++ === 0 && !busy) el.dropZone.classList.add("dragging");
  });
  document.addEventListener("dragleave", (e) => {
    if (!hasFiles(e)) return;
    if (--dragDepth <= 0) { dragDepth = 0; el.dropZone.classList.remove("dragging"); }
  });
  document.addEventListener("dragover", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = busy ? "none" : "copy";
  });
  document.addEventListener("drop", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    dragDepth = 0;
    el.dropZone.classList.remove("dragging");
    const f = e.dataTransfer.files[0];
    if (f && !busy) {
      chooseFile(f);
      el.convert.focus();
    }
  });

  // ---- Options ----

  const listFields = [
    [fields.inputNames, parseNameList, "inputNames"],
    [fields.outputNames, parseNameList, "outputNames"],
    [fields.dimNames, parseDimNames, "dimNames"],
  ];

  function showFieldError(input, message) {
    const box = $(`${input.id}-error`);
    box.textContent = message ?? "";
    box.hidden = !message;
    if (message) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }

  // Validates while typing only once a field has shown an error, so half-typed input is not flagged.
  for (const [input, parse] of listFields) {
    input.addEventListener("input", () => {
      if (input.hasAttribute("aria-invalid")) showFieldError(input, parse(input.value).error);
    });
    input.addEventListener("change", () => showFieldError(input, parse(input.value).error));
  }

  /** The ConvertOptions of the form, or null after marking the invalid fields. */
  function readOptions() {
    const options = {
      opset: Number(fields.opset.value),
      externalData: fields.external.value,
      optimize: fields.optimize.checked,
    };
    let firstBad = null;
    for (const [input, parse, key] of listFields) {
      const { value, error } = parse(input.value);
      showFieldError(input, error);
      if (error) firstBad ??= input;
      else if (value !== undefined) options[key] = value;
    }
    const model = fields.model.value.trim();
    if (model) options.modelName = model;
    if (firstBad) {
      el.options.open = true;
      firstBad.focus();
      return null;
    }
    return options;
  }

  // ---- Conversion ----

  let pending = null;  // the latest progress event, drawn once per frame: the module may report far more often
  function drawProgress() {
    const e = pending;
    pending = null;
    if (!e || !busy) return;
    const i = Math.max(0, STAGES.findIndex(([s]) => s === e.stage));
    const f = Math.min(1, Math.max(0, Number(e.fraction) || 0));
    el.progress.value = (i + f) / STAGES.length;
    const label = `${STAGES[i][1]}… (step ${i + 1} of ${STAGES.length})`;
    // Written only on change: the label is a live region and would otherwise be re-announced constantly.
    if (el.progressLabel.textContent !== label) el.progressLabel.textContent = label;
  }

  async function convertFile() {
    if (!file || busy) return;
    const options = readOptions();
    if (!options) return;
    const input = file;
    busy = true;
    clearOutput();
    setState("converting");
    el.convert.disabled = true;
    el.dropZone.setAttribute("aria-disabled", "true");
    el.progressArea.hidden = false;
    el.progress.value = 0;
    el.progressLabel.textContent = "Starting…";
    const t0 = performance.now();
    const finish = (label) => {
      busy = false;
      pending = null;  // a frame still queued must not overwrite the final label
      el.progressLabel.textContent = label;
      el.convert.disabled = false;
      el.convert.textContent = "Convert again";
      el.dropZone.removeAttribute("aria-disabled");
    };
    try {
      const m = api ?? await apiReady.catch((err) => {
        throw Object.assign(new Error(`Could not load ${MODULE_URL}: ${err?.message ?? err}`), { loadError: true });
      });
      const result = await m.convert(input, {
        ...options,
        onProgress: (e) => {
          if (!pending) requestAnimationFrame(drawProgress);
          pending = e;
        },
      });
      const ms = performance.now() - t0;
      el.progress.value = 1;
      finish("Done.");
      showResult(input, result, ms);
      setState("done");
    } catch (err) {
      finish("Failed.");
      try {
        showError(err, options);
      } finally {
        setState("error");  // even if drawing failed, so that nobody waits for ever
      }
    }
  }
  el.convert.addEventListener("click", convertFile);
  $("options-form").addEventListener("submit", (e) => { e.preventDefault(); convertFile(); });

  // ---- Result ----

  function reveal(panel) {
    panel.hidden = false;
    // The Convert button was disabled while running, which drops keyboard focus to the body: hand it to
    // the new panel so that Tab continues from there.
    if (!document.activeElement || document.activeElement === document.body) panel.focus({ preventScroll: true });
    panel.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  function setDownload(link, blob, name) {
    const url = URL.createObjectURL(blob);
    objectUrls.push(url);
    link.href = url;
    link.download = name;
    link.replaceChildren(`Download ${name}`, " ", span("size", formatBytes(blob.size)));
    link.hidden = false;
  }

  function showResult(input, r, ms) {
    const s = r.summary;
    $("result-title").textContent = `${input.name} → ${r.onnxName}`;
    $("result-time").textContent = `in ${formatDuration(ms)}`;

    setDownload($("download-onnx"), r.onnx, r.onnxName);
    const dataLink = $("download-data");
    const note = $("data-note");
    if (r.data) {
      const dataName = r.dataName ?? `${r.onnxName}.data`;
      setDownload(dataLink, r.data, dataName);
      note.textContent = `The weights are in ${dataName}, which ${r.onnxName} refers to by name. ` +
        "Download both and keep them in the same folder.";
      note.hidden = false;
    } else {
      dataLink.hidden = true;
      dataLink.removeAttribute("href");
      note.hidden = true;
    }

    const fmt = new Intl.NumberFormat("en-US");
    $("sum-opset").textContent = String(s.opset);
    const params = $("sum-params");
    params.textContent = formatCount(s.parameters);
    params.title = `${fmt.format(s.parameters)} weight elements`;
    const bytes = $("sum-bytes");
    bytes.textContent = formatBytes(s.initializerBytes);
    bytes.title = `${fmt.format(s.initializerBytes)} bytes`;
    $("sum-nodes").textContent = `${fmt.format(s.fxNodes)} → ${fmt.format(s.onnxNodes)}`;
    $("sum-layout").textContent = s.layout;
    $("sum-torch").replaceChildren(s.torchVersion ? `torch ${s.torchVersion}` : "torch (version not recorded)",
      s.schemaVersion ? span("sub", `schema ${s.schemaVersion}`) : "");

    const rows = [];
    for (const [kind, list] of [["input", s.inputs], ["output", s.outputs]]) {
      for (const t of list) {
        const tr = document.createElement("tr");
        tr.append(
          cell("td", span(`kind ${kind}`, kind)),
          cell("td", code(t.name)),
          cell("td", t.dtype),
          cell("td", shapeNode(t.shape)),
        );
        rows.push(tr);
      }
    }
    $("io-body").replaceChildren(...rows);

    const ops = Object.entries(s.opHistogram ?? {}).filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const most = ops.length ? ops[0][1] : 1;
    const total = ops.reduce((sum, [, n]) => sum + n, 0);
    $("op-total").textContent = `${fmt.format(total)} nodes, ${ops.length} types`;
    $("op-histogram").replaceChildren(...ops.map(([op, n]) => {
      const li = document.createElement("li");
      li.style.setProperty("--share", (n / most).toFixed(3));
      li.append(span("op", op), span("count", fmt.format(n)));
      return li;
    }));

    const warnings = r.warnings ?? [];
    $("warnings").replaceChildren(...warnings.map((w) => {
      const li = document.createElement("li");
      li.textContent = w;
      return li;
    }));
    $("warnings-section").hidden = warnings.length === 0;
    $("warnings-heading").textContent = warnings.length === 1 ? "1 warning" : `${warnings.length} warnings`;

    $("report").textContent = r.report ?? "";
    reveal(el.result);
  }

  // ---- Errors ----

  function showError(err, options) {
    let errorCode = "internal";
    let message = String(err?.message ?? err);
    let unsupported = [];
    if (isConversionError(err)) {
      errorCode = err.code;
      unsupported = Array.isArray(err.unsupportedOps) ? err.unsupportedOps : [];
      $("error-code").textContent = `${errorCode} (exit code ${err.exitCode})`;
    } else {
      if (err?.loadError) errorCode = "load";
      else message = `Unexpected error: ${message}`;
      $("error-code").textContent = errorCode;
    }
    $("error-message").textContent = message;
    const namesGiven = options.modelName || options.inputNames || options.outputNames || options.dimNames;
    const advice = errorCode === "invalid_input" && namesGiven ? "invalid_names" : errorCode;
    $("error-advice").textContent = ADVICE[advice] ?? "";
    $("unsupported-ops").replaceChildren(...unsupported.map((entry) => {
      // "aten::eye.default x1 (first at node 'eye')": the operator as code, the rest as text.
      const [, op, rest] = /^(\S+)(.*)$/s.exec(entry) ?? [null, entry, ""];
      const li = document.createElement("li");
      li.append(code(op), rest);
      return li;
    }));
    $("unsupported").hidden = unsupported.length === 0;
    reveal(el.error);
  }

  // The supported list is fetched only when asked for: it can be long and needs the module.
  const supported = $("supported-ops");
  let supportedLoaded = false;
  supported.addEventListener("toggle", async () => {
    if (!supported.open || supportedLoaded) return;
    supportedLoaded = true;
    const status = $("supported-ops-status");
    status.textContent = "Loading…";
    try {
      const ops = [...await (await apiReady).supportedOps()].sort();
      status.textContent = `${ops.length} operator overloads are supported.`;
      $("supported-ops-list").replaceChildren(...ops.map((op) => {
        const li = document.createElement("li");
        li.append(code(op));
        return li;
      }));
      $("supported-ops-filter").closest("label").hidden = false;
    } catch (err) {
      supportedLoaded = false;
      status.textContent = `Could not load the list: ${err?.message ?? err}`;
    }
  });
  $("supported-ops-filter").addEventListener("input", (e) => {
    const q = e.target.value.trim().toLowerCase();
    const items = [...$("supported-ops-list").children];
    let shown = 0;
    for (const li of items) {
      li.hidden = q !== "" && !li.textContent.toLowerCase().includes(q);
      if (!li.hidden) shown++;
    }
    $("supported-ops-status").textContent = q === "" ? `${items.length} operator overloads are supported.` :
      `${shown} of ${items.length} supported overloads match "${q}".`;
  });
}

// ---- DOM bits ----

function span(className, text) {
  const s = document.createElement("span");
  s.className = className;
  s.textContent = text;
  return s;
}

function code(text) {
  const c = document.createElement("code");
  c.textContent = text;
  return c;
}

function cell(tag, content) {
  const c = document.createElement(tag);
  c.append(content);
  return c;
}

// Symbolic dimensions are styled apart from fixed sizes.
function shapeNode(shape) {
  const out = document.createElement("code");
  out.className = "shape";
  if (!shape.length) {
    out.textContent = "scalar";
    return out;
  }
  out.append("[");
  shape.forEach((d, i) => {
    if (i) out.append(", ");
    if (typeof d === "string") out.append(span("sym", d));
    else out.append(String(d));
  });
  out.append("]");
  return out;
}

if (typeof document !== "undefined") startPage();
