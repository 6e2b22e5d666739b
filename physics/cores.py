"""A batch spread over the CPU's cores: one compiled call per block of rows, each on its own thread.

XLA runs a program's while loop on one thread, and the shot pool's operations (a few hundred
lanes wide) are too small for its intra-op threads to pay: on a 2-core CPU one call of the pool
runs no faster on two cores than on one. So on a CPU backend ``physics.simulate_batch`` cuts a
large batch into one block per core and plays each block's pool from a thread of its own (a
compiled call releases the GIL while it runs), then joins the blocks' results. Each shot's
arithmetic does not depend on the other shots, so the joined result is the one call's, bit for
bit. The blocks are joined in NumPy arrays aligned to 64 bytes, which the CPU device adopts
without a copy (``jax.device_put``); XLA's own concatenation would copy the event log once more.

With several devices (accelerators, or host devices made with ``--xla_force_host_platform_device_count``)
``physics.devices`` splits the batch instead; under ``jit`` a batch is one program, as before.
"""
from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import jax
import numpy as np

from physics import devices

_ALIGN = 64  # bytes: the CPU device takes a NumPy buffer this aligned as it is
_pools: dict[int, ThreadPoolExecutor] = {}
_lock = threading.Lock()
if hasattr(os, "register_at_fork"):  # a forked child has none of the parent's threads: new pools there
    os.register_at_fork(after_in_child=_pools.clear)


def cpu_cores() -> int:
    """The cores this process may run on: those it may be scheduled on, fewer where a container's
    CPU quota (Linux control groups) allows less time than that."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    quota = cpu_quota()
    return cores if quota is None else max(1, min(cores, math.ceil(quota)))


def cpu_quota(root: str = "/sys/fs/cgroup") -> float | None:
    """CPUs' worth of time the control group allows (cgroup v2 ``cpu.max``, or v1's
    ``cpu.cfs_quota_us`` over ``cpu.cfs_period_us``), None where there is no limit or no such file."""
    v2 = _read(os.path.join(root, "cpu.max"))
    quota: str | None
    period: str | None
    if v2 is not None:
        quota, period = (v2.split() + ["", ""])[:2]
    else:
        quota = _read(os.path.join(root, "cpu", "cpu.cfs_quota_us"))
        period = _read(os.path.join(root, "cpu", "cpu.cfs_period_us"))
    if quota is None or period is None:
        return None
    try:
        share = float(quota) / float(period)
    except (ValueError, ZeroDivisionError):  # "max": no limit
        return None
    return share if share > 0 else None  # v1 writes -1 for no limit


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def threads_here(threads: int | None = None) -> int:
    """Threads a batch is played on: ``threads`` (default: the process's cores) on a CPU backend
    with one device, else 1 (an accelerator, or several devices, which ``physics.devices`` splits
    a batch over)."""
    if jax.default_backend() != "cpu" or devices.device_count() > 1:
        return 1
    return cpu_cores() if threads is None else threads


def check_threads(threads) -> int | None:
    """``threads`` as given to ``simulate_batch``: None (the default) or an int >= 1."""
    if threads is None:
        return None
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(f"threads must be None (one per core on a CPU) or an int >= 1, got {threads!r}")
    return int(threads)


def block_size(batch: int, lanes: int, threads: int | None = None) -> int | None:
    """Rows per block when ``batch`` rows are spread over ``threads_here(threads)`` threads, or
    None to play the batch as one call (one thread, or fewer than two lanes' worth of rows). A
    block is a whole number of ``lanes``, so the blocks of many batch sizes share compiled shapes."""
    lane_blocks = -(-batch // lanes)
    if lane_blocks < 2:  # asked first: a single shot's call should not read the machine's limits
        return None
    threads = threads_here(threads)
    if threads <= 1:
        return None
    return -(-lane_blocks // min(threads, lane_blocks)) * lanes


def play_blocks(play: Callable, inputs, size: int, block: int, keep: int):
    """``play`` (a batched function of the pytree ``inputs``, rows on the leading axis of every
    leaf) on ``size // block`` blocks of rows at once, one thread each; the first ``keep`` rows of
    the joined result, as arrays on the CPU device."""
    count = size // block
    parts = [jax.tree_util.tree_map(lambda x, i=i: x[i * block:(i + 1) * block], inputs) for i in range(count)]
    results = list(_pool(count).map(lambda part: jax.block_until_ready(play(part)), parts))
    return jax.tree_util.tree_map(lambda *leaves: _join(leaves, keep), *results)


def _join(leaves, keep: int):
    """The leaves' rows one after the other, cut to ``keep`` rows, in a 64-byte-aligned buffer the
    device adopts as it is."""
    arrays = [np.asarray(x) for x in leaves]
    shape = (sum(a.shape[0] for a in arrays),) + arrays[0].shape[1:]
    out = _aligned(shape, arrays[0].dtype)
    np.concatenate(arrays, axis=0, out=out)
    return jax.device_put(out[:keep])


def _aligned(shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + _ALIGN, np.uint8)
    start = (-raw.ctypes.data) % _ALIGN
    return raw[start:start + nbytes].view(dtype).reshape(shape)


def _pool(threads: int) -> ThreadPoolExecutor:
    with _lock:
        pool = _pools.get(threads)
        if pool is None:
            pool = _pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix="physics-block")
        return pool
