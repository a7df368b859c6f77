"""The code keeps one format and passes the linter: ``ruff format --check`` and ``ruff check`` over the
repository, with the configuration in pyproject.toml ([tool.ruff]). To fix a failure: ``ruff format .``
and ``ruff check --fix .`` in the venv."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("check", [["format", "--check"], ["check"]], ids=["format", "lint"])
def test_the_tree_is_formatted_and_lint_free(check):
    done = subprocess.run(
        [sys.executable, "-m", "ruff", *check, "--no-cache", "."], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, f"ruff {' '.join(check)} found:\n{done.stdout}{done.stderr}"
