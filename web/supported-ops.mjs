// "See the supported list": the operators pt2onnx translates, fetched when first opened, with a filter.
// One widget, moved to where unsupported operators are reported (the inspect view before converting, or
// the error after a batch conversion), so that the list and its advice are shown in one place.

import { $, code, listItem } from "./dom.mjs";

/** The advice the converter gives after the unsupported operators (see ops::kUnsupportedOpsAdvice). */
function adviceIn(message) {
  const at = message.indexOf("What to do");
  return at >= 0 ? message.slice(at) : "";
}

export function createSupportedOps({ getApi }) {
  const details = $("supported-ops");
  const status = $("supported-ops-status");
  const filter = $("supported-ops-filter");
  let total = 0;
  let loaded = false;
  let advice = "";

  details.addEventListener("toggle", async () => {
    if (!details.open || loaded) return;
    loaded = true;
    status.textContent = "Loading…";
    try {
      const ops = [...await (await getApi()).supportedOps()].sort();
      total = ops.length;
      status.textContent = `${total} operator overloads are supported.`;
      $("supported-ops-list").replaceChildren(...ops.map((op) => listItem(code(op))));
      filter.closest("label").hidden = false;
    } catch (err) {
      loaded = false;
      status.textContent = `Could not load the list: ${err?.message ?? err}`;
    }
  });
  filter.addEventListener("input", () => {
    const q = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const li of $("supported-ops-list").children) {
      li.hidden = q !== "" && !li.textContent.toLowerCase().includes(q);
      if (!li.hidden) shown++;
    }
    status.textContent = q === "" ? `${total} operator overloads are supported.`
      : shown === 0 ? `No supported overload matches "${q}": it is not supported yet. ${advice}`
        : `${shown} of ${total} supported overloads match "${q}".`;
  });

  return {
    /** Moves the list into `container`; `text` (the message or inspect()'s advice) holds the advice. */
    attach(container, text) {
      advice = adviceIn(text ?? "");
      if (details.parentElement !== container) container.append(details);
    },
  };
}
