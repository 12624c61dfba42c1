// Why a result's counts differ from what inspect() showed for the same file (pure, tested under node):
// inspect() counts every FX node (subgraphs included) and every named weight of the .pt2; the result
// counts the main graph's FX nodes, and the ONNX initializers after translation and the optimizer.

import { formatBytes } from "./format.mjs";

// What the passes that change weights do, in a user's words; other passes go by their name.
const PASS_WORDS = {
  initializer_deduplication: "equal weights merged",
  dead_code_elimination: "unused nodes and weights dropped",
  constant_folding: "computed ahead of time",
  conv_batchnorm_folding: "batch norms folded into their convolutions",
  lift_constants: "constants made weights",
  common_subexpression_elimination: "repeated computations merged",
  identity_elimination: "identities removed",
  matmul_add_to_gemm: "MatMul + Add fused into Gemm",
};

const fmt = new Intl.NumberFormat("en-US");
const signed = (removed, added, unit = (n) => fmt.format(n)) =>
  [removed ? `−${unit(removed)}` : "", added ? `+${unit(added)}` : ""].filter(Boolean).join(" ");
const passLabel = (name) => (PASS_WORDS[name] ? `${name} (${PASS_WORDS[name]})` : name);
const sum = (list, key) => list.reduce((n, x) => n + (x[key] ?? 0), 0);

/**
 * `summary`: a convert() result's summary; `inspection`: inspect()'s result for the same file and
 * options, or null. Returns the sentences that explain the differences ({ nodes, optimizer, weights },
 * each a string or null when there is nothing to explain).
 */
export function explainCounts(summary, inspection) {
  const passes = summary.passes ?? [];
  const out = { nodes: null, optimizer: null, weights: null };

  if (inspection && inspection.fxNodes !== summary.fxNodes) {
    const inner = inspection.fxNodes - summary.fxNodes;
    out.nodes = inner > 0
      ? `The program has ${fmt.format(inspection.fxNodes)} FX nodes: ${fmt.format(summary.fxNodes)} in its main ` +
        `graph and ${fmt.format(inner)} inside the subgraphs of its control flow (cond, while_loop, map), ` +
        "which are translated with the node that calls them."
      : `The program has ${fmt.format(inspection.fxNodes)} FX nodes; the conversion counted ` +
        `${fmt.format(summary.fxNodes)}.`;
  }

  const nodePasses = passes.filter((p) => p.nodesRemoved || p.nodesAdded);
  if (summary.onnxNodesTranslated !== summary.onnxNodes || nodePasses.length) {
    out.optimizer = `Translation gave ${fmt.format(summary.onnxNodesTranslated)} ONNX nodes, the optimizer ` +
      `left ${fmt.format(summary.onnxNodes)}` + (nodePasses.length === 0 ? "." : ": " +
      nodePasses.map((p) => `${passLabel(p.name)} ${signed(p.nodesRemoved, p.nodesAdded)}`).join(", ") + ".");
  }

  if (inspection) {
    const stored = sum(inspection.weights ?? [], "bytes");
    const removed = sum(passes, "weightBytesRemoved");
    const added = sum(passes, "weightBytesAdded");
    const translated = summary.initializerBytes + removed - added;
    const parts = [];
    if (translated < stored) {
      parts.push(`Translation wrote ${formatBytes(translated)} of the ${formatBytes(stored)} of weights in the ` +
        ".pt2 (inspect counts each name): weights the program never reads are left out, and a tensor kept " +
        "under two names (tied weights) is written once.");
    } else if (translated > stored) {
      parts.push(`The .pt2 holds ${formatBytes(stored)} of weights; translation wrote ${formatBytes(translated)}, ` +
        "with the constants the program builds from numbers in its code.");
    }
    const weightPasses = passes.filter((p) => p.weightBytesRemoved || p.weightBytesAdded);
    if (weightPasses.length) {
      parts.push(`The optimizer then changed the weights to ${formatBytes(summary.initializerBytes)}: ` +
        weightPasses.map((p) => `${passLabel(p.name)} ${signed(p.weightBytesRemoved, p.weightBytesAdded, formatBytes)}`)
          .join(", ") + ".");
    }
    if (parts.length) out.weights = parts.join(" ");
  }
  return out;
}
