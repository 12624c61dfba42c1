// onnxrun: runs an ONNX model in pt2onnx's own executor (core/runtime).
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
#include "absl/strings/str_cat.h"
#include "core/onnx/model_reader.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "core/runtime/kernels/registry.h"
#include "core/runtime/npz/npz.h"
#include "core/runtime/plan/session.h"
#include "native/atomic_file.h"
#include "native/mapped_file.h"
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

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "onnxrun: error: %s\n", message.c_str());
  return code;
}

int ExitCodeFor(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnimplemented: return 5;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kResourceExhausted: return 4;
    default: return 1;
  }
}

int Main(int argc, char** argv) {
#ifdef M_MMAP_THRESHOLD
  // A fixed threshold: glibc otherwise raises it to the size of each large
  // block freed, so once a weight is freed the next ones come from the heap,
  // whose freed middle is never returned (the session frees weights as it
  // packs them: 857 -> 517 MiB peak for BERT-base).
  mallopt(M_MMAP_THRESHOLD, 256 << 10);
#endif
  std::string model_path, inputs_path, outputs_path;
  int threads = 1, bench = 0;
  bool quiet = false, portable = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string text;
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--list-kernels") {
      for (const std::string& op : runtime::KernelOpTypes()) std::printf("%s\n", op.c_str());
      return 0;
    } else if (arg == "--inputs") {
      if (!value(&inputs_path)) return Fail(2, "--inputs needs a file");
    } else if (arg == "--outputs") {
      if (!value(&outputs_path)) return Fail(2, "--outputs needs a file");
    } else if (arg == "--threads" || arg == "--bench") {
      int n;
      if (!value(&text) || !absl::SimpleAtoi(text, &n) || n < (arg == "--threads" ? 1 : 0) || n > 100000) {
        return Fail(2, arg + " needs a count (threads >= 1)");
      }
      (arg == "--threads" ? threads : bench) = n;
    } else if (arg == "--portable") {
      portable = true;
    } else if (arg == "-q" || arg == "--quiet") {
      quiet = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return Fail(2, "unknown option " + arg + "\n" + kUsage);
    } else if (model_path.empty()) {
      model_path = arg;
    } else {
      return Fail(2, "more than one model given");
    }
  }
  if (model_path.empty() || inputs_path.empty()) return Fail(2, std::string("a model and --inputs are required\n") + kUsage);

  absl::StatusOr<ir::Model> model;
  {
    // Read in blocks, not mapped: the model then holds the only copy of the
    // weights (a mapped file's pages would count as a second one).
    const std::string resolved = ResolvePath(model_path);
    const int fd = open(resolved.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Fail(3, absl::StrCat("cannot open ", model_path, ": ", std::strerror(errno)));
    google::protobuf::io::FileInputStream stream(fd, 1 << 20);
    stream.SetCloseOnDelete(true);
    model = onnx_reader::ReadModel(stream);
    if (stream.GetErrno() != 0) return Fail(3, absl::StrCat("cannot read ", model_path, ": ", std::strerror(stream.GetErrno())));
  }
  if (!model.ok()) return Fail(ExitCodeFor(model.status()), std::string(model.status().message()));
  auto inputs_file = MappedFile::Open(ResolvePath(inputs_path));
  if (!inputs_file.ok()) return Fail(3, std::string(inputs_file.status().message()));
  auto inputs = runtime::ReadNpz(inputs_file->bytes());
  if (!inputs.ok()) return Fail(4, absl::StrCat(inputs_path, ": ", inputs.status().message()));

  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : nullptr;
  runtime::SessionOptions options;
  options.threadpool = pool;
  options.accelerate = !portable;
  // The session takes the model's weights (freed as they are packed).
  auto session = runtime::Session::Create(std::move(*model), options);
  if (!session.ok()) {
    if (pool) pthreadpool_destroy(pool);
    return Fail(ExitCodeFor(session.status()), std::string(session.status().message()));
  }
  auto outputs = (*session)->Run(*inputs);
  std::vector<double> times;
  if (outputs.ok() && bench > 0) {
    for (int i = 0; i < 3 + bench && outputs.ok(); ++i) {
      auto start = std::chrono::steady_clock::now();
      outputs = (*session)->Run(*inputs);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      if (i >= 3) times.push_back(ms);
    }
  }
  if (!outputs.ok()) {
    if (pool) pthreadpool_destroy(pool);
    return Fail(ExitCodeFor(outputs.status()), std::string(outputs.status().message()));
  }
  if (!quiet) {
    for (const runtime::NamedTensor& o : *outputs) {
      std::printf("%s %s %s\n", o.name.c_str(), std::string(DataTypeName(o.tensor.dtype())).c_str(),
                  runtime::DimsString(o.tensor.dims()).c_str());
    }
    std::printf("nodes: %zu accelerated by XNNPACK; intermediate buffers: %.1f MiB\n",
                (*session)->accelerated_nodes(), (*session)->allocated_bytes() / 1048576.0);
  }
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    std::printf("latency over %zu runs (%d thread%s): median %.3f ms, min %.3f ms\n", times.size(), threads,
                threads == 1 ? "" : "s", times[times.size() / 2], times.front());
  }
  if (pool) pthreadpool_destroy(pool);
  if (!outputs_path.empty()) {
    auto bytes = runtime::WriteNpz(*outputs);
    if (!bytes.ok()) return Fail(ExitCodeFor(bytes.status()), std::string(bytes.status().message()));
    auto file = AtomicFile::Create(ResolvePath(outputs_path));
    if (!file.ok()) return Fail(3, std::string(file.status().message()));
    absl::Status s = (*file)->Write(AsBytes(*bytes));
    if (s.ok()) s = (*file)->Commit();
    if (!s.ok()) return Fail(3, std::string(s.message()));
  }
  return 0;
}

}  // namespace
}  // namespace pt2onnx::native

int main(int argc, char** argv) { return pt2onnx::native::Main(argc, argv); }
