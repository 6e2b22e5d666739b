"""The batch split over devices (``physics.devices``): on two forced CPU devices the batched physics,
the batched environment step and the JAX PPO keep their batches sharded over both, and give what
one device gives on the same seeds.

Every row is computed on its own and each environment's key is drawn before the split, so the
same shots are played and refereed: event counts, rewards and observations' outcomes agree. They
are not bitwise equal: each device's program is compiled for half the batch, and XLA's CPU code
vectorises a different shape differently, so positions differ at float64 rounding (about 1e-12
m; the same happens on one device between batch sizes). PPO's update also reduces over the batch
(losses, gradients), which two devices sum in another order, so its weights agree to rounding.

Each device count runs in its own process (``tests/support/sharded_run.py``): JAX reads the device count
once, before it starts.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import jax
import numpy as np
import pytest

from physics import devices

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(tmp_path, n_devices: int) -> dict:
    out = tmp_path / f"devices{n_devices}.npz"
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={n_devices}", JAX_PLATFORMS="cpu",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cache = jax.config.jax_compilation_cache_dir  # the suite's persistent cache (tests/conftest.py), if any
    if cache:
        env.update(JAX_COMPILATION_CACHE_DIR=cache, JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0.2",
                   JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="0")
    done = subprocess.run([sys.executable, "-m", "tests.support.sharded_run", str(out)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    with np.load(out) as f:
        return {k: (json.loads(str(f[k])) if k == "seen" else f[k]) for k in f.files}


@pytest.mark.slow
def test_two_devices_shard_the_batches_and_agree_with_one(tmp_path):
    two, one = run(tmp_path, 2), run(tmp_path, 1)
    assert two["seen"] == dict(devices=2, simulate=2, env=2, ppo_env=2)
    assert one["seen"] == dict(devices=1, simulate=1, env=1, ppo_env=1)
    for name in ("num_events", "rewards", "ppo_reward"):
        np.testing.assert_array_equal(two[name], one[name], err_msg=name)
    for name in ("final_positions", "env_obs", "ppo_obs"):
        np.testing.assert_allclose(two[name], one[name], rtol=0, atol=1e-9, err_msg=name)
    np.testing.assert_allclose(two["final_positions"], two["whole"], rtol=0, atol=1e-9)  # split and whole pools
    assert np.ptp(two["num_events"]) > 0  # shots of different lengths shared the lanes
    for name in (k for k in one if k.startswith("net")):
        np.testing.assert_allclose(two[name], one[name], rtol=0, atol=1e-5, err_msg=name)


def test_one_device_helpers_are_the_identity():
    assert devices.device_count() == len(jax.devices())
    if devices.device_count() != 1:
        pytest.skip("this process sees several devices")
    fn = lambda x: x  # noqa: E731
    assert devices.split_batch(fn, (True,)) is fn
    tree = {"a": np.arange(3)}
    assert devices.shard_batch(tree) is tree
    assert devices.constrain_batch(tree) is tree


def test_uneven_batches_are_refused_by_name():
    with pytest.raises(ValueError, match="n_envs must be a multiple of the device count 2"):
        devices.check_divisible(7, "n_envs", devices=2)
    devices.check_divisible(8, "n_envs", devices=2)
