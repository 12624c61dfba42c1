#!/usr/bin/env node
// pt2onnx for node: `npx pt2onnx MODEL.pt2 -o MODEL.onnx`, the native CLI's flags and exit codes on the
// WebAssembly converter, for build pipelines without the native build. Output is written atomically: to a
// temporary file beside it, renamed when complete, removed on any error.
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { checkFolderFlags, isFolder, runFolder } from "./cli-folder.mjs";
import { checkVerifyFlags, parseVerifyFlag, runVerify, writeReport } from "./cli-verify.mjs";
import { runVerifyGeneration } from "./cli-generation.mjs";
import { ConversionError, applyWeights, convert, inspectReport, refusedOps, supportedOps, verify, version } from "./pt2onnx.mjs";

const EXIT = { ok: 0, internal: 1, usage: 2, io: 3, invalid_input: 4, unsupported: 5 };

const USAGE = `pt2onnx: convert a PyTorch exported program (.pt2, from torch.export.save) to ONNX.
(node build: the WebAssembly converter; byte-identical output to the native pt2onnx.)

usage: pt2onnx MODEL.pt2 [-o MODEL.onnx] [options]
       pt2onnx DIR -o OUTDIR [--opset N] [--no-optimize] [--no-weights]
         (an exporter's folder: transformers' export.json and one .pt2 per component,
         to <component>.onnx + .onnx.data and an export.json, as the native pt2onnx)
       pt2onnx verify-generation OUTDIR [--tokens N] [--prompt IDS] [--expect IDS] [--inputs X.npz]
         (greedy generation through OUTDIR's prefill and decode in the executor; prints
         the token ids; exit 6 when they differ from --expect)
       pt2onnx apply-weights MODEL.onnx --from OTHER.pt2 -o OUT.onnx [options]
         (MODEL.onnx, e.g. written with --no-weights, with OTHER.pt2's weights: same
         program, new weights; names, dtypes and shapes are checked)

options:
  -o, --output PATH        output file (default: MODEL.onnx next to the input)
  --opset N                ONNX opset, 18..26 (default 20, as torch.onnx)
  --kv-cache dynamic|static  static (opset >= 24): a decode program's key/value caches
                           become fixed-size buffers updated in place by TensorScatter,
                           plus a past_length input (docs/kv-cache.md)
  --external-data          store weights in PATH.data beside the model (automatic
                           above 1.5 GiB of weights; --no-external-data forbids it)
  --input-names a,b,...    rename the graph inputs, in order
  --output-names a,b,...   rename the graph outputs, in order
  --dim-name SYM=NAME      rename a symbolic dimension (e.g. s0=batch); repeatable
  --model NAME             program to convert in a multi-model archive
  --no-optimize            skip the graph optimizations
  --no-weights             write the graph without its initializers
  --weights-as-inputs      also list the initializers as graph inputs
  --translations FILE      ONNX function library (.onnx/.onnxlib) translating more
                           operators: function domain::name = op namespace::op.overload
                           (e.g. mylib::fused_gelu.default); repeatable
  --override               library functions replace pt2onnx's own translations
  --translations-as-functions  keep library functions as model-local ONNX functions
                           (one per function used) instead of inlining their bodies
  --check                  native build only (the ONNX checker is not in this one)
  --verify                 run the program in the ATen reference interpreter and the
                           model in the executor, compare the outputs as torch.onnx
                           does (fails with exit 6 at abs >= 5e-3 or rel >= 1e-1)
  --verify-intermediates   also compare every FX value kept in the ONNX graph and name
                           the first diverging node
  --inputs X.npz           inputs for --verify, by input name (default: the example
                           inputs stored in the .pt2, else seeded values from the
                           input specs; --inputs seeded forces those)
  --verify-node-data PFX   write Model Explorer node data PFX_max_abs_diff.json and
                           PFX_max_rel_diff.json (implies --verify-intermediates)
  --report[=PATH]          with --verify: write a markdown report (default
                           MODEL.report.md), also on failure
  --list-ops               print the supported ATen operators and exit
  --list-refused           print the operators deliberately not translated, each with
                           why (tab-separated), and exit
  --inspect                describe MODEL.pt2 without converting it: inputs and outputs
                           with their symbolic dims and ranges, symbols in input order,
                           operators (unsupported ones marked), weights, layout
  --json                   with --inspect: print JSON (what the JS inspect() returns);
                           converting: print a one-line JSON record of the run on
                           stdout, also on failure (code, message, unsupported ops)
  -q, --quiet              no progress output
  -h, --help               this help
  --version                print the version

exit codes: 0 ok, 1 internal error, 2 bad command line (or --no-external-data with over
2 GiB of weights), 3 cannot read the input or write the output, 4 the input is not a
valid .pt2 (or a rename given with --input-names, --output-names or --dim-name clashes
with a name in it or matches nothing), 5 the program uses operators or features pt2onnx
cannot convert yet, 6 --verify found values beyond torch's thresholds (the model is
written), 7 --verify could not run an engine on the model. On errors 1-5 no output
file is left behind.
`;

