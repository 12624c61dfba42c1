// The wasm executor through the package's run() / createSession(): a
// representative subset of the fixtures against torch's recorded outputs
// (run-all-fixtures.mjs runs every one), and the errors for bad inputs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { readNpz } from "./npz.mjs";
import { FIXTURES, PACKAGE, requireBuilt } from "./paths.mjs";
import { checkFixture, positiveFixtures } from "./runtime-fixtures.mjs";

requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build //wasm:package)");
const api = await import(join(PACKAGE, "pt2onnx.mjs"));
const { convert, run, createSession, RunError } = api;

// Tier-1 models plus op families that exercise each kernel group (XNNPACK
// convolution/matmul, pooling, normalisation, gathers, data-dependent shapes, dtypes).
const SUBSET = [
  "cnn", "resnet18_shaped", "gpt_block", "dynamic_batch_seq", "named_dims", "dtypes", "mlp_dict_list",
  "ops/conv2d", "ops/max_pool2d", "ops/layer_norm", "ops/softmax", "ops/contractions", "ops/index_select",
  "ops/nonzero", "ops/topk", "ops/cumsum", "ops/upsample_linear", "ops/where", "ops/avg_pool2d",
  "ops/embedding", "ops/batch_norm",
];

const known = new Set(positiveFixtures());
for (const name of SUBSET) {
  test(`${name} runs in the wasm executor and matches torch`, async () => {
    assert.ok(known.has(name), `${name}: no such positive fixture (renamed? update SUBSET)`);
    const result = await checkFixture(api, name);
    assert.equal(result.error, null, result.error);
  });
}

test("the subset covers most of the fixtures' op families", () => {
  assert.ok(known.size >= 420, `only ${known.size} fixtures`);
  assert.deepEqual(SUBSET.filter((n) => !known.has(n)), [], "subset fixtures were renamed");
});

const cnnModel = async () => new Uint8Array(await (await convert(readFileSync(join(FIXTURES, "cnn", "model.pt2")))).onnx.arrayBuffer());
const cnnInput = () => readNpz(readFileSync(join(FIXTURES, "cnn", "inputs.npz")))[0];

test("a session runs many times, describes its inputs and outputs, and can be released", async () => {
  const session = await createSession(await cnnModel());
  assert.deepEqual(session.inputs, [{ name: "x", dtype: "float32", dims: [1, 3, 32, 32] }]);
  assert.equal(session.outputs.length, 1);
  const x = cnnInput();
  const first = await session.run({ x });
  const second = session.runSync({ x: { data: x.data.slice(), dims: x.dims } });
  const [name] = Object.keys(first);
  assert.ok(first[name].data instanceof Float32Array);
  assert.deepEqual(first[name].dims, second[name].dims);
  assert.deepEqual(first[name].data, second[name].data);
  session.release();
  session.release();  // a second release is a no-op
  await assert.rejects(session.run({ x }), (e) => e instanceof RunError && e.code === "usage");
});

test("bad inputs are RunErrors naming the input, with onnxrun's exit codes", async () => {
  const model = await cnnModel();
  const x = cnnInput();
  const cases = [
    [{ x: { data: new Float64Array(x.data), dims: x.dims } }, 4, "input 'x' must be float32 (a Float32Array), got Float64Array"],
    [{ x: { data: x.data.subarray(0, 3 * 32 * 32), dims: [3, 32, 32] } }, 4, "input 'x' must have rank 4"],
    [{ x: { data: new Float32Array(4 * 32 * 32), dims: [1, 4, 32, 32] } }, 4, "input 'x' dim 1 must be 3"],
    [{ x: { data: x.data, dims: [1, 3, 32, 31] } }, 4, "input 'x' has 3072 values but dims [1, 3, 32, 31] hold 2976"],
    [{}, 4, "missing input 'x'"],
    [{ x, nope: x }, 4, "unknown input 'nope'"],
    [{ x: x.data }, 4, "input 'x' must be { data, dims }"],
  ];
  for (const [inputs, exitCode, message] of cases) {
    await assert.rejects(run(model, inputs), (e) => {
      assert.ok(e instanceof RunError, String(e));
      assert.equal(e.exitCode, exitCode, e.message);
      assert.ok(e.message.includes(message), `${e.message} lacks ${message}`);
      return true;
    });
  }
  await assert.rejects(run(new Uint8Array([1, 2, 3]), {}), (e) => e.code === "invalid_input" && /ModelProto/.test(e.message));
  await assert.rejects(run("model.onnx", {}), (e) => e.code === "usage");
});

test("an op the executor lacks is an 'unsupported' RunError naming it", async () => {
  await assert.rejects(run(hardmaxModel(), { x: { data: new Float32Array(2), dims: [2] } }),
    (e) => e instanceof RunError && e.exitCode === 5 && e.message.includes("Hardmax (first node 'hm')"));
});

// ModelProto { ir_version 10, graph { Hardmax(x) -> y, x and y float32 [2] }, opset 20 },
// protobuf written by hand (varints, length-delimited fields): there is no onnx library in node.
function hardmaxModel() {
  const varint = (n) => { const out = []; do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n); return out; };
  const field = (num, payload) => [...varint((num << 3) | 2), ...varint(payload.length), ...payload];
  const str = (num, s) => field(num, [...Buffer.from(s)]);
  const int = (num, v) => [...varint(num << 3), ...varint(v)];
  // ValueInfoProto { name, type { tensor_type { elem_type FLOAT, shape { dim { dim_value 2 } } } } }
  const valueInfo = (num, name) => field(num, [...str(1, name), ...field(2, field(1, [...int(1, 1), ...field(2, field(1, int(1, 2)))]))]);
  const node = field(1, [...str(1, "x"), ...str(2, "y"), ...str(3, "hm"), ...str(4, "Hardmax")]);
  const graph = [...node, ...str(2, "g"), ...valueInfo(11, "x"), ...valueInfo(12, "y")];
  return new Uint8Array([...int(1, 10), ...field(7, graph), ...field(8, int(2, 20))]);
}
