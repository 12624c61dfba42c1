"""Output-file safety: non-regular targets are refused, a file-size limit is a
write error (not SIGXFSZ), SIGTERM leaves no temporary, links are not followed."""
import os
import resource
import signal
import stat
import subprocess
import time

import pytest

from conftest import FIXTURES, cli_path, start_process, wait_process, run_process

CNN = FIXTURES / "cnn" / "model.pt2"


def assert_fails(result, code, *needles):
    assert result.returncode == code, (result.returncode, result.stderr)
    for needle in needles:
        assert needle in result.stderr, result.stderr


def test_device_target_is_refused_and_left_alone(pt2onnx):
    # Linux's /dev/full (every supported platform has it): a missing one fails, never skips.
    assert os.path.exists("/dev/full"), "no /dev/full on this machine"
    before = os.stat("/dev/full")
    assert_fails(pt2onnx(CNN, "-o", "/dev/full", check=False), 3, "is a device",
                 "only regular files")
    after = os.stat("/dev/full")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


def test_folder_and_fifo_targets_are_refused(pt2onnx, tmp_path):
    folder = tmp_path / "out.onnx"
    folder.mkdir()
    assert_fails(pt2onnx(CNN, "-o", folder, check=False), 3, "is a folder")
    fifo = tmp_path / "pipe.onnx"
    os.mkfifo(fifo)
    assert_fails(pt2onnx(CNN, "-o", fifo, check=False), 3, "is a FIFO")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.onnx", "pipe.onnx"]


def test_symlink_target_is_refused(pt2onnx, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    link = tmp_path / "out.onnx"
    link.symlink_to(victim)
    assert_fails(pt2onnx(CNN, "-o", link, check=False), 3, "is a symbolic link")
    assert link.is_symlink() and victim.read_text() == "keep"


def test_existing_regular_file_is_replaced(pt2onnx, tmp_path):
    out = tmp_path / "out.onnx"
    out.write_text("old")
    pt2onnx(CNN, "-o", out, "-q")
    assert out.stat().st_size > 1000


def test_file_size_limit_is_a_write_error_without_leftovers(tmp_path):
    out = tmp_path / "out.onnx"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    result = run_process([cli_path(), CNN, "-o", out, "-q"], preexec_fn=limit)
    assert_fails(result, 3, "over the file-size limit")
    assert list(tmp_path.iterdir()) == []


def test_sigterm_while_writing_removes_the_temporary(tmp_path):
    # A FIFO as stdin cannot be the input; instead stop the process right after
    # it created its temporary: SIGSTOP at the first write is not observable
    # from here, so poll for the temporary and then terminate.
    big = tmp_path / "big.pt2"
    big.write_bytes(CNN.read_bytes())
    out = tmp_path / "out.onnx"
    for _ in range(20):
        proc = start_process([cli_path(), big, "-o", out, "-q"], stderr=subprocess.PIPE)
        deadline = time.time() + 5
        seen = False
        while time.time() < deadline and proc.poll() is None:
            if any(p.name.startswith("out.onnx.tmp.") for p in tmp_path.iterdir()):
                proc.send_signal(signal.SIGTERM)
                seen = True
                break
        wait_process(proc)
        leftovers = [p.name for p in tmp_path.iterdir() if ".tmp." in p.name]
        assert leftovers == []
        if seen and proc.returncode == -signal.SIGTERM:
            return
        if out.exists():
            out.unlink()
    pytest.fail("20 conversions finished before a signal could be sent: nothing was checked")
