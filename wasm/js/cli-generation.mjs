// `pt2onnx verify-generation OUTDIR` in node (cli.mjs): greedy generation
// through a converted export folder with generate(), printed and checked as
// the native CLI does (native/folder_command.cc): the token ids on stdout,
// exit 6 when they differ from --expect.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ConversionError, generate, MAX_GENERATED_TOKENS } from "./pt2onnx.mjs";

const EXIT_DIFFERS = 6;

class UsageError extends Error {}

function tokenIds(name, text) {
  const ids = text.split(",").map((s) => s.trim());
  if (ids.length === 0 || ids.some((s) => !/^\d+$/.test(s) || !Number.isSafeInteger(Number(s)))) {
    throw new UsageError(`${name} '${text}' should be token ids separated by commas, e.g. 5,17,3`);
  }
  return ids.map(Number);
}

function parse(args) {
  const flags = { tokens: 8, prompt: [1, 2, 3, 4], quiet: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq >= 0 ? arg.slice(0, eq) : arg;
    const value = () => {
      if (arg.startsWith("--") && eq >= 0) return arg.slice(eq + 1);
      if (i + 1 >= args.length) throw new UsageError(`flag ${name} needs a value`);
      return args[++i];
    };
    if (name === "-q" || name === "--quiet") flags.quiet = true;
    else if (name === "--tokens") {
      const v = value();
      flags.tokens = /^\d+$/.test(v) ? Number(v) : NaN;
      if (!(flags.tokens >= 1 && flags.tokens <= MAX_GENERATED_TOKENS)) {
        throw new UsageError(`--tokens '${v}' is not a count of tokens (1..${MAX_GENERATED_TOKENS})`);
      }
    } else if (name === "--prompt" || name === "--expect") flags[name.slice(2)] = tokenIds(name, value());
    else if (name === "--save-logits") throw new UsageError("--save-logits needs the native pt2onnx");
    else if (name === "--inputs") flags.inputs = value();
    else if (arg.startsWith("-")) throw new UsageError(`unknown flag '${arg}' for verify-generation`);
    else if (flags.folder === undefined) flags.folder = arg;
    else throw new UsageError(`unexpected argument '${arg}': give one converted folder`);
  }
  if (flags.folder === undefined) {
    throw new UsageError("usage: pt2onnx verify-generation OUTDIR --tokens N [--prompt IDS] [--expect IDS]");
  }
  if (flags.expect !== undefined && flags.expect.length !== flags.tokens) {
    throw new UsageError(`--expect lists ${flags.expect.length} tokens but --tokens is ${flags.tokens}`);
  }
  return flags;
}

export async function runVerifyGeneration(args) {
  let flags;
  try {
    flags = parse(args);
  } catch (e) {
    process.stderr.write(`pt2onnx: ${e.message}\n`);
    return 2;
  }
  try {
    let names;
    try {
      names = readdirSync(flags.folder).filter((name) => statSync(join(flags.folder, name)).isFile());
    } catch (e) {
      throw new ConversionError("io", `${flags.folder}: ${e.message}`);
    }
    const files = new Map(names.map((name) => [name, new Uint8Array(readFileSync(join(flags.folder, name)))]));
    let inputs;
    if (flags.inputs !== undefined) {
      try {
        inputs = new Uint8Array(readFileSync(flags.inputs));
      } catch (e) {
        throw new ConversionError("io", `${flags.inputs}: ${e.message}`);
      }
    }
    const { tokens } = await generate(files, { prompt: flags.prompt, tokens: flags.tokens,
      ...(inputs !== undefined ? { inputs } : {}) });
    process.stdout.write(`${tokens.join(" ")}\n`);
    if (flags.expect !== undefined) {
      let at = 0;
      while (at < tokens.length && tokens[at] === flags.expect[at]) at++;
      if (at < flags.expect.length) {
        process.stderr.write(`pt2onnx: error: generated tokens differ from --expect at position ${at}: got ` +
          `${tokens.join(",")}, expected ${flags.expect.join(",")}\n`);
        return EXIT_DIFFERS;
      }
      if (!flags.quiet) process.stderr.write(`the ${flags.expect.length} tokens match --expect\n`);
    }
    return 0;
  } catch (e) {
    const err = e instanceof ConversionError ? e : new ConversionError("internal", String(e?.stack ?? e));
    process.stderr.write(`pt2onnx: error: ${flags.folder}: ${err.message}\n`);
    return err.exitCode;
  }
}
