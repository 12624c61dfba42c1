// Pure helpers of the page (no DOM): number formatting and option parsing, tested under node.

// Three significant digits: 1.23, 12.3, 123.
function sig3(v) {
  return v >= 99.95 ? v.toFixed(0) : v >= 9.995 ? v.toFixed(1) : v.toFixed(2);
}

// Picks the largest unit the value reaches; 0.9995 so that 999,600 reads "1.00 M", not "1000 k".
function scaled(n, units) {
  let pick = null;
  for (const u of units) if (n >= u[1] * 0.9995) pick = u;
  return pick;
}

/** 46758048 -> "44.6 MiB" (binary units, like the 1.5 GiB and 2 GiB limits). */
export function formatBytes(n) {
  const u = scaled(n, [["KiB", 2 ** 10], ["MiB", 2 ** 20], ["GiB", 2 ** 30], ["TiB", 2 ** 40]]);
  return u ? `${sig3(n / u[1])} ${u[0]}` : `${n} B`;
}

/** 11689512 -> "11.7 M". */
export function formatCount(n) {
  const u = scaled(n, [["k", 1e3], ["M", 1e6], ["B", 1e9], ["T", 1e12]]);
  return u ? `${sig3(n / u[1])} ${u[0]}` : String(n);
}

/** Milliseconds -> "840 ms", "1.25 s", "2 min 05 s". */
export function formatDuration(ms) {
  if (ms < 1000) return `${Math.max(1, Math.round(ms))} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, "0")} s`;
}

/**
 * "a, b" -> { value: ["a", "b"] }; "" -> { value: undefined } (keep the program's names);
 * problems -> { error }. Names are otherwise free-form: ONNX allows any string.
 */
export function parseNameList(text) {
  if (text.trim() === "") return { value: undefined };
  const names = text.split(",").map((s) => s.trim());
  const empty = names.indexOf("");
  if (empty >= 0) {
    return { error: `Name ${empty + 1} of ${names.length} is empty. Remove the extra comma or fill in a name.` };
  }
  const seen = new Set();
  for (const name of names) {
    if (seen.has(name)) return { error: `"${name}" is given twice. Each name must be unique.` };
    seen.add(name);
  }
  return { value: names };
}

/** A symbol's range from inspect(): {min: 2, max: null} -> "[2, ∞)", as torch's int_oo. */
export function formatRange(range) {
  if (!range) return "derived";
  const lo = range.min ?? "-∞";
  const hi = range.max ?? "∞";
  return `[${lo}, ${hi}${range.max === null ? ")" : "]"}`;
}

/** "cnn.pt2" -> "cnn.onnx", as the CLI names its default output. */
export function defaultOnnxName(fileName) {
  return (/\.pt2$/i.test(fileName) ? fileName.slice(0, -4) : fileName) + ".onnx";
}

/**
 * Output file name as typed: "" -> { value: undefined } (the default); ".onnx" added when missing; no
 * folders.
 */
export function parseOutputName(text) {
  const name = text.trim();
  if (name === "") return { value: undefined };
  if (/[\\/]/.test(name)) return { error: "A file name only, without folders." };
  if (name === ".onnx") return { error: "Give a name before .onnx." };
  return { value: /\.onnx$/i.test(name) ? name : `${name}.onnx` };
}

/** Names for a zip of several results: a repeated name gets " (2)", " (3)" before its extension. */
export function uniqueNames(names) {
  const taken = new Set();
  return names.map((name) => {
    let candidate = name;
    const dot = name.indexOf(".") > 0 ? name.indexOf(".") : name.length;
    for (let n = 2; taken.has(candidate); n++) candidate = `${name.slice(0, dot)} (${n})${name.slice(dot)}`;
    taken.add(candidate);
    return candidate;
  });
}

/**
 * The default name of a graph-only result: "cnn.pt2" -> "cnn.graph.onnx", so that a model without its
 * weights is never mistaken for the full one. Apply weights names its result back: see fullModelName().
 */
export function graphOnlyName(fileName) {
  return defaultOnnxName(fileName).replace(/\.onnx$/, ".graph.onnx");
}

/** "cnn.graph.onnx" -> "cnn.onnx" (the model once its weights are applied); other names unchanged. */
export function fullModelName(onnxName) {
  return /\.graph\.onnx$/i.test(onnxName) ? onnxName.replace(/\.graph\.onnx$/i, ".onnx") : onnxName;
}

/**
 * Checks names for the program's inputs or outputs (`values`, inspect()'s list) before converting:
 * more names than values is what the converter would refuse. Returns an error message or undefined.
 */
export function checkNameCount(names, values, what) {
  if (!names || names.length <= values.length) return undefined;
  const have = values.length === 0 ? `has no ${what}s`
    : `has ${values.length} ${what}${values.length === 1 ? "" : "s"} (${values.map((v) => v.name).join(", ")})`;
  const extra = names.length - values.length;
  return `${names.length} name${names.length === 1 ? "" : "s"} for a program that ${have}: ` +
    `remove ${extra === 1 ? "1 name" : `${extra} names`}.`;
}
