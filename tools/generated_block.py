"""A generated block inside a hand-written page: the text between a begin and an end marker line, which
a tool (tools/update_op_table.py, tools/update_optimizer_doc.py) rewrites and can check for staleness."""
import pathlib
import sys


def replace_block(text: str, begin: str, end: str, generated: str) -> str:
    """`text` with everything from `begin` through `end` replaced by `generated` (which holds both)."""
    start, stop = text.index(begin), text.index(end) + len(end)
    return text[:start] + generated + text[stop:]


def write_or_check(page: pathlib.Path, updated: str, check: bool, tool: str) -> int:
    """Writes `updated` to `page`, or with `check` only says whether the page is stale (exit code 1)."""
    if not check:
        page.write_text(updated)
        return 0
    if updated != page.read_text():
        print(f"{page.parent.name}/{page.name} is stale: run {tool}", file=sys.stderr)
        return 1
    return 0
