// Type declarations for the pt2onnx ES module: PyTorch exported programs
// (.pt2 files written by torch.export.save) to ONNX, in the browser or node.
//
//   import { convert } from "pt2onnx";
//   const result = await convert(file, { opset: 20 });
//   // result.onnx (and result.data for external weights) are Blobs.

/** Where the weights go: inside the .onnx, or in a separate `.onnx.data` file. */
export type ExternalData = "auto" | "always" | "never";

export interface ProgressEvent {
  /** "read" the archive, "translate" ATen to ONNX, "optimize", "write" the output. */
  stage: "read" | "translate" | "optimize" | "write";
  /** Fraction of the stage done, 0..1. */
  fraction: number;
}

/** The same options as the native CLI (`pt2onnx --help`). */
export interface ConvertOptions {
  /** ONNX opset, 18..26 (default 20, as torch.onnx). */
  opset?: number;
  /**
   * "static" (opset >= 24): a decode program's growing key/value caches become fixed-size buffers written by
   * TensorScatter, with a scalar int64 past_length input per group of caches; the model's metadata_props
   * "pt2onnx.kv_cache" describes the layout (docs/kv-cache.md). Default "dynamic". Not with verify().
   */
  kvCache?: "dynamic" | "static";
  /** "auto" (default) switches to external data above 1.5 GiB of weights, as torch.onnx. */
  externalData?: ExternalData;
  /** New names for the graph inputs, in order (a prefix may be given). */
  inputNames?: string[];
  /** New names for the graph outputs, in order. */
  outputNames?: string[];
  /** Symbolic dimension renames, e.g. { s0: "batch" }. */
  dimNames?: Record<string, string>;
  /** Program to convert in a multi-model archive (default: the only one, or "model"). */
  modelName?: string;
  /** Run the graph optimizations (default true). */
  optimize?: boolean;
  /**
   * false: the graph without its initializers (CLI --no-weights; torch.onnx's
   * save(include_initializers=False)); no external data is written. Default true.
   */
  includeWeights?: boolean;
  /** Also list the initializers as graph inputs (CLI --weights-as-inputs). Default false. */
  weightsAsInputs?: boolean;
  /**
   * ONNX function libraries (CLI --translations FILE): the bytes of a
   * ModelProto whose functions translate more operators; a function's
   * domain::name is the operator's namespace::op.overload
   * (mylib::fused_gelu.default). A function for an operator pt2onnx already
   * translates is a usage error unless `overrideBuiltins`.
   */
  translations?: Uint8Array | ArrayBuffer | Array<Uint8Array | ArrayBuffer>;
  /** Library functions replace pt2onnx's own translations (CLI --override). Default false. */
  overrideBuiltins?: boolean;
  /**
   * Keep each library function used as a model-local ONNX function, called by
   * one node per use (CLI --translations-as-functions). Default false: the
   * function bodies are inlined.
   */
  translationsAsFunctions?: boolean;
  /**
   * File name of the ONNX model (default: the input File's name with .onnx
   * instead of .pt2, else "model.onnx"). The external data file is this name
   * + ".data"; the model refers to it by that name, so keep the two together.
   */
  outputName?: string;
  /**
   * Called as the conversion advances. Through a page's worker: at each new
   * stage and at most once per 16 ms within one.
   */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Cancels the call: it rejects with a DOMException named "AbortError". On a
   * page the worker running it is terminated at once (the WebAssembly call
   * cannot be interrupted from inside) and the next call starts a new one; in
   * a worker or in node the conversion runs synchronously once started, so
   * the signal is checked before and after it.
   */
  signal?: AbortSignal;
  /**
   * Where pt2onnx-worker.mjs is (default: beside pt2onnx.mjs). From another
   * origin (a CDN) the worker is started through a same-origin blob: URL that
   * imports it, so the CDN must serve it, pt2onnx.mjs and the core with CORS.
   */
  workerUrl?: string | URL;
}

