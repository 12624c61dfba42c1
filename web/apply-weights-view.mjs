// "Apply weights": an ONNX model and a .pt2 of the same program in, the model with that .pt2's weights out
// (the module's applyWeights(), the CLI's `pt2onnx apply-weights`), offered as downloads.

import { $ } from "./dom.mjs";
import { createDownloadLinks } from "./download-links.mjs";
import { fullModelName } from "./format.mjs";

export function createApplyWeightsView({ getApi }) {
  const onnxInput = $("apply-onnx");
  const pt2Input = $("apply-pt2");
  const run = $("apply-run");
  const status = $("apply-status");
  const error = $("apply-error");
  const links = [$("apply-download-onnx"), $("apply-download-data")];
  const downloads = createDownloadLinks();

  function clear() {
    downloads.revokeAll();
    for (const link of links) link.hidden = true;
    error.hidden = true;
    status.textContent = "";
  }

  const chosen = () => onnxInput.files?.[0] && pt2Input.files?.[0];
  for (const input of [onnxInput, pt2Input]) {
    input.addEventListener("change", () => {
      clear();
      run.disabled = !chosen();
    });
  }

  run.addEventListener("click", async () => {
    const [onnx, pt2] = [onnxInput.files[0], pt2Input.files[0]];
    clear();
    run.disabled = true;
    status.textContent = "Applying…";
    document.body.dataset.apply = "running";
    try {
      const api = await getApi();
      const result = await api.applyWeights(onnx, pt2, {
        optimize: $("opt-optimize").checked,
        externalData: $("opt-external").value,
        outputName: fullModelName(onnx.name),  // "cnn.graph.onnx" (a graph-only result) -> "cnn.onnx"
      });
      downloads.offer(links[0], result.onnx, result.onnxName);
      if (result.data) downloads.offer(links[1], result.data, result.dataName);
      status.textContent = `Done: ${onnx.name} with the weights of ${pt2.name}.`;
      document.body.dataset.apply = "done";
    } catch (err) {
      error.textContent = String(err?.message ?? err);  // the code is for scripts, not for the reader
      error.dataset.code = err?.code ?? "internal";
      error.hidden = false;
      status.textContent = "Failed.";
      document.body.dataset.apply = "error";
    }
    run.disabled = !chosen();
  });
  return { clear };
}
