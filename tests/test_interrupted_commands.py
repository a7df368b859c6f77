"""An interrupted command (SIGTERM, as Ctrl-C) frees its lock, marks what it kept, and promises
nothing it removes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

LIMIT_S = 60  # how long a command may take to start playing, and to stop once told


def test_learn_collect_on_sigterm_frees_its_lock_and_marks_the_run(tmp_path):
    """SIGTERM is Ctrl-C for a collection as for a run: the lock is removed, so that the next collection
    is not refused, and the manifest says interrupted."""
    out = tmp_path / "c"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simsuite.cli",
            "learn",
            "collect",
            "--out",
            str(out),
            "--hands",
            "4000",
            "--chunk",
            "20",
            "--jobs",
            "1",
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    manifest = out / "manifest.json"
    deadline = time.monotonic() + LIMIT_S
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if any(c.get("status") == "done" for c in json.loads(manifest.read_text())["chunks"]):
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=LIMIT_S)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err, err
    assert json.loads(manifest.read_text())["status"] == "interrupted"
    assert not (out / "simsuite.lock").exists()


def test_an_interrupted_calibration_does_not_promise_a_folder_it_removes(tmp_path):
    """calibrate plays in a temporary folder, removed on an interrupt: it says nothing is kept, and
    offers no folder to resume from."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "simsuite.cli", "calibrate", "--hands", "2000000", "--policy", "basic", "--jobs", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    deadline = time.monotonic() + LIMIT_S  # until the run plays (a fresh checkout compiles the engine first)
    while (
        time.monotonic() < deadline
        and proc.poll() is None
        and not list(tmp_path.glob("simsuite-calibrate-*/run/hands/*"))
    ):
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=LIMIT_S)
    assert proc.returncode == 130, err
    assert "nothing is kept, run the command again" in err and "kept in" not in err, err
    assert "Traceback" not in err