class UsageError extends Error {}

/** argv -> flags, with the native CLI's rules and messages (native/cli_flags.cc). */
export function parseArgs(args) {
  const flags = { opset: 20, external: "auto", optimize: true, dimNames: {}, quiet: false, json: false,
    translations: [] };
  const valueOf = (i, name) => {
    const arg = args[i];
    const eq = arg.indexOf("=");
    if (arg.startsWith("--") && eq >= 0) return [arg.slice(eq + 1), i];
    if (i + 1 >= args.length) throw new UsageError(`flag ${name} needs a value`);
    return [args[i + 1], i + 1];
  };
  const first = args[0] === "apply-weights" ? 1 : 0;
  if (first) flags.applyWeights = true;
  for (let i = first; i < args.length; i++) {
    const arg = args[i];
    const name = arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg;
    let v;
    const verifyFlagEnd = flags.applyWeights ? -1 : parseVerifyFlag(name, arg, i, flags, valueOf);
    if (verifyFlagEnd >= 0) i = verifyFlagEnd;
    else if (name === "-h" || name === "--help") flags.help = true;
    else if (name === "--version") flags.version = true;
    else if (name === "--list-ops") flags.listOps = true;
    else if (name === "--list-refused") flags.listRefused = true;
    else if (name === "--inspect") flags.inspect = true;
    else if (name === "--json") flags.json = true;
    else if (name === "-q" || name === "--quiet") flags.quiet = true;
    else if (name === "--check") flags.check = true;
    else if (name === "--external-data") flags.external = "always";
    else if (name === "--no-external-data") flags.external = "never";
    else if (name === "--no-optimize") flags.optimize = false;
    else if (name === "--no-weights") flags.includeWeights = false;
    else if (name === "--weights-as-inputs") flags.weightsAsInputs = true;
    else if (name === "-o" || name === "--output") [flags.output, i] = valueOf(i, name);
    else if (name === "--model") [flags.modelName, i] = valueOf(i, name);
    else if (name === "--from" && flags.applyWeights) [flags.weightsFrom, i] = valueOf(i, name);
    else if (name === "--translations") {
      let path;
      [path, i] = valueOf(i, name);
      flags.translations.push(path);
    } else if (name === "--override") flags.overrideBuiltins = true;
    else if (name === "--translations-as-functions") flags.translationsAsFunctions = true;
    else if (name === "--kv-cache") {
      [v, i] = valueOf(i, name);
      if (v !== "dynamic" && v !== "static") throw new UsageError(`--kv-cache '${v}' is not a cache form; use dynamic or static`);
      flags.kvCache = v;
    } else if (name === "--opset") {
      [v, i] = valueOf(i, name);
      const n = /^[+-]?\d+$/.test(v.trim()) ? Number(v) : NaN;
      if (!(n >= 18 && n <= 26)) throw new UsageError(`--opset '${v}' is not supported; use 18..26`);
      flags.opset = n;
      flags.opsetGiven = true;
    } else if (name === "--input-names" || name === "--output-names") {
      [v, i] = valueOf(i, name);
      const names = v.split(",").map((s) => s.trim());
      if (names.includes("")) throw new UsageError(`${name} has an empty name`);
      flags[name === "--input-names" ? "inputNames" : "outputNames"] = names;
    } else if (name === "--dim-name") {
      [v, i] = valueOf(i, name);
      const eq = v.indexOf("=");
      const [sym, to] = eq < 0 ? [v, ""] : [v.slice(0, eq), v.slice(eq + 1)];
      if (sym === "" || to === "") throw new UsageError(`--dim-name '${v}' should look like SYMBOL=NAME, e.g. s0=batch`);
      flags.dimNames[sym] = to;
    } else if (arg.startsWith("-") && arg !== "-") {
      throw new UsageError(`unknown flag '${arg}' (see --help)`);
    } else if (flags.input === undefined) {
      flags.input = arg;
    } else {
      throw new UsageError(`unexpected argument '${arg}': give one input file (and the output with -o)`);
    }
  }
  if (flags.help || flags.version || flags.listOps || flags.listRefused) return flags;
  if (flags.applyWeights) {
    if (flags.input === undefined || flags.weightsFrom === undefined || flags.output === undefined) {
      throw new UsageError("usage: pt2onnx apply-weights MODEL.onnx --from OTHER.pt2 -o OUT.onnx");
    }
    if (flags.includeWeights === false || flags.weightsAsInputs || flags.inspect) {
      throw new UsageError("apply-weights keeps the model's graph as it is: --no-weights, --weights-as-inputs and " +
        "--inspect do not apply");
    }
    if (flags.output === flags.input || flags.output === flags.weightsFrom) {
      throw new UsageError("the output path equals an input path");
    }
    if (flags.check) throw new UsageError("--check needs the native pt2onnx (the ONNX checker is not in the WebAssembly build)");
    return flags;
  }
  if (flags.input === undefined) throw new UsageError("no input file given (usage: pt2onnx MODEL.pt2 -o MODEL.onnx)");
  flags.outputGiven = flags.output !== undefined;
  flags.output ??= (flags.input.endsWith(".pt2") ? flags.input.slice(0, -4) : flags.input) + ".onnx";
  if (flags.output === flags.input && !flags.inspect) throw new UsageError("the output path equals the input path");
  if (flags.translationsAsFunctions && flags.translations.length === 0) {
    throw new UsageError("--translations-as-functions needs a library (--translations FILE)");
  }
  if (flags.check && !flags.inspect) {
    throw new UsageError("--check needs the native pt2onnx (the ONNX checker is not in the WebAssembly build)");
  }
  if (flags.kvCache === "static" && flags.opset < 24) {
    throw new UsageError("--kv-cache static needs --opset 24 or higher (TensorScatter); add --opset 24");
  }
  if (flags.kvCache === "static" && flags.verify) {
    throw new UsageError("--verify runs the program's own inputs, which --kv-cache static replaces (buffers and " +
      "past_length): verify the default form, whose numbers the static form keeps, or convert the export folder " +
      "and run verify-generation on it with the native pt2onnx");
  }
  checkVerifyFlags(flags, UsageError);
  if (isFolder(flags.input)) checkFolderFlags(flags, UsageError);
  return flags;
}

