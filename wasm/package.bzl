"""pt2onnx_package: the npm package directory (ES module, its worker, the Emscripten glue and .wasm,
types, package.json, README), built for the browser whatever the command-line configuration."""

load("//tools/toolchain/wasm:transition.bzl", "wasm_release_transition")

def _pt2onnx_package_impl(ctx):
    tar = ctx.attr.module[0][DefaultInfo].files.to_list()[0]
    name = ctx.attr.module_name
    extracted = [ctx.actions.declare_file("%s/%s.%s" % (ctx.label.name, name, ext)) for ext in ["mjs", "wasm"]]
    ctx.actions.run_shell(
        inputs = [tar],
        outputs = extracted,
        command = "tar -xf '%s' -C '%s'" % (tar.path, extracted[0].dirname),
        mnemonic = "WasmUnpack",
    )
    copies = []
    for src in ctx.files.srcs:
        out = ctx.actions.declare_file("%s/%s" % (ctx.label.name, src.basename))
        ctx.actions.symlink(output = out, target_file = src)
        copies.append(out)
    files = depset(extracted + copies)
    return [DefaultInfo(files = files, runfiles = ctx.runfiles(transitive_files = files))]

pt2onnx_package = rule(
    implementation = _pt2onnx_package_impl,
    attrs = {
        "module": attr.label(cfg = wasm_release_transition, mandatory = True),
        "module_name": attr.string(mandatory = True),
        "srcs": attr.label_list(allow_files = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)
