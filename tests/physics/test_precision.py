"""Precision is one documented, process-wide choice (``physics.precision``; README, "Precision"):
``import physics`` turns on JAX's 64-bit mode unless ``JAX_ENABLE_X64`` states the user's own
choice, and ``physics.enable_x64()`` turns it on explicitly. Each case runs in a fresh Python,
because the switch holds for the whole process."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import jax, jax.numpy as jnp, physics\n"
    "print(jax.config.jax_enable_x64, jnp.zeros(()).dtype, physics.default_params().dtype)\n"
    "physics.enable_x64()\n"
    "print(jax.config.jax_enable_x64, jnp.zeros(()).dtype)\n"
)


def probe(x64_variable: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    env["PYTHONPATH"] = str(ROOT)
    env["JAX_PLATFORMS"] = "cpu"
    if x64_variable is not None:
        env["JAX_ENABLE_X64"] = x64_variable
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120,
                         check=True)
    return out.stdout.split("\n")[:2]


@pytest.mark.parametrize("x64_variable, first", [
    (None, "True float64 float64"),  # the library's default: float64
    ("1", "True float64 float64"),
    ("0", "False float32 float32"),  # the user's choice of JAX's 32-bit default stands
])
def test_import_enables_x64_unless_the_user_chose_with_jax_enable_x64(x64_variable, first):
    assert probe(x64_variable) == [first, "True float64"]
