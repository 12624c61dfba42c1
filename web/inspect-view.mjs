// The view shown as soon as one file is chosen, before converting: what inspect() found (inputs and outputs
// with their shapes, each symbolic dimension at its position with its range, unsupported operators with the
// advice and the supported list), and a name field per symbol so dimensions are renamed in place. A file
// that cannot be converted is said so here, once: the page then offers no conversion of it.

import { $, breakable, cell, code, listItem, shapeNode, span } from "./dom.mjs";
import { adviceFor, errorCode } from "./error-view.mjs";
import { formatBytes, formatRange } from "./format.mjs";

// What a refusal is about, by the error's code: the options, the reading, the module, else the file.
const REFUSED = {
  usage: "The options are not accepted for this file:",
  io: "The file could not be read:",
  load: "The converter could not be loaded:",
  internal: "pt2onnx could not describe this file (converting may still work):",
};

export function createInspectView({ supportedOps }) {
  const section = $("inspect");
  let inputs = [];  // the symbol name fields

  function clear() {
    section.hidden = true;
    inputs = [];
    $("inspect-symbols-body").replaceChildren();
    $("inspect-io-body").replaceChildren();
    $("inspect-refused").hidden = true;
  }

  function showLoading(fileName) {
    clear();
    section.hidden = false;
    $("inspect-title").replaceChildren(...breakable(fileName));
    $("inspect-status").textContent = "Reading the program…";
    $("inspect-status").hidden = false;
    $("inspect-body").hidden = true;
  }

  /** inspect() rejected `err`: the converter's message, and what to do when it does not say. */
  function showFailure(err) {
    const code = errorCode(err);
    const message = String(err?.message ?? err);
    $("inspect-status").hidden = true;
    $("inspect-refused").hidden = false;
    $("inspect-refused").dataset.code = code;
    $("inspect-refused-title").textContent = REFUSED[code] ?? "pt2onnx cannot convert this file:";
    $("inspect-refused-message").textContent = message;
    const advice = adviceFor(code, message);
    $("inspect-refused-advice").textContent = advice;
    $("inspect-refused-advice").hidden = advice === "";
  }

  // A renamed symbol shows its new name wherever it is used in the shapes above.
  function showRename(symbol, name) {
    for (const s of section.querySelectorAll(`.sym[data-symbol="${CSS.escape(symbol)}"]`)) {
      s.textContent = name || symbol;
      s.classList.toggle("renamed", !!name);
    }
  }

  function render(info) {
    $("inspect-status").hidden = true;
    $("inspect-body").hidden = false;
    const weights = info.weights.reduce((n, w) => n + w.bytes, 0);
    $("inspect-facts").replaceChildren(
      span("fact", info.layout),
      span("fact nowrap", info.torchVersion ? `torch ${info.torchVersion}` : "torch version not recorded"),
      span("fact", `${info.fxNodes} FX nodes`),
      span("fact", `weights ${formatBytes(weights)}`),
    );
    const rows = [];
    for (const [kind, list] of [["input", info.inputs], ["output", info.outputs]]) {
      for (const v of list) {
        const shape = shapeNode(v.shape);
        for (const s of shape.querySelectorAll(".sym")) s.dataset.symbol = s.textContent;
        // "s31 ∈ [0, ∞), s27 ∈ [2, 512]", each symbol renamed with the shape above it.
        const ranges = span("ranges", "");
        v.dims.filter((d) => d.range).forEach((d, i) => {
          const name = span("sym", d.name);
          name.dataset.symbol = d.name;
          ranges.append(i ? ", " : "", name, ` ∈ ${formatRange(d.range)}`);
        });
        rows.push(cell("tr", cell("td", span(`kind ${kind}`, kind)), cell("td", code(v.name)),
          cell("td", v.kind === "tensor" ? v.dtype : v.kind), cell("td", shape, ranges)));
      }
    }
    $("inspect-io-body").replaceChildren(...rows);

    inputs = info.symbols.map((s) => {
      const input = document.createElement("input");
      input.type = "text";
      input.spellcheck = false;
      input.autocomplete = "off";
      input.dataset.symbol = s.name;
      input.placeholder = "keep " + s.name;
      input.setAttribute("aria-label", `New name for ${s.name}`);
      input.addEventListener("input", () => showRename(s.name, input.value.trim()));
      return input;
    });
    $("inspect-symbols-body").replaceChildren(...info.symbols.map((s, i) => cell("tr",
      cell("td", code(s.name)), cell("td", span("range", formatRange(s.range))),
      cell("td", span("uses", s.uses.join(", "))), cell("td", inputs[i]))));
    $("inspect-symbols").hidden = info.symbols.length === 0;

    const unsupported = info.unsupported ?? [];
    $("inspect-unsupported").hidden = unsupported.length === 0;
    $("inspect-unsupported-ops").replaceChildren(...unsupported.map((u) =>
      listItem(code(u.key), ` x${u.count} (first at node '${u.firstNode}')`)));
    $("inspect-advice").textContent = info.advice ?? "";
    if (unsupported.length) supportedOps.attach($("inspect-unsupported"), info.advice);
  }

  /** The names typed for the symbols, { s27: "seq" }, to keep across a new inspection of the file. */
  function typedNames() {
    return Object.fromEntries(inputs.filter((i) => i.value.trim() !== "").map((i) => [i.dataset.symbol, i.value]));
  }

  function restoreNames(names) {
    for (const input of inputs) {
      const name = names?.[input.dataset.symbol];
      if (name === undefined) continue;
      input.value = name;
      showRename(input.dataset.symbol, name.trim());
    }
  }

  return {
    clear,
    showLoading,
    showFailure,
    render,
    typedNames,
    restoreNames,
    /** Whether any symbol was given a name. */
    hasNames: () => inputs.some((i) => i.value.trim() !== ""),
    /** { value: { s27: "seq" } } from the fields (undefined when none), or { error } naming the problem. */
    dimNames() {
      const names = {};
      const used = new Map();
      for (const input of inputs) {
        const name = input.value.trim();
        if (name === "") continue;
        const symbol = input.dataset.symbol;
        if (used.has(name)) {
          input.focus();
          return { error: `${used.get(name)} and ${symbol} are both named "${name}": each dimension needs its own name.` };
        }
        used.set(name, symbol);
        names[symbol] = name;
      }
      return { value: Object.keys(names).length ? names : undefined };
    },
  };
}