export interface TensorInfo {
  name: string;
  /** ONNX element type name: "float32", "int64", "bfloat16", ... */
  dtype: string;
  /** Dimensions: numbers, or names of symbolic dimensions ("s0", "batch"). */
  shape: Array<number | string>;
}

export interface ModelSummary {
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  /** ONNX op_type -> number of nodes. */
  opHistogram: Record<string, number>;
  /** Number of weight elements. */
  parameters: number;
  /** Bytes of all weights. */
  initializerBytes: number;
  opset: number;
  fxNodes: number;
  onnxNodes: number;
  /** ONNX nodes as translated, before the optimizer (onnxNodes is after it). */
  onnxNodesTranslated: number;
  /** "PT2 archive" or "legacy zip (torch 2.6/2.7)". */
  layout: string;
  /** torch version that exported the program ("" if unrecorded). */
  torchVersion: string;
  /** Export schema version, "8.17". */
  schemaVersion: string;
  /**
   * The optimizer passes that changed the model, in first-run order: nodes
   * removed and added (subgraphs included), and bytes of weights
   * (initializers) removed and added, e.g. tied weights merged or a batch
   * norm folded into its convolution. Empty without optimization.
   */
  passes: Array<{ name: string; nodesRemoved: number; nodesAdded: number; weightBytesRemoved: number;
    weightBytesAdded: number }>;
}

export interface ConversionResult {
  /**
   * The ONNX model. Weights that need no change are slices of the input, not copies. Built when first
   * read (then the same Blob): building it copies the written bytes into the browser's blob store.
   */
  readonly onnx: Blob;
  onnxName: string;
  /** External weights (null when they are inside `onnx`); built when first read, as `onnx`. */
  readonly data: Blob | null;
  dataName: string | null;
  /**
   * The model's bytes in a new Uint8Array, for an embedder that wants bytes (an
   * ONNX runtime, run()): assembled from the result's parts without building
   * the Blob (one copy; a Blob then read back costs a copy into the browser's
   * blob store and an asynchronous read). The whole model in memory: for a
   * large one keep the Blob. Same bytes as `onnx`; a fresh array each call.
   */
  onnxBytes(): Promise<Uint8Array>;
  /** The external weights' bytes, as onnxBytes(); null when they are inside the model. */
  dataBytes(): Promise<Uint8Array | null>;
  summary: ModelSummary;
  warnings: string[];
  /** The conversion report, the lines the CLI prints. */
  report: string;
}

/**
 * Error codes, one per CLI exit code (docs/cli.md, "Exit codes"), plus "load": the
 * module's own files (pt2onnx-core.wasm, the worker) could not be loaded.
 */
export type ErrorCode = "internal" | "usage" | "io" | "invalid_input" | "unsupported" | "load"
  /** verify(): an engine cannot run the model (CLI exit 7). */
  | "verify_unavailable";

export declare class ConversionError extends Error {
  readonly name: "ConversionError";
  readonly code: ErrorCode;
  /** The exit code the CLI uses for the same error ("load": 1). */
  readonly exitCode: number;
  /**
   * For code "unsupported": the ATen operators with no translation, one entry
   * each, e.g. "aten::eye.default x1 (first at node 'eye')".
   */
  readonly unsupportedOps: string[];
  /**
   * From verify() when the conversion or an engine failed: the markdown report
   * the CLI's --report writes for that run (status, error, program, analysis).
   */
  readonly report?: string;
  /** From convertFolder(): the folder's file at fault ("export.json", "decode.pt2"). */
  readonly file?: string;
}

/**
 * Converts a .pt2 file. A File or Blob is read piece by piece: only the archive
 * directory and the program description are copied into WebAssembly memory, so
 * models of several GB convert in a browser tab. On a page's main thread the
 * work runs in a Web Worker started by this module; in a worker and in node it
 * runs in place. Rejects with a ConversionError.
 */
