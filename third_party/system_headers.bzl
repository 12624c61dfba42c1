"""system_headers: a header-only library from /usr/include, seen by the compiler as a system header.

The repository links `path` (e.g. /usr/include/rapidjson) as include/<its base name> and uses
`build_file`, whose cc_library says includes = ["include"]: Bazel passes that folder with -isystem,
so the compiler keeps the library's own warnings out of the build log, and nothing else of
/usr/include is visible (the wasm toolchain must not see the host's headers).
"""

def _system_headers_impl(rctx):
    path = rctx.path(rctx.attr.path)
    if not path.exists:
        fail("%s not found: run tools/setup.sh" % rctx.attr.path)
    rctx.symlink(path, "include/" + path.basename)
    rctx.symlink(rctx.attr.build_file, "BUILD.bazel")

system_headers = repository_rule(
    implementation = _system_headers_impl,
    attrs = {
        "path": attr.string(mandatory = True),
        "build_file": attr.label(mandatory = True, allow_single_file = True),
    },
    local = True,
)