function readInput(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch (e) {
    throw new ConversionError("io", `cannot open '${path}': ${e.code === "ENOENT" ? "No such file or directory" : e.message}`);
  }
  if (!stat.isFile()) throw new ConversionError("invalid_input", `'${path}' is not a regular file`);
  try {
    return new Uint8Array(readFileSync(path));
  } catch (e) {
    throw new ConversionError("io", `cannot read '${path}': ${e.message}`);
  }
}

// Writes `blob` to a temporary file beside `path`; returns its name (renamed later, removed on error).
async function writeTemp(path, blob, temps) {
  const temp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  let fd;
  try {
    fd = openSync(temp, "wx");
    temps.push(temp);
    const CHUNK = 64 << 20;
    for (let at = 0; at < blob.size; at += CHUNK) {
      const bytes = new Uint8Array(await blob.slice(at, at + CHUNK).arrayBuffer());
      for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off);
    }
    fsyncSync(fd);
  } catch (e) {
    throw new ConversionError("io", fd === undefined ? `cannot create '${path}': ${e.message}`
      : `writing '${path}' failed: ${e.message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return temp;
}

function record(fields, t0) {
  return `${JSON.stringify({ pt2onnx: version, ...fields, seconds: Math.round(performance.now() - t0) / 1000 })}\n`;
}

// --translations FILE...: the libraries' bytes and the options that carry them.
function translationOptions(flags) {
  if (flags.translations.length === 0) return {};
  const options = { translations: flags.translations.map((path) => readInput(path)) };
  if (flags.overrideBuiltins) options.overrideBuiltins = true;
  return options;
}

// "translations[1]: ..." from the converter names the file it came from, as the native CLI does.
function nameLibrary(e, flags) {
  const m = /^translations\[(\d+)\]: /.exec(e?.message ?? "");
  if (!(e instanceof ConversionError) || !m || flags.translations[Number(m[1])] === undefined) return e;
  return new ConversionError(e.code, `${flags.translations[Number(m[1])]}: ${e.message.slice(m[0].length)}`,
    e.unsupportedOps);
}

async function run(flags) {
  try {
    return await runConversion(flags);
  } catch (e) {
    throw nameLibrary(e, flags);
  }
}

async function runConversion(flags) {
  const t0 = performance.now();
  const log = (line) => { if (!flags.quiet) process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(2).padStart(6)}s] ${line}\n`); };
  if (isFolder(flags.input)) return runFolder(flags, { log, writeTemp });
  const input = readInput(flags.input);
  const libraries = translationOptions(flags);
  if (flags.inspect) {
    const options = { opset: flags.opset, ...(flags.modelName !== undefined ? { modelName: flags.modelName } : {}),
      ...libraries };
    const report = await inspectReport(input, { ...options, fileName: flags.input });
    process.stdout.write(flags.json ? report.json : report.text);
    return EXIT.ok;
  }
  log(`reading ${flags.input}`);
  const options = { opset: flags.opset, externalData: flags.external, optimize: flags.optimize,
    includeWeights: flags.includeWeights ?? true, weightsAsInputs: flags.weightsAsInputs ?? false,
    outputName: basename(flags.output) };
  if (flags.inputNames) options.inputNames = flags.inputNames;
  if (flags.outputNames) options.outputNames = flags.outputNames;
  if (Object.keys(flags.dimNames).length) options.dimNames = flags.dimNames;
  if (flags.modelName !== undefined) options.modelName = flags.modelName;
  if (flags.kvCache !== undefined) options.kvCache = flags.kvCache;
  Object.assign(options, libraries);
  if (flags.translationsAsFunctions) options.translationsAsFunctions = true;
  let r;
  try {
    r = await convert(input, options);
  } catch (e) {
    if (flags.report) await reportFailedConversion(flags, input, options, log);
    throw e;
  }
  for (const line of (r.report ?? "").split("\n").filter(Boolean)) log(line);
  const dataPath = await writeOutputs(flags, r);
  if (flags.verify) {
    const verified = await runVerify(flags, input, options, { log, readInput, writeText });
    if (verified !== EXIT.ok) return verified;
  }
  printRecord(flags, r, dataPath, t0);
  return EXIT.ok;
}

