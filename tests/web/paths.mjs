// Where the browser and node tests find what tools/test.sh built: the CLI
// (reference output), the npm package and the page's site folder.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const FIXTURES = join(REPO, "tests", "fixtures");
export const CLI = process.env.PT2ONNX_BIN ?? join(REPO, "out", "bin", "pt2onnx");
export const PACKAGE = process.env.PT2ONNX_PACKAGE ?? join(REPO, "out", "wasm", "package");
export const SITE = process.env.PT2ONNX_SITE ?? join(REPO, "out", "web", "site");

export function requireBuilt(path, what) {
  if (!existsSync(path)) {
    throw new Error(`${what} not found at ${path}; run tools/test.sh (it builds and copies it there)`);
  }
}