export declare function convert(
  input: Blob | ArrayBuffer | Uint8Array,
  options?: ConvertOptions,
): Promise<ConversionResult>;

/** Options of applyWeights(): convert()'s, less where the weights go in the graph. */
export type ApplyWeightsOptions = Omit<ConvertOptions, "includeWeights" | "weightsAsInputs">;

/** What applyWeights() gives: the model with the new weights. */
export interface AppliedWeights {
  /** The ONNX model; weights are slices of `pt2`, not copies. Built when first read, as convert()'s. */
  readonly onnx: Blob;
  /** outputName (default: `onnx`'s file name, else "model.onnx"). */
  onnxName: string;
  /** External weights (null when they are inside `onnx`), by convert()'s rules. */
  readonly data: Blob | null;
  dataName: string | null;
  /** `onnx`'s bytes in a new Uint8Array, as ConversionResult.onnxBytes(). */
  onnxBytes(): Promise<Uint8Array>;
  /** `data`'s bytes, or null, as ConversionResult.dataBytes(). */
  dataBytes(): Promise<Uint8Array | null>;
  /** What the CLI's apply-weights logs. */
  report: string;
}

/**
 * The ONNX model `onnx` (typically converted with includeWeights: false) with
 * the weights of `pt2`, another .pt2 of the same program (a fine-tuned
 * checkpoint): the bytes the CLI's `apply-weights` writes, which equal a
 * direct conversion of `pt2` with the same options. The opset is the model's
 * unless options.opset is given. Rejects with a ConversionError
 * "invalid_input" naming the first weights that do not fit (missing, unused,
 * another dtype or shape) or when `onnx` is not an ONNX model.
 */
export declare function applyWeights(
  onnx: Blob | ArrayBuffer | Uint8Array,
  pt2: Blob | ArrayBuffer | Uint8Array,
  options?: ApplyWeightsOptions,
): Promise<AppliedWeights>;

/** Options of convertFolder(): the folder names its inputs, outputs and dims, and its weights always go apart. */
export type FolderOptions = Pick<ConvertOptions, "opset" | "optimize" | "includeWeights" | "weightsAsInputs" |
  "kvCache" | "onProgress" | "signal" | "workerUrl">;

/** One file of convertFolder()'s output folder. */
export interface FolderFile {
  /** "prefill.onnx", "prefill.onnx.data", "export.json". */
  name: string;
  blob: Blob;
}

/** What convertFolder() gives: the files `pt2onnx DIR -o OUTDIR` writes, in the same order. */
export interface FolderResult {
  files: FolderFile[];
  /** Per component of the manifest, in its order. */
  components: { name: string; onnxName: string; dataName: string; parameters: number }[];
  /** Weight bytes (and tensors) a later component references in an earlier one's data file. */
  sharedBytes: number;
  sharedTensors: number;
  /** What the CLI logs. */
  report: string;
}

/**
 * Converts a model library's export folder: transformers' exporters write
 * export.json and one .pt2 per component (prefill.pt2, decode.pt2), and the
 * result is the ONNX folder transformers' own ONNX exporter writes
 * (<component>.onnx, <component>.onnx.data, export.json), byte for byte what
 * the CLI's `pt2onnx DIR -o OUTDIR` writes. `files` are the folder's files
 * by name: a Map or an object of name -> input, or an array / FileList of
 * Files (a directory picker's, named by their path inside the folder).
 * Weights are copied into the outputs (a component's weights may be another's:
 * each is written once). Rejects with a ConversionError whose `file` names the
 * file at fault.
 */
export declare function convertFolder(
  files: Map<string, Blob | ArrayBuffer | Uint8Array> | Record<string, Blob | ArrayBuffer | Uint8Array> |
    ArrayLike<File>,
  options?: FolderOptions,
): Promise<FolderResult>;

