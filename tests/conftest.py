"""Shared fixtures: parameter sets and layouts that keep the number of compilations small.

Every physics test uses three balls, so one compiled simulation per static setting serves all.
Compiled programs are kept in JAX's persistent compilation cache, outside the clone
(``physics.use_compilation_cache``: ``~/.cache/carom-billiards/jax``, or the folder in
``CAROM_JAX_CACHE``; ``CAROM_JAX_CACHE=off`` turns it off), so that a second run of the suite on
a machine skips most of the compile time (a warm run of the whole suite used about a third of the
CPU time of a cold one). The suite runs in two processes (pytest-xdist, ``-n 2`` in
pyproject.toml; ``-n 0`` for one), a test file per process, since compiling keeps a core busy
while the other waits.
"""
import gc
import os

import jax
import pytest

import physics

physics.use_compilation_cache()


def _mapped_regions() -> int:
    """Memory mappings of this process (0 where /proc is not there)."""
    try:
        with open("/proc/self/maps", "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def _map_budget() -> int:
    try:
        with open("/proc/sys/vm/max_map_count") as f:
            return int(f.read()) // 2
    except (OSError, ValueError):
        return 32_000


MAP_BUDGET = _map_budget()


@pytest.fixture(autouse=True)
def _release_compiled_code():
    """Drop JAX's compiled programs once they hold half of the process's allowed memory mappings.

    On the CPU each compiled simulation maps about a thousand small code regions, and the kernel
    allows a process 65,530 by default: a whole suite in one process would pass that and crash
    inside the compiler. Clearing the caches unmaps them; later tests recompile what they need."""
    yield
    if _mapped_regions() > MAP_BUDGET:
        jax.clear_caches()
        gc.collect()


@pytest.fixture(scope="session", autouse=True)
def _library_logs_in_a_test_folder(tmp_path_factory):
    """Stable-Baselines3 models built by the tests log to a folder of the session's own (without it
    every ``learn`` leaves one in the system's temporary folder)."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3-logs")))
    yield


@pytest.fixture(scope="session")
def params():
    return physics.default_params()


@pytest.fixture(scope="session")
def big_table():
    """A 20 x 20 m table: room for known-answer shots that must not reach a cushion."""
    return physics.default_params(length=20.0, width=20.0)


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one thread for a module's small networks (the JAX work needs the other cores);
    request it with ``pytestmark = pytest.mark.usefixtures("one_torch_thread")``."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
