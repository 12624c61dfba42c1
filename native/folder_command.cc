#include "native/folder_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "export/engines.h"
#include "export/exit_codes.h"
#include "export/generation.h"
#include "export/model_folder.h"
#include "export/report.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "native/atomic_file.h"
#include "native/external_data.h"
#include "native/mapped_file.h"
#include "native/verify_command.h"
#include "native/user_path.h"
#include "native/weight_splice.h"

namespace pt2onnx::native {
namespace {

std::string Join(const std::string& folder, const std::string& file) {
  return folder.empty() || folder.back() == '/' ? folder + file : folder + "/" + file;
}

int Fail(int code, absl::string_view message) {
  std::fprintf(stderr, "pt2onnx: error: %s\n", std::string(message).c_str());
  return code;
}

absl::StatusOr<std::string> ReadSmallFile(const std::string& path, const std::string& shown) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const std::string why = std::strerror(errno);
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat("cannot open ", shown, ": ", why));
    return absl::PermissionDeniedError(absl::StrCat("cannot open ", shown, ": ", why));
  }
  std::string text;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return absl::DataLossError(absl::StrCat("cannot read ", shown));
  return text;
}

class FolderFilesIn : public FolderInput {
 public:
  explicit FolderFilesIn(std::string folder) : folder_(std::move(folder)) {}
  absl::StatusOr<std::shared_ptr<const InputFile>> Open(const std::string& file) override {
    absl::StatusOr<std::shared_ptr<FdInputFile>> opened = FdInputFile::Open(Join(folder_, file));
    if (!opened.ok()) return opened.status();
    return std::shared_ptr<const InputFile>(*std::move(opened));
  }

 private:
  std::string folder_;
};

// The output folder: created if absent (and removed again unless
// committed), each file an AtomicFile.
class FolderFilesOut : public FolderSinks {
 public:
  explicit FolderFilesOut(std::string folder) : folder_(std::move(folder)) {}
  ~FolderFilesOut() override {
    files_.clear();  // deletes the uncommitted temporaries first
    if (created_ && !committed_) rmdir(folder_.c_str());
  }

  absl::Status Open(const std::vector<std::string>& names) override {
    struct stat st;
    if (stat(folder_.c_str(), &st) != 0) {
      if (mkdir(folder_.c_str(), 0777) != 0) {
        return absl::PermissionDeniedError(absl::StrCat("cannot create the output folder: ", std::strerror(errno)));
      }
      created_ = true;
    } else if (!S_ISDIR(st.st_mode)) {
      return absl::PermissionDeniedError("the output path exists and is not a folder");
    }
    for (const std::string& name : names) {
      absl::StatusOr<std::unique_ptr<AtomicFile>> file = AtomicFile::Create(Join(folder_, name));
      if (!file.ok()) return absl::Status(file.status().code(), absl::StrCat(name, ": ", file.status().message()));
      order_.push_back(name);
      files_[name] = *std::move(file);
    }
    return absl::OkStatus();
  }
  ByteSink& File(const std::string& name) override { return *files_.at(name); }
  absl::Status Commit() override {
    for (const std::string& name : order_) {
      if (absl::Status s = files_[name]->Commit(); !s.ok()) return s;
    }
    committed_ = true;
    return absl::OkStatus();
  }

 private:
  std::string folder_;
  bool created_ = false;
  bool committed_ = false;
  std::vector<std::string> order_;
  std::map<std::string, std::unique_ptr<AtomicFile>> files_;
};

class LogLines : public ExportProgress {
 public:
  explicit LogLines(bool quiet) : quiet_(quiet) {}
  void Line(absl::string_view line) override {
    if (!quiet_) std::fprintf(stderr, "%s\n", std::string(line).c_str());
  }

 private:
  bool quiet_;
};

ExportOptions FolderExportOptions(const CliFlags& flags) {
  ExportOptions options;
  options.convert.translate.opset = flags.opset;
  options.convert.kv_cache = flags.kv_cache_static ? KvCacheForm::kStaticIfPresent : KvCacheForm::kDynamic;
  options.convert.optimize = flags.optimize;
  options.convert.passes.only = flags.passes;
  options.convert.passes.folding = {flags.fold_max_input_elements, flags.fold_max_output_elements};
  options.convert.verify_weight_crc = flags.verify_crc;
  options.include_weights = !flags.no_weights;
  options.weights_as_inputs = flags.weights_as_inputs;
  options.onnx_checker = flags.check;
  return options;
}

}  // namespace

