// Verify on a converted model: the module's verify() (the CLI's --verify) runs the program in pt2onnx's ATen
// reference interpreter and the converted model in its executor, in the module's worker. Shows torch.onnx's
// VerificationInfo per value as a table, with each histogram as a small bar chart, the verdict at the thresholds
// of each value's dtype (torch.onnx's for float32), the first diverging node, and the markdown report to download.

import { $, cell, code, span } from "./dom.mjs";
import { formatDuration } from "./format.mjs";

const SVG = "http://www.w3.org/2000/svg";

function number(x) {
  if (!Number.isFinite(x)) return String(x);
  return x === 0 ? "0" : x.toPrecision(3);
}

// Nine bars over torch's bin edges; the height is the share of the largest bin (at least a sliver when
// the count is not zero), the tooltip gives every count.
function histogramChart(counts, edges, label) {
  const w = 9 * 7;
  const h = 18;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "verify-hist");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("width", String(w));
  svg.setAttribute("height", String(h));
  svg.setAttribute("role", "img");
  const most = Math.max(1, ...counts);
  const words = counts.map((c, i) => `[${edges[i]}, ${edges[i + 1]}): ${c}`).join("; ");
  svg.setAttribute("aria-label", `${label}: ${words}`);
  const title = document.createElementNS(SVG, "title");
  title.textContent = `${label}\n${counts.map((c, i) => `[${edges[i]}, ${edges[i + 1]}): ${c}`).join("\n")}`;
  svg.append(title);
  counts.forEach((c, i) => {
    const bar = document.createElementNS(SVG, "rect");
    const height = c === 0 ? 0 : Math.max(1.5, (c / most) * h);
    bar.setAttribute("x", String(i * 7 + 0.5));
    bar.setAttribute("y", String(h - height));
    bar.setAttribute("width", "6");
    bar.setAttribute("height", String(height));
    bar.setAttribute("class", i >= 6 ? "bar high" : "bar");  // bins from 0.1 up
    svg.append(bar);
  });
  return svg;
}

// Each cell carries its column's heading (data-label): on a phone the rows are laid out as cards, the
// value's name and its status on top, the numbers labelled below (style.css).
function labelled(label, className, ...content) {
  const td = cell("td", ...content);
  td.dataset.label = label;
  td.className = className;
  return td;
}

function row(check, edges) {
  const tr = cell("tr",
    labelled("Value", "value", code(check.name)),
    labelled("Kind", "kind-cell", check.isOutput ? span("kind output", "output") : code(check.target)),
    labelled("max_abs_diff", "num", number(check.max_abs_diff)),
    labelled("max_rel_diff", "num", number(check.max_rel_diff)),
    labelled("abs diff", "hist", histogramChart(check.abs_diff_hist, edges, `abs diff histogram of ${check.name}`)),
    labelled("rel diff", "hist", histogramChart(check.rel_diff_hist, edges, `rel diff histogram of ${check.name}`)),
    labelled("dtype", "dtype", check.expected_dtype === check.actual_dtype ? check.expected_dtype
      : `${check.expected_dtype} / ${check.actual_dtype}`),
    labelled("Threshold", "threshold", check.thresholds.text),
    labelled("Status", "status", span(check.passed ? "verdict ok" : "verdict fail", check.passed ? "ok" : "differs")));
  tr.dataset.passed = String(check.passed);
  if (check.mismatch) tr.title = check.mismatch;
  return tr;
}

