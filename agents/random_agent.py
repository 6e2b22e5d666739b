"""``RandomAgent``: the environments' random player, the floor every other player must beat; and
the level random strikes the search draws candidates from."""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

import physics
from physics.execution import OFFSET_MAX, V0_MAX, V0_MIN
from physics.params import Params
from rules import GameState, Rules
from agents.base import Planner, disc_from_uniform
from billiards_env import actions
from billiards_env.params import THETA_MAX


def random_shots(key, shape, dtype=jnp.float64, v_min=V0_MIN, v_max=V0_MAX, max_offset=OFFSET_MAX) -> physics.Shot:
    """Shots of the given batch shape: V0 uniform in [v_min, v_max] m/s, aim uniform over the
    circle, a level cue (theta 0), tip offset (a, b) uniform on the disc of radius ``max_offset``."""
    u = jax.random.uniform(key, tuple(shape) + (4,), dtype)
    return shots_from_uniform(u, v_min, v_max, max_offset)


def shots_from_uniform(u, v_min=V0_MIN, v_max=V0_MAX, max_offset=OFFSET_MAX) -> physics.Shot:
    """``random_shots`` from uniform [0, 1) numbers u (..., 4)."""
    a, b = disc_from_uniform(u[..., 2], u[..., 3], max_offset)
    return physics.Shot(
        V0=v_min + (v_max - v_min) * u[..., 0],
        phi=-180.0 + 360.0 * u[..., 1],
        theta=jnp.zeros_like(u[..., 0]),
        a=a,
        b=b,
    )


@functools.partial(jax.jit, static_argnames=("v_min", "v_max", "theta_max", "max_offset"))
def _plan_batch(keys, dtype_probe, v_min, v_max, theta_max, max_offset):
    def one(key):
        x = actions.random_action(key)[:5].astype(dtype_probe.dtype)
        return actions.strike_of(x, v_min, v_max, theta_max, max_offset)

    return jax.vmap(one)(keys)


class RandomAgent(Planner):
    """The environments' built-in random player: a uniform action in [-1, 1]^9
    (``billiards_env.actions.random_action``, the same draw for the same key) played through the
    action's mapping (``billiards_env.actions.strike_of``): any aim, V0 uniform in [0.5, 8] m/s,
    the tip on the disc of radius 0.5 R, a level cue nine times in ten and else a raised one up to
    80 deg. The ranges can be changed."""

    name = "random"

    def __init__(self, v_min: float = V0_MIN, v_max: float = V0_MAX, max_offset: float = OFFSET_MAX,
                 theta_max: float = THETA_MAX):
        if not 0 <= v_min < v_max:
            raise ValueError(f"need 0 <= v_min < v_max, got v_min={v_min}, v_max={v_max}")
        if not 0 <= max_offset < 0.6:
            raise ValueError(f"max_offset must be in [0, 0.6) (the miscue limit), got {max_offset}")
        if not 0 <= theta_max < 90:
            raise ValueError(f"theta_max must be in [0, 90) deg, got {theta_max}")
        self.v_min, self.v_max, self.max_offset = float(v_min), float(v_max), float(max_offset)
        self.theta_max = float(theta_max)

    def plan_batch(self, ruleset: Rules, states: GameState, params: Params, keys: jax.Array) -> physics.Shot:
        return _plan_batch(jnp.asarray(keys), jnp.zeros((), params.dtype), self.v_min, self.v_max, self.theta_max,
                           self.max_offset)

    def __repr__(self):
        return (f"RandomAgent(v_min={self.v_min}, v_max={self.v_max}, max_offset={self.max_offset}, "
                f"theta_max={self.theta_max})")
