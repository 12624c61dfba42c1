// A failed conversion: the CLI's message and code, advice by code, the unsupported operators, and the
// searchable list of supported ones.

import { $, code, listItem, reveal } from "./dom.mjs";

const ADVICE = {
  invalid_input: "pt2onnx could not read this file as an exported program. It must be saved with " +
    "torch.export.save (torch 2.6 or newer); files written by torch.save or torch.jit.save are something else.",
  // invalid_input also covers names given in the Options (an unknown program, a clashing tensor name).
  invalid_names: "Check the names given in the Options and for the dimensions: the message may be about one of " +
    "them. Otherwise, the file must be a program saved with torch.export.save (torch 2.6 or newer).",
  // The advice itself is in the message (the converter's own, the same as the CLI's and inspect()'s).
  unsupported: "The file was read, but the program uses operators pt2onnx cannot convert yet: see what to do " +
    "in the message above.",
  io: "The file could not be read. If it was moved, changed or is on a removable or network drive, choose it again.",
  usage: "An option was not accepted. Check the Options and try again.",
  internal: "This looks like a bug in pt2onnx. Please report it with the message above.",
  load: "The converter module could not be loaded. Serve this folder from a web server (opening index.html " +
    "from disk does not work) and reload the page.",
};

/** A ConversionError, told apart by shape: it may have been rebuilt from a worker's message. */
function isConversionError(err) {
  return err != null && err.name === "ConversionError" && typeof err.code === "string";
}

/** The advice the converter gives after the unsupported operators (see ops::kUnsupportedOpsAdvice). */
function adviceIn(message) {
  const at = message.indexOf("What to do");
  return at >= 0 ? message.slice(at) : "";
}

export function createErrorView({ getApi }) {
  const section = $("error");
  let advice = "";

  function clear() {
    section.hidden = true;
  }

  function show(err, { namesGiven }) {
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
    advice = adviceIn(message);
    const key = errorCode === "invalid_input" && namesGiven ? "invalid_names" : errorCode;
    $("error-advice").textContent = ADVICE[key] ?? "";
    $("unsupported-ops").replaceChildren(...unsupported.map((entry) => {
      // "aten::eye.default x1 (first at node 'eye')": the operator as code, the rest as text.
      const [, op, rest] = /^(\S+)(.*)$/s.exec(entry) ?? [null, entry, ""];
      return listItem(code(op), rest);
    }));
    $("unsupported").hidden = unsupported.length === 0;
    reveal(section);
  }

  // The supported list is fetched only when asked for: it can be long.
  const supported = $("supported-ops");
  const status = $("supported-ops-status");
  let total = 0;
  let loaded = false;
  supported.addEventListener("toggle", async () => {
    if (!supported.open || loaded) return;
    loaded = true;
    status.textContent = "Loading…";
    try {
      const ops = [...await (await getApi()).supportedOps()].sort();
      total = ops.length;
      status.textContent = `${total} operator overloads are supported.`;
      $("supported-ops-list").replaceChildren(...ops.map((op) => listItem(code(op))));
      $("supported-ops-filter").closest("label").hidden = false;
    } catch (err) {
      loaded = false;
      status.textContent = `Could not load the list: ${err?.message ?? err}`;
    }
  });
  $("supported-ops-filter").addEventListener("input", (e) => {
    const q = e.target.value.trim().toLowerCase();
    let shown = 0;
    for (const li of $("supported-ops-list").children) {
      li.hidden = q !== "" && !li.textContent.toLowerCase().includes(q);
      if (!li.hidden) shown++;
    }
    status.textContent = q === "" ? `${total} operator overloads are supported.`
      : shown === 0 ? `No supported overload matches "${q}": it is not supported yet. ${advice}`
        : `${shown} of ${total} supported overloads match "${q}".`;
  });

  return { show, clear };
}
