// The Options form: global options (opset, external data, optimize, translation library) stay from file to
// file; file-specific ones (tensor and dimension names, model name, output name) are cleared when another
// file is chosen.

import { $ } from "./dom.mjs";
import { parseNameList, parseOutputName } from "./format.mjs";

const FILE_SPECIFIC = [
  ["opt-input-names", "input names", parseNameList, "inputNames"],
  ["opt-output-names", "output names", parseNameList, "outputNames"],
  ["opt-model", "model name", (t) => ({ value: t.trim() || undefined }), "modelName"],
  ["opt-output-name", "output file name", parseOutputName, "outputName"],
];

function showFieldError(input, message) {
  const box = $(`${input.id}-error`);
  if (!box) return;
  box.textContent = message ?? "";
  box.hidden = !message;
  if (message) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
}

export function createOptions() {
  const details = $("options");
  const notice = $("options-notice");
  const fields = FILE_SPECIFIC.map(([id, label, parse, key]) => ({ input: $(id), label, parse, key }));

  // Validated on Convert, then while typing once a field has shown an error. Not on blur: a message
  // appearing then would move the Convert button away from under the pointer between press and release.
  for (const { input, parse } of fields) {
    input.addEventListener("input", () => {
      if (input.hasAttribute("aria-invalid")) showFieldError(input, parse(input.value).error);
    });
  }

  // The translation library is read when chosen; convert() and inspect() take its bytes.
  const libraryInput = $("opt-translations");
  let library = { bytes: null, loading: null };
  libraryInput.addEventListener("change", () => {
    const file = libraryInput.files?.[0];
    showFieldError(libraryInput, null);
    const entry = { bytes: null, loading: null };
    library = entry;
    if (!file) return;
    entry.loading = file.arrayBuffer().then((buffer) => {
      entry.bytes = new Uint8Array(buffer);
    }, (err) => {
      entry.loading = null;
      showFieldError(libraryInput, `Could not read ${file.name}: ${err?.message ?? err}`);
    });
  });
  const translationOptions = () => {
    if (!library.bytes) return {};
    const options = { translations: library.bytes };
    if ($("opt-override").checked) options.overrideBuiltins = true;
    return options;
  };

  return {
    /** A promise while a chosen translation library is still being read, else null. */
    libraryPending() {
      return library.bytes === null ? library.loading : null;
    },

    /** The translation options of inspect() (the library and override). */
    inspectOptions() {
      return translationOptions();
    },

    /**
     * The ConvertOptions of the form (plus `dimNames` given), or null after marking the invalid fields.
     * In a batch the file-specific fields are not used.
     */
    read({ dimNames, batch }) {
      const options = {
        opset: Number($("opt-opset").value),
        externalData: $("opt-external").value,
        optimize: $("opt-optimize").checked,
        ...translationOptions(),
      };
      if ($("opt-no-weights")?.checked) options.includeWeights = false;
      if (options.translations && $("opt-as-functions").checked) options.translationsAsFunctions = true;
      if (batch) return options;
      let firstBad = null;
      for (const { input, parse, key } of fields) {
        const { value, error } = parse(input.value);
        showFieldError(input, error);
        if (error) firstBad ??= input;
        else if (value !== undefined) options[key] = value;
      }
      if (dimNames && Object.keys(dimNames).length) options.dimNames = dimNames;
      if (firstBad) {
        details.open = true;
        firstBad.focus();
        return null;
      }
      return options;
    },

    /** Clears the file-specific fields for a new file and says which were cleared. */
    resetForNewFile({ fileName, batch, hadDimNames }) {
      const cleared = hadDimNames ? ["dimension names"] : [];
      for (const { input, label } of fields) {
        if (input.value.trim() !== "") cleared.push(label);
        input.value = "";
        showFieldError(input, null);
        input.disabled = batch;
      }
      $("opt-output-name").placeholder = batch ? "(per file)" : fileName.replace(/\.pt2$/i, "") + ".onnx";
      $("file-specific-help").hidden = !batch;
      notice.hidden = cleared.length === 0;
      notice.textContent = cleared.length === 0 ? "" :
        `Cleared the ${cleared.join(", ")} set for the previous file: they name that file's tensors. ` +
        "Opset, external data and optimization are kept.";
    },
  };
}
