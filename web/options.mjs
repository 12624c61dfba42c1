// The Options form: global options (opset, external data, optimize, translation library) stay from file to
// file; file-specific ones (tensor and dimension names, model name, output name) are cleared when another
// file is chosen. Once inspect() has described the file, the names are checked against its inputs and
// outputs as they are typed, so that a name the converter would refuse is said before converting.

import { $ } from "./dom.mjs";
import { checkNameCount, defaultOnnxName, graphOnlyName, parseNameList, parseOutputName } from "./format.mjs";

// The inspected program's values a name list is for (null: no inspection, nothing to check against).
const namesFor = (kind) => (text, inspection) => {
  const parsed = parseNameList(text);
  if (parsed.error || !inspection) return parsed;
  const error = checkNameCount(parsed.value, inspection[`${kind}s`], kind);
  return error ? { error } : parsed;
};

const FILE_SPECIFIC = [
  ["opt-input-names", "input names", namesFor("input"), "inputNames"],
  ["opt-output-names", "output names", namesFor("output"), "outputNames"],
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

/** `onProgramOptionsChange`: called when an option that changes what inspect() says was changed. */
export function createOptions({ onProgramOptionsChange }) {
  const details = $("options");
  const notice = $("options-notice");
  const fields = FILE_SPECIFIC.map(([id, label, parse, key]) => ({ input: $(id), label, parse, key }));
  let inspection = null;  // inspect()'s result for the chosen file, once known
  let fileName = "";

  // Validated on Convert, then while typing once a field has shown an error; a name count the inspected
  // program cannot take is shown at once (typing more cannot fix it). Not on blur: a message appearing
  // then would move the Convert button away from under the pointer between press and release.
  const tooManyNames = (input, parse) => / for a program that /.test(parse(input.value, inspection).error ?? "");
  for (const { input, parse } of fields) {
    input.addEventListener("input", () => {
      if (input.hasAttribute("aria-invalid") || tooManyNames(input, parse)) {
        showFieldError(input, parse(input.value, inspection).error);
      }
    });
  }

  // Without weights the default name says so: cnn.graph.onnx is never mistaken for cnn.onnx.
  const noWeights = $("opt-no-weights");
  const outputPlaceholder = () => {
    $("opt-output-name").placeholder = fileName === "" ? "(per file)"
      : noWeights.checked ? graphOnlyName(fileName) : defaultOnnxName(fileName);
  };
  noWeights.addEventListener("change", outputPlaceholder);

  // The translation library is read when chosen; convert() and inspect() take its bytes.
  const libraryInput = $("opt-translations");
  let library = { bytes: null, loading: null };
  libraryInput.addEventListener("change", () => {
    const file = libraryInput.files?.[0];
    showFieldError(libraryInput, null);
    const entry = { bytes: null, loading: null };
    library = entry;
    if (!file) {
      onProgramOptionsChange();
      return;
    }
    entry.loading = file.arrayBuffer().then((buffer) => {
      entry.bytes = new Uint8Array(buffer);
      if (library === entry) onProgramOptionsChange();
    }, (err) => {
      entry.loading = null;
      showFieldError(libraryInput, `Could not read ${file.name}: ${err?.message ?? err}`);
    });
  });
  // Support depends on the opset, the library and whether it overrides; the model name picks the program.
  for (const id of ["opt-opset", "opt-override", "opt-model"]) {
    $(id).addEventListener("change", () => { if (id !== "opt-override" || library.bytes) onProgramOptionsChange(); });
  }

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
      if (noWeights.checked) options.includeWeights = false;
      if (options.translations && $("opt-as-functions").checked) options.translationsAsFunctions = true;
      if (batch) return options;
      let firstBad = null;
      for (const { input, parse, key } of fields) {
        const { value, error } = parse(input.value, inspection);
        showFieldError(input, error);
        if (error) firstBad ??= input;
        else if (value !== undefined) options[key] = value;
      }
      if (options.includeWeights === false && !options.outputName) options.outputName = graphOnlyName(fileName);
      if (dimNames && Object.keys(dimNames).length) options.dimNames = dimNames;
      if (firstBad) {
        details.open = true;
        firstBad.focus();
        return null;
      }
      return options;
    },

    /**
     * The name of a result converted with `options` (read()'s) from `file`: a graph-only one in a batch
     * gets its ".graph.onnx" name here, as a single file's does in read().
     */
    outputNameFor(file, options) {
      return options.includeWeights === false && !options.outputName ? graphOnlyName(file.name) : options.outputName;
    },

    /** inspect()'s result for the chosen file (null while unknown): the names are checked against it. */
    setInspection(info) {
      inspection = info;
      for (const { input, parse } of fields) {
        if (input.value.trim() !== "" || input.hasAttribute("aria-invalid")) {
          showFieldError(input, parse(input.value, inspection).error);
        }
      }
    },

    /** The model name typed (undefined when empty): inspect() describes that program. */
    modelName() {
      return $("opt-model").value.trim() || undefined;
    },

    /** Clears the file-specific fields for a new file and says which were cleared. */
    resetForNewFile({ fileName: name, batch, hadDimNames }) {
      fileName = batch ? "" : name;
      inspection = null;
      const cleared = hadDimNames ? ["dimension names"] : [];
      for (const { input, label } of fields) {
        if (input.value.trim() !== "") cleared.push(label);
        input.value = "";
        showFieldError(input, null);
        input.disabled = batch;
      }
      outputPlaceholder();
      $("file-specific-help").hidden = !batch;
      notice.hidden = cleared.length === 0;
      notice.textContent = cleared.length === 0 ? "" :
        `Cleared the ${cleared.join(", ")} set for the previous file: they name that file's tensors. ` +
        "Opset, external data and optimization are kept.";
    },
  };
}
