"""The optional packages: one install line gives every command what it needs (pyproject's extras,
the README's set-up lines, CI), gymnasium's requirement agrees with gymnax's pin, and a command
whose optional package is missing stops with the line to install it instead of a traceback
(``experiments.common.need``; a module set to None in ``sys.modules`` cannot be imported)."""
from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest

from experiments import common, train

ROOT = pathlib.Path(__file__).resolve().parents[2]
tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later


@pytest.fixture(scope="module")
def project():
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def names(requirements) -> set:
    """The distribution names of requirement strings (extras of this project expanded by the caller)."""
    return {re.split(r"[\[<>=!~ ;]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements}


def expanded(extras: dict, extra: str) -> set:
    """An extra's distributions, this project's own extras (carom-billiards[a,b]) followed."""
    out = set()
    for requirement in extras[extra]:
        own = re.fullmatch(r"carom-billiards\[(.+)\]", requirement)
        if own:
            for name in own.group(1).split(","):
                out |= expanded(extras, name.strip())
        else:
            out |= names([requirement])
    return out


def test_all_extra_has_both_training_backends_and_the_tests_install_it(project):
    extras = project["optional-dependencies"]
    everything = expanded(extras, "all")
    assert expanded(extras, "rl") | expanded(extras, "jax") <= everything
    assert {"optax", "gymnax", "stable-baselines3", "torch", "pettingzoo"} <= everything
    assert everything <= expanded(extras, "test")
    # every package the commands ask for by need() is in the extra its message names, and in "all"
    for module, extra in common.EXTRAS.items():
        distribution = module.replace("_", "-")
        assert distribution in expanded(extras, extra) and distribution in everything, module


def test_readme_and_ci_install_every_commands_dependencies():
    readme = (ROOT / "README.md").read_text()
    installs = re.findall(r'pip install (?:-q )?-e "\.\[([a-z,]+)\]"', readme)
    setup = readme.split("## ", 1)[0]  # the set-up lines at the top
    assert '.venv/bin/pip install -e ".[all]" && .venv/bin/python -m experiments.demo' in setup
    assert '.venv/bin/pip install -q -e ".[test]" && .venv/bin/python -m pytest' in setup
    assert "rl" not in installs, "an install line without the jax backend of experiments.train"
    assert '-e ".[test]"' in (ROOT / ".ci" / "run").read_text()


def test_gymnasium_requirement_is_gymnax_pin(project):
    """The project's own gymnasium range is gymnax's, so that adding gymnax moves nothing."""
    specifiers = pytest.importorskip("packaging.specifiers")
    ours = [r for r in project["dependencies"] if names([r]) == {"gymnasium"}]
    assert len(ours) == 1
    try:
        requires = importlib.metadata.requires("gymnax") or []
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("gymnax is not installed")
    theirs = [r.split(";")[0] for r in requires if names([r]) == {"gymnasium"} and "extra" not in r]
    assert len(theirs) == 1
    assert (specifiers.SpecifierSet(ours[0][len("gymnasium"):])
            == specifiers.SpecifierSet(theirs[0].strip()[len("gymnasium"):]))


def test_need_returns_the_module_or_stops_with_the_install_line(monkeypatch):
    assert common.need("json") is sys.modules["json"]
    monkeypatch.setitem(sys.modules, "optax", None)
    with pytest.raises(SystemExit) as stop:
        common.need("optax", what="the test")
    message = str(stop.value.code)
    assert message.startswith("the test needs optax") and 'pip install -e ".[all]"' in message
    assert 'pip install -e ".[jax]"' in message  # the extra that has it (common.EXTRAS)


@pytest.mark.parametrize("backend, missing", [("jax", "optax"), ("sb3", "torch"), ("sb3", "stable_baselines3")])
def test_train_stops_before_any_work_when_its_backend_is_missing(monkeypatch, tmp_path, backend, missing):
    monkeypatch.setitem(sys.modules, missing, None)
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as stop:
        train.main(["--backend", backend, "--timesteps", "64", "--out", str(out)])
    message = str(stop.value.code)
    assert f"experiments.train --backend {backend} needs {missing}" in message
    assert '".[all]"' in message and not out.exists()


def test_bench_env_stops_before_timing_without_stable_baselines3(monkeypatch, tmp_path):
    from experiments import bench_env

    monkeypatch.setitem(sys.modules, "stable_baselines3", None)
    with pytest.raises(SystemExit) as stop:
        bench_env.main(["--out", str(tmp_path), "--ppo-steps", "64"])
    assert "needs stable_baselines3" in str(stop.value.code) and not any(tmp_path.iterdir())


@pytest.mark.parametrize("module", ["experiments.success_model", "experiments.bench_ppo"])
def test_commands_importing_optax_stop_with_the_install_line(monkeypatch, module):
    monkeypatch.setitem(sys.modules, "optax", None)
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(SystemExit) as stop:
        importlib.import_module(module)
    assert "needs optax" in str(stop.value.code) and '".[all]"' in str(stop.value.code)


def test_summary_keys_are_documented_and_the_old_rate_names_are_gone():
    for key in ("setup_s", "train_s", "train_evaluation_s", "final_evaluation_s", "total_s", "wall_shots_per_s",
                "first_update_s", "compiled_shots_per_s", "selected_timesteps", "trained_beats_random",
                "periodic_evaluation", "random_success_rate", "random_mean_reward"):
        assert f"`{key}`" in (ROOT / "docs" / "training.md").read_text(), key
    assert "docs/training.md" in train.__doc__
    assert "wall_shots_per_s" in (ROOT / "README.md").read_text()
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout")
    stale = [path for path in tracked if path.endswith((".py", ".md"))
             and re.search(r"training_steps_per_s|steady_steps_per_s", (ROOT / path).read_text(errors="ignore"))
             and path != "tests/commands/test_optional_packages.py"]
    assert not stale


def test_the_demo_says_why_it_leaves_the_learned_agent_out(monkeypatch, capsys):
    from experiments import demo

    assert "rl" in demo.agent_specs(learned=True)  # the shipped RL policy needs no optional package
    monkeypatch.setattr(demo, "MODEL", "no/such/model.npz")
    assert "rl" not in demo.agent_specs(learned=True)
    assert "no/such/model.npz is not here" in capsys.readouterr().err
