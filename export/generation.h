// File: export/generation.h
// -----------------------------------------------------------------------------
// Greedy generation through a converted export folder (export/model_folder.h)
// in pt2onnx's executor, without torch: the "prefill" component on the
// prompt, then "decode" once per further token, each step's present cache
// (outputs "past_key_values.*" / "output.past_key_values.*") fed back as the
// next step's past (inputs "input.past_key_values.*" / "past_key_values.*"),
// the next token the argmax of the last position's logits (the first index
// on ties, as torch.argmax). A decode converted with --kv-cache static
// (passes/static_kv_cache.h) gets buffers of prompt + new tokens positions,
// prefill's caches copied in, and each group's past_length. `pt2onnx verify-generation` and the tests
// compare the tokens with what model.generate() gave.
//
//   PT2ONNX_ASSIGN_OR_RETURN(GenerationModels models, ReadGenerationFolder(manifest_json, read_file));
//   PT2ONNX_ASSIGN_OR_RETURN(Generation g, GenerateGreedy(std::move(models), {1, 2, 3}, 8, {}));
#ifndef PT2ONNX_EXPORT_GENERATION_H_
#define PT2ONNX_EXPORT_GENERATION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/graph.h"
#include "core/tensor/tensor.h"
#include "google/protobuf/io/zero_copy_stream.h"
#include "runtime/plan/session.h"

namespace pt2onnx {

// Exit codes of a generation check: those of --verify (verify/verifier.h),
// tokens that differ from the expected ones, or an engine that cannot run.
inline constexpr int kExitGenerationDiffers = 6;
inline constexpr int kExitGenerationUnavailable = 7;

struct GenerationModels {
  ir::Model prefill;
  ir::Model decode;
  // config.json's sliding_window (0: none): a sliding-window cache layer
  // takes it as a scalar tensor on the first step (transformers'
  // DynamicSlidingWindowLayer._sliding_window_tensor), later returned and fed back.
  int64_t sliding_window = 0;
};

// Reads a file of the converted folder: the .onnx as a stream, a data file's
// byte range. NotFound names the file.
struct FolderFiles {
  std::function<absl::StatusOr<std::unique_ptr<google::protobuf::io::ZeroCopyInputStream>>(const std::string& file)>
      open_stream;
  std::function<absl::StatusOr<std::string>(const std::string& file, uint64_t offset, uint64_t length)> read_range;
};

// The "prefill" and "decode" components of an ONNX export folder, whose
// export.json is `manifest_json` (and config.json `config_json`, "" when
// absent), with their external weights. InvalidArgument when the manifest is
// not an "onnx" one or lacks a component.
absl::StatusOr<GenerationModels> ReadGenerationFolder(absl::string_view manifest_json,
                                                      absl::string_view config_json, const FolderFiles& files);

struct Generation {
  std::vector<int64_t> tokens;  // the new tokens, in order
  Tensor last_logits;           // [vocab]: the logits the last token was picked from
};

// `prompt` must be non-empty; `new_tokens` >= 1. The prompt and each new
// token go to input_ids (decoder_input_ids for an encoder-decoder model);
// `fixed_inputs` are fed by name to every step that takes them (an
// encoder-decoder export's encoder_outputs.last_hidden_state: its
// components take the encoder's output). Errors name the component and
// step (a missing past input, logits of an unexpected shape).
absl::StatusOr<Generation> GenerateGreedy(GenerationModels models, const std::vector<int64_t>& prompt,
                                          int new_tokens, const runtime::SessionOptions& options,
                                          const std::map<std::string, Tensor>& fixed_inputs = {});

}  // namespace pt2onnx

#endif  // PT2ONNX_EXPORT_GENERATION_H_
