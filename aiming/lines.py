"""The best geometric lines of a layout and the grid of strikes round them: the candidates that
the search perturbs, the success model rates, and the environment's "lines" action form offers.

``line_set`` finds every line of a state's line table (``aiming.geometry``: ghost-ball caroms,
mirror-image cushion lines, pin lines) with its quality and value, ``lines_batch`` over a batch
(compiled once per kind of table, shared by every caller), ``best_lines`` keeps the k best
(score = quality x points; on the break of a carom game only lines off the red, C-2.2), and
``line_grid`` plays each of them with the variations of ``GRID`` (speed, draw/follow, side spin;
the aim kept). No simulation anywhere: the cost of a decision is geometry.

    best = best_lines(ruleset, states, params, seeds=12)   # (score, phi, V0, b), each (S, 12)
    shots = line_grid(best, params)                        # physics.Shot, leaves (S, 12 * 11)
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

import physics
import rules
from physics.execution import playable, shot_array, shot_from_array
from physics.params import Params
from aiming import geometry
from rules import GameState, PinState, Rules
from rules.state import RED_CAROM


def line_shots(best) -> physics.Shot:
    """The best lines (score, phi, V0, b, each (..., k)) as the geometric agent plays them: level
    cue, no side spin."""
    _, phi, V0, b = best
    zero = jnp.zeros_like(phi)
    return physics.Shot(V0=V0, phi=phi, theta=zero, a=zero, b=b)


def line_set(ruleset, state, params, table=None, check_obstacles=True, rolling=True):
    """``geometry.Lines`` of one state (pure; vmap over states), and their values (points)."""
    table = geometry.line_table_for(ruleset) if table is None else table
    return _line_set(table, ruleset.is_hungarian, ruleset.pin_radius, state, params, check_obstacles, rolling)


def _line_set(table, hungarian, pin_radius, state, params, check_obstacles=True, rolling=True):
    pin = rules.pin.in_play(state) if hungarian else None
    stands = state.pin_state == PinState.STANDING
    found = geometry.lines(table, state.positions, state.cue_ball, params, pin, pin_radius, check_obstacles, rolling,
                           stands)
    return found, geometry.line_values(table, hungarian, state.positions.dtype)


@functools.partial(jax.jit, static_argnames=("cushions", "hungarian", "rolling"))
def _lines_batch(cushions, hungarian, pin_radius, states, params, rolling=True):
    table = geometry.line_table(cushions, hungarian)
    found, values = jax.vmap(lambda s: _line_set(table, hungarian, pin_radius, s, params, rolling=rolling))(states)
    return found, values[0]


def lines_batch(ruleset, states, params, rolling: bool = True):
    """``line_set`` over a batch of states: (Lines with leaves (S, n_lines), values (n_lines,)).
    Compiled once per kind of line table (not per discipline) and shared by the geometric and
    the search agents. ``rolling=False`` leaves out the rolling model of the cue ball's path
    after the first contact (``geometry.lines``): cruder aims, in about half the time."""
    return _lines_batch(geometry.line_cushions(ruleset), ruleset.is_hungarian, ruleset.pin_radius, states, params,
                        rolling)


def best_lines(ruleset: Rules, states: GameState, params: Params, seeds: int, rolling: bool = True):
    """The best geometric lines of each state, at most ``seeds`` of them: (score, phi, V0, b),
    each (S, k); the lines the search's round-1 candidates perturb. No simulation. ``rolling``:
    see ``lines_batch``."""
    found, values = lines_batch(ruleset, states, params, rolling)
    return _best_lines(found, values, states, max(1, min(seeds, values.shape[0])))


@functools.partial(jax.jit, static_argnames=("k",))
def _best_lines(found, values, states, k: int):
    """The k best lines of each state: (score, phi, V0, b), each (S, k) (or (k,) for one state).
    On the break of a carom game, lines off the red first (rule C-2.2)."""
    score = found.quality * values
    off_red = found.first_ball == RED_CAROM
    pending = (states.first_carom_pending & (states.pin_state == PinState.NO_PIN))[..., None]
    score = jnp.where(pending & ~off_red, 0.0, score)
    top_score, top = jax.lax.top_k(score, k)
    take = lambda x: jnp.take_along_axis(x, top, -1)  # noqa: E731
    return top_score, take(found.phi), take(found.V0), take(found.b)


GRID = ((1.0, 0.0, 0.0), (0.8, 0.0, 0.0), (1.25, 0.0, 0.0), (1.0, 0.0, -0.2), (1.0, 0.0, 0.2), (0.8, 0.0, -0.2),
        (0.8, 0.0, 0.2), (1.25, 0.0, -0.2), (1.25, 0.0, 0.2), (1.0, -0.25, 0.0), (1.0, 0.25, 0.0))
"""Variations of a geometric line in the grid proposal: (speed factor, side spin a, added draw/follow b)."""


@jax.jit
def line_grid(best, params: Params) -> physics.Shot:
    """(S, k * len(GRID)) strikes: each of the k best lines (score, phi, V0, b each (S, k)) played
    with every variation of ``GRID``, its aim untouched; lines without a seed keep their (unused) values."""
    _, phi, V0, b = best
    g = jnp.asarray(GRID, phi.dtype)
    shape = phi.shape[:-1] + (-1,)
    shots = physics.Shot(V0=(V0[..., None] * g[:, 0]).reshape(shape), phi=jnp.repeat(phi, len(GRID), -1),
                         theta=jnp.zeros(phi.shape + (len(GRID),), phi.dtype).reshape(shape),
                         a=jnp.broadcast_to(g[:, 1], phi.shape + (len(GRID),)).reshape(shape),
                         b=(b[..., None] + g[:, 2]).reshape(shape))
    return shot_from_array(playable(shot_array(shots), params))


FALLBACK_V0 = 3.0  # m/s, the speed of the stand-in for a line that is not there


def fallback(positions, cue_ball, dtype):
    """(phi, V0): the stroke played where no line is possible: a full ball at the nearer object
    ball at a medium speed."""
    obj = geometry.object_balls(cue_ball)
    C = positions[cue_ball]
    d = jnp.linalg.norm(positions[obj] - C, axis=-1)
    target = positions[obj[jnp.argmin(d)]] - C
    return jnp.degrees(jnp.arctan2(target[1], target[0])).astype(dtype), jnp.asarray(FALLBACK_V0, dtype)


def candidates(cushions: int, hungarian: bool, pin_radius, state: GameState, params: Params, k: int,
               rolling: bool = True, light: bool = False):
    """The candidate strikes of one state: (best, shots, valid). ``best``: its k best lines
    (score, phi, V0, b, each (k,); ``best_lines``), where a line is missing (score 0) the
    ``fallback`` stroke; ``shots``: ``line_grid`` of them, leaves (k * len(GRID),); ``valid``:
    (k * len(GRID),) bool, the strike varies a real line. Pure (vmap it); ``cushions`` and
    ``hungarian`` are static (they shape the line table); ``rolling``: see ``lines_batch``;
    ``light``: the fewest-cushion carom lines only (``geometry.line_table``)."""
    table = geometry.line_table(cushions, hungarian, light)
    found, values = _line_set(table, hungarian, pin_radius, state, params, rolling=rolling)
    score, phi, V0, b = _best_lines(found, values, state, k)
    have = score > 0
    phi_f, V0_f = fallback(state.positions, state.cue_ball, phi.dtype)
    best = (score, jnp.where(have, phi, phi_f), jnp.where(have, V0, V0_f), jnp.where(have, b, 0.0))
    return best, line_grid(best, params), jnp.repeat(have, len(GRID))
