// The README's embedding example, typed against wasm/js/pt2onnx.d.ts: it must
// compile with no errors (tests/web/types.test.mjs).
import { convert, ConversionError, inspect, inspectReport, supportedOps, version, type ConversionResult, type ErrorCode,
  type Inspection, run, createSession, RunError, type InferenceSession, type SessionValue, type TensorOutput,
  verify, MAX_VERIFY_BYTES, type VerificationResult, type VerificationInfo } from "pt2onnx";

declare const upload: HTMLInputElement;
declare const bar: HTMLProgressElement;
declare const link: HTMLAnchorElement;
declare const info: HTMLElement;

upload.onchange = async () => {
  try {
    const r: ConversionResult = await convert(upload.files![0], {
      opset: 20, externalData: "auto", dimNames: { s0: "batch" }, onProgress: (p) => (bar.value = p.fraction) });
    link.href = URL.createObjectURL(r.onnx);
    link.download = r.onnxName;
    if (r.data !== null && r.dataName !== null) console.log(r.dataName, r.data.size);
    const shapes: Array<number | string>[] = r.summary.inputs.map((i) => i.shape);
    info.textContent = `${r.summary.onnxNodes} nodes, ${r.summary.parameters} parameters, ${shapes.length} inputs`;
  } catch (e) {
    if (e instanceof ConversionError) {
      const code: ErrorCode = e.code;
      if (code === "load") info.textContent = "serve pt2onnx-core.wasm beside pt2onnx.mjs";
      info.textContent = `${code} (${e.exitCode}): ${e.message} ${e.unsupportedOps.join(", ")}`;
    }
  }
};

export async function listOps(): Promise<string> {
  const ops: string[] = await supportedOps();
  return `${version}: ${ops.length} operators`;
}

// inspect() first, then name the dims it found (docs/cli.md, "How dimensions are named").
export async function convertWithNamedDims(file: File): Promise<ConversionResult> {
  const found: Inspection = await inspect(file, { opset: 20 });
  const [batch, seq] = found.inputs[0].dims.map((d) => d.name);
  const ranges = found.symbols.map((s) => `${s.name} in [${s.range?.min ?? "-inf"}, ${s.range?.max ?? "inf"}]`);
  if (found.unsupported.length > 0) throw new Error(`${found.advice}: ${ranges.join(", ")}`);
  return convert(file, { dimNames: { [batch]: "batch", [seq]: "seq" } });
}

// Cancel, a worker served from another origin, and the CLI's inspect text.
export async function cancellable(file: File, controller: AbortController): Promise<string> {
  const r = await convert(file, { signal: controller.signal, workerUrl: new URL("https://cdn.example/pt2onnx-worker.mjs") });
  const { text, json } = await inspectReport(new Uint8Array(await file.arrayBuffer()), { fileName: file.name });
  return `${r.onnxName} ${text.length} ${JSON.parse(json).opset}`;
}

// Convert, then run the result in the wasm executor (docs/javascript.md: run / createSession).
export async function convertAndRun(file: File, pixels: Float32Array): Promise<number[]> {
  const converted = await convert(file);
  const onnx: Uint8Array = await converted.onnxBytes();  // bytes for the executor, no Blob built
  const weights: Uint8Array | null = await converted.dataBytes();
  if (weights !== null) throw new Error("external weights: run() takes a self-contained model");
  const outputs: Record<string, TensorOutput> = await run(onnx, { x: { data: pixels, dims: [1, 3, 32, 32] } });
  const session: InferenceSession = await createSession(onnx);
  const names: string[] = session.inputs.map((i: SessionValue) => `${i.name}:${i.dtype}`);
  try {
    const again = session.runSync({ x: { data: pixels, dims: [1, 3, 32, 32] } });
    return [...names.map((n) => n.length), ...Object.values(again)[0].dims, Object.keys(outputs).length];
  } catch (e) {
    if (e instanceof RunError) throw new Error(`${e.code} (${e.exitCode}): ${e.message}`);
    throw e;
  } finally {
    session.release();
  }
}

// verify(): the CLI's --verify; a failing comparison resolves with passed: false.
export async function verifyUpload(file: File, npz?: Uint8Array): Promise<string> {
  if (file.size > MAX_VERIFY_BYTES) return "too large for the browser build: use the CLI";
  const r: VerificationResult = await verify(file, { intermediates: true, inputs: npz ?? "seeded",
    onProgress: (p) => console.log(p.stage), signal: AbortSignal.timeout(60_000) });
  const worst: VerificationInfo | undefined = r.outputs.find((o) => !o.passed);
  const typed = await verify(file, { inputs: { x: { data: new Float32Array(4), dims: [1, 4] },
    mask: { data: new Uint8Array(4), dims: [1, 4], dtype: "bool" } } });
  return `${r.passed} ${worst?.max_abs_diff ?? 0} ${r.histogramEdges.length} ${r.firstDivergence?.target ?? ""} ` +
    `${typed.exitCode} ${r.report.length}`;
}

// A custom operator's translation library (docs/supported-ops.md, "Custom operators without Python").
export async function convertWithLibrary(file: File, library: File): Promise<ConversionResult> {
  const translations = new Uint8Array(await library.arrayBuffer());
  const found: Inspection = await inspect(file, { translations, overrideBuiltins: false });
  if (found.unsupported.length > 0) throw new Error(found.advice ?? "unsupported operators");
  return convert(file, { translations: [translations], translationsAsFunctions: true });
}
