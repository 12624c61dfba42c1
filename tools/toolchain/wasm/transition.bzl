"""A transition into the shipped WebAssembly configuration, so `bazel build //wasm:package` (no --config)
builds the module with the Emscripten toolchain, optimized (the toolchain compiles the opt mode at -O3;
links get -O3 here), without JS-based C++ exceptions."""

def _wasm_release_impl(settings, attr):
    return {
        "//command_line_option:cpu": "wasm",
        "//command_line_option:crosstool_top": "//tools/toolchain/wasm:suite",
        "//command_line_option:compilation_mode": "opt",
        "//command_line_option:features": list(settings["//command_line_option:features"]) + ["-exceptions"],
        "//command_line_option:linkopt": list(settings["//command_line_option:linkopt"]) + ["-O3"],
    }

wasm_release_transition = transition(
    implementation = _wasm_release_impl,
    inputs = ["//command_line_option:features", "//command_line_option:linkopt"],
    outputs = [
        "//command_line_option:cpu",
        "//command_line_option:crosstool_top",
        "//command_line_option:compilation_mode",
        "//command_line_option:features",
        "//command_line_option:linkopt",
    ],
)
