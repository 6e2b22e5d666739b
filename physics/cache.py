"""JAX's persistent compilation cache for the library's programs, on by one call.

``use_compilation_cache()`` keeps every compiled program in JAX's persistent cache, in
``~/.cache/carom-billiards/jax`` or the folder named by the environment variable
``CAROM_JAX_CACHE`` (``off``, ``0``, ``no`` or empty: no cache), so that a second run of a command
or of the test suite loads its simulation instead of compiling it again. A process-wide JAX
setting, like the precision (``physics.precision``): the commands and the tests call it first.
"""
from __future__ import annotations

import os

import jax

CACHE_DEFAULT = "~/.cache/carom-billiards/jax"
CACHE_VARIABLE = "CAROM_JAX_CACHE"


def use_compilation_cache() -> str | None:
    """Turn on JAX's persistent compilation cache (see the module docstring); returns its folder,
    or None when ``CAROM_JAX_CACHE`` turns it off."""
    where = os.environ.get(CACHE_VARIABLE, CACHE_DEFAULT)
    if where.strip().lower() in ("", "off", "0", "no"):
        return None
    folder = os.path.expanduser(where)
    jax.config.update("jax_compilation_cache_dir", folder)
    # Every program, however small: loading a small one is faster than compiling it again, and
    # code run op by op (outside jit) compiles one small program per operation.
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return folder


__all__ = ["CACHE_DEFAULT", "CACHE_VARIABLE", "use_compilation_cache"]
