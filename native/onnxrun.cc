// onnxrun: runs an ONNX model in pt2onnx's own executor (runtime).
//
//   onnxrun MODEL.onnx --inputs X.npz [--outputs Y.npz] [--threads N] [--bench N] [--portable] [--no-int8] [-q]
//
// Prints each output's name, dtype and shape (and, with --bench, latency).
// Exit codes: 0 ok, 1 internal error, 2 bad command line, 3 cannot read or
// write a file, 4 invalid model or inputs (wrong dtype, rank, shape, missing
// input), 5 an op or dtype the executor cannot run (named in the message).
#include <fcntl.h>
#include <malloc.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "export/engines.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "native/external_data.h"
#include "native/runner_flags.h"
#include "native/tool_main_util.h"
#include "native/user_path.h"
#include "pthreadpool.h"

namespace pt2onnx::native {
namespace {

using ThreadPool = std::unique_ptr<std::remove_pointer_t<pthreadpool_t>, decltype(&pthreadpool_destroy)>;

// MODEL.onnx (and its external data files) read in blocks, not mapped: the
// model then holds the only copy of the weights (a mapped file's pages would
// count as a second one). 0 or
// the exit code, its error printed: 3 for the file, else ExitCodeFor.
int ReadModelFile(const ToolMessages& tool, const std::string& path, absl::StatusOr<ir::Model>& model) {
  const std::string resolved = ResolvePath(path);
  const int fd = open(resolved.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tool.Fail(3, "cannot open " + path + ": " + std::strerror(errno));
  google::protobuf::io::FileInputStream stream(fd, 1 << 20);
  stream.SetCloseOnDelete(true);
  // Weights saved apart (MODEL.onnx.data, as pt2onnx writes above 1.5 GiB)
  // are read from the model's folder.
  ExternalDataFiles data(FolderOf(resolved));
  model = ReadOnnxModel(stream, [&](const std::string& file, uint64_t offset, uint64_t length) {
    return data.Read(file, offset, length);
  });
  if (stream.GetErrno() != 0) return tool.Fail(3, "cannot read " + path + ": " + std::strerror(stream.GetErrno()));
  if (!model.ok()) {
    // An external data file that cannot be opened is a file error, like the model's own.
    const bool file_error = absl::IsNotFound(model.status()) || absl::IsPermissionDenied(model.status());
    return tool.Fail(file_error ? 3 : ExitCodeFor(model.status()), model.status().message());
  }
  return 0;
}

// One run, then with --bench N: 3 warm-up runs and N timed ones, whose
// latencies (ms) go to `times`; the outputs of the last run.
absl::StatusOr<std::vector<NamedTensor>> RunTimed(runtime::Session& session, const std::vector<NamedTensor>& inputs,
                                                  int bench, std::vector<double>& times) {
  absl::StatusOr<std::vector<NamedTensor>> outputs = session.Run(inputs);
  for (int i = 0; bench > 0 && i < 3 + bench && outputs.ok(); ++i) {
    if (i == 3) session.ResetProfile();  // the profile covers the timed runs
    auto start = std::chrono::steady_clock::now();
    outputs = session.Run(inputs);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (i >= 3) times.push_back(ms);
  }
  return outputs;
}

// --profile: per op type its share of the time, then the slowest nodes.
void PrintProfile(const std::vector<runtime::StepProfile>& profile, size_t runs) {
  struct Total {
    double seconds = 0;
    int steps = 0, accelerated = 0;
  };
  std::map<std::string, Total> by_op;
  double total = 0;
  for (const runtime::StepProfile& p : profile) {
    Total& t = by_op[p.op_type];
    t.seconds += p.seconds;
    ++t.steps;
    t.accelerated += p.accelerated;
    total += p.seconds;
  }
  std::vector<std::pair<std::string, Total>> ops(by_op.begin(), by_op.end());
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  const double per_run = runs > 0 ? 1000.0 / static_cast<double>(runs) : 0;
  std::printf("profile over %zu run%s: %.3f ms per run in %zu steps\n", runs, runs == 1 ? "" : "s", total * per_run,
              profile.size());
  std::printf("  %-28s %10s %7s %6s %s\n", "op type", "ms/run", "share", "steps", "XNNPACK");
  for (const auto& [op, t] : ops) {
    std::printf("  %-28s %10.3f %6.1f%% %6d %d\n", op.c_str(), t.seconds * per_run,
                total > 0 ? 100 * t.seconds / total : 0.0, t.steps, t.accelerated);
  }
  std::vector<const runtime::StepProfile*> nodes;
  for (const runtime::StepProfile& p : profile) nodes.push_back(&p);
  std::sort(nodes.begin(), nodes.end(), [](const auto* a, const auto* b) { return a->seconds > b->seconds; });
  std::printf("  slowest nodes:\n");
  for (size_t i = 0; i < nodes.size() && i < 10; ++i) {
    std::printf("  %10.3f ms %-20s %s%s\n", nodes[i]->seconds * per_run, nodes[i]->op_type.c_str(),
                nodes[i]->node_name.c_str(), nodes[i]->accelerated ? " (XNNPACK)" : "");
  }
}

int Main(int argc, char** argv) {
  const ToolMessages tool("onnxrun");
#ifdef M_MMAP_THRESHOLD
  // A fixed threshold: glibc otherwise raises it to the size of each large
  // block freed, so once a weight is freed the next ones come from the heap,
  // whose freed middle is never returned (the session frees weights as it
  // packs them: 857 -> 517 MiB peak for BERT-base).
  mallopt(M_MMAP_THRESHOLD, 256 << 10);
#endif
  absl::StatusOr<RunnerFlags> flags =
      ParseRunnerFlags(RunnerTool::kOnnxrun, std::vector<std::string>(argv + 1, argv + argc));
  if (!flags.ok()) return tool.Fail(2, flags.status().message());
  if (flags->help) {
    std::fputs(RunnerUsage(RunnerTool::kOnnxrun), stdout);
    return 0;
  }
  if (flags->list_kernels) {
    for (const std::string& op : ExecutorOpTypes()) std::printf("%s\n", op.c_str());
    return 0;
  }
  const RunnerFlags& args = *flags;
  absl::StatusOr<ir::Model> model;
  if (int code = ReadModelFile(tool, args.model_path, model)) return code;
  std::vector<NamedTensor> inputs;
  if (int code = tool.ReadNpzFile(args.inputs_path, inputs)) return code;

  ThreadPool pool(args.threads > 1 ? pthreadpool_create(args.threads) : nullptr, &pthreadpool_destroy);
  runtime::SessionOptions options;
  options.threadpool = pool.get();
  options.accelerate = !args.portable;
  options.int8 = !args.no_int8;
  if (args.profile) {
    options.clock = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    };
  }
  // The session takes the model's weights (freed as they are packed).
  auto session = CreateExecutorSession(std::move(*model), options);
  if (!session.ok()) return tool.Fail(ExitCodeFor(session.status()), session.status().message());
  std::vector<double> times;
  auto outputs = RunTimed(**session, inputs, args.bench, times);
  if (!outputs.ok()) return tool.Fail(ExitCodeFor(outputs.status()), outputs.status().message());
  if (!args.quiet) {
    PrintTensorSummaries(*outputs);
    std::printf("nodes: %zu accelerated by XNNPACK (%zu of them int8 steps); intermediate buffers: %.1f MiB\n",
                (*session)->accelerated_nodes(), (*session)->int8_steps(), (*session)->allocated_bytes() / 1048576.0);
  }
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    std::printf("latency over %zu runs (%d thread%s): median %.3f ms, min %.3f ms\n", times.size(), args.threads,
                args.threads == 1 ? "" : "s", times[times.size() / 2], times.front());
  }
  if (args.profile) PrintProfile((*session)->Profile(), times.empty() ? 1 : times.size());
  if (!args.outputs_path.empty()) return tool.WriteNpzFile(args.outputs_path, *outputs);
  return 0;
}

}  // namespace
}  // namespace pt2onnx::native

int main(int argc, char** argv) { return pt2onnx::native::Main(argc, argv); }