bool IsFolder(const std::string& path) {
  struct stat st;
  return stat(ResolvePath(path).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

namespace {

// --verify of a folder, after it is written: each component's program in the
// reference interpreter against its model in the executor, on the inputs
// --verify picks for a single file (the archive's example inputs, else
// seeded ones). The first failing component's exit code; every one is run.
int VerifyComponents(const CliFlags& flags, FolderExportResult& result) {
  int exit_code = kExitOk;
  for (FolderComponentResult& c : result.components) {
    auto log = [&](const std::string& line) {
      if (!flags.quiet) std::fprintf(stderr, "%s: %s\n", c.name.c_str(), line.c_str());
    };
    VerifyRunOptions run = VerifyRunOptionsFor(flags, log);
    verify::ReportData report;
    const VerifyOutcome outcome =
        RunVerification(c.input, *c.exported.program, c.exported.conversion->model, run, report);
    if (outcome.exit_code == kExitOk) {
      log(absl::StrCat("verify: ", outcome.summary));
      continue;
    }
    Fail(outcome.exit_code, absl::StrCat(c.name, " (", c.file, "): ", outcome.message));
    if (exit_code == kExitOk) exit_code = outcome.exit_code;
  }
  return exit_code;
}

}  // namespace

int RunFolder(const CliFlags& flags, const std::function<void(Conversion&)>& on_converted) {
  if (!flags.output_given) {
    return Fail(kExitUsage, absl::StrCat(flags.input, " is a folder: give the output folder with -o OUTDIR"));
  }
  const std::string in = ResolvePath(flags.input);
  const std::string manifest_path = Join(flags.input, kFolderManifestFile);
  absl::StatusOr<std::string> text = ReadSmallFile(Join(in, kFolderManifestFile), manifest_path);
  if (!text.ok()) {
    return Fail(kExitIo, absl::StrCat(text.status().message(),
                                      absl::IsNotFound(text.status())
                                          ? " (a folder given as input must hold the export.json that "
                                            "transformers' save_pretrained writes; convert a single .pt2 by its path)"
                                          : ""));
  }
  absl::StatusOr<FolderManifest> manifest = ParseFolderManifest(*text);
  if (!manifest.ok()) return Fail(kExitInvalidInput, absl::StrCat(manifest_path, ": ", manifest.status().message()));
  FolderFilesIn input(in);
  FolderFilesOut sinks(ResolvePath(flags.output));
  LogLines progress(flags.quiet);
  if (!flags.quiet) {
    std::vector<std::string> names;
    for (const FolderComponent& c : manifest->components) names.push_back(absl::StrCat(c.name, " (", c.file, ")"));
    std::fprintf(stderr, "%s: %zu components: %s\n", flags.input.c_str(), names.size(),
                 absl::StrJoin(names, ", ").c_str());
  }
  ExportOptions options = FolderExportOptions(flags);
  options.on_converted = on_converted;
  FolderExportResult result = ExportFolder(*manifest, input, options, sinks, progress);
  if (!result.status.ok()) {
    return Fail(result.exit_code, absl::StrCat(Join(flags.input, ""), result.status.message()));
  }
  if (!flags.quiet) std::fprintf(stderr, "wrote %s\n", flags.output.c_str());
  return flags.verify ? VerifyComponents(flags, result) : kExitOk;
}

int RunFolderInspect(const CliFlags& flags) {
  const std::string manifest_path = Join(flags.input, kFolderManifestFile);
  absl::StatusOr<std::string> text = ReadSmallFile(Join(ResolvePath(flags.input), kFolderManifestFile), manifest_path);
  if (!text.ok()) return Fail(kExitIo, text.status().message());
  absl::StatusOr<FolderManifest> manifest = ParseFolderManifest(*text);
  if (!manifest.ok()) return Fail(kExitInvalidInput, absl::StrCat(manifest_path, ": ", manifest.status().message()));
  std::printf("%s: %s export, %zu components (inspect one with `pt2onnx %s --inspect`)\n", flags.input.c_str(),
              manifest->export_format.c_str(), manifest->components.size(),
              Join(flags.input, manifest->components[0].file).c_str());
  for (const FolderComponent& c : manifest->components) {
    std::printf("%s (%s -> %s.onnx)\n  inputs:  %s\n  outputs: %s\n", c.name.c_str(), c.file.c_str(), c.name.c_str(),
                absl::StrJoin(c.input_names, ", ").c_str(), absl::StrJoin(c.output_names, ", ").c_str());
  }
  return kExitOk;
}

namespace {

// An .npz of arrays by name (verify-generation --inputs); exit code or 0.
int ReadNpzInputs(const std::string& path, std::vector<NamedTensor>& arrays) {
  absl::StatusOr<MappedFile> file = MappedFile::Open(ResolvePath(path));
  if (!file.ok()) return Fail(kExitIo, absl::StrCat(path, ": ", file.status().message()));
  absl::StatusOr<std::vector<NamedTensor>> read = DecodeNpz(file->bytes());
  if (!read.ok()) return Fail(kExitInvalidInput, absl::StrCat(path, ": ", read.status().message()));
  arrays = *std::move(read);
  return 0;
}

}  // namespace

int RunVerifyGeneration(const CliFlags& flags) {
  const std::string folder = ResolvePath(flags.input);
  const std::string manifest_path = Join(flags.input, kFolderManifestFile);
  absl::StatusOr<std::string> text = ReadSmallFile(Join(folder, kFolderManifestFile), manifest_path);
  if (!text.ok()) return Fail(kExitIo, text.status().message());
  FolderFiles files;
  files.open_stream = [&](const std::string& file)
      -> absl::StatusOr<std::unique_ptr<google::protobuf::io::ZeroCopyInputStream>> {
    const int fd = open(Join(folder, file).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return absl::NotFoundError(absl::StrCat("cannot open ", file, ": ", std::strerror(errno)));
    auto stream = std::make_unique<google::protobuf::io::FileInputStream>(fd, 1 << 20);
    stream->SetCloseOnDelete(true);
    return std::unique_ptr<google::protobuf::io::ZeroCopyInputStream>(std::move(stream));
  };
  ExternalDataFiles data(folder);
  files.read_range = [&](const std::string& file, uint64_t offset, uint64_t length) {
    return data.Read(file, offset, length);
  };
  // Optional: config.json says which cache layers slide.
  absl::StatusOr<std::string> config = ReadSmallFile(Join(folder, "config.json"), Join(flags.input, "config.json"));
  absl::StatusOr<GenerationModels> models = ReadGenerationFolder(*text, config.ok() ? *config : "", files);
  if (!models.ok()) {
    const int code = absl::IsNotFound(models.status()) ? kExitIo : kExitInvalidInput;
    return Fail(code, absl::StrCat(flags.input, ": ", models.status().message()));
  }
  // --inputs: arrays every step takes by name (an encoder-decoder model's encoder output).
  std::map<std::string, Tensor> fixed;
  if (!flags.verify_inputs.empty()) {
    std::vector<NamedTensor> arrays;
    if (int code = ReadNpzInputs(flags.verify_inputs, arrays)) return code;
    for (NamedTensor& a : arrays) fixed[a.name] = std::move(a.tensor);
  }
  absl::StatusOr<Generation> generation = GenerateGreedy(*std::move(models), flags.prompt, flags.generation_tokens,
                                                         runtime::SessionOptions{}, fixed);
  if (!generation.ok()) {
    const int code = absl::IsUnimplemented(generation.status()) ? kExitGenerationUnavailable : kExitInvalidInput;
    return Fail(code, absl::StrCat(flags.input, ": ", generation.status().message()));
  }
  std::printf("%s\n", absl::StrJoin(generation->tokens, " ").c_str());
  if (!flags.save_logits.empty()) {
    const Tensor& row = generation->last_logits;
    absl::StatusOr<std::string> npz = EncodeNpz({{"last_logits", row.Alias({1, row.numel()})}});
    if (!npz.ok()) return Fail(kExitInternal, npz.status().message());
    absl::StatusOr<std::unique_ptr<AtomicFile>> file = AtomicFile::Create(ResolvePath(flags.save_logits));
    absl::Status written = file.ok() ? (*file)->Write(AsBytes(*npz)) : file.status();
    if (written.ok()) written = (*file)->Commit();
    if (!written.ok()) return Fail(kExitIo, absl::StrCat(flags.save_logits, ": ", written.message()));
  }
  if (!flags.expect.empty()) {
    if (flags.expect != generation->tokens) {
      size_t at = 0;
      while (at < flags.expect.size() && at < generation->tokens.size() && flags.expect[at] == generation->tokens[at]) {
        ++at;
      }
      return Fail(kExitGenerationDiffers,
                  absl::StrCat("generated tokens differ from --expect at position ", at, ": got ",
                               absl::StrJoin(generation->tokens, ","), ", expected ",
                               absl::StrJoin(flags.expect, ",")));
    }
    if (!flags.quiet) std::fprintf(stderr, "the %zu tokens match --expect\n", flags.expect.size());
  }
  return kExitOk;
}

}  // namespace pt2onnx::native
