"""The collision models' signatures: the Protocols ``BallBallResolve`` and ``CushionResolve``
(``physics.collide.registry``), which mypy checks every registry entry and ``register`` call
against, and ``register``'s own check that a model's function takes the interaction's arguments.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from physics.collide import CUSHION_MODELS, Model, register, unregister

ROOT = Path(__file__).resolve().parents[2]


def three_arrays(v, w, normal):
    """A cushion model that forgot the params."""
    return v, w


def keyword_params(v, w, normal, *, params):
    """A cushion model that takes the params by keyword only (the simulator passes them by position)."""
    return v, w


def any_names(velocity, spin, towards, p, steps=3):
    """A cushion model with names of its own and an extra argument with a default: it takes the call."""
    return velocity, spin


@pytest.mark.parametrize("resolve", [three_arrays, keyword_params])
def test_register_refuses_a_function_that_cannot_take_the_arguments(resolve):
    with pytest.raises(TypeError, match=r"a cushion model's resolve must take 4 arguments by position, "
                                        r"resolve\(v, w, normal, params\) -> \(v, w\)"):
        register("cushion", "test_bad_signature", Model(resolve, "none", "a test model"))
    with pytest.raises(TypeError, match=r"a ball_ball model's resolve must take 6 arguments by position"):
        register("ball_ball", "test_bad_signature", Model(any_names, "none", "a test model"))
    assert "test_bad_signature" not in CUSHION_MODELS


def test_register_takes_any_argument_names():
    register("cushion", "test_any_names", Model(any_names, "none", "a test model"))
    try:
        assert CUSHION_MODELS["test_any_names"].resolve is any_names
    finally:
        unregister("cushion", "test_any_names")


SNIPPET = '''
import jax

from physics.collide import BALL_BALL_MODELS, CUSHION_MODELS, Model, register


def three(v, w, normal):
    return v, w


def one_back(v: jax.Array, w: jax.Array, normal: jax.Array, params) -> jax.Array:
    return v


def cushion(v, w, normal, params):
    return v, w


register("cushion", "bad_arity", Model(three, "", ""))  # refused: no params
register("cushion", "bad_return", Model(one_back, "", ""))  # refused: one array back
register("ball_ball", "cushion_as_pair", Model(cushion, "", ""))  # refused: a cushion model as a ball-ball one
register("cushion", "good", Model(cushion, "", ""))
CUSHION_MODELS["good_entry"] = Model(cushion, "", "")
BALL_BALL_MODELS["bad_entry"] = Model(cushion, "", "")  # refused: the same, as an entry
'''


@pytest.mark.slow  # a mypy run of its own
def test_mypy_checks_models_against_the_protocols(tmp_path):
    assert importlib.util.find_spec("mypy") is not None, "mypy is not installed: pip install -e '.[test]'"
    path = tmp_path / "models_snippet.py"
    path.write_text(SNIPPET)
    cache = os.environ.get("CAROM_MYPY_CACHE", str(Path.home() / ".cache" / "carom-billiards" / "mypy")) or os.devnull
    done = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", cache, str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    flagged = sorted({int(line.split(":")[1]) for line in done.stdout.splitlines() if ": error:" in line})
    refused = [k for k, line in enumerate(SNIPPET.splitlines(), 1) if "# refused" in line]
    assert len(refused) == 4 and flagged == refused, done.stdout + done.stderr
