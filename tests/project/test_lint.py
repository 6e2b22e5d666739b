"""Lint and types as part of the test command: ``ruff check .`` and ``mypy`` must find nothing.

Both read their settings from pyproject.toml ([tool.ruff], [tool.mypy]) and run from the
repository root with this interpreter. mypy's cache lives outside the clone, by default in
``~/.cache/carom-billiards/mypy`` (``CAROM_MYPY_CACHE`` overrides it, an empty value turns it
off), so a second run only rechecks what changed.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _mypy_cache() -> str:
    where = os.environ.get("CAROM_MYPY_CACHE", str(Path.home() / ".cache" / "carom-billiards" / "mypy"))
    return where or os.devnull  # mypy writes no cache when it is the null device


def _run_tool(module: str, *args: str, timeout: float) -> subprocess.CompletedProcess:
    """``python -m module args`` from the repository root; fails (naming the fix) when the tool is missing."""
    assert importlib.util.find_spec(module) is not None, f"{module} is not installed: pip install -e '.[test]'"
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def test_ruff_check_is_clean():
    done = _run_tool("ruff", "check", ".", "--no-cache", "--output-format", "concise", timeout=120)
    assert done.returncode == 0, f"ruff check . found problems:\n{done.stdout}{done.stderr}"


def test_mypy_is_clean():
    done = _run_tool("mypy", "--cache-dir", _mypy_cache(), timeout=600)
    assert done.returncode == 0, f"mypy found problems:\n{done.stdout}{done.stderr}"
    assert "Success: no issues found" in done.stdout, done.stdout
