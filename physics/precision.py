"""The library's precision: float64 by default, through JAX's process-wide 64-bit switch.

Event detection compares gaps of about 1e-9 m with ball sizes and table lengths, and every
cushion of a three-cushion shot amplifies small differences, so the defaults (``default_params``,
the rules' tolerances) are float64 (README, "Precision"). JAX creates 64-bit arrays only while
its ``jax_enable_x64`` flag is on, and the flag holds for the whole process, so it must be set
before arrays are made: ``import physics`` calls ``enable_x64()`` once, unless the user has made
JAX's own choice with the ``JAX_ENABLE_X64`` environment variable (then that choice stands and,
with ``JAX_ENABLE_X64=0``, the defaults are float32).
"""
import os

import jax

X64_VARIABLE = "JAX_ENABLE_X64"


def enable_x64() -> None:
    """Turn on JAX's 64-bit mode for the whole process (arrays made afterwards default to 64 bits)."""
    jax.config.update("jax_enable_x64", True)


def enable_x64_unless_chosen() -> bool:
    """``enable_x64()`` unless ``JAX_ENABLE_X64`` is set; True when 64-bit mode is on afterwards."""
    if os.environ.get(X64_VARIABLE) is None:
        enable_x64()
    return bool(jax.config.read("jax_enable_x64"))


__all__ = ["enable_x64", "enable_x64_unless_chosen", "X64_VARIABLE"]
