// Every positive fixture (op zoo, tier-1 and real models) converted and run in
// the wasm package, compared with torch's recorded outputs. Too slow for every
// `node --test` run (runtime.test.mjs runs a subset); tools/test.sh runs this.
//   node tests/web/run-all-fixtures.mjs [name-substring ...]
import { join } from "node:path";
import { checkFixture, positiveFixtures } from "./runtime-fixtures.mjs";
import { PACKAGE, requireBuilt } from "./paths.mjs";

requireBuilt(join(PACKAGE, "pt2onnx.mjs"), "the npm package (bazel build --config=wasm //wasm:package)");
const api = await import(join(PACKAGE, "pt2onnx.mjs"));
const filters = process.argv.slice(2);
const names = positiveFixtures().filter((n) => filters.length === 0 || filters.some((f) => n.includes(f)));
// A floor (429 positive fixtures when it was set; new fixtures only add to it): a walk that found fewer
// (a moved folder, a meta.json change) would report "0 of 0" and pass.
const MIN_FIXTURES = 420;
if (filters.length === 0 && names.length < MIN_FIXTURES) {
  console.error(`only ${names.length} positive fixtures found under tests/fixtures (at least ${MIN_FIXTURES} expected)`);
  process.exit(1);
}
if (names.length === 0) {
  console.error(`no fixture matches ${filters.join(", ")}`);
  process.exit(1);
}
const failures = [];
const start = performance.now();
for (const name of names) {
  const result = await checkFixture(api, name);
  if (result.error) failures.push(result);
  console.log(`${result.error ? "FAIL" : "ok  "} ${name} (convert ${result.convertMs.toFixed(0)} ms, run ` +
    `${result.runMs.toFixed(0)} ms)${result.error ? `: ${result.error}` : ""}`);
}
console.log(`${names.length - failures.length} of ${names.length} fixtures match torch in the wasm executor ` +
  `(${((performance.now() - start) / 1000).toFixed(1)} s)`);
for (const f of failures) console.log(`FAIL ${f.name}: ${f.error}`);
process.exit(failures.length ? 1 : 0);
