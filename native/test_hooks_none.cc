#include "native/test_hooks.h"

namespace pt2onnx::native {

void ApplyTestHooks(ir::Model&) {}

}  // namespace pt2onnx::native
