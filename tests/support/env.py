"""Shared helpers of the environment tests (no tests here).

The environments are run staged (``fused=False``): each stage is compiled once per rule family
and batch shape and the physics once per table kind, so the seven disciplines share most of the
compile time. One batch size (``BATCH``) serves every batched test, the PPO runs included.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

import billiards_env
from billiards_env import actions, testing
from billiards_env.runner import Runner

BATCH = 64
ENV_IDS = billiards_env.ENV_IDS
DISCIPLINES = tuple(billiards_env.IDS)


@functools.lru_cache(maxsize=None)
def fenv(discipline: str, mode: str = "shot", opponent="random", **values):
    """A functional environment (cached: the same object, the same compiled stages)."""
    return billiards_env.make_functional(discipline, mode, opponent, **values)


@functools.lru_cache(maxsize=None)
def autoreset_step(discipline: str, mode: str = "shot"):
    """``jax.jit(jax.vmap(step_autoreset))`` of a discipline's environment, every input batched
    (params included): one compiled program serves the gymnax loop's reference
    (tests/env/test_gymnax.py) and the parameter sweep (tests/env/test_behaviour.py)."""
    return jax.jit(jax.vmap(fenv(discipline, mode).step_autoreset))


def stacked(params, n: int):
    """``n`` copies of the params along a leading batch axis."""
    return jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (n,) + jnp.shape(x)), params)


def runner(env, batch=None):
    return Runner(env, batch, fused=False, lanes=BATCH)


def random_actions(key, batch=None):
    shape = (actions.N_ACTIONS,) if batch is None else (batch, actions.N_ACTIONS)
    return np.asarray(jax.random.uniform(key, shape, jnp.float32, -1.0, 1.0))


def tree_equal(a, b) -> bool:
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    return len(la) == len(lb) and all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(la, lb))


def index(tree, i):
    return jax.tree_util.tree_map(lambda x: x[i], tree)


# The State's fields and their check live in the public checker (``billiards_env.testing``).
STATE_FIELDS = testing.STATE_FIELDS
check_state = testing.check_state
