// The page's option parsing and number formatting (web/app.mjs), without a
// browser: app.mjs wires the DOM only when there is one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { formatBytes, formatCount, formatDuration, parseDimNames, parseNameList } from "../../web/app.mjs";

test("byte sizes use binary units and three significant digits", () => {
  assert.equal(formatBytes(512), "512 B");
  assert.equal(formatBytes(1024), "1.00 KiB");
  assert.equal(formatBytes(46758048), "44.6 MiB");
  assert.equal(formatBytes(3221722649), "3.00 GiB");
  assert.equal(formatBytes(1048575), "1.00 MiB");  // not "1024 KiB"
});

test("counts and durations", () => {
  assert.equal(formatCount(999), "999");
  assert.equal(formatCount(29696), "29.7 k");
  assert.equal(formatCount(11689512), "11.7 M");
  assert.equal(formatCount(999600), "1.00 M");
  assert.equal(formatDuration(0.2), "1 ms");
  assert.equal(formatDuration(840), "840 ms");
  assert.equal(formatDuration(1250), "1.25 s");
  assert.equal(formatDuration(125000), "2 min 05 s");
});

test("name lists: empty keeps the program's names; blanks and repeats are refused", () => {
  assert.deepEqual(parseNameList(""), { value: undefined });
  assert.deepEqual(parseNameList(" a , b "), { value: ["a", "b"] });
  assert.match(parseNameList("a,,b").error, /Name 2 of 3 is empty/);
  assert.match(parseNameList("a, a").error, /given twice/);
});

test("dimension renames parse symbol=name pairs", () => {
  assert.deepEqual(parseDimNames("   "), { value: undefined });
  assert.deepEqual(parseDimNames("s0=batch, s1 = seq"), { value: { s0: "batch", s1: "seq" } });
  assert.match(parseDimNames("s0").error, /symbol=name/);
  assert.match(parseDimNames("=batch").error, /no symbol/);
  assert.match(parseDimNames("s0=").error, /no new name/);
  assert.match(parseDimNames("s0=a=b").error, /more than one "="/);
  assert.match(parseDimNames("s0=a, s0=b").error, /renamed twice/);
  assert.deepEqual(Object.keys(parseDimNames("__proto__=x").value), ["__proto__"]);
});