/** Options of generate(). */
export interface GenerateOptions {
  /** The prompt's token ids (default [1, 2, 3, 4]). */
  prompt?: number[];
  /** How many tokens to generate, 1..MAX_GENERATED_TOKENS (default 8). */
  tokens?: number;
  /**
   * An .npz of arrays every step takes by input name, as the CLI's --inputs: an encoder-decoder export's
   * components take the encoder's output (`encoder_outputs.last_hidden_state`).
   */
  inputs?: Blob | ArrayBuffer | Uint8Array;
  signal?: AbortSignal;
  workerUrl?: string | URL;
}

export interface Generation {
  /** The generated token ids, in order (the first comes from prefill). */
  tokens: number[];
  /** The logits the last token was picked from. */
  lastLogits: Float32Array;
}

export declare const MAX_GENERATED_TOKENS: number;

/**
 * Greedy generation through a converted export folder (the files convertFolder()
 * returns, or what `pt2onnx DIR -o OUTDIR` wrote: export.json, the components'
 * .onnx and .onnx.data, config.json) in pt2onnx's executor, as the CLI's
 * `pt2onnx verify-generation OUTDIR`: prefill on the prompt, decode once per
 * further token (a --kv-cache static decode gets buffers filled by the loop),
 * the argmax of the last position's logits. Rejects with a ConversionError:
 * `io` (a file is missing), `invalid_input` (not a converted generation
 * folder), `verify_unavailable` (the executor cannot run a component).
 */
export declare function generate(
  files: Map<string, Blob | ArrayBuffer | Uint8Array> | Record<string, Blob | ArrayBuffer | Uint8Array> |
    ArrayLike<File>,
  options?: GenerateOptions,
): Promise<Generation>;

/** Options of inspect(): which program, and the opset support is checked at. */
export interface InspectOptions {
  /** ONNX opset, 18..26 (default 20): operators are marked supported at this opset. */
  opset?: number;
  /** Program to describe in a multi-model archive (default: the only one, or "model"). */
  modelName?: string;
  /** As for convert(): operators the libraries translate are marked supported. */
  translations?: Uint8Array | ArrayBuffer | Array<Uint8Array | ArrayBuffer>;
  /** As for convert(). */
  overrideBuiltins?: boolean;
  /** As for convert(). */
  signal?: AbortSignal;
  /** As for convert(). */
  workerUrl?: string | URL;
}

/** A symbol's range from the program's range constraints; null bounds are unbounded. */
export interface SymbolRange {
  min: number | null;
  max: number | null;
}

export interface InspectedValue {
  name: string;
  /** "tensor", or a symbolic scalar input/output: "SymInt", "SymFloat", "SymBool". */
  kind: "tensor" | "SymInt" | "SymFloat" | "SymBool";
  /** ONNX element type name: "float32", "int64", ... */
  dtype: string;
  /** Static sizes as numbers, symbolic ones as their ONNX dim_param ("s27", "2*s27"). */
  shape: Array<number | string>;
  /** The symbolic dims at their axis, with the range of a plain symbol (else null). */
  dims: Array<{ axis: number; name: string; range: SymbolRange | null }>;
}

/** What inspect() returns: the same object `pt2onnx MODEL.pt2 --inspect --json` prints. */
export interface Inspection {
  /** pt2onnx version. */
  pt2onnx: string;
  /** "PT2 archive" or "legacy zip (torch 2.6/2.7)". */
  layout: string;
  /** Root folder of the archive ("model/"), "" for the legacy zip. */
  archiveRoot: string;
  /** Program described ("model"). */
  model: string;
  schemaVersion: string;
  /** torch version that exported the program, null if unrecorded. */
  torchVersion: string | null;
  opset: number;
  /** User inputs, in order (the ONNX graph inputs). */
  inputs: InspectedValue[];
  /** User outputs, in order. */
  outputs: InspectedValue[];
  /**
   * Symbols by first appearance walking the inputs and their dims in order
   * (then outputs, then the rest of the graph), with where inputs and
   * outputs use them ("x[0]"). Rename one with dimNames: { s27: "seq" }.
   */
  symbols: Array<{ name: string; range: SymbolRange | null; uses: string[] }>;
  /** FX nodes, subgraphs included. */
  fxNodes: number;
  /** FX targets by first appearance, with node counts and support at `opset`. */
  ops: Array<{ target: string; key: string; count: number; supported: boolean }>;
  /** The operators convert() would reject, as its error lists them. */
  unsupported: Array<{ key: string; count: number; firstNode: string }>;
  /** What to do about `unsupported` (null when empty). */
  advice: string | null;
  /** Weights (parameters, buffers, constants) per dtype. */
  weights: Array<{ dtype: string; count: number; elements: number; bytes: number }>;
  warnings: string[];
}