export function createVerifyView({ getApi }) {
  const el = {
    section: $("verify"), run: $("verify-run"), cancel: $("verify-cancel"), status: $("verify-status"),
    intermediates: $("verify-intermediates"), body: $("verify-body"), verdict: $("verify-verdict"),
    rows: $("verify-rows"), divergence: $("verify-divergence"), download: $("verify-download"),
  };
  let source = null;  // { file, options } of the converted model
  let controller = null;
  let reportUrl = null;

  function clear() {
    controller?.abort();
    controller = null;
    if (reportUrl) URL.revokeObjectURL(reportUrl);
    reportUrl = null;
    el.body.hidden = true;
    el.rows.replaceChildren();
    el.status.textContent = "";
    el.run.disabled = false;
    el.cancel.hidden = true;
    delete el.section.dataset.state;
  }

  function render(r, ms) {
    const edges = r.histogramEdges;
    el.rows.replaceChildren(...r.outputs.map((c) => row(c, edges)), ...r.intermediates.map((c) => row(c, edges)));
    el.verdict.className = r.passed ? "notice ok" : "notice warn";
    el.verdict.textContent = r.passed
      ? `Passed: every output is within its dtype's thresholds (${r.thresholds}). Inputs: ${r.inputsSource}.`
      : `Outputs differ beyond their dtype's thresholds (${r.thresholds}). Inputs: ${r.inputsSource}.`;
    const first = r.firstDivergence;
    el.divergence.hidden = !first;
    if (first) {
      el.divergence.replaceChildren("First diverging node: ", code(first.name), ` (FX node ${first.fxNode}, `,
        code(first.target), `, ONNX ${first.onnxOp} `, code(first.onnxNode), `): max_abs_diff ${number(first.max_abs_diff)}, ` +
        `max_rel_diff ${number(first.max_rel_diff)} (${first.thresholds.dtype}: ${first.thresholds.text})`);
    }
    if (reportUrl) URL.revokeObjectURL(reportUrl);
    reportUrl = URL.createObjectURL(new Blob([r.report], { type: "text/markdown" }));
    el.download.href = reportUrl;
    el.download.download = `${(source.file.name || "model.pt2").replace(/\.pt2$/i, "")}_report.md`;
    el.status.textContent = `Verified in ${formatDuration(ms)}.`;
    el.section.dataset.state = r.passed ? "passed" : "failed";
    el.body.hidden = false;
  }

  async function verify() {
    if (!source || controller) return;
    clear();
    controller = new AbortController();
    const mine = controller;
    el.run.disabled = true;
    el.cancel.hidden = false;
    el.status.textContent = "Running both engines…";
    el.section.dataset.state = "running";
    const t0 = performance.now();
    try {
      const api = await getApi();
      const r = await api.verify(source.file, { ...source.options, intermediates: el.intermediates.checked,
        signal: mine.signal, onProgress: ({ stage }) => {
          const words = { reference: "Reference interpreter…", onnx: "Executor…", compare: "Comparing…",
            intermediates: "Comparing intermediate values…" }[stage];
          if (words && controller === mine) el.status.textContent = words;
        } });
      if (controller !== mine) return;
      controller = null;
      render(r, performance.now() - t0);
    } catch (err) {
      if (controller !== mine) return;
      controller = null;
      el.status.textContent = err?.name === "AbortError" ? "Cancelled."
        : `Could not verify: ${err?.message ?? err}`;
      el.section.dataset.state = err?.name === "AbortError" ? "cancelled" : "error";
    }
    el.run.disabled = false;
    el.cancel.hidden = true;
  }

  el.run.addEventListener("click", verify);
  el.cancel.addEventListener("click", () => {
    const c = controller;
    controller = null;
    c?.abort();
    el.status.textContent = "Cancelled.";
    el.section.dataset.state = "cancelled";
    el.run.disabled = false;
    el.cancel.hidden = true;
  });

  /** Offers Verify for `file`, converted with `options` (convert()'s, without signal and progress). */
  function offer(file, options) {
    clear();
    const kept = {};  // the conversion's options that shape the model (not where its weights go)
    for (const key of ["opset", "inputNames", "outputNames", "dimNames", "modelName", "optimize", "outputName"]) {
      if (options?.[key] !== undefined) kept[key] = options[key];
    }
    source = { file, options: kept };
  }

  return { offer, clear };
}
