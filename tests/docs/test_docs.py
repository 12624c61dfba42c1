"""The manual against the tree: options documented, links resolving, README commands real,
generated pages current. Each checker is also run on a made-up case it must catch."""
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import doc_checks  # noqa: E402

ROOT = doc_checks.ROOT
sys.path.insert(0, str(ROOT / "tools"))
import update_op_table  # noqa: E402
import update_optimizer_doc  # noqa: E402

PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


def test_every_cli_option_is_documented_in_cli_md():
    options = doc_checks.cli_options()
    # The extraction itself must find the binaries and their options, or the check means nothing.
    assert {"`pt2onnx`", "`onnxrun`", "`refrun`", "`npx pt2onnx`"} <= set(options), sorted(options)
    assert {"--opset", "--from", "--verify", "-o"} <= options["`pt2onnx`"]
    runners = options[("`onnxrun`", "`refrun`")]  # their shared parser, native/runner_flags.cc
    assert {"--threads", "--missing", "--inputs"} <= runners
    missing = doc_checks.undocumented_options(options, (ROOT / "docs" / "cli.md").read_text())
    assert not missing, "options missing from docs/cli.md: " + ", ".join(missing)


def test_option_check_catches_a_missing_option(tmp_path):
    native = tmp_path / "native"
    native.mkdir()
    (native / "BUILD.bazel").write_text(
        'cc_library(\n    name = "flags",\n    srcs = ["flags.cc"],\n)\n'
        'cc_binary(\n    name = "tool",\n    srcs = ["main.cc"],\n    deps = [":flags", "//core:base"],\n)\n')
    (native / "main.cc").write_text('if (arg == "--alpha" || arg == "-a") {}\n'
                                    'Fail("--alpha needs a value");\n')
    (native / "flags.cc").write_text('} else if (name == "--beta") {\nABSL_FLAG(int, gamma_rays, 1, "");\n')
    sources = doc_checks.binary_sources(native)
    assert sources == {"tool": [native / "flags.cc", native / "main.cc"]}
    options = {"`tool`": set().union(*(doc_checks.options_in(f.read_text()) for f in sources["tool"]))}
    assert options["`tool`"] == {"--alpha", "-a", "--beta", "--gamma_rays"}
    assert "--alpha needs a value" not in options["`tool`"]
    page = "## `tool` (the tool)\n\n| `--alpha N`, `-a` | ... |\n| `--beta[=X]` | |\n\n## `other`\n\n`--gamma_rays`\n"
    assert doc_checks.undocumented_options(options, page) == ["`tool`: --gamma_rays"]
    complete = page.replace("## `other`", "`--gamma_rays=N`\n\n## `other`")
    assert doc_checks.undocumented_options(options, complete) == []
    assert doc_checks.undocumented_options({"`absent`": {"--x"}}, page) == ["`absent`: no '## `absent` ...' section"]
    # An option of a source two binaries share is documented once, in either section.
    shared = {("`other`", "`tool`"): {"--gamma_rays", "--delta"}}
    assert doc_checks.undocumented_options(shared, page) == ["`other` or `tool`: --delta"]


def test_links_in_readme_and_docs_resolve():
    broken = doc_checks.broken_links(PAGES)
    assert not broken, "broken links: " + "; ".join(broken)


def test_link_check_catches_missing_files_and_headings(tmp_path):
    (tmp_path / "a.md").write_text("# Title\n\n## Some `code` heading\n\n[ok](b.md#second-part) [gone](c.md) "
                                   "[bad](b.md#nope) [self](#some-code-heading) [web](https://example.com)\n"
                                   "`[not a link](x.md)`\n")
    (tmp_path / "b.md").write_text("# B\n\n## Second part\n")
    broken = doc_checks.broken_links([tmp_path / "a.md"], root=tmp_path)
    assert broken == ["a.md: c.md (no such file)", "a.md: b.md#nope (no such heading)"]


def test_readme_commands_name_real_targets_and_scripts():
    readme = (ROOT / "README.md").read_text()
    missing = doc_checks.missing_command_parts(readme)
    assert not missing, "README commands that do not exist: " + "; ".join(missing)
    # The check sees the README's main commands at all.
    commands = " ".join(doc_checks._commands(readme))
    assert "tools/setup.sh" in commands and "tools/test.sh" in commands and "//native:pt2onnx" in commands


