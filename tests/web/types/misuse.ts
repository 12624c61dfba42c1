// Calls the types must reject (tests/web/types.test.mjs expects exactly these errors).
import { convert } from "pt2onnx";

declare const file: File;
convert(file, { opset: "20" });          // opset is a number
convert(file, { externalData: "yes" });  // not one of "auto" | "always" | "never"
convert("model.pt2");                    // not bytes or a Blob
