// Every fixture through WebAssembly alone: convert the .pt2 with the package's
// convert(), run the .onnx with its run(), compare with torch's recorded
// outputs (expected.npz) at the fixture's tolerance, as tests/e2e/test_runtime.py
// does natively.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { readNpz } from "./npz.mjs";
import { FIXTURES } from "./paths.mjs";

// Folders with model.pt2, meta.json (not negative, not blocked by missing operators) and expected.npz.
export function positiveFixtures() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
    }
    const metaPath = join(dir, "meta.json");
    if (!existsSync(metaPath) || !existsSync(join(dir, "expected.npz")) || !existsSync(join(dir, "model.pt2"))) return;
    const meta = JSON.parse(readFileSync(metaPath, "utf8"));
    if (meta.negative || (meta.blocked_by ?? []).length > 0) return;
    found.push(relative(FIXTURES, dir));
  };
  walk(FIXTURES);
  return found.sort();
}

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

function numbers(tensor) {
  if (tensor.dtype === "float16") return Array.from(tensor.data, halfToFloat);
  if (tensor.dtype === "bfloat16") {
    const f = new Float32Array(1), u = new Uint32Array(f.buffer);
    return Array.from(tensor.data, (b) => { u[0] = b << 16; return f[0]; });
  }
  return tensor.data;
}

// [atol, rtol] for an output of this dtype, as tools/fixtures/fixture_checks.py's output_tolerance: the
// float32 tolerance (default 1e-4; "atol_hint" in the tier-1 fixtures) for float32/float64 outputs, and
// half_atol/half_rtol (default: the float32 ones) only for float16/bfloat16 outputs.
export function outputTolerance(meta, dtype) {
  const atol = meta.atol ?? meta.atol_hint ?? 1e-4;
  const rtol = meta.rtol ?? atol;
  if (dtype === "float16" || dtype === "bfloat16") {
    return [meta.half_atol ?? atol, meta.half_rtol ?? meta.half_atol ?? rtol];
  }
  return [atol, rtol];
}

// The first mismatch as a message, or null (numpy's assert_allclose rule: |a - e| <= atol + rtol |e|, NaN == NaN).
export function mismatch(actual, expected, label, atol, rtol) {
  if (actual.dtype !== expected.dtype) return `${label}: dtype ${actual.dtype}, torch ${expected.dtype}`;
  if (actual.dims.join(",") !== expected.dims.join(",")) {
    return `${label}: dims [${actual.dims}], torch [${expected.dims}]`;
  }
  const exact = !["float16", "bfloat16", "float32", "float64"].includes(expected.dtype);
  const a = numbers(actual), e = numbers(expected);
  for (let i = 0; i < e.length; ++i) {
    if (exact) {
      if (a[i] !== e[i]) return `${label}[${i}]: ${a[i]}, torch ${e[i]}`;
      continue;
    }
    const x = Number(a[i]), y = Number(e[i]);
    if (Number.isNaN(x) && Number.isNaN(y)) continue;
    if (x === y) continue;  // infinities
    if (!(Math.abs(x - y) <= atol + rtol * Math.abs(y))) return `${label}[${i}]: ${x}, torch ${y} (atol ${atol}, rtol ${rtol})`;
  }
  return null;
}

// The options every conversion of a fixture takes: the opset its meta.json
// states, for a fixture only newer opsets express (view(dtype): BitCast, 26).
export function fixtureOptions(meta) {
  return meta.opset ? { opset: meta.opset } : {};
}

// Converts and runs one fixture folder (relative to tests/fixtures) with the
// package `api`; returns { name, error: string | null, convertMs, runMs }.
export async function checkFixture(api, name) {
  const folder = join(FIXTURES, name);
  const meta = JSON.parse(readFileSync(join(folder, "meta.json"), "utf8"));
  let t0 = performance.now();
  let converted;
  try {
    converted = await api.convert(new Uint8Array(readFileSync(join(folder, "model.pt2"))), fixtureOptions(meta));
  } catch (e) {
    return { name, error: `convert: ${e.message}`, convertMs: 0, runMs: 0 };
  }
  const convertMs = performance.now() - t0;
  const model = new Uint8Array(await converted.onnx.arrayBuffer());
  let runMs = 0;
  for (const suffix of ["", "_alt"]) {
    const inputsPath = join(folder, `inputs${suffix}.npz`);
    if (!existsSync(inputsPath)) continue;
    const inputs = Object.fromEntries(readNpz(readFileSync(inputsPath)).map((t) => [t.name, t]));
    const expected = readNpz(readFileSync(join(folder, `expected${suffix}.npz`)));
    t0 = performance.now();
    let outputs;
    try {
      outputs = Object.values(await api.run(model, inputs));
    } catch (e) {
      return { name, error: `run${suffix}: ${e.code}: ${e.message}`, convertMs, runMs };
    }
    runMs += performance.now() - t0;
    if (outputs.length !== expected.length) {
      return { name, error: `${outputs.length} outputs, torch has ${expected.length}`, convertMs, runMs };
    }
    for (let i = 0; i < expected.length; ++i) {
      const [atol, rtol] = outputTolerance(meta, expected[i].dtype);
      const problem = mismatch(outputs[i], expected[i], `${name}${suffix}:${expected[i].name}`, atol, rtol);
      if (problem) return { name, error: problem, convertMs, runMs };
    }
  }
  return { name, error: null, convertMs, runMs };
}
