"""The shape of the modules: docstrings that state a contract (at most 40 lines, a command's at
most 60, since it is the command's ``--help``), figures and history being the docs' business; and
``experiments/`` holding commands only (a module with ``main``), but for one common module of at
most 200 lines.

Pure Python over the source (``ast``), no JAX.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("physics", "rules", "aiming", "billiards_env", "agents", "experiments")
DOC_LINES = 40
COMMAND_DOC_LINES = 60
COMMON_LINES = 200


def is_command(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body)


def doc_lines(tree: ast.Module) -> int:
    doc = ast.get_docstring(tree, clean=False)
    return len(doc.splitlines()) if doc else 0


def long_docstrings(root: Path = ROOT) -> dict[str, int]:
    """Module -> docstring lines, for every module whose docstring is over its limit."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            limit = COMMAND_DOC_LINES if is_command(tree) else DOC_LINES
            if doc_lines(tree) > limit:
                found[str(path.relative_to(root))] = doc_lines(tree)
    return found


def library_in_experiments(root: Path = ROOT) -> list[str]:
    """Modules of experiments/ that are not commands (``__init__`` and the common module aside)."""
    found = []
    for path in sorted((root / "experiments").rglob("*.py")):
        if path.name in ("__init__.py", "common.py"):
            continue
        if not is_command(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(str(path.relative_to(root)))
    return found


def test_module_docstrings_state_a_contract_in_at_most_40_lines():
    assert long_docstrings() == {}


def test_experiments_holds_commands_and_one_short_common_module():
    assert library_in_experiments() == []
    common = ROOT / "experiments" / "common.py"
    assert len(common.read_text(encoding="utf-8").splitlines()) <= COMMON_LINES


def test_the_module_checks_find_planted_faults(tmp_path):
    (tmp_path / "experiments").mkdir()
    (tmp_path / "physics").mkdir()
    long = '"""' + "a line\n" * 45 + '"""\n'
    (tmp_path / "physics" / "lib.py").write_text(long)
    (tmp_path / "experiments" / "cmd.py").write_text(long + "def main():\n    pass\n")
    (tmp_path / "experiments" / "helpers.py").write_text('"""Helpers."""\ndef f():\n    pass\n')
    assert long_docstrings(tmp_path) == {"physics/lib.py": 45}
    assert library_in_experiments(tmp_path) == ["experiments/helpers.py"]
