"""Checks that the manual (README.md, docs/*.md) matches the tree.

  * every option a command-line binary accepts is documented in its section of docs/cli.md; the
    options are read from the sources (string literals such as "--opset" and ABSL_FLAG names in
    the files each binary of native/BUILD.bazel compiles, and in the node CLI wasm/js/cli*.mjs),
    never from a hand-kept list;
  * every relative link of README.md and docs/*.md names an existing file (and, for a markdown
    target, an existing heading);
  * every command the README shows names a real Bazel target (a `name = "..."` in the package's
    BUILD file) and real scripts and files.
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]

# A string literal that is exactly an option: "--opset", "-o" (one letter after a single dash).
_OPTION_LITERAL = re.compile(r'"(--[a-zA-Z][a-zA-Z0-9_-]*|-[a-zA-Z])"')
# absl flags, should a binary move to them: ABSL_FLAG(int, threads, ...) -> --threads.
_ABSL_FLAG = re.compile(r"ABSL_FLAG\(\s*[^,]+,\s*([a-zA-Z0-9_]+)\s*,")


def options_in(text):
    """Options a source file accepts, as written on the command line."""
    found = set(_OPTION_LITERAL.findall(text))
    found.update("--" + name for name in _ABSL_FLAG.findall(text))
    return {option for option in found if option != "--"}


def _build_rules(build_text):
    """{name: (kind, srcs, deps)} of the cc_binary / cc_library rules of a BUILD file."""
    rules = {}
    for match in re.finditer(r"\b(cc_binary|cc_library)\(", build_text):
        depth, i = 1, match.end()
        while depth and i < len(build_text):
            depth += {"(": 1, ")": -1}.get(build_text[i], 0)
            i += 1
        body = build_text[match.end():i - 1]
        name = re.search(r'\bname\s*=\s*"([^"]+)"', body)
        if not name:
            continue

        def strings(attr):
            m = re.search(attr + r"\s*=\s*\[(.*?)\]", body, re.S)
            return re.findall(r'"([^"]+)"', re.sub(r"#[^\n]*", "", m.group(1))) if m else []

        rules[name.group(1)] = (match.group(1), strings("srcs"), strings("deps"))
    return rules


def binary_sources(package_dir):
    """{binary: [source files]}: each cc_binary of the package with the sources of the package's
    libraries it depends on (local ':name' deps, followed transitively)."""
    rules = _build_rules((package_dir / "BUILD.bazel").read_text())
    result = {}
    for name, (kind, _, _) in rules.items():
        if kind != "cc_binary":
            continue
        seen, todo, files = set(), [name], []
        while todo:
            rule = todo.pop()
            if rule in seen or rule not in rules:
                continue
            seen.add(rule)
            _, srcs, deps = rules[rule]
            files += [package_dir / src for src in srcs]
            todo += [dep[1:] for dep in deps if dep.startswith(":")]
        result[name] = sorted(set(files))
    return result


def cli_options(root=ROOT):
    """{section title in docs/cli.md: options its binary accepts}. Options of a source file that
    several binaries compile (a parser shared by the runners) are keyed by the tuple of their
    sections: each must be documented in at least one of them."""
    sources = binary_sources(root / "native")
    users = {}
    for binary, files in sources.items():
        for f in files:
            users.setdefault(f, []).append(f"`{binary}`")
    options = {f"`{binary}`": set() for binary in sources}
    for f, binaries in users.items():
        if not f.exists():
            continue
        key = binaries[0] if len(binaries) == 1 else tuple(sorted(binaries))
        options.setdefault(key, set()).update(options_in(f.read_text()))
    node = sorted((root / "wasm" / "js").glob("cli*.mjs"))
    options["`npx pt2onnx`"] = set().union(*(options_in(f.read_text()) for f in node))
    return options


def sections(markdown):
    """{'## ' heading text: its text up to the next '## ' heading}."""
    found, title, lines = {}, None, []
    for line in markdown.splitlines():
        if line.startswith("## "):
            if title is not None:
                found[title] = "\n".join(lines)
            title, lines = line[3:].strip(), []
        elif title is not None:
            lines.append(line)
    if title is not None:
        found[title] = "\n".join(lines)
    return found


def undocumented_options(options_by_section, markdown):
    """['section: option'] for each option its section of the page does not show in code
    (`--opset`, `--opset N`, `--report[=PATH]`, `-o, --output PATH`)."""
    by_title = sections(markdown)
    missing = []
    for key, options in sorted(options_by_section.items(), key=lambda kv: str(kv[0])):
        # "## `pt2onnx` ..." and its subcommands' "## `pt2onnx apply-weights` ..."; a tuple of
        # sections (a shared source) is satisfied by any of them.
        keys = key if isinstance(key, tuple) else (key,)
        section = " or ".join(keys)
        matches = [text for title, text in by_title.items()
                   if any(title.startswith(k) or title.startswith(k.rstrip("`") + " ") for k in keys)]
        if not matches:
            missing.append(f"{section}: no '## {section} ...' section")
            continue
        text = "\n".join(matches)
        # Code blocks (usage lines) and code spans outside them.
        spans = re.findall(r"```.*?```", text, re.S) + re.findall(r"`([^`\n]+)`", _without_code_blocks(text))
        shown = set()
        for span in spans:
            shown.update(re.findall(r"(?<![\w-])(--?[a-zA-Z][a-zA-Z0-9_-]*)", span))
        missing += [f"{section}: {option}" for option in sorted(options) if option not in shown]
    return missing


def _slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(markdown):
    found, in_code = set(), False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and re.match(r"#{1,6} ", line):
            found.add(_slug(line.lstrip("#")))
    return found


def _without_code(markdown):
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def broken_links(paths, root=ROOT):
    """['file: link (why)'] for each relative link that names no file or heading."""
    broken = []
    for path in paths:
        text = path.read_text()
        for target in re.findall(r"\]\(([^)\s]+)\)", _without_code(text)):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(root)}: {target}"
            if not dest.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text()):
                broken.append(f"{where} (no such heading)")
    return broken


# Top-level folders of the repository: a command token starting with one names a file here.
_REPO_DIRS = ("core/", "runtime/", "reference/", "verify/", "translate/", "ops/", "passes/", "export/",
              "native/", "wasm/", "web/", "tests/", "tools/", "docs/", "examples/", "third_party/")


def _commands(markdown):
    """Command lines the page shows: fenced sh blocks, and code spans that start with a tool."""
    lines = []
    for block in re.findall(r"```(?:sh|bash|shell)\n(.*?)```", markdown, re.S):
        lines += [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    for span in re.findall(r"`([^`\n]+)`", _without_code_blocks(markdown)):
        if re.match(r"(bazel|tools/|node |python3? |npx |\.venv/)", span):
            lines.append(span)
    return lines


def _without_code_blocks(markdown):
    return re.sub(r"```.*?```", "", markdown, flags=re.S)


def bazel_target_exists(label, root=ROOT):
    """//pkg:name, //pkg (its default target), //pkg/... (a folder)."""
    if label == "//...":
        return True
    m = re.fullmatch(r"//([\w/.-]*?)(/\.\.\.|:([\w.+-]+))?", label)
    if not m:
        return False
    package = root / m.group(1)
    if m.group(2) == "/...":
        return package.is_dir()
    build = package / "BUILD.bazel"
    if not build.exists():
        build = package / "BUILD"
    if not build.exists():
        return False
    name = m.group(3) or package.name
    return re.search(r'\bname\s*=\s*"' + re.escape(name) + '"', build.read_text()) is not None


def missing_command_parts(markdown, root=ROOT):
    """['command: part (why)'] for Bazel targets and repository files a page's commands name that
    do not exist."""
    missing = []
    for line in _commands(markdown):
        # Shell comments after a command are explanations, not arguments.
        command = line.split(" #", 1)[0]
        for token in re.split(r"[\s=\"'()]+", command):
            token = token.rstrip(";,&|:")
            if token.endswith(".") and not token.endswith("..."):
                token = token.rstrip(".")  # the end of a sentence
            if not token or any(c in token for c in "*<>$[]{}"):
                continue
            if token.startswith("//"):
                if not bazel_target_exists(token, root):
                    missing.append(f"{line.strip()}: {token} (no such Bazel target)")
            elif token.startswith(_REPO_DIRS) and not (root / token).exists():
                missing.append(f"{line.strip()}: {token} (no such file)")
    return missing
