// The node CLI's --verify, --verify-intermediates, --inputs, --verify-node-data
// and --report (cli.mjs): the native CLI's flags, messages and exit codes
// (native/cli_flags.cc, native/verify_command.cc) on verify() of the ES
// module, which runs the same C++ (export/verify_run). The model is written
// first; verify() converts the .pt2 again in memory with the same options.
import { ConversionError, verify } from "./pt2onnx.mjs";

export const EXIT_VERIFY_FAILED = 6;

/**
 * One verification flag of argv at `i` into `flags`: returns the index of its
 * last argument, or -1 when `name` is not one of them. `valueOf(i, name)`
 * reads a flag's value as cli.mjs does (`--flag=v` or `--flag v`).
 */
export function parseVerifyFlag(name, arg, i, flags, valueOf) {
  if (name === "--verify") {
    flags.verify = true;
  } else if (name === "--verify-intermediates") {
    flags.verify = flags.verifyIntermediates = true;
  } else if (name === "--inputs") {
    [flags.verifyInputs, i] = valueOf(i, name);
  } else if (name === "--verify-node-data") {
    [flags.verifyNodeData, i] = valueOf(i, name);
    flags.verify = flags.verifyIntermediates = true;
  } else if (name === "--report") {
    flags.report = true;
    if (arg.includes("=")) flags.reportPath = arg.slice(arg.indexOf("=") + 1);
  } else {
    return -1;
  }
  return i;
}

/** The checks of native/cli_flags.cc once the output path is known; throws `UsageError`s. */
export function checkVerifyFlags(flags, UsageError) {
  if (flags.verifyInputs !== undefined && !flags.verify) throw new UsageError("--inputs is for --verify (add --verify)");
  if (flags.verifyInputs === "") throw new UsageError("--inputs needs a file (or 'seeded')");
  if (flags.verifyNodeData === "") throw new UsageError("--verify-node-data needs a path prefix");
  if (flags.report && !flags.reportPath) {
    flags.reportPath = (flags.output.endsWith(".onnx") ? flags.output.slice(0, -5) : flags.output) + ".report.md";
  }
  // The report comes from verify(); the conversion alone renders none in this build.
  if (flags.report && !flags.verify) {
    throw new UsageError("--report needs --verify in the node build (the native pt2onnx writes it for a plain " +
      "conversion too)");
  }
  if (flags.verify && flags.translations.length > 0) {
    throw new UsageError("--verify with --translations needs the native pt2onnx (verify() takes no translation " +
      "libraries)");
  }
}

// C's printf("%.<p>g"), as the native CLI prints the differences.
export function formatG(x, precision = 3) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return "0";
  const strip = (s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
  const [mantissa, exponent] = x.toExponential(precision - 1).split("e");
  const e = Number(exponent);
  if (e < -4 || e >= precision) {
    return `${strip(mantissa)}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  return strip(x.toFixed(precision - 1 - e));
}

// native/verify_command.cc's line per compared output.
export function checkLine(c) {
  const kind = c.isOutput ? "output" : "value ";
  if (c.notCompared) return `${kind} ${c.name.padEnd(24)} not compared: ${c.notCompared}`;
  return `${kind} ${c.name.padEnd(24)} max_abs_diff ${formatG(c.max_abs_diff).padEnd(10)} max_rel_diff ` +
    `${formatG(c.max_rel_diff).padEnd(10)} ${(c.passed ? "ok" : "FAIL").padEnd(4)} ` +
    `${c.thresholds.dtype}: ${c.thresholds.text}`;
}

/**
 * Runs verify() on `input` (the .pt2's bytes) with the conversion's `options`
 * and the flags' choices; writes the node data and the report with
 * `writeText(path, text)`. Returns the exit code (0, 6); a run that cannot
 * be made throws its ConversionError (7: an engine cannot run the model),
 * after writing the report of the failed run.
 */
export async function runVerify(flags, input, options, { log, readInput, writeText }) {
  const verifyOptions = { intermediates: !!flags.verifyIntermediates };
  for (const key of ["opset", "inputNames", "outputNames", "dimNames", "modelName", "optimize", "outputName"]) {
    if (options[key] !== undefined) verifyOptions[key] = options[key];
  }
  if (flags.verifyInputs === "seeded") verifyOptions.inputs = "seeded";
  else if (flags.verifyInputs !== undefined) verifyOptions.inputs = new File([readInput(flags.verifyInputs)], flags.verifyInputs);
  let result;
  try {
    result = await verify(new File([input], flags.input), verifyOptions);
  } catch (e) {
    if (e instanceof ConversionError && flags.report && e.report) await writeReport(flags, e.report, { log, writeText });
    throw e;
  }
  log(`verify: inputs ${result.inputsSource}`);
  for (const line of result.inputLines) log(`  ${line}`);
  for (const { stage, seconds } of result.timings) {
    if (stage === "verify: reference" || stage === "verify: onnx") {
      log(`verify: ${stage === "verify: reference" ? "reference interpreter" : "executor"} ${seconds.toFixed(3)} s`);
    }
  }
  if (flags.verifyNodeData !== undefined) {
    for (const field of ["max_abs_diff", "max_rel_diff"]) {
      const path = `${flags.verifyNodeData}_${field}.json`;
      await writeText(path, result.nodeData[field]);
      log(`verify: wrote ${path}`);
    }
  }
  if (!flags.quiet) for (const c of result.outputs) process.stderr.write(`         ${checkLine(c)}\n`);
  if (result.passed) log(`verify: ${result.summary}`);
  else process.stderr.write(`pt2onnx: error: ${result.message}\n`);
  if (flags.report) await writeReport(flags, result.report, { log, writeText });
  return result.passed ? 0 : EXIT_VERIFY_FAILED;
}

/** Writes the report to flags.reportPath; a failure is printed, not thrown (the run's exit code stands). */
export async function writeReport(flags, text, { log, writeText }) {
  try {
    await writeText(flags.reportPath, text);
    log(`wrote report ${flags.reportPath}`);
  } catch (e) {
    process.stderr.write(`pt2onnx: error: cannot write the report: ${e.message}\n`);
  }
}
