"""googletest suites that also run as WebAssembly under node, from the shipped module's objects.

cc_and_wasm_test(name, ...) declares the usual native cc_test NAME and NAME_wasm: the same cc_test built
through the package's transition (transition.bzl, so the same output directory as //wasm:package and every
library object compiled once for both) and run with node. NAME_wasm is tagged manual (`bazel test //...`
stays native); tools/test.sh runs them all with
    bazel test $(bazel query 'attr(tags, wasm_node_test, //tests/...)')
`bazel test --config=wasm //tests/ops/...` still builds and runs the plain cc_tests with Emscripten in
its own (fastbuild) configuration.
"""

load(":transition.bzl", "wasm_release_transition")

def _wasm_node_test_impl(ctx):
    binary = ctx.attr.binary[0][DefaultInfo]
    js = binary.files_to_run.executable
    script = ctx.actions.declare_file(ctx.label.name + ".sh")

    # The Emscripten test binary is a node script (its "#!/usr/bin/env node" line): run it as Bazel ran
    # it under --config=wasm, from the runfiles tree (the test's working directory).
    ctx.actions.write(
        output = script,
        content = "#!/bin/sh\nexec node '%s' \"$@\"\n" % js.short_path,
        is_executable = True,
    )
    runfiles = ctx.runfiles(files = [js]).merge(binary.default_runfiles)
    return [DefaultInfo(executable = script, runfiles = runfiles)]

wasm_node_test = rule(
    implementation = _wasm_node_test_impl,
    test = True,
    attrs = {
        "binary": attr.label(cfg = wasm_release_transition, mandatory = True, executable = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)

def cc_and_wasm_test(name, wasm = True, features = [], tags = [], **kwargs):
    """A cc_test NAME and, unless wasm = False, its WebAssembly run NAME_wasm."""
    native.cc_test(
        name = name,
        # The package turns JS-based exceptions off; ONNX's checker throws and catches with wasm EH, so
        # the test's link needs that runtime, as the module's does. The test sources compile at -O1 and
        # the binaries link without wasm-opt (cc_toolchain_config.bzl), and with node's file system (NODERAWFS: the runfiles, so
        # fixture reads fail or succeed as natively, never find an empty in-memory file system);
        # features change only this target's own actions, so the library objects stay the package's.
        # All four are no-ops natively.
        features = features + ["wasm_exceptions", "unoptimized_compile", "unoptimized_link", "node_raw_fs"],
        tags = tags,
        **kwargs
    )
    if not wasm:
        return
    wasm_node_test(
        name = name + "_wasm",
        binary = ":" + name,
        size = kwargs.get("size"),
        timeout = kwargs.get("timeout"),
        tags = tags + ["manual", "wasm_node_test"],
    )
