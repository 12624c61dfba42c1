"""site: the folder //web:serve serves, the page beside the pt2onnx module.

    site/index.html, site/app.mjs, site/style.css     (the `page` files)
    site/pt2onnx/<each file of `package`>             (pt2onnx.mjs, its worker, core .mjs/.wasm, ...)

Each file is a symlink action, not a copy: the module's .wasm can be large and nothing is rebuilt.
"""

def _site_impl(ctx):
    placed = [(f, f.basename) for f in ctx.files.page]
    placed += [(f, "pt2onnx/" + f.basename) for f in ctx.files.package]
    outs = []
    taken = {}
    for src, path in placed:
        if path in taken:
            fail("two files map to %s/%s: %s and %s" % (ctx.label.name, path, taken[path], src.short_path))
        taken[path] = src.short_path
        if src.is_directory:
            out = ctx.actions.declare_directory(ctx.label.name + "/" + path)
        else:
            out = ctx.actions.declare_file(ctx.label.name + "/" + path)
        ctx.actions.symlink(output = out, target_file = src, progress_message = "Placing %s in the site" % path)
        outs.append(out)
    return [DefaultInfo(files = depset(outs), runfiles = ctx.runfiles(files = outs))]

site = rule(
    implementation = _site_impl,
    doc = "The served folder of the pt2onnx page: page files at the top, the module's files under pt2onnx/.",
    attrs = {
        "page": attr.label_list(allow_files = True, mandatory = True, doc = "index.html and its assets"),
        "package": attr.label(allow_files = True, mandatory = True, doc = "the pt2onnx module's files"),
    },
)
