// ONNX function libraries for the custom-translation tests.

// A library mapping aten::relu.default to Neg (ModelProto with one FunctionProto), written by hand so the test
// needs no Python: the protobuf wire format of
//   functions { name: "relu.default" domain: "aten" input: "self" output: "y"
//               node { input: "self" output: "y" op_type: "Neg" } opset_import { domain: "" version: 18 } }
//   ir_version: 10, opset_import { version: 18 }, graph { name: "translations" }
export function reluAsNegLibrary() {
  const bytes = [];
  const varint = (out, n) => { while (n > 0x7f) { out.push((n & 0x7f) | 0x80); n >>>= 7; } out.push(n); };
  const field = (out, number, payload) => {
    varint(out, (number << 3) | 2);
    varint(out, payload.length);
    out.push(...payload);
  };
  const text = (s) => [...Buffer.from(s, "utf8")];
  const message = (build) => { const out = []; build(out); return out; };
  const opset = (version) => message((o) => { o.push(0x10); varint(o, version); });  // OperatorSetId.version = 2
  varint(bytes, (1 << 3) | 0); varint(bytes, 10);  // ir_version
  field(bytes, 8, opset(18));  // ModelProto.opset_import
  field(bytes, 7, message((g) => field(g, 2, text("translations"))));  // graph.name
  field(bytes, 25, message((f) => {  // ModelProto.functions
    field(f, 1, text("relu.default"));  // name
    field(f, 4, text("self"));  // input
    field(f, 5, text("y"));  // output
    field(f, 7, message((n) => {  // node
      field(n, 1, text("self"));
      field(n, 2, text("y"));
      field(n, 4, text("Neg"));  // op_type
    }));
    field(f, 9, opset(18));  // opset_import
    field(f, 10, text("aten"));  // domain
  }));
  return Uint8Array.from(bytes);
}