/**
 * Describes a .pt2 without converting it: inputs and outputs with their
 * symbolic dims and ranges, symbols in input order, operators (unsupported
 * ones marked), weights, layout. Resolves even when operators are
 * unsupported; rejects with a ConversionError (same code and message as
 * convert()) for a file that is not a readable .pt2. Runs in a Web Worker on
 * a page's main thread, like convert().
 */
export declare function inspect(
  input: Blob | ArrayBuffer | Uint8Array,
  options?: InspectOptions,
): Promise<Inspection>;

/**
 * What `pt2onnx FILE --inspect` prints (`text`) and the exact JSON text of
 * `--inspect --json` (`json`); the node CLI prints these. Runs in place (in
 * node or a worker; on a page's main thread pass a Uint8Array).
 */
export declare function inspectReport(
  input: Blob | ArrayBuffer | Uint8Array,
  options?: {
    opset?: number;
    modelName?: string;
    fileName?: string;
    translations?: Uint8Array | ArrayBuffer | Array<Uint8Array | ArrayBuffer>;
    overrideBuiltins?: boolean;
  },
): Promise<{ text: string; json: string }>;

/** The ATen overloads pt2onnx translates ("aten::add.Tensor", ...). */
export declare function supportedOps(options?: { workerUrl?: string | URL }): Promise<string[]>;

/** The overloads pt2onnx deliberately does not translate, each with the reason its error gives
 * ("prims::*" stands for every prims operator). */
export declare function refusedOps(options?: { workerUrl?: string | URL }): Promise<{ op: string; reason: string }[]>;

/** pt2onnx version. */
export declare const version: string;

// ---------------------------------------------------------------------------
// The executor: runs ONNX models (those pt2onnx writes, opsets 18-26) in
// WebAssembly with XNNPACK's SIMD kernels, on the calling thread, 1 thread.

/** Element types and the typed array that holds each (float16/bfloat16 as raw bits). */
export interface TensorArrays {
  float32: Float32Array; float64: Float64Array; float16: Uint16Array; bfloat16: Uint16Array;
  int8: Int8Array; int16: Int16Array; int32: Int32Array; int64: BigInt64Array;
  uint8: Uint8Array; uint16: Uint16Array; uint32: Uint32Array; uint64: BigUint64Array; bool: Uint8Array;
}
export type TensorDtype = keyof TensorArrays;
export type TensorArray = TensorArrays[TensorDtype];

/** An input: row-major values in the typed array of the input's dtype, and its dims. */
export interface TensorInput {
  data: TensorArray;
  dims: number[];
}

/** An output: a fresh typed array (owned by the caller), its dims and dtype. */
export interface TensorOutput {
  dtype: TensorDtype;
  dims: number[];
  data: TensorArray;
}

/** A graph input or output as the model declares it. */
export interface SessionValue {
  name: string;
  dtype: TensorDtype;
  /** Static sizes as numbers, symbolic dims by name ("s27"), unknown ones null; null: no shape. */
  dims: Array<number | string | null> | null;
}

