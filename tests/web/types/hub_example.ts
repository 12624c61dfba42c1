// The README's embedding example, typed against wasm/js/pt2onnx.d.ts: it must
// compile with no errors (tests/web/types.test.mjs).
import { convert, ConversionError, supportedOps, version, type ConversionResult, type ErrorCode } from "pt2onnx";

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