// --report when the conversion fails: verify() renders the report of the failed run (it converts again).
async function reportFailedConversion(flags, input, options, log) {
  try {
    await verify(new File([input], flags.input), { opset: options.opset, optimize: options.optimize,
      outputName: options.outputName, inputNames: options.inputNames, outputNames: options.outputNames,
      dimNames: options.dimNames, modelName: options.modelName });
  } catch (e) {
    if (e?.report) await writeReport(flags, e.report, { log, writeText });
  }
}

// A text file written atomically (the report, the node data).
async function writeText(path, text) {
  const temps = [];
  try {
    const temp = await writeTemp(path, new Blob([text]), temps);
    try {
      renameSync(temp, path);
    } catch (e) {
      throw new ConversionError("io", `cannot move '${path}' into place: ${e.message}`);
    }
    temps.length = 0;
  } finally {
    for (const temp of temps) rmSync(temp, { force: true });
  }
}

// apply-weights: options as the conversion's, less the weights' placement.
async function runApplyWeights(flags) {
  const t0 = performance.now();
  const log = (line) => { if (!flags.quiet) process.stderr.write(`${line}\n`); };
  const model = readInput(flags.input);
  const weights = readInput(flags.weightsFrom);
  const options = { externalData: flags.external, optimize: flags.optimize, outputName: basename(flags.output) };
  if (flags.opsetGiven) options.opset = flags.opset;
  if (flags.inputNames) options.inputNames = flags.inputNames;
  if (flags.outputNames) options.outputNames = flags.outputNames;
  if (Object.keys(flags.dimNames).length) options.dimNames = flags.dimNames;
  if (flags.modelName !== undefined) options.modelName = flags.modelName;
  const named = (bytes, name) => new File([bytes], name);
  const r = await applyWeights(named(model, flags.input), named(weights, flags.weightsFrom), options);
  for (const line of (r.report ?? "").split("\n").filter(Boolean)) log(line);
  printRecord(flags, r, await writeOutputs(flags, r), t0);
  return EXIT.ok;
}