/**
 * Why run() / createSession() failed. `exitCode` is what `onnxrun` exits with
 * for the same error: "usage" 2 (bad arguments), "invalid_input" 4 (not an
 * ONNX model, or inputs whose dtype, rank or dims the model does not accept,
 * a missing or unknown input; the message names the input), "unsupported" 5
 * (an op or dtype the executor cannot run, named), "internal"/"load" 1.
 */
export declare class RunError extends Error {
  readonly name: "RunError";
  readonly code: "usage" | "invalid_input" | "unsupported" | "internal" | "load";
  readonly exitCode: number;
}

/** A model prepared once (weights packed) and run many times. */
export interface InferenceSession {
  readonly inputs: SessionValue[];
  readonly outputs: SessionValue[];
  /** Outputs by name, in graph order. Rejects with a RunError. */
  run(inputs: Record<string, TensorInput>): Promise<Record<string, TensorOutput>>;
  /** The same, synchronously (throws a RunError). */
  runSync(inputs: Record<string, TensorInput>): Record<string, TensorOutput>;
  /** Frees the session's WebAssembly memory now (also done when it is garbage-collected). */
  release(): void;
}

/**
 * Prepares an ONNX model (no external data) for runs. Blocks the calling
 * thread while it runs: on a page, call it from a worker for big models.
 */
export declare function createSession(model: Blob | ArrayBuffer | Uint8Array): Promise<InferenceSession>;

/**
 * Runs an ONNX model once: `run(onnxBytes, { x: { data: new Float32Array(...), dims: [1, 3, 32, 32] } })`
 * resolves to `{ y: { dtype: "float32", dims: [1, 10], data: Float32Array } }`.
 * Same as createSession(model) then session.run(inputs) and release().
 */
export declare function run(
  model: Blob | ArrayBuffer | Uint8Array,
  inputs: Record<string, TensorInput>,
): Promise<Record<string, TensorOutput>>;

// ---------------------------------------------------------------------------
// verify(): the CLI's --verify. pt2onnx's ATen reference interpreter runs the
// program, its executor runs the converted model, on the same inputs; every
// output (and with `intermediates` every FX value kept under its name) is
// compared as torch.onnx's VerificationInfo. Same C++ as the CLI: the same
// numbers, the same seeded inputs, the same report.

/** Values for the program's user inputs, by placeholder name. */
export interface VerifyTensor {
  data: TensorArray;
  dims: number[];
  /** Default: the typed array's (Uint8Array is uint8; give "bool" for a mask). */
  dtype?: TensorDtype;
}

export interface VerifyOptions {
  opset?: number;
  inputNames?: string[];
  outputNames?: string[];
  dimNames?: Record<string, string>;
  modelName?: string;
  optimize?: boolean;
  /** The converted model's name in the report. */
  outputName?: string;
  /** As for convert() (CLI --translations, --override, --translations-as-functions). */
  translations?: Uint8Array | ArrayBuffer | Array<Uint8Array | ArrayBuffer>;
  overrideBuiltins?: boolean;
  translationsAsFunctions?: boolean;
  /** Compare every intermediate value too (--verify-intermediates). Default false. */
  intermediates?: boolean;
  /**
   * The inputs (--inputs): the bytes of an .npz, "seeded" (the CLI's seeded
   * values, seed 0), or typed arrays by input name. Default: the example
   * inputs the archive stores, else seeded.
   */
  inputs?: Uint8Array | ArrayBuffer | Blob | "seeded" | Record<string, VerifyTensor>;
  /** Stages "read", "translate", "optimize", then "reference", "onnx", "compare" (and "intermediates" when an output differs). */
  onProgress?: (event: { stage: string; fraction: number }) => void;
  /** Cancels: on a page the worker is terminated (as for convert()). */
  signal?: AbortSignal;
  workerUrl?: string | URL;
}

