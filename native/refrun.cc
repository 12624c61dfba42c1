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
#include <string>
#include <vector>

#include "core/pt2/pt2_reader.h"
#include "reference/interpreter.h"
#include "runtime/npz/npz.h"
#include "native/mapped_file.h"
#include "native/tool_main_util.h"
#include "native/user_path.h"

namespace pt2onnx::native {
namespace {

constexpr const char* kUsage =
    "usage: refrun MODEL.pt2 --inputs X.npz [--outputs Y.npz] [--model NAME] [-q]\n"
    "       refrun MODEL.pt2 --missing | refrun --list-kernels\n";

int Main(int argc, char** argv) {
  const ToolMessages tool("refrun");
  RunnerArgs args;
  std::string model_name;
  bool missing = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--list-kernels") {
      for (const std::string& key : reference::CreateReferenceRegistry().Keys()) std::printf("%s\n", key.c_str());
      return 0;
    } else if (arg == "--model") {
      std::optional<std::string> name = OptionValue(argc, argv, i);
      if (!name) return tool.Fail(2, "--model needs a name");
      model_name = *std::move(name);
    } else if (arg == "--missing") {
      missing = true;
    } else if (int code = tool.TakeRunnerArg(argc, argv, i, kUsage, args)) {
      return code;
    }
  }
  if (args.model_path.empty() || (args.inputs_path.empty() && !missing)) {
    return tool.Fail(2, std::string("a model and --inputs are required\n") + kUsage);
  }
  auto file = MappedFile::Open(ResolvePath(args.model_path));
  if (!file.ok()) return tool.Fail(3, file.status().message());
  auto loaded = pt2::LoadPt2(file->bytes(), model_name);
  if (!loaded.ok()) return tool.Fail(4, loaded.status().message());
  reference::RefRegistry registry = reference::CreateReferenceRegistry();
  if (missing) {
    for (const std::string& key : reference::MissingKernels(loaded->program, registry)) {
      std::printf("%s\n", key.c_str());
    }
    return 0;
  }
  std::vector<NamedTensor> inputs;
  if (int code = tool.ReadNpzFile(args.inputs_path, inputs)) return code;
  reference::InterpretOptions options;
  options.registry = &registry;
  auto run = reference::Interpret(loaded->program, loaded->weights, inputs, options);
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
