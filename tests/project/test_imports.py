"""The import structure: no package reaches into another's private names (every import across
packages names public modules and public names only: physics -> rules -> billiards_env -> agents ->
experiments talk through ``physics.api``, ``physics.pytree`` and the packages' other public
modules); the layers import only downward (docs/design.md); and no modules import each other in a
circle, imports inside functions counted.

Pure Python over the source (``ast``), no JAX. Planted bad sources below prove the checker.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("physics", "rules", "aiming", "billiards_env", "agents", "experiments")


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


# -- layers and circles --------------------------------------------------------------------------

def _modules(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every module of the packages."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def module_imports(source: str, module: str, is_package: bool, known) -> set[str]:
    """The project modules that ``source`` imports, at any depth (imports inside functions count).

    ``from package import name`` counts as importing the submodule ``package.name`` where there is
    one, else the package itself (its ``__init__`` runs and provides the name)."""
    found = set()
    here = module.split(".") if is_package else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                stem = here[:len(here) - (node.level - 1)]
                base = ".".join(stem + ([base] if base else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = _modules(root)
    return {m: module_imports(p.read_text(encoding="utf-8"), m, p.name == "__init__.py", modules)
            for m, p in modules.items()}


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """'a -> b' for each import of a module from a later layer (PACKAGES is the order)."""
    layer = {p: i for i, p in enumerate(PACKAGES)}
    return sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets
                  if layer[b.split(".")[0]] > layer[a.split(".")[0]])


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_layers_import_only_downward():
    """docs/design.md: physics, then rules, billiards_env, agents, experiments; never a later one."""
    assert upward_imports(import_graph()) == []


def test_no_import_circle_between_modules():
    assert circles(import_graph()) == []


def test_the_layer_and_circle_checks_find_planted_faults(tmp_path):
    planted = {
        "physics/__init__.py": "from physics import a\n",
        "physics/a.py": "def f():\n    from physics import b\n",  # inside a function counts
        "physics/b.py": "from . import a\n",  # relative, and back to a: a circle
        "rules/__init__.py": "import physics.a\n",
        "rules/c.py": "from agents.d import thing\n",  # upward
        "billiards_env/__init__.py": "", "agents/__init__.py": "", "agents/d.py": "from rules import c\n",
        "experiments/__init__.py": "",
    }
    for name, text in planted.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = import_graph(tmp_path)
    assert graph["physics.a"] == {"physics.b"} and graph["physics.b"] == {"physics.a"}
    assert upward_imports(graph) == ["rules.c -> agents.d"]
    assert circles(graph) == [["agents.d", "rules.c"], ["physics.a", "physics.b"]]
