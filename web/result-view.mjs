// The result of one conversion: downloads, summary (with why its counts differ from the inspection's),
// operators, warnings, the report (with a copy button), and the opt-in pointer to Netron. A graph-only
// result says so wherever a full one would show its weights.

import { explainCounts } from "./counts.mjs";
import { $, breakable, cell, code, listItem, reveal, shapeNode, span } from "./dom.mjs";
import { createDownloadLinks } from "./download-links.mjs";
import { formatBytes, formatCount, formatDuration } from "./format.mjs";

export function createResultView() {
  const section = $("result");
  const downloads = createDownloadLinks();

  function clear() {
    downloads.revokeAll();
    section.hidden = true;
  }

  $("copy-report").addEventListener("click", async () => {
    const status = $("copy-status");
    try {
      await navigator.clipboard.writeText($("report").textContent);
      status.textContent = "Copied.";
    } catch {
      // No clipboard permission (e.g. an insecure origin): select the text so that Ctrl+C works.
      getSelection().selectAllChildren($("report"));
      status.textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
  });

  function showSummary(s, { graphOnly }) {
    const fmt = new Intl.NumberFormat("en-US");
    $("sum-opset").textContent = String(s.opset);
    const params = $("sum-params");
    params.textContent = formatCount(s.parameters);
    params.title = `${fmt.format(s.parameters)} weight elements`;
    const bytes = $("sum-bytes");
    if (graphOnly) {
      bytes.replaceChildren("not included", span("sub", `${formatBytes(s.initializerBytes)} left out`));
    } else {
      bytes.textContent = formatBytes(s.initializerBytes);
    }
    bytes.title = `${fmt.format(s.initializerBytes)} bytes`;
    $("sum-nodes").textContent = `${fmt.format(s.fxNodes)} → ${fmt.format(s.onnxNodes)}`;
    // Translated → optimized (the same count when optimization is off).
    $("sum-optimized").textContent = `${fmt.format(s.onnxNodesTranslated)} → ${fmt.format(s.onnxNodes)}`;
    $("sum-layout").textContent = s.layout;
    // "torch" may wrap before the version, never inside "2.15.0+cu132".
    $("sum-torch").replaceChildren(
      s.torchVersion ? "torch " : "torch (version not recorded)",
      s.torchVersion ? span("nowrap", s.torchVersion) : "",
      s.schemaVersion ? span("sub", `schema ${s.schemaVersion}`) : "");

    const rows = [];
    for (const [kind, list] of [["input", s.inputs], ["output", s.outputs]]) {
      for (const t of list) {
        rows.push(cell("tr", cell("td", span(`kind ${kind}`, kind)), cell("td", code(t.name)),
          cell("td", t.dtype), cell("td", shapeNode(t.shape))));
      }
    }
    $("io-body").replaceChildren(...rows);

    const ops = Object.entries(s.opHistogram ?? {}).filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    const most = ops.length ? ops[0][1] : 1;
    const total = ops.reduce((sum, [, n]) => sum + n, 0);
    $("op-total").textContent = `${fmt.format(total)} nodes, ${ops.length} types`;
    $("op-histogram").replaceChildren(...ops.map(([op, n]) => {
      const li = listItem(span("op", op), span("count", fmt.format(n)));
      li.style.setProperty("--share", (n / most).toFixed(3));
      return li;
    }));
  }

  function showCounts(summary, inspection) {
    const why = explainCounts(summary, inspection);
    for (const key of ["nodes", "optimizer", "weights"]) {
      const p = $(`counts-${key}`);
      p.textContent = why[key] ?? "";
      p.hidden = !why[key];
    }
    $("counts-note").hidden = !why.nodes && !why.optimizer && !why.weights;
  }

  /**
   * Shows `r` (a convert() result) for the file named `inputName`, converted in `ms`; `graphOnly`: converted
   * without its weights; `inspection`: inspect()'s result for the same file and options (null if none).
   */
  function show(inputName, r, ms, { graphOnly = false, inspection = null } = {}) {
    clear();
    $("result-title").replaceChildren(...breakable(inputName), " → ", ...breakable(r.onnxName),
      graphOnly ? span("graph-only", " (graph only)") : "");
    section.dataset.graphOnly = String(graphOnly);
    const graphNote = $("graph-only-note");
    graphNote.hidden = !graphOnly;
    graphNote.textContent = graphOnly ? `Graph only: ${r.onnxName} holds no weights ` +
      `(${formatBytes(r.summary.initializerBytes)} left out), so it does not run as it is. Apply weights, ` +
      "below, adds those of this .pt2 or of another of the same program." : "";
    $("result-time").textContent = `in ${formatDuration(ms)}`;
    downloads.offer($("download-onnx"), r.onnx, r.onnxName);
    const dataLink = $("download-data");
    const note = $("data-note");
    if (r.data) {
      const dataName = r.dataName ?? `${r.onnxName}.data`;
      downloads.offer(dataLink, r.data, dataName);
      note.textContent = `The weights are in ${dataName}, which ${r.onnxName} refers to by name. ` +
        "Download both and keep them in the same folder.";
      note.hidden = false;
    } else {
      dataLink.hidden = true;
      dataLink.removeAttribute("href");
      note.hidden = true;
    }
    showSummary(r.summary, { graphOnly });
    showCounts(r.summary, inspection);
    const warnings = r.warnings ?? [];
    $("warnings").replaceChildren(...warnings.map((w) => listItem(w)));
    $("warnings-section").hidden = warnings.length === 0;
    $("warnings-heading").textContent = warnings.length === 1 ? "1 warning" : `${warnings.length} warnings`;
    $("report").textContent = r.report ?? "";
    $("copy-status").textContent = "";
    reveal(section);
  }

  return { show, clear };
}
