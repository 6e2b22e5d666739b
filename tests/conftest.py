"""Shared fixtures: parameter sets and layouts that keep the number of compilations small.

Every physics test uses three balls, so one compiled simulation per static setting serves all.
Compiled programs are kept in JAX's persistent compilation cache, outside the clone (by default
``~/.cache/carom-billiards/jax``; ``CAROM_JAX_CACHE`` overrides it, an empty value turns it off),
so a second run of the suite on the same machine skips most of the compile time.
"""
import os
from pathlib import Path

import jax
import numpy as np
import pytest

import physics


def _use_compilation_cache():
    where = os.environ.get("CAROM_JAX_CACHE", str(Path.home() / ".cache" / "carom-billiards" / "jax"))
    if not where:
        return
    jax.config.update("jax_compilation_cache_dir", where)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.2)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


_use_compilation_cache()


@pytest.fixture(scope="session")
def params():
    return physics.default_params()


@pytest.fixture(scope="session")
def big_table():
    """A 20 x 20 m table: room for known-answer shots that must not reach a cushion."""
    return physics.default_params(length=20.0, width=20.0)


def far_ball(params):
    """A parking place for a ball that takes no part (a corner, touching no cushion)."""
    return np.array([float(params.table.length) - 0.1, float(params.table.width) - 0.1])


def energy(velocities, spins, params):
    """Kinetic energy of every ball, translation plus rotation: (..., n) -> summed over balls."""
    m = float(params.ball.mass)
    inertia = float(params.ball.inertia)
    v2 = np.sum(np.asarray(velocities) ** 2, axis=-1)
    w2 = np.sum(np.asarray(spins) ** 2, axis=-1)
    return np.sum(0.5 * m * v2 + 0.5 * inertia * w2, axis=-1)


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one thread for a module's small networks (the JAX work needs the other cores);
    request it with ``pytestmark = pytest.mark.usefixtures("one_torch_thread")``."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