/** One compared value: torch.onnx's VerificationInfo fields, and where the value comes from. */
export interface VerificationInfo {
  name: string;
  max_abs_diff: number;
  max_rel_diff: number;
  /** Counts over the 9 bins of VerificationResult.histogramEdges (torch's). */
  abs_diff_hist: number[];
  rel_diff_hist: number[];
  expected_dtype: string;
  actual_dtype: string;
  /** A shape mismatch ("" if none): then both maxima are Infinity. */
  mismatch: string;
  /** Why the value was not compared ("" if it was): it derives from random numbers (rand, randn, ...), which the
   *  reference interpreter and the model cannot share; then the differences are 0 and `passed` is true. */
  notCompared: string;
  /** Within the thresholds of the expected dtype (`thresholds`): torch.onnx's for float32. */
  passed: boolean;
  /**
   * The rule the value was judged by, per expected dtype. float32 (and float64, integers, bool): torch.onnx's,
   * max_abs_diff < 5e-3 and max_rel_diff < 1e-1 with the relative difference over |expected| + 1e-7, judged
   * only on the elements whose absolute difference reaches relMinAbs (torch.testing's default atol: float32
   * 1e-5, float64 1e-7; 0 for integers and half precision, every element).
   * float16 / bfloat16 / float8: no absolute threshold (maxAbsDiff Infinity), max_rel_diff < a number of units
   * in the last place of the dtype, the relative difference over max(|expected|, relFloor), relFloor being the
   * median of the value's nonzero |expected| (at least the dtype's smallest normal).
   */
  thresholds: { dtype: string; maxAbsDiff: number; maxRelDiff: number; relMinAbs: number; relFloor: number; text: string };
  isOutput: boolean;
  fxNode: string;
  /** "aten::conv2d.default" */
  target: string;
  onnxNode: string;
  onnxOp: string;
  /** The FX node's stack_trace metadata ("" if none). */
  stackTrace: string;
}

export interface VerificationResult {
  /** Every output within its dtype's thresholds. */
  passed: boolean;
  /** The CLI's exit code: 0, or 6 when values differ. */
  exitCode: 0 | 6;
  /** For a failure, the CLI's error message (diverging outputs, first diverging node, its stack trace). */
  message: string;
  /** For a pass: "passed: 2 outputs within their dtype's thresholds (float32: abs < 0.005, ...)". */
  summary: string;
  /** The thresholds applied to the outputs, per dtype: "float32: abs < 0.005, rel < 0.1 where abs >= 1e-05 (torch.onnx's); bfloat16: ...". */
  thresholds: string;
  /** "seeded (seed 0)", "the archive's model/data/sample_inputs/model.pt", "inputs.npz". */
  inputsSource: string;
  inputLines: string[];
  outputs: VerificationInfo[];
  /** FX order; empty without `intermediates` unless an output differs (then the run is repeated with them). */
  intermediates: VerificationInfo[];
  firstDivergence: VerificationInfo | null;
  /** torch's bin edges: [0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 1e6]. */
  histogramEdges: number[];
  /** The markdown report (--report). */
  report: string;
  /** Model Explorer node data (--verify-node-data): the JSON texts. */
  nodeData: { max_abs_diff: string; max_rel_diff: string };
  timings: Array<{ stage: string; seconds: number }>;
}

/** The largest .pt2 verify() takes (1.5 GiB): the whole file enters WebAssembly memory. */
export declare const MAX_VERIFY_BYTES: number;

/**
 * Converts and verifies a .pt2 (`pt2onnx model.pt2 --verify`). Resolves with
 * the comparison whether it passes or not; rejects with a ConversionError when
 * the model cannot be converted, the inputs do not fit ("invalid_input"), an
 * engine cannot run it ("verify_unavailable") or the file is over
 * MAX_VERIFY_BYTES ("unsupported"). On a page it runs in the module's worker.
 */
export declare function verify(
  input: Blob | ArrayBuffer | Uint8Array,
  options?: VerifyOptions,
): Promise<VerificationResult>;