def test_commands_in_docs_name_real_targets_and_scripts():
    missing = [f"{page.name}: {m}" for page in PAGES[1:] for m in doc_checks.missing_command_parts(page.read_text())]
    assert not missing, "docs/ commands that do not exist: " + "; ".join(missing)


def test_command_check_catches_missing_targets_and_scripts(tmp_path):
    (tmp_path / "native").mkdir()
    (tmp_path / "native" / "BUILD.bazel").write_text('cc_binary(\n    name = "pt2onnx",\n)\n')
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "setup.sh").write_text("")
    page = ("```sh\ntools/setup.sh && bazel run //native:pt2onnx -- x.pt2   # converts\n"
            "tools/gone.sh\nbazel build //native:missing //wasm:package //native/...\n```\n"
            "Also `bazel test //tests/...` and `tools/setup.sh`.\n")
    assert doc_checks.missing_command_parts(page, root=tmp_path) == [
        "tools/gone.sh: tools/gone.sh (no such file)",
        "bazel build //native:missing //wasm:package //native/...: //native:missing (no such Bazel target)",
        "bazel build //native:missing //wasm:package //native/...: //wasm:package (no such Bazel target)",
        "bazel test //tests/...: //tests/... (no such Bazel target)",
    ]


def test_optimizer_page_is_current():
    page = ROOT / "docs" / "optimizer.md"
    text = page.read_text()
    assert update_optimizer_doc.updated_page(text, update_optimizer_doc.generate()) == text, (
        "docs/optimizer.md is stale: run tools/update_optimizer_doc.py")


def test_optimizer_generator_reads_headers_and_stages():
    pass_list = 'PT2ONNX_PASS("fold", CreateFoldPass)\nPT2ONNX_PASS("dce", CreateDcePass)\n' \
                'PT2ONNX_PASS("extra", CreateExtraPass)\n'
    pipeline = ('  // Stage 1, to a fixed point: cleanups.\n'
                '  pipeline.push_back(MakeStage(options, 4, {\n'
                '      // Folds first.\n      // Really first.\n      "fold",\n      "dce",\n  }));\n')
    header = ("// File: passes/fold.cc\n// ----------\n// fold: folds things.\n//\n// Rules: one\n// two:\n"
              "//   y = f(x)\n// Non-rules: none.\n#include <x>\n// not header\n")
    names = update_optimizer_doc.pass_names(pass_list)
    assert names == ["fold", "dce", "extra"]
    headers = {"fold": update_optimizer_doc.header_comment(header), "dce": ["dce: removes."],
               "extra": ["extra: more."]}
    assert headers["fold"] == ["fold: folds things.", "", "Rules: one", "two:", "  y = f(x)", "Non-rules: none."]
    stage_list = update_optimizer_doc.stages(pipeline)
    assert stage_list == [("Stage 1, to a fixed point: cleanups.", 4, [("fold", "Folds first. Really first."),
                                                                         ("dce", "")])]
    text = update_optimizer_doc.render(names, headers, stage_list)
    assert "| 1: cleanups. | up to 4 | `fold`: Folds first. Really first.<br>`dce` |" in text
    assert "Not in the default pipeline (run them with `--passes`): `extra`." in text
    assert "### `fold`\n\nFolds things.\n\nRules: one two:\n\n```text\ny = f(x)\n```\n\nNon-rules: none." in text
    with pytest.raises(ValueError, match="not in pass_list.inc"):
        update_optimizer_doc.render(["dce"], headers, stage_list)
    with pytest.raises(ValueError, match="should start with 'dce:'"):
        update_optimizer_doc.render(names, {**headers, "dce": ["removes."]}, stage_list)


def test_operator_table_lives_in_supported_ops_page():
    # tests/e2e/test_cli.py regenerates it from the built CLI's registry (--list-ops) and compares.
    page = (ROOT / "docs" / "supported-ops.md").read_text()
    start, end = page.index(update_op_table.BEGIN), page.index(update_op_table.END)
    assert start < end and "operator overloads, each checked against torch's numbers" in page[start:end]
    assert update_op_table.BEGIN not in (ROOT / "README.md").read_text()


def test_readme_is_short():
    lines = (ROOT / "README.md").read_text().count("\n")
    assert lines <= 250, f"README.md has {lines} lines: move detail into docs/"
