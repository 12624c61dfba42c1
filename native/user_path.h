#ifndef PT2ONNX_NATIVE_USER_PATH_H_
#define PT2ONNX_NATIVE_USER_PATH_H_

#include <string>

namespace pt2onnx::native {

// A path the user typed, made usable by this process: under `bazel run` the
// process starts in the runfiles tree, so relative paths are taken from where
// bazel was run (BUILD_WORKING_DIRECTORY); otherwise the path is unchanged.
std::string ResolvePath(const std::string& path);

}  // namespace pt2onnx::native

#endif  // PT2ONNX_NATIVE_USER_PATH_H_
