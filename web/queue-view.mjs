// The list of chosen files with each one's status, its Cancel button while queued or running, its downloads
// once converted, and "Download all" as one zip.

import { $, breakable, span } from "./dom.mjs";
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

export function createQueueView({ onCancel, onDetails }) {
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
      status, actions);
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
