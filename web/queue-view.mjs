// The list of chosen files with each one's status, its Cancel button while queued or running, its downloads
// once converted, "Inspect" (what inspect() finds in that file, asked when first opened) and "Download all"
// as one zip.

import { $, breakable, code, shapeNode, span } from "./dom.mjs";
import { formatBytes, uniqueNames } from "./format.mjs";
import { zipBlobs } from "./zip.mjs";

const STATUS_TEXT = {
  ready: "ready",
  queued: "queued",
  converting: "converting…",
  done: "converted",
  failed: "failed",
  cancelled: "cancelled",
};

// One file's inspection in its row: inputs and outputs with their shapes, and what cannot be translated.
function renderInspection(info) {
  const body = document.createElement("div");
  body.className = "row-inspection";
  const facts = span("help", `${info.fxNodes} FX nodes, ` +
    `weights ${formatBytes(info.weights.reduce((n, w) => n + w.bytes, 0))}` +
    `${info.torchVersion ? `, torch ${info.torchVersion}` : ""}`);
  const list = document.createElement("div");
  list.className = "io-lines";
  for (const [kind, values] of [["input", info.inputs], ["output", info.outputs]]) {
    for (const v of values) {
      const item = document.createElement("div");
      item.append(span(`kind ${kind}`, kind), " ", code(v.name), " ", v.kind === "tensor" ? v.dtype : v.kind, " ",
        shapeNode(v.shape ?? []));
      list.append(item);
    }
  }
  body.append(facts, list);
  const unsupported = info.unsupported ?? [];
  if (unsupported.length) {
    body.append(span("notice warn", `Not translated yet: ${unsupported.map((u) => u.key).join(", ")}`));
  }
  return body;
}

export function createQueueView({ onCancel, onDetails, onInspect }) {
  const section = $("queue");
  const list = $("queue-list");
  let items = [];
  let urls = [];

  function revoke() {
    for (const url of urls) URL.revokeObjectURL(url);
    urls = [];
  }

  function link(blob, name) {
    const a = document.createElement("a");
    const url = URL.createObjectURL(blob);
    urls.push(url);
    a.href = url;
    a.download = name;
    a.className = "download";
    a.append(...breakable(name), " ", span("size", formatBytes(blob.size)));
    return a;
  }

  function button(text, className, onClick) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = className;
    b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }

  function renderRow(item) {
    const row = item.row;
    row.dataset.status = item.status;
    const status = span(`status ${item.status}`, STATUS_TEXT[item.status]);
    if (item.status === "failed" && item.error) status.title = String(item.error.message ?? item.error);
    const actions = span("row-actions", "");
    if (item.status === "queued" || item.status === "converting") {
      actions.append(button("Cancel", "cancel", () => onCancel(item)));
    }
    if (item.status === "done") {
      actions.append(link(item.result.onnx, item.result.onnxName));
      if (item.result.data) actions.append(link(item.result.data, item.result.dataName));
    }
    if (item.status === "done" || item.status === "failed") {
      actions.append(button("Details", "details", () => onDetails(item)));
    }
    const fileName = span("file-name", "");
    fileName.append(...breakable(item.file.name));
    row.replaceChildren(fileName, span("file-size", formatBytes(item.file.size)),
      status, actions, inspection(item));
  }

  // The row's "Inspect" panel, kept across re-renders; inspect() runs when it is first opened.
  function inspection(item) {
    if (item.inspect) return item.inspect;
    const details = document.createElement("details");
    details.className = "row-inspect";
    const summary = document.createElement("summary");
    summary.textContent = "Inspect";
    const status = span("help", "");
    details.append(summary, status);
    details.addEventListener("toggle", async () => {
      if (!details.open || item.inspected) return;
      item.inspected = true;
      status.textContent = "Reading…";
      try {
        details.append(renderInspection(await onInspect(item.file)));
        status.textContent = "";
      } catch (err) {
        status.textContent = `Cannot read ${item.file.name}: ${err?.message ?? err}`;
        item.inspected = false;
      }
    });
    item.inspect = details;
    return details;
  }

  function refreshZip() {
    const done = items.filter((i) => i.status === "done");
    const zip = $("download-all");
    zip.hidden = done.length < 2;
    zip.textContent = `Zip all ${done.length} results`;
    $("zip-link").hidden = true;
  }

  // Packing reads every result once (for the CRCs), so it is done on request; the zip is then offered as a
  // link, clicked by the user: a download started by script after that wait could be blocked by the browser.
  $("download-all").addEventListener("click", async () => {
    const status = $("zip-status");
    const link = $("zip-link");
    const done = items.filter((i) => i.status === "done");
    const files = done.flatMap((i) => [[i.result.onnxName, i.result.onnx],
      ...(i.result.data ? [[i.result.dataName, i.result.data]] : [])]);
    status.textContent = "Packing…";
    link.hidden = true;
    try {
      // Names are made unique; say so when it happens (a renamed .onnx no longer finds its .onnx.data).
      const names = uniqueNames(files.map(([n]) => n));
      const blob = await zipBlobs(files.map(([, b], k) => ({ name: names[k], blob: b })));
      const url = URL.createObjectURL(blob);
      urls.push(url);
      link.href = url;
      link.download = "pt2onnx-results.zip";
      link.replaceChildren("Download pt2onnx-results.zip", " ", span("size", formatBytes(blob.size)));
      link.hidden = false;
      link.focus();
      const renamed = names.filter((n, k) => n !== files[k][0]).length;
      status.textContent = renamed ? `${renamed} file(s) renamed in the zip to keep names unique.` : "";
    } catch (err) {
      status.textContent = `Could not make the zip: ${err?.message ?? err}`;
    }
  });

  return {
    /** Shows `files` as new items (status "ready"); returns them. */
    reset(files) {
      revoke();
      $("zip-status").textContent = "";
      $("zip-link").hidden = true;
      items = files.map((file, index) => {
        const row = document.createElement("li");
        row.dataset.index = String(index);
        return { file, index, status: "ready", result: null, error: null, row };
      });
      items.forEach(renderRow);
      list.replaceChildren(...items.map((i) => i.row));
      section.hidden = items.length < 2;
      $("queue-heading").textContent = `${items.length} files`;
      refreshZip();
      return items;
    },
    update(item) {
      renderRow(item);
      refreshZip();
    },
  };
}
