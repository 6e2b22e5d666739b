"""No package reaches into another's private names: every import across packages names public
modules and public names only (physics -> rules -> billiards_env -> agents -> experiments talk
through ``physics.api``, ``physics.pytree`` and the packages' other public modules).

Pure Python over the source (``ast``), no JAX. Planted bad sources below prove the checker.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("physics", "rules", "billiards_env", "agents", "experiments")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(source: str, package: str) -> list[str]:
    """'module: name' for each private module or name that ``source`` (a module of ``package``)
    imports from another package."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            targets = [(node.module, alias.name) for alias in node.names]
        else:
            continue  # relative imports stay inside their package
        for module, name in targets:
            parts = module.split(".")
            if parts[0] == package:
                continue
            if any(_private(p) for p in parts[1:]) or (name is not None and _private(name)):
                found.append(f"{module}: {name}" if name else module)
    return found


def test_no_module_imports_a_private_name_from_another_package():
    offences = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            bad = private_imports(path.read_text(encoding="utf-8"), package)
            if bad:
                offences[str(path.relative_to(ROOT))] = bad
    assert offences == {}


def test_the_checker_finds_private_modules_and_names_and_spares_public_ones():
    planted = (
        "import physics._pytree\n"
        "from physics._pytree import replace\n"
        "from physics.simulate import _simulate, simulate\n"
        "def f():\n    from physics.simulate import _simulate_jit\n"
    )
    assert private_imports(planted, "rules") == [
        "physics._pytree", "physics._pytree: replace", "physics.simulate: _simulate",
        "physics.simulate: _simulate_jit",
    ]
    # Inside its own package a private import is fine, and so are public and dunder names elsewhere.
    assert private_imports(planted, "physics") == []
    public = "from physics.pytree import replace\nfrom physics.api import simulate_fn\nfrom jax import __version__\n"
    assert private_imports(public, "rules") == []
    assert private_imports("from ._pytree import replace\n", "rules") == []
