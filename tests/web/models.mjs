// The real-model zoo (tests/fixtures/models): every fixture folder with the
// operators pt2onnx cannot convert yet ("blocked_by" in its meta.json).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES } from "./paths.mjs";

export const MODELS = join(FIXTURES, "models");

export function realModels() {
  if (!existsSync(MODELS)) return [];
  return readdirSync(MODELS)
    .filter((name) => existsSync(join(MODELS, name, "meta.json")))
    .sort()
    .map((name) => {
      const meta = JSON.parse(readFileSync(join(MODELS, name, "meta.json"), "utf8"));
      return { name, path: join(MODELS, name, "model.pt2"), blockedBy: meta.blocked_by ?? [] };
    });
}
