"""Each registration list names exactly the families defined in its folder:
a family file whose registration is missing from the list (never registered,
so its overloads silently do not exist) or a list line naming nothing fails
here, before any build."""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# (list file, macro, files defining the entries, pattern of a definition)
LISTS = [
    ("ops/op_families.inc", "PT2ONNX_OP_FAMILY", "ops/*.cc",
     r"^void (Register\w+)\(OpRegistry& \w+\) \{"),
    ("reference/ref_families.inc", "PT2ONNX_REF_FAMILY", "reference/*.cc",
     r"^void (Register\w+)\(RefRegistry& \w+\) \{"),
    ("runtime/kernels/kernel_families.inc", "PT2ONNX_KERNEL_FAMILY", "runtime/kernels/*.cc",
     r"^extern const KernelRegistration (k\w+)\[\] = \{"),
    ("passes/pass_list.inc", "PT2ONNX_PASS", "passes/*.cc",
     r"^std::unique_ptr<Pass> (Create\w+Pass)\(const PipelineOptions&"),
]


def listed(list_file, macro):
    text = (ROOT / list_file).read_text()
    entries = []
    for line in text.splitlines():
        m = re.match(rf"{macro}\((.*?)\)", line)
        if m:
            args = [a.strip() for a in m.group(1).split(",")]
            entries.append(args[-1] if macro == "PT2ONNX_PASS" else args[0])
    return entries


def defined(files, pattern):
    names = {}
    for path in sorted(ROOT.glob(files)):
        for name in re.findall(pattern, path.read_text(), re.M):
            names[name] = path.relative_to(ROOT).as_posix()
    return names


@pytest.mark.parametrize("list_file,macro,files,pattern", LISTS, ids=[entry[0] for entry in LISTS])
def test_list_names_every_family_once(list_file, macro, files, pattern):
    entries = listed(list_file, macro)
    assert entries, f"{list_file} lists nothing: the pattern of this test is stale"
    assert len(entries) == len(set(entries)), f"{list_file} lists an entry twice"
    families = defined(files, pattern)
    missing = {name: path for name, path in families.items() if name not in entries}
    assert not missing, f"defined but not in {list_file}: {missing}"
    stale = [name for name in entries if name not in families]
    assert not stale, f"{list_file} names what no file in {files} defines: {stale}"