// Writes the model (and its .data); returns the .data path or null.
async function writeOutputs(flags, r) {
  const temps = [];
  try {
    const dataPath = r.data ? `${flags.output}.data` : null;
    const dataTemp = r.data ? await writeTemp(dataPath, r.data, temps) : null;
    const modelTemp = await writeTemp(flags.output, r.onnx, temps);
    try {
      if (dataTemp) renameSync(dataTemp, dataPath);
      renameSync(modelTemp, flags.output);
    } catch (e) {
      throw new ConversionError("io", `cannot move the output into place at '${flags.output}': ${e.message}`);
    }
    temps.length = 0;
    return dataPath;
  } finally {
    for (const temp of temps) rmSync(temp, { force: true });
  }
}

function printRecord(flags, r, dataPath, t0) {
  if (!flags.json || !r.summary) return;
  const s = r.summary;
  process.stdout.write(record({ input: flags.input, ok: true, exitCode: 0, output: flags.output,
    outputBytes: r.onnx.size, data: dataPath, dataBytes: r.data ? r.data.size : 0, opset: s.opset,
    layout: s.layout, torchVersion: s.torchVersion ?? null, fxNodes: s.fxNodes, onnxNodes: s.onnxNodes,
    parameters: s.parameters, initializerBytes: s.initializerBytes, warnings: r.warnings ?? [] }, t0));
}

export async function main(args) {
  if (args[0] === "verify-generation") return runVerifyGeneration(args.slice(1));
  let flags;
  try {
    flags = parseArgs(args);
  } catch (e) {
    process.stderr.write(`pt2onnx: ${e.message}\n`);
    return EXIT.usage;
  }
  if (flags.help) {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (flags.version) {
    process.stdout.write(`pt2onnx ${version}\n`);
    return EXIT.ok;
  }
  if (flags.listOps) {
    process.stdout.write((await supportedOps()).map((op) => `${op}\n`).join(""));
    return EXIT.ok;
  }
  if (flags.listRefused) {
    process.stdout.write((await refusedOps()).map(({ op, reason }) => `${op}\t${reason}\n`).join(""));
    return EXIT.ok;
  }
  const t0 = performance.now();
  try {
    return await (flags.applyWeights ? runApplyWeights(flags) : run(flags));
  } catch (e) {
    const err = e instanceof ConversionError ? e : new ConversionError("internal", String(e?.stack ?? e));
    if (flags.json && !flags.inspect) {
      process.stdout.write(record({ input: flags.input, ok: false, exitCode: err.exitCode, code: err.code,
        message: err.message, unsupportedOps: err.unsupportedOps ?? [] }, t0));
    }
    process.stderr.write(`pt2onnx: error: ${err.message}\n`);
    return err.exitCode;
  }
}

process.exitCode = await main(process.argv.slice(2));
