"""A plug-in agent to copy: ``NearestBall`` plays a full ball at the nearer object ball.

A plug-in agent is any class with the planner interface (``agents.base.Planner``), in any module
Python can import, named by the spec ``plugin:MODULE.CLASS`` wherever agent specs are taken
(``agents.specs``; docs/agents.md section 7)::

    python -m experiments.evaluate --discipline one_cushion --agents plugin:agents.plugin_example.NearestBall
    python -m experiments.tournament --agents random plugin:agents.plugin_example.NearestBall geometric

The class is made with no arguments (or ``noise=``, the execution noise it will play under, when
its constructor takes that keyword). Its ``plan_batch(ruleset, states, params, keys)`` gets a
batch of game states (``rules.GameState``, leaves with a leading axis S), the physics parameters
and (S, 2) random keys, and returns a ``physics.Shot`` of (S,) arrays: cue speed (m/s), aim
(degrees, 0 along +x, counter-clockwise), elevation (degrees) and tip offsets (fractions of the
ball's radius), played with ``states.cue_ball``. This one is pure JAX and compiled once per
batch shape; it ignores the keys and the rules.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

import physics
from agents.base import Planner, clip_shot
from physics.params import Params
from rules import GameState, Rules

MEDIUM_SPEED = 3.0  # m/s


def nearest_ball_shot(state: GameState, speed) -> physics.Shot:
    """One state's shot (leaves without the batch axis): a level strike through the centre of the
    cue ball at ``speed``, aimed at the centre of the object ball nearer to it."""
    cue = state.cue_ball
    others = (cue + jnp.array([1, 2])) % 3  # the two object balls
    gaps = state.positions[others] - state.positions[cue]
    target = gaps[jnp.argmin(jnp.linalg.norm(gaps, axis=-1))]
    dtype = state.positions.dtype
    zero = jnp.zeros((), dtype)
    return physics.Shot(V0=jnp.asarray(speed, dtype), phi=jnp.degrees(jnp.arctan2(target[1], target[0])),
                        theta=zero, a=zero, b=zero)


@jax.jit
def _plan_batch(states: GameState, speed, params: Params) -> physics.Shot:
    return jax.vmap(lambda state: clip_shot(nearest_ball_shot(state, speed), params))(states)


class NearestBall(Planner):
    """A full ball at the nearer object ball at ``speed`` m/s (a medium speed by default)."""

    name = "nearest_ball"

    def __init__(self, speed: float = MEDIUM_SPEED):
        if not speed > 0:
            raise ValueError(f"speed must be > 0 m/s, got {speed}")
        self.speed = float(speed)

    def plan_batch(self, ruleset: Rules, states: GameState, params: Params, keys: jax.Array) -> physics.Shot:
        return _plan_batch(states, self.speed, params)

    def __repr__(self):
        return f"NearestBall(speed={self.speed})"
