// File: native/test_hooks.h
// -----------------------------------------------------------------------------
// A seam for tests of --verify: the release CLI links test_hooks_none.cc (a
// no-op); the test-only binary //tests/verify:pt2onnx_broken links a version
// that corrupts one translation (chosen by PT2ONNX_BREAK) so the tests can
// check that verification fails at the right node.
#ifndef PT2ONNX_NATIVE_TEST_HOOKS_H_
#define PT2ONNX_NATIVE_TEST_HOOKS_H_

#include "export/converter.h"  // ir::Model

namespace pt2onnx::native {

void ApplyTestHooks(ir::Model& model);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_TEST_HOOKS_H_
