// Fuzz target: the allow-listed unpickler, as a bare pickle and as a
// torch.save archive (state dict and single tensor).
#include <cstddef>
#include <cstdint>

#include "core/pt2/pickle_reader.h"
#include "core/pt2/torch_save.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pt2onnx::ByteSpan bytes(data, size);
  (void)pt2onnx::pt2::ReadPickle(bytes);
  (void)pt2onnx::pt2::ReadTorchSaveDict(bytes);
  (void)pt2onnx::pt2::ReadTorchSaveTensor(bytes);
  return 0;
}
