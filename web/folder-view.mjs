// The export-folder result: what convertFolder() wrote for a transformers exporter folder (export.json and
// one .pt2 per component), each file downloadable and all of them as one .zip, named as
// `pt2onnx DIR -o OUTDIR` names them; and the generation check, generate() on those files: greedy tokens
// through prefill and decode in pt2onnx's executor, as `pt2onnx verify-generation OUTDIR`.

import { $, breakable, span } from "./dom.mjs";
import { createDownloadLinks } from "./download-links.mjs";
import { formatBytes, formatDuration } from "./format.mjs";
import { zipBlobs } from "./zip.mjs";

// The folder's file name of a chosen File: a directory picker's says "qwen3/export.json".
export function nameInFolder(file) {
  const path = file.webkitRelativePath || file.name;
  const slash = path.indexOf("/");
  return slash < 0 ? path : path.slice(slash + 1);
}

/** Whether the chosen files are an exporter's folder: one of them is its export.json. */
export function isExportFolder(files) {
  return files.some((f) => nameInFolder(f) === "export.json");
}

// "1, 2, 3" -> [1, 2, 3], or null.
function parseIds(text) {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p))) return null;
  return parts.map(Number);
}

export function createFolderView({ getApi, onError }) {
  const section = $("folder-result");
  const links = createDownloadLinks();
  let files = null;  // the converted folder: Map name -> Blob
  let zipUrl = null;
  let generating = null;

  function clear() {
    links.revokeAll();
    if (zipUrl) URL.revokeObjectURL(zipUrl);
    zipUrl = null;
    files = null;
    generating?.abort();
    generating = null;
    section.hidden = true;
    $("folder-files").replaceChildren();
    $("folder-zip").hidden = true;
    $("gen-status").textContent = "";
    $("gen-result").hidden = true;
    $("gen-run").disabled = false;
  }

  /** convertFolder()'s result, converted in `ms`, from the folder named `title`. */
  function show(result, ms, title) {
    clear();
    files = new Map(result.files.map(({ name, blob }) => [name, blob]));
    $("folder-title").replaceChildren(...breakable(title));
    $("folder-time").textContent = `in ${formatDuration(ms)}`;
    const list = $("folder-files");
    for (const { name, blob } of result.files) {
      const component = result.components.find((c) => c.onnxName === name || c.dataName === name);
      const link = document.createElement("a");
      link.className = "button";
      links.offer(link, blob, name);
      const item = document.createElement("li");
      item.append(link);
      if (component && component.onnxName === name) {
        item.append(" ", span("help", `${component.name}: ${component.parameters.toLocaleString("en-US")} parameters`));
      }
      list.append(item);
    }
    $("folder-shared").textContent = result.sharedTensors > 0
      ? `Weights the components share are written once: ${result.sharedTensors} tensors, ` +
        `${formatBytes(result.sharedBytes)} saved.` : "";
    $("folder-report").textContent = result.report;
    section.hidden = false;
    zipBlobs(result.files.map(({ name, blob }) => ({ name, blob }))).then((zip) => {
      if (files === null) return;
      zipUrl = URL.createObjectURL(zip);
      const link = $("folder-zip");
      link.href = zipUrl;
      link.download = `${title}-onnx.zip`;
      link.replaceChildren("Download all (.zip) ", span("size", formatBytes(zip.size)));
      link.hidden = false;
    }, (err) => { $("folder-shared").textContent = `No .zip: ${err?.message ?? err}`; });
    section.focus();
  }

  async function generateNow() {
    if (!files || generating) return;
    const prompt = parseIds($("gen-prompt").value);
    const tokens = Number($("gen-tokens").value);
    if (!prompt || !Number.isInteger(tokens) || tokens < 1 || tokens > 1000) {
      $("gen-status").textContent = !prompt ? "The prompt is token ids separated by commas, e.g. 1, 2, 3."
        : "Generate 1 to 1000 tokens.";
      return;
    }
    const controller = new AbortController();
    generating = controller;
    $("gen-run").disabled = true;
    $("gen-result").hidden = true;
    $("gen-status").textContent = `Generating ${tokens} tokens…`;
    const t0 = performance.now();
    try {
      const inputs = $("gen-inputs").files?.[0];
      const out = await (await getApi()).generate(files, { prompt, tokens, signal: controller.signal,
        ...(inputs ? { inputs } : {}) });
      if (generating !== controller) return;
      $("gen-tokens-out").textContent = out.tokens.join(" ");
      $("gen-result").hidden = false;
      $("gen-status").textContent = `${out.tokens.length} tokens in ${formatDuration(performance.now() - t0)}.`;
    } catch (err) {
      if (generating !== controller) return;
      $("gen-status").textContent = "";
      onError(err);
    } finally {
      if (generating === controller) {
        generating = null;
        $("gen-run").disabled = false;
      }
    }
  }

  $("gen-run").addEventListener("click", generateNow);
  return { show, clear };
}
