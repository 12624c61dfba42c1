// A failed conversion: the converter's message (the same as the CLI's and inspect()'s), and what to do
// when the message does not say it already. A web page shows no CLI exit codes: the error's code is kept
// on the section (data-code) for scripts and tests only.

import { $, reveal } from "./dom.mjs";

const ADVICE = {
  invalid_input: "pt2onnx reads programs saved with torch.export.save (torch 2.6 or newer); files written by " +
    "torch.save or torch.jit.save are something else.",
  // invalid_input also covers names given in the Options (an unknown program, a clashing tensor name).
  invalid_names: "Check the names given in the Options and for the dimensions: the message may be about one of " +
    "them.",
  io: "The file could not be read. If it was moved, changed or is on a removable or network drive, choose it again.",
  usage: "An option was not accepted. Check the Options and try again.",
  internal: "This is a fault in pt2onnx itself, not in your file or options. Keep the message above (and the " +
    ".pt2, if you can share it): it is what pt2onnx's maintainers need to fix it.",
  load: "The converter module could not be loaded. Serve this folder from a web server (opening index.html " +
    "from disk does not work) and reload the page.",
};

/** A ConversionError, told apart by shape: it may have been rebuilt from a worker's message. */
export function isConversionError(err) {
  return err != null && err.name === "ConversionError" && typeof err.code === "string";
}

/** The error's code ("internal" for anything that is not a ConversionError, "load" for the module). */
export function errorCode(err) {
  if (isConversionError(err)) return err.code;
  return err?.loadError ? "load" : "internal";
}

/**
 * What to do after `message`, or "" when the message says it itself (unsupported operators end with the
 * converter's "What to do"; a refused file's message names what pt2onnx reads).
 */
export function adviceFor(code, message, { namesGiven = false } = {}) {
  if (code === "unsupported") return "";
  if (code === "invalid_input") {
    if (namesGiven) return ADVICE.invalid_names;
    return /torch\.export/.test(message) ? "" : ADVICE.invalid_input;
  }
  return ADVICE[code] ?? "";
}

export function createErrorView({ supportedOps }) {
  const section = $("error");

  function clear() {
    section.hidden = true;
  }

  function show(err, { namesGiven }) {
    const code = errorCode(err);
    let message = String(err?.message ?? err);
    if (!isConversionError(err) && code !== "load") message = `Unexpected error: ${message}`;
    section.dataset.code = code;
    $("error-message").textContent = message;
    const advice = adviceFor(code, message, { namesGiven });
    $("error-advice").textContent = advice;
    $("error-advice").hidden = advice === "";
    // The operators are listed in the message; the supported list is there to search.
    if (code === "unsupported") supportedOps.attach($("error-supported"), message);
    $("error-supported").hidden = code !== "unsupported";
    reveal(section);
  }

  return { show, clear };
}
