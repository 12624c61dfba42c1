// onnxrun: runs an ONNX model in pt2onnx's own executor (runtime).
//
//   onnxrun MODEL.onnx --inputs X.npz [--outputs Y.npz] [--threads N] [--bench N] [--portable] [-q]
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
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "core/onnx/model_reader.h"
#include "runtime/kernels/registry.h"
#include "runtime/npz/npz.h"
#include "runtime/plan/session.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "native/tool_main_util.h"
#include "native/user_path.h"
#include "pthreadpool.h"

namespace pt2onnx::native {
namespace {

constexpr const char* kUsage =
    "usage: onnxrun MODEL.onnx --inputs X.npz [--outputs Y.npz] [--threads N] [--bench N] [--portable] [-q]\n"
    "  --inputs X.npz    input arrays by graph input name (np.savez)\n"
    "  --outputs Y.npz   write the outputs, named as the graph outputs\n"
    "  --threads N       worker threads (default 1)\n"
    "  --bench N         run N more times after 3 warm-up runs and print latency\n"
    "  --portable        portable kernels only (no XNNPACK)\n"
    "  -q                print nothing on success\n"
    "  --list-kernels    print the ONNX op types the executor runs, one per line\n";

int Main(int argc, char** argv) {
  const ToolMessages tool("onnxrun");
  RunnerArgs args;
#ifdef M_MMAP_THRESHOLD
  // A fixed threshold: glibc otherwise raises it to the size of each large
  // block freed, so once a weight is freed the next ones come from the heap,
  // whose freed middle is never returned (the session frees weights as it
  // packs them: 857 -> 517 MiB peak for BERT-base).
  mallopt(M_MMAP_THRESHOLD, 256 << 10);
#endif
  int threads = 1, bench = 0;
  bool portable = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--list-kernels") {
      for (const std::string& op : runtime::KernelOpTypes()) std::printf("%s\n", op.c_str());
      return 0;
    } else if (arg == "--threads" || arg == "--bench") {
      std::optional<std::string> text = OptionValue(argc, argv, i);
      int n;
      if (!text || !absl::SimpleAtoi(*text, &n) || n < (arg == "--threads" ? 1 : 0) || n > 100000) {
        return tool.Fail(2, arg + " needs a count (threads >= 1)");
      }
      (arg == "--threads" ? threads : bench) = n;
    } else if (arg == "--portable") {
      portable = true;
    } else if (int code = tool.TakeRunnerArg(argc, argv, i, kUsage, args)) {
      return code;
    }
  }
  if (args.model_path.empty() || args.inputs_path.empty()) return tool.Fail(2, std::string("a model and --inputs are required\n") + kUsage);

  absl::StatusOr<ir::Model> model;
  {
    // Read in blocks, not mapped: the model then holds the only copy of the
    // weights (a mapped file's pages would count as a second one).
    const std::string resolved = ResolvePath(args.model_path);
    const int fd = open(resolved.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return tool.Fail(3, "cannot open " + args.model_path + ": " + std::strerror(errno));
    google::protobuf::io::FileInputStream stream(fd, 1 << 20);
    stream.SetCloseOnDelete(true);
    model = onnx_reader::ReadModel(stream);
    if (stream.GetErrno() != 0) {
      return tool.Fail(3, "cannot read " + args.model_path + ": " + std::strerror(stream.GetErrno()));
    }
  }
  if (!model.ok()) return tool.Fail(ExitCodeFor(model.status()), model.status().message());
  std::vector<NamedTensor> inputs;
  if (int code = tool.ReadNpzFile(args.inputs_path, inputs)) return code;

  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  runtime::SessionOptions options;
  options.threadpool = pool;
  options.accelerate = !portable;
  // The session takes the model's weights (freed as they are packed).
  auto session = runtime::Session::Create(std::move(*model), options);
  if (!session.ok()) {
    if (pool) pthreadpool_destroy(pool);
    return tool.Fail(ExitCodeFor(session.status()), session.status().message());
  }
  auto outputs = (*session)->Run(inputs);
  std::vector<double> times;
  if (outputs.ok() && bench > 0) {
    for (int i = 0; i < 3 + bench && outputs.ok(); ++i) {
      auto start = std::chrono::steady_clock::now();
      outputs = (*session)->Run(inputs);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (i >= 3) times.push_back(ms);
    }
  }
  if (!outputs.ok()) {
    if (pool) pthreadpool_destroy(pool);
    return tool.Fail(ExitCodeFor(outputs.status()), outputs.status().message());
  }
  if (!args.quiet) {
    PrintTensorSummaries(*outputs);
    std::printf("nodes: %zu accelerated by XNNPACK; intermediate buffers: %.1f MiB\n",
                (*session)->accelerated_nodes(), (*session)->allocated_bytes() / 1048576.0);
  }
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    std::printf("latency over %zu runs (%d thread%s): median %.3f ms, min %.3f ms\n", times.size(), threads,
                threads == 1 ? "" : "s", times[times.size() / 2], times.front());
  }
  if (pool) pthreadpool_destroy(pool);
  if (!args.outputs_path.empty()) return tool.WriteNpzFile(args.outputs_path, *outputs);
  return 0;
}

}  // namespace
}  // namespace pt2onnx::native

int main(int argc, char** argv) { return pt2onnx::native::Main(argc, argv); }
