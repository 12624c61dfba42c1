// Small DOM builders shared by the page's views.

export const $ = (id) => document.getElementById(id);

export function span(className, text) {
  const s = document.createElement("span");
  s.className = className;
  s.textContent = text;
  return s;
}

/**
 * `text` with a line-break opportunity (<wbr>) after each "_", ".", "/", ":" and "-": a name such as
 * "attention_mask" or "aten::eye.default" wraps between its parts on a phone, never inside a word.
 */
export function breakable(text) {
  const parts = String(text).split(/(?<=[_./:-])/);
  const nodes = [];
  parts.forEach((part, i) => {
    if (i) nodes.push(document.createElement("wbr"));
    nodes.push(part);
  });
  return nodes;
}

export function code(text) {
  const c = document.createElement("code");
  c.append(...breakable(text));
  return c;
}

export function cell(tag, ...content) {
  const c = document.createElement(tag);
  c.append(...content);
  return c;
}

export function listItem(...content) {
  const li = document.createElement("li");
  li.append(...content);
  return li;
}

// Symbolic dimensions are styled apart from fixed sizes. Each dim keeps together, the shape wraps between
// dims, so a long shape never pushes its column out of a phone's width.
export function shapeNode(shape) {
  const out = document.createElement("code");
  out.className = "shape";
  if (!shape.length) {
    out.textContent = "scalar";
    return out;
  }
  out.append("[");
  shape.forEach((d, i) => {
    if (i) out.append(", ");
    out.append(typeof d === "string" ? span("dim sym", d) : span("dim", String(d)));
  });
  out.append("]");
  return out;
}

/** Moves focus to a panel that just appeared (if focus was lost) and scrolls it into view. */
export function reveal(panel) {
  panel.hidden = false;
  if (!document.activeElement || document.activeElement === document.body) panel.focus({ preventScroll: true });
  panel.scrollIntoView({ block: "nearest", behavior: "smooth" });
}
