#include "native/cli_flags.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "export/catalog.h"

namespace pt2onnx::native {
namespace {

std::vector<std::string> SplitNames(absl::string_view text) {
  std::vector<std::string> names;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    names.emplace_back(absl::StripAsciiWhitespace(part));
  }
  return names;
}

// "3,1,4" -> {3, 1, 4}.
absl::StatusOr<std::vector<int64_t>> ParseTokenIds(absl::string_view flag, absl::string_view text) {
  std::vector<int64_t> ids;
  for (const std::string& part : SplitNames(text)) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(part, &id) || id < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, " '", text, "' should be token ids separated by commas, e.g. 1,2,3"));
    }
    ids.push_back(id);
  }
  return ids;
}

}  // namespace

std::string UsageText() {
  return absl::StrCat(
      "pt2onnx: convert a PyTorch exported program (.pt2, from torch.export.save) to ONNX.\n"
      "\n"
      "usage: pt2onnx MODEL.pt2 [-o MODEL.onnx] [options]\n"
      "       pt2onnx DIR -o OUTDIR [options]\n"
      "         (DIR: a transformers.exporters folder, export.json + one .pt2 per component;\n"
      "         OUTDIR gets <component>.onnx, their weights written once, and export.json)\n"
      "       pt2onnx verify-generation OUTDIR [--tokens N] [--prompt IDS] [--expect IDS] [--inputs X.npz]\n"
      "                [--save-logits Y.npz]\n"
      "         (greedy generation through OUTDIR's prefill and decode in the executor; prints\n"
      "         the token ids; exit 6 when they differ from --expect)\n"
      "       pt2onnx apply-weights MODEL.onnx --from OTHER.pt2 -o OUT.onnx [options]\n"
      "         (MODEL.onnx, e.g. written with --no-weights, with OTHER.pt2's weights: same\n"
      "         program, new weights; names, dtypes and shapes are checked)\n"
      "\n"
      "options:\n"
      "  -o, --output PATH        output file (default: MODEL.onnx next to the input)\n"
      "  --opset N                ONNX opset, ", MinOpset(), "..", MaxOpset(),
      " (default ", DefaultOpset(), ", as torch.onnx)\n"
      "  --kv-cache dynamic|static  static (opset >= 24): a decode program's key/value caches\n"
      "                           become fixed-size buffers updated in place by TensorScatter,\n"
      "                           plus a past_length input (docs/kv-cache.md)\n"
      "  --external-data          store weights in PATH.data beside the model (automatic\n"
      "                           above 1.5 GiB of weights; --no-external-data forbids it)\n"
      "  --no-weights             write the graph without its initializers (as torch.onnx's\n"
      "                           save(include_initializers=False)); see apply-weights\n"
      "  --weights-as-inputs      also list the initializers as graph inputs (torch.onnx's\n"
      "                           keep_initializers_as_inputs)\n"
      "  --input-names a,b,...    rename the graph inputs, in order\n"
      "  --output-names a,b,...   rename the graph outputs, in order\n"
      "  --dim-name SYM=NAME      rename a symbolic dimension (e.g. s0=batch); repeatable\n"
      "  --model NAME             program to convert in a multi-model archive\n"
      "  --no-optimize            skip the graph optimizations\n"
      "  --passes a,b,...         run only these optimization passes, in this order, to a\n"
      "                           fixed point (an unknown name lists all)\n"
      "  --print-pass-stats       print nodes removed/added and time per pass\n"
      "  --fold-max-input-elements N / --fold-max-output-elements N\n"
      "                           constant folding size limits (default 8192 / 262144)\n"
      "  --no-crc                 skip the CRC-32 check of the weights (the program JSON and\n"
      "                           pickles are always checked)\n"
      "  --check                  validate the result with the ONNX checker and shape\n"
      "                           inference (onnx 1.21: every opset written)\n"
      "  --translations FILE      ONNX function library (.onnx/.onnxlib) translating more\n"
      "                           operators: function domain::name = op namespace::op.overload\n"
      "                           (e.g. mylib::fused_gelu.default); repeatable\n"
      "  --override               library functions replace pt2onnx's own translations\n"
      "  --translations-as-functions  keep library functions as model-local ONNX functions\n"
      "                           (one per function used) instead of inlining their bodies\n"
      "  --list-ops               print the supported ATen operators and exit\n"
      "  --list-refused           print the operators deliberately not translated, each with\n"
      "                           why (tab-separated), and exit\n"
      "  --inspect                describe MODEL.pt2 without converting it: inputs and outputs\n"
      "                           with their symbolic dims and ranges, symbols in input order,\n"
      "                           operators (unsupported ones marked), weights, layout\n"
      "  --json                   with --inspect: print JSON (what the JS inspect() returns);\n"
      "                           converting: print a one-line JSON record of the run on\n"
      "                           stdout, also on failure (code, message, unsupported ops)\n"
      "  --verify                 run the program in the ATen reference interpreter and the\n"
      "                           model in the executor, compare the outputs as torch.onnx\n"
      "                           does (fails with exit 6 at abs >= 5e-3 or rel >= 1e-1)\n"
      "  --verify-intermediates   also compare every FX value kept in the ONNX graph and name\n"
      "                           the first diverging node\n"
      "  --inputs X.npz           inputs for --verify, by input name (default: the example\n"
      "                           inputs stored in the .pt2, else seeded values from the\n"
      "                           input specs; --inputs seeded forces those)\n"
      "  --verify-node-data PFX   write Model Explorer node data PFX_max_abs_diff.json and\n"
      "                           PFX_max_rel_diff.json (implies --verify-intermediates)\n"
      "  --report[=PATH]          write a markdown report (default MODEL.report.md), also on\n"
      "                           failure\n"
      "  --tokens N               verify-generation: tokens to generate (default 8)\n"
      "  --prompt IDS             verify-generation: prompt token ids, e.g. 5,17,3 (default 1,2,3,4)\n"
      "  --expect IDS             verify-generation: the token ids generation must give\n"
      "  --save-logits Y.npz      verify-generation: write the last token's logits (last_logits)\n"
      "  --inputs X.npz           verify-generation: arrays every step takes by input name (an encoder-\n"
      "                           decoder export's encoder_outputs.last_hidden_state)\n"
      "  -q, --quiet              no progress output\n"
      "  -h, --help               this help\n"
      "  --version                print the version\n"
      "\n"
      "exit codes: 0 ok, 1 internal error, 2 bad command line (or --no-external-data with over\n"
      "2 GiB of weights), 3 cannot read the input or write the output, 4 the input is not a\n"
      "valid .pt2 (or a rename given with --input-names, --output-names or --dim-name clashes\n"
      "with a name in it or matches nothing), 5 the program uses operators or features pt2onnx\n"
      "cannot convert yet, 6 --verify found values beyond torch's thresholds (the model is\n"
      "written), 7 --verify could not run an engine on the model. On errors 1-5 no output\n"
      "file is left behind.\n");
}

