"""``GeometricAgent``: aims by geometry alone (no simulation).

For every candidate line of the discipline (``aiming.geometry``: ghost-ball caroms, mirror-image
cushion lines for one- and three-cushion, ball-first and "bank" lines, and for the Hungarian
game pin lines) it computes a quality and a speed, and plays the best line: the quality times
what the line scores (Hungarian: 50 for the pin, 10 for a carom). On the break of a carom game
only lines that take the red first count (rule C-2.2). When no line is possible (every ghost
ball blocked or off the table) it plays a full ball at the nearer object ball at a medium
speed. Plausible, not optimal: the lines treat cushions as mirrors, never use side spin, and
model the cue ball's spin at the contact and its curve afterwards only roughly.
"""
from __future__ import annotations


import jax
import jax.numpy as jnp

import physics
from physics.params import Params
from aiming import geometry
from aiming.lines import line_set, lines_batch  # noqa: F401 (the lines the agent ranks, where callers found them)
from agents.base import Planner, clip_shot
from rules import GameState, PinState, Rules
from rules.state import RED_CAROM

FALLBACK_V0 = 3.0  # m/s, the shot played when no line is possible


def pick_line(found, values, state, params):
    """(Shot of () arrays, () score): the best line of one state (``found`` without the batch
    axis), or the fallback when there is none. On the break of a carom game only lines off the
    red count (rule C-2.2)."""
    score = found.quality * values
    off_red = found.first_ball == RED_CAROM
    score = jnp.where(state.first_carom_pending & ~off_red & (state.pin_state == PinState.NO_PIN), 0.0, score)
    i = jnp.argmax(score)
    # Fallback: a full ball at the nearer object ball.
    obj = geometry.object_balls(state.cue_ball)
    C = state.positions[state.cue_ball]
    d = jnp.linalg.norm(state.positions[obj] - C, axis=-1)
    target = state.positions[obj[jnp.argmin(d)]] - C
    phi_fallback = jnp.degrees(jnp.arctan2(target[1], target[0]))
    have = score[i] > 0
    dtype = state.positions.dtype
    shot = physics.Shot(
        V0=jnp.where(have, found.V0[i], FALLBACK_V0).astype(dtype),
        phi=jnp.where(have, found.phi[i], phi_fallback).astype(dtype),
        theta=jnp.zeros((), dtype),
        a=jnp.zeros((), dtype),
        b=jnp.where(have, found.b[i], 0.0).astype(dtype),
    )
    return clip_shot(shot, params), score[i]


@jax.jit
def _pick_batch(found, values, states, params):
    return jax.vmap(lambda f, s: pick_line(f, values, s, params)[0])(found, states)


class GeometricAgent(Planner):
    """Plays the best geometric line (see the module docstring). Ignores the key."""

    name = "geometric"

    def plan_batch(self, ruleset: Rules, states: GameState, params: Params, keys: jax.Array) -> physics.Shot:
        found, values = lines_batch(ruleset, states, params)
        return _pick_batch(found, values, states, params)
