// refrun: runs a .pt2 program in pt2onnx's ATen reference interpreter
// (reference), without converting it.
//
//   refrun MODEL.pt2 --inputs X.npz [--outputs Y.npz] [--model NAME] [-q]
//   refrun MODEL.pt2 --missing     # overloads of the program it cannot run
//   refrun --list-kernels          # every overload it runs
//
// Exit codes: 0 ok, 1 internal error, 2 bad command line, 3 cannot read or
// write a file, 4 invalid program or inputs, 5 an overload it has no kernel for.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "core/io/input_file.h"
#include "export/converter.h"
#include "export/engines.h"
#include "native/mapped_file.h"
#include "native/runner_flags.h"
#include "native/tool_main_util.h"
#include "native/user_path.h"

namespace pt2onnx::native {
namespace {

int Main(int argc, char** argv) {
  const ToolMessages tool("refrun");
  absl::StatusOr<RunnerFlags> flags = ParseRunnerFlags(RunnerTool::kRefrun, std::vector<std::string>(argv + 1, argv + argc));
  if (!flags.ok()) return tool.Fail(2, flags.status().message());
  if (flags->help) {
    std::fputs(RunnerUsage(RunnerTool::kRefrun), stdout);
    return 0;
  }
  if (flags->list_kernels) {
    for (const std::string& key : ReferenceKernels()) std::printf("%s\n", key.c_str());
    return 0;
  }
  const RunnerFlags& args = *flags;
  auto file = MappedFile::Open(ResolvePath(args.model_path));
  if (!file.ok()) return tool.Fail(3, file.status().message());
  ConvertOptions read_options;
  read_options.model_name = args.model_name;
  auto loaded = ReadPt2(std::make_shared<MemoryFile>(file->bytes()), read_options);
  if (!loaded.ok()) return tool.Fail(4, loaded.status().message());
  if (args.missing) {
    for (const std::string& key : MissingReferenceKernels(**loaded)) std::printf("%s\n", key.c_str());
    return 0;
  }
  std::vector<NamedTensor> inputs;
  if (int code = tool.ReadNpzFile(args.inputs_path, inputs)) return code;
  auto run = RunReference(**loaded, inputs);
  if (!run.ok()) return tool.Fail(ExitCodeFor(run.status()), run.status().message());
  if (!args.quiet) {
    PrintTensorSummaries(run->outputs);
  }
  // Outputs derived from random numbers: written, but named on stderr so
  // that a comparison can leave them out.
  for (const auto& [name, reason] : run->not_comparable) {
    for (const NamedTensor& out : run->outputs) {
      if (out.name == name) std::fprintf(stderr, "refrun: not comparable: %s (%s)\n", name.c_str(), reason.c_str());
    }
  }
  if (!args.outputs_path.empty()) return tool.WriteNpzFile(args.outputs_path, run->outputs);
  return 0;
}

}  // namespace
}  // namespace pt2onnx::native

int main(int argc, char** argv) { return pt2onnx::native::Main(argc, argv); }