absl::StatusOr<CliFlags> ParseCliFlags(const std::vector<std::string>& args) {
  CliFlags flags;
  auto value_of = [&](size_t& i, absl::string_view flag) -> absl::StatusOr<std::string> {
    const std::string& arg = args[i];
    size_t eq = arg.find('=');
    if (absl::StartsWith(arg, "--") && eq != std::string::npos) return arg.substr(eq + 1);
    if (i + 1 >= args.size()) {
      return absl::InvalidArgumentError(absl::StrCat("flag ", flag, " needs a value"));
    }
    return args[++i];
  };
  size_t first = 0;
  if (!args.empty() && args[0] == "apply-weights") {
    flags.apply_weights = true;
    first = 1;
  } else if (!args.empty() && args[0] == "verify-generation") {
    flags.verify_generation = true;
    first = 1;
  }
  for (size_t i = first; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string name = arg.substr(0, arg.find('='));
    if (name == "-h" || name == "--help") {
      flags.help = true;
    } else if (name == "--version") {
      flags.version = true;
    } else if (name == "--list-ops") {
      flags.list_ops = true;
    } else if (name == "--list-refused") {
      flags.list_refused = true;
    } else if (name == "--inspect") {
      flags.inspect = true;
    } else if (name == "--json") {
      flags.json = true;
    } else if (name == "-q" || name == "--quiet") {
      flags.quiet = true;
    } else if (name == "-o" || name == "--output") {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      flags.output = *v;
      flags.output_given = true;
    } else if (name == "--opset") {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      if (!absl::SimpleAtoi(*v, &flags.opset) || flags.opset < MinOpset() || flags.opset > MaxOpset()) {
        return absl::InvalidArgumentError(absl::StrCat("--opset '", *v, "' is not supported; use ",
                                                       MinOpset(), "..", MaxOpset()));
      }
      flags.opset_given = true;
    } else if (name == "--kv-cache") {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      if (*v != "dynamic" && *v != "static") {
        return absl::InvalidArgumentError(absl::StrCat("--kv-cache '", *v, "' is not a cache form; use dynamic or static"));
      }
      flags.kv_cache_static = *v == "static";
    } else if (name == "--no-weights") {
      flags.no_weights = true;
    } else if (name == "--weights-as-inputs") {
      flags.weights_as_inputs = true;
    } else if (name == "--from" && flags.apply_weights) {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      flags.weights_from = *v;
    } else if (flags.verify_generation && (name == "--tokens" || name == "--prompt" || name == "--expect" ||
                                           name == "--save-logits")) {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      if (name == "--save-logits") {
        if (v->empty()) return absl::InvalidArgumentError("--save-logits needs a path");
        flags.save_logits = *v;
      } else if (name == "--tokens") {
        if (!absl::SimpleAtoi(*v, &flags.generation_tokens) || flags.generation_tokens < 1 ||
            flags.generation_tokens > 100000) {
          return absl::InvalidArgumentError(absl::StrCat("--tokens '", *v, "' is not a count of tokens (1..100000)"));
        }
      } else {
        absl::StatusOr<std::vector<int64_t>> ids = ParseTokenIds(name, *v);
        if (!ids.ok()) return ids.status();
        (name == "--prompt" ? flags.prompt : flags.expect) = *std::move(ids);
      }
    } else if (name == "--external-data") {
      flags.external = CliFlags::External::kAlways;
    } else if (name == "--no-external-data") {
      flags.external = CliFlags::External::kNever;
    } else if (name == "--input-names" || name == "--output-names") {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      std::vector<std::string> names = SplitNames(*v);
      for (const std::string& n : names) {
        if (n.empty()) return absl::InvalidArgumentError(absl::StrCat(name, " has an empty name"));
      }
      (name == "--input-names" ? flags.input_names : flags.output_names) = std::move(names);
    } else if (name == "--dim-name") {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      std::pair<std::string, std::string> kv = absl::StrSplit(*v, absl::MaxSplits('=', 1));
      if (kv.first.empty() || kv.second.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--dim-name '", *v, "' should look like SYMBOL=NAME, e.g. s0=batch"));
      }
      flags.dim_names[kv.first] = kv.second;
    } else if (name == "--model") {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      flags.model_name = *v;
    } else if (name == "--no-optimize") {
      flags.optimize = false;
    } else if (name == "--passes") {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      std::vector<std::string> known = PassNames();
      for (const std::string& pass : SplitNames(*v)) {
        if (std::find(known.begin(), known.end(), pass) == known.end()) {
          return absl::InvalidArgumentError(absl::StrCat("--passes: unknown pass '", pass,
                                                         "'; known: ", absl::StrJoin(known, ",")));
        }
        flags.passes.push_back(pass);
      }
      if (flags.passes.empty()) return absl::InvalidArgumentError("--passes needs at least one pass name");
    } else if (name == "--print-pass-stats") {
      flags.print_pass_stats = true;
    } else if (name == "--fold-max-input-elements" || name == "--fold-max-output-elements") {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      int64_t limit = 0;
      if (!absl::SimpleAtoi(*v, &limit) || limit < 0) {
        return absl::InvalidArgumentError(absl::StrCat(name, " '", *v, "' is not a count of elements"));
      }
      (name == "--fold-max-input-elements" ? flags.fold_max_input_elements : flags.fold_max_output_elements) =
          limit;
    } else if (name == "--no-crc") {
      flags.verify_crc = false;
    } else if (name == "--check") {
      flags.check = true;
    } else if (name == "--verify") {
      flags.verify = true;
    } else if (name == "--verify-intermediates") {
      flags.verify = flags.verify_intermediates = true;
    } else if (name == "--inputs" || name == "--verify-node-data") {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      if (v->empty()) return absl::InvalidArgumentError(absl::StrCat(name, " needs a path"));
      if (name == "--inputs") {
        flags.verify_inputs = *v;
      } else {
        flags.verify_node_data = *v;
        flags.verify = flags.verify_intermediates = true;
      }
    } else if (name == "--report") {
      flags.report = true;
      if (arg.find('=') != std::string::npos) flags.report_path = arg.substr(arg.find('=') + 1);
    } else if (name == "--translations") {
      absl::StatusOr<std::string> v = value_of(i, name);
      if (!v.ok()) return v.status();
      flags.translations.push_back(*v);
    } else if (name == "--override") {
      flags.override_builtins = true;
    } else if (name == "--translations-as-functions") {
      flags.translations_as_functions = true;
    } else if (absl::StartsWith(arg, "-") && arg != "-") {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", arg, "' (see --help)"));
    } else if (flags.input.empty()) {
      flags.input = arg;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unexpected argument '", arg, "': give one input file (and the output with -o)"));
    }
  }
  if (flags.help || flags.version || flags.list_ops || flags.list_refused) return flags;
  if (flags.apply_weights) {
    if (flags.input.empty() || flags.weights_from.empty() || flags.output.empty()) {
      return absl::InvalidArgumentError(
          "usage: pt2onnx apply-weights MODEL.onnx --from OTHER.pt2 -o OUT.onnx");
    }
    if (flags.no_weights || flags.weights_as_inputs || flags.inspect) {
      return absl::InvalidArgumentError(
          "apply-weights keeps the model's graph as it is: --no-weights, --weights-as-inputs and "
          "--inspect do not apply");
    }
    if (flags.output == flags.input || flags.output == flags.weights_from) {
      return absl::InvalidArgumentError("the output path equals an input path");
    }
    return flags;
  }
  if (flags.verify_generation) {
    if (flags.input.empty()) {
      return absl::InvalidArgumentError("usage: pt2onnx verify-generation OUTDIR --tokens N [--prompt IDS] [--expect IDS]");
    }
    if (flags.prompt.empty()) return absl::InvalidArgumentError("--prompt needs at least one token id");
    if (!flags.expect.empty() && static_cast<int>(flags.expect.size()) != flags.generation_tokens) {
      return absl::InvalidArgumentError(absl::StrCat("--expect lists ", flags.expect.size(), " tokens but --tokens is ",
                                                     flags.generation_tokens));
    }
    return flags;
  }
  if (flags.input.empty()) {
    return absl::InvalidArgumentError("no input file given (usage: pt2onnx MODEL.pt2 -o MODEL.onnx)");
  }
  if (flags.output.empty()) {
    absl::string_view stem = flags.input;
    absl::ConsumeSuffix(&stem, ".pt2");
    flags.output = absl::StrCat(stem, ".onnx");
  }
  if (flags.kv_cache_static && flags.opset < StaticKvCacheMinOpset()) {
    return absl::InvalidArgumentError(absl::StrCat("--kv-cache static needs --opset ", StaticKvCacheMinOpset(),
                                                   " or higher (TensorScatter); add --opset ",
                                                   StaticKvCacheMinOpset()));
  }
  if (flags.kv_cache_static && flags.verify) {
    return absl::InvalidArgumentError(
        "--verify runs the program's own inputs, which --kv-cache static replaces (buffers and past_length): "
        "verify the default form, whose numbers the static form keeps, or convert the export folder and run "
        "verify-generation on it");
  }
  if (!flags.verify_inputs.empty() && !flags.verify) {
    return absl::InvalidArgumentError("--inputs is for --verify (add --verify)");
  }
  if (flags.report && flags.report_path.empty()) {
    absl::string_view stem = flags.output;
    absl::ConsumeSuffix(&stem, ".onnx");
    flags.report_path = absl::StrCat(stem, ".report.md");
  }
  if (flags.output == flags.input && !flags.inspect) {
    return absl::InvalidArgumentError("the output path equals the input path");
  }
  return flags;
}

}  // namespace pt2onnx::native
