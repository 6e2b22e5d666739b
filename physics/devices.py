"""A batch spread over the devices: one mesh with one axis, ``"batch"``, over every device JAX sees.

Three batched paths use it: ``physics.simulate_batch``, the batched environment step
(``billiards_env.runner``) and the JAX PPO (``agents.jax_ppo``). Each row of a batch is
independent (one shot, one environment), so the batch axis is split into equal blocks, one per
device, and ``split_batch`` runs a batched function on every block under ``shard_map``: each
device runs its own copy of the shot pool (``physics.simulate``'s lanes) on its rows, with no
communication. Arrays laid out by ``shard_batch`` stay on their devices between calls.

With one device every helper is the identity, so single-device code pays nothing. On several
hosts, start each process with ``jax.distributed.initialize()`` first: ``jax.devices()`` then
lists every process's devices and the mesh spans them all (README, "Several devices").
"""
from __future__ import annotations

from typing import Callable, Sequence

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

AXIS = "batch"


def device_count() -> int:
    """How many devices a batch is split over (every device of ``jax.devices()``)."""
    return len(jax.devices())


def batch_mesh(devices: Sequence[jax.Device] | None = None) -> Mesh:
    """The one-axis mesh (``AXIS``) over ``devices`` (default: every device)."""
    return Mesh(np.asarray(jax.devices() if devices is None else list(devices)), (AXIS,))


def batch_sharding(mesh: Mesh | None = None) -> NamedSharding:
    """Leading axis split over the mesh, the other axes whole."""
    return NamedSharding(batch_mesh() if mesh is None else mesh, PartitionSpec(AXIS))


def check_divisible(batch: int, name: str = "batch", devices: int | None = None) -> None:
    """ValueError unless ``batch`` rows split evenly over the devices."""
    n = device_count() if devices is None else devices
    if batch % n:
        raise ValueError(f"{name} must be a multiple of the device count {n} (rows are split evenly over the "
                         f"devices), got {batch}")


def shard_batch(tree, mesh: Mesh | None = None):
    """``tree`` with every leaf's leading axis split over the devices (a no-op on one device)."""
    mesh = batch_mesh() if mesh is None else mesh
    if mesh.size == 1:
        return tree
    for leaf in jax.tree_util.tree_leaves(tree):
        check_divisible(np.shape(leaf)[0], devices=mesh.size)
    return jax.device_put(tree, batch_sharding(mesh))


def constrain_batch(tree, mesh: Mesh | None = None):
    """Inside ``jit``: ask for ``tree``'s leading axes to be split over the devices (a no-op on
    one device, or where a leaf's rows do not split evenly)."""
    mesh = batch_mesh() if mesh is None else mesh
    if mesh.size == 1:
        return tree
    sharding = batch_sharding(mesh)
    return jax.tree_util.tree_map(
        lambda x: jax.lax.with_sharding_constraint(x, sharding) if np.ndim(x) and np.shape(x)[0] % mesh.size == 0
        else x, tree)


def split_batch(fn: Callable, batched: Sequence[bool], mesh: Mesh | None = None) -> Callable:
    """``fn`` run on each device's block of the batch (``shard_map``), for a function whose rows
    are independent. batched: per positional argument, True where its leaves carry the batch on
    their leading axis, False where they are shared (copied to every device, e.g. parameters);
    every output carries the batch. On one device ``fn`` itself is returned; a batch that does not
    split evenly over the devices runs whole (as on one device), with the same results."""
    mesh = batch_mesh() if mesh is None else mesh
    if mesh.size == 1:
        return fn
    specs = tuple(PartitionSpec(AXIS) if b else PartitionSpec() for b in batched)

    def run(*args):
        if len(args) != len(specs):
            raise TypeError(f"split_batch: {len(args)} arguments given, batched describes {len(specs)}")
        rows = {np.shape(leaf)[0] for arg, b in zip(args, batched) if b for leaf in jax.tree_util.tree_leaves(arg)}
        if any(r % mesh.size for r in rows):
            return fn(*args)
        return jax.shard_map(fn, mesh=mesh, in_specs=specs, out_specs=PartitionSpec(AXIS), check_vma=False)(*args)

    return run


__all__ = ["AXIS", "device_count", "batch_mesh", "batch_sharding", "check_divisible", "shard_batch", "constrain_batch",
           "split_batch"]
