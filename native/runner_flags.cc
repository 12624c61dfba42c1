#include "native/runner_flags.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace pt2onnx::native {
namespace {

constexpr const char* kOnnxrunUsage =
    "usage: onnxrun MODEL.onnx --inputs X.npz [--outputs Y.npz] [--threads N] [--bench N] [--profile] [--portable] "
    "[--no-int8] [-q]\n"
    "  --inputs X.npz    input arrays by graph input name (np.savez)\n"
    "  --outputs Y.npz   write the outputs, named as the graph outputs\n"
    "  --threads N       worker threads (default 1)\n"
    "  --bench N         run N more times after 3 warm-up runs and print latency\n"
    "  --profile         time every step of the runs --bench times (or of the one run): the time per op\n"
    "                    type and the slowest nodes\n"
    "  --portable        portable kernels only (no XNNPACK)\n"
    "  --no-int8         run QDQ (quantized) patterns on the float path, not in int8\n"
    "  -q                print nothing on success\n"
    "  --list-kernels    print the ONNX op types the executor runs, one per line\n";

constexpr const char* kRefrunUsage =
    "usage: refrun MODEL.pt2 --inputs X.npz [--outputs Y.npz] [--model NAME] [-q]\n"
    "       refrun MODEL.pt2 --missing | refrun --list-kernels\n";

absl::Status Usage(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

// The options only onnxrun takes; false when `arg` is not one of them.
absl::StatusOr<bool> TakeOnnxrunFlag(const std::vector<std::string>& args, size_t& i, RunnerFlags& flags) {
  const std::string& arg = args[i];
  if (arg == "--threads" || arg == "--bench") {
    int n = 0;
    if (i + 1 >= args.size() || !absl::SimpleAtoi(args[++i], &n) || n < (arg == "--threads" ? 1 : 0) ||
        n > 100000) {
      return Usage(arg + " needs a count (threads >= 1)");
    }
    (arg == "--threads" ? flags.threads : flags.bench) = n;
    return true;
  }
  if (arg == "--portable" || arg == "--no-int8" || arg == "--profile") {
    (arg == "--portable" ? flags.portable : arg == "--no-int8" ? flags.no_int8 : flags.profile) = true;
    return true;
  }
  return false;
}

// The options only refrun takes; false when `arg` is not one of them.
absl::StatusOr<bool> TakeRefrunFlag(const std::vector<std::string>& args, size_t& i, RunnerFlags& flags) {
  const std::string& arg = args[i];
  if (arg == "--model") {
    if (i + 1 >= args.size()) return Usage("--model needs a name");
    flags.model_name = args[++i];
    return true;
  }
  if (arg == "--missing") {
    flags.missing = true;
    return true;
  }
  return false;
}

// The arguments both runners take: MODEL, --inputs, --outputs, -q.
absl::Status TakeSharedArg(const std::vector<std::string>& args, size_t& i, const char* usage, RunnerFlags& flags) {
  const std::string& arg = args[i];
  if (arg == "--inputs" || arg == "--outputs") {
    if (i + 1 >= args.size()) return Usage(arg + " needs a file");
    (arg == "--inputs" ? flags.inputs_path : flags.outputs_path) = args[++i];
  } else if (arg == "-q" || arg == "--quiet") {
    flags.quiet = true;
  } else if (!arg.empty() && arg[0] == '-') {
    return Usage(absl::StrCat("unknown option ", arg, "\n", usage));
  } else if (flags.model_path.empty()) {
    flags.model_path = arg;
  } else {
    return Usage("more than one model given");
  }
  return absl::OkStatus();
}

}  // namespace

const char* RunnerUsage(RunnerTool tool) { return tool == RunnerTool::kOnnxrun ? kOnnxrunUsage : kRefrunUsage; }

absl::StatusOr<RunnerFlags> ParseRunnerFlags(RunnerTool tool, const std::vector<std::string>& args) {
  RunnerFlags flags;
  const char* usage = RunnerUsage(tool);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      flags.help = true;
      return flags;
    }
    if (arg == "--list-kernels") {
      flags.list_kernels = true;
      return flags;
    }
    absl::StatusOr<bool> taken = tool == RunnerTool::kOnnxrun ? TakeOnnxrunFlag(args, i, flags)
                                                               : TakeRefrunFlag(args, i, flags);
    if (!taken.ok()) return taken.status();
    if (*taken) continue;
    if (absl::Status shared = TakeSharedArg(args, i, usage, flags); !shared.ok()) return shared;
  }
  const bool needs_inputs = !(tool == RunnerTool::kRefrun && flags.missing);
  if (flags.model_path.empty() || (flags.inputs_path.empty() && needs_inputs)) {
    return Usage(absl::StrCat("a model and --inputs are required\n", usage));
  }
  return flags;
}

}  // namespace pt2onnx::native
