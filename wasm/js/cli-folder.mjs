// `pt2onnx DIR -o OUTDIR` in node (cli.mjs): a model library's export folder
// through convertFolder(), its files written into OUTDIR as the native CLI
// writes them: nothing is moved into place until every component converted,
// and a folder the run created is removed again if it fails.
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, rmdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ConversionError, convertFolder } from "./pt2onnx.mjs";

const MANIFEST = "export.json";
// Copied into the output when there (export/model_folder.h): transformers' loader reads them.
const CONFIGS = ["config.json", "generation_config.json"];

export function isFolder(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

// The flags a folder cannot take, refused as the native CLI refuses them.
export function checkFolderFlags(flags, UsageError) {
  if (!flags.outputGiven) throw new UsageError(`${flags.input} is a folder: give the output folder with -o OUTDIR`);
  if (flags.inspect) throw new UsageError("--inspect of a folder needs the native pt2onnx; inspect a component's .pt2");
  if (flags.verify) throw new UsageError("--verify of a folder needs the native pt2onnx (verify a component's .pt2 here)");
  if (flags.json || flags.report || flags.translations.length > 0) {
    throw new UsageError("--json, --report and --translations do not apply to a folder yet");
  }
  if (flags.inputNames || flags.outputNames || Object.keys(flags.dimNames).length > 0 ||
      flags.modelName !== undefined || flags.external !== "auto") {
    throw new UsageError("--input-names, --output-names, --dim-name, --model and --(no-)external-data do not " +
      "apply to a folder: its export.json names each component's inputs and outputs, and the weights always go " +
      "to <component>.onnx.data");
  }
}

function readFile(folder, name) {
  try {
    return new Uint8Array(readFileSync(join(folder, name)));
  } catch (e) {
    throw new ConversionError("io", `cannot read '${join(folder, name)}': ${e.code === "ENOENT"
      ? "No such file or directory" : e.message}`);
  }
}

// export.json, the files its components name and the configs (not the
// folder's other files: a tokenizer or a safetensors copy of the weights).
function folderFiles(folder) {
  const files = new Map();
  const present = new Set(readdirSync(folder));
  if (!present.has(MANIFEST)) return files;  // the core says what is missing
  const manifest = readFile(folder, MANIFEST);
  files.set(MANIFEST, manifest);
  let components = {};
  try {
    components = JSON.parse(new TextDecoder().decode(manifest)).components ?? {};
  } catch {
    return files;  // the core names the JSON error
  }
  for (const name of CONFIGS) if (present.has(name)) files.set(name, readFile(folder, name));
  for (const component of Object.values(components)) {
    const file = component?.file;
    if (typeof file === "string" && present.has(file) && !files.has(file)) files.set(file, readFile(folder, file));
  }
  return files;
}

export async function runFolder(flags, { log, writeTemp }) {
  const result = await convertFolder(folderFiles(flags.input), { opset: flags.opset, optimize: flags.optimize,
    includeWeights: flags.includeWeights ?? true, weightsAsInputs: flags.weightsAsInputs ?? false,
    ...(flags.kvCache !== undefined ? { kvCache: flags.kvCache } : {}) });
  for (const line of result.report.split("\n").filter(Boolean)) log(line);
  let created = false;
  if (!isFolder(flags.output)) {
    try {
      mkdirSync(flags.output);
      created = true;
    } catch (e) {
      throw new ConversionError("io", `cannot create the output folder '${flags.output}': ${e.message}`);
    }
  }
  const temps = [];
  try {
    const written = [];
    for (const { name, blob } of result.files) written.push([await writeTemp(join(flags.output, name), blob, temps), name]);
    for (const [temp, name] of written) {
      try {
        renameSync(temp, join(flags.output, name));
      } catch (e) {
        throw new ConversionError("io", `cannot move '${name}' into place in '${flags.output}': ${e.message}`);
      }
    }
    temps.length = 0;
    created = false;
  } finally {
    for (const temp of temps) rmSync(temp, { force: true });
    if (created) {
      try {
        rmdirSync(flags.output);
      } catch {
        // left as it is: a file could not be removed
      }
    }
  }
  log(`wrote ${flags.output}`);
  return 0;
}
