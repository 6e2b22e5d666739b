"""Repairs: impossible layouts resolved as a referee would, so that a game never wedges.

The physics should never end a shot with a ball outside the cushions but on the table, or with
two balls (or a ball and the standing pin) inside each other; and it refuses to play from such a
layout (``Status.INVALID_LAYOUT``). Should it happen anyway, the referee does what a referee at
the table would, for every discipline alike:

=================================  ===========================================================
impossible state                   repair
=================================  ===========================================================
a ball beyond the cushion lines    it has jumped (H-7.1: it left the playing area; C-6, C-9.2 b):
(or not finite) yet on the table   the shot is judged so and the ball re-spotted by the
                                   discipline's own rules (``mark_outside``)
balls overlapping at rest, or a    pushed apart along their line of centres, the least that
ball inside the standing pin       parts them, inside the cushions (``separate``)
a layout the physics refused       the balls moved inside the cushions and parted the same way
                                   (``relay``); a ball far outside, or a knot that cannot be
                                   parted, sends all balls to the starting layout
=================================  ===========================================================

Tolerances follow the dtype (``tolerance``): float32 resolves only about 1e-7 m on a table, so
a gap smaller than a few units of its last place is rounding, not an overlap, and a normal shot
is left exactly as it was. Each repair adds one to ``GameState.repairs``.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from physics.simulate import layout_is_valid
from rules import choices, log, pin, respot
from rules.codes import Phase, PinState
from rules.state import GameState, replace, select

TOLERANCE_ULPS = 16  # units in the last place of the table length: rounding, not an overlap
ROUNDS = 8  # passes over the pairs when parting balls (three balls part in two or three)
_PAIRS = ((0, 1), (0, 2), (1, 2))


def tolerance(params, dtype):
    """() float: a length below which a gap or an overlap is rounding in ``dtype`` (1e-14 m in
    float64, 5e-6 m in float32 on a match table)."""
    eps = jnp.finfo(jnp.dtype(dtype)).eps
    return (TOLERANCE_ULPS * eps * params.table.length).astype(dtype)


def _bounds(params, dtype):
    """((2,), (2,)): the lowest and highest centre inside the cushions (docs/physics.md section 2)."""
    reach = params.cushion_reach
    lo = jnp.stack([reach, reach]).astype(dtype)
    hi = jnp.stack([params.table.length - reach, params.table.width - reach]).astype(dtype)
    return lo, hi


def outside(params, positions):
    """(n,) bool: centres beyond the cushion lines by more than the tolerance, or not finite."""
    tol = tolerance(params, positions.dtype)
    lo, hi = _bounds(params, positions.dtype)
    beyond = jnp.any(positions < lo - tol, axis=-1) | jnp.any(positions > hi + tol, axis=-1)
    return beyond | ~jnp.all(jnp.isfinite(positions), axis=-1)


def mark_outside(params, shot):
    """(ShotResult, () bool): balls at rest outside the playing area are reported off the table,
    so that the referee judges them jumped (H-7.1, C-9.2 b) and re-spots them (H-7, C-11.4,
    C-12.8, C-13.4). The flag says a ball was marked that the log did not already show leaving
    the table (an OFF_TABLE event is judged a jump anyway: nothing to repair then)."""
    off = outside(params, shot.final_positions) & shot.on_table
    return replace(shot, on_table=shot.on_table & ~off), jnp.any(off & ~log.jumped(shot))


def _pin_clearance(ruleset, params):
    """() float: the nearest a ball centre may come to the standing pin's (docs/physics.md section 4)."""
    return params.ball.radius + jnp.maximum(ruleset.pin_radius, params.pin.contact_radius)


def overlapping(ruleset, params, positions, pin_position, pin_standing, tol):
    """() bool: two balls closer than 2R - tol, or a ball closer than its clearance - tol to the
    standing pin."""
    R = params.ball.radius
    pairs = jnp.stack([jnp.linalg.norm(positions[j] - positions[i]) for i, j in _PAIRS])
    to_pin = jnp.linalg.norm(positions - pin_position, axis=-1)
    on_pin = pin_standing & jnp.any(to_pin < _pin_clearance(ruleset, params) - tol)
    return jnp.any(pairs < 2 * R - tol) | on_pin


def _unit(delta, fallback):
    """(2,): delta's direction, or ``fallback`` for coincident centres (deterministic)."""
    d = jnp.linalg.norm(delta)
    return jnp.where(d > 0, delta / jnp.where(d > 0, d, 1), fallback), d


def _part_pair(positions, i, j, need, lo, hi):
    """Balls i and j moved apart to ``need`` along their line of centres, half each; what a
    cushion stops, the other ball takes."""
    clamp = lambda p: jnp.clip(p, lo, hi)  # noqa: E731
    u, d = _unit(positions[j] - positions[i], jnp.asarray([1.0, 0.0], positions.dtype))
    short = jnp.where(d < need, need - d, 0)
    positions = positions.at[i].set(clamp(positions[i] - 0.5 * short * u))
    positions = positions.at[j].set(clamp(positions[j] + 0.5 * short * u))
    for k, sign in ((j, 1.0), (i, -1.0)):
        u2, d2 = _unit(positions[j] - positions[i], u)
        rest = jnp.where(short > 0, jnp.maximum(need - d2, 0), 0)
        positions = positions.at[k].set(clamp(positions[k] + sign * rest * u2))
    return positions


def _part_from_pin(positions, b, pin_position, need, lo, hi):
    """Ball b moved straight away from the standing pin to ``need`` (the pin does not move)."""
    u, d = _unit(positions[b] - pin_position, jnp.asarray([1.0, 0.0], positions.dtype))
    short = jnp.where(d < need, need - d, 0)
    return positions.at[b].set(jnp.clip(positions[b] + short * u, lo, hi))


def part(ruleset, params, positions, pin_position, pin_standing):
    """(3, 2): the balls moved inside the cushions and apart: every pair closer than 2R to
    2R + tol, every ball closer to the standing pin than its clearance to the clearance + tol.
    Deterministic; a few passes part chains of three balls and balls against a cushion."""
    dtype = positions.dtype
    tol = tolerance(params, dtype)
    lo, hi = _bounds(params, dtype)
    R = params.ball.radius
    positions = jnp.clip(positions, lo, hi)
    pin_need = _pin_clearance(ruleset, params) + tol

    def one_pass(_, positions):
        for i, j in _PAIRS:
            positions = _part_pair(positions, i, j, (2 * R + tol).astype(dtype), lo, hi)
        for b in range(positions.shape[0]):
            moved = _part_from_pin(positions, b, pin_position, pin_need.astype(dtype), lo, hi)
            positions = jnp.where(pin_standing, moved, positions)
        return positions

    # a loop, not unrolled: the passes would otherwise be most of the referee's compiled program
    return jax.lax.fori_loop(0, ROUNDS, one_pass, positions.astype(dtype)).astype(dtype)


def layout_ok(params, state: GameState):
    """() bool: the state's layout is one the physics plays from (``physics.simulate.layout_is_valid``)."""
    return layout_is_valid(state.positions, params, pin.in_play(state))


def starting_layout(ruleset, params, state: GameState):
    """((3, 2) positions, () bool red in hand): the discipline's starting layout for the player to
    shoot: C-2.1 with him in the breaker's place (C-1.1 during a lag), or H-2 with the red in
    hand on the cross axis (H-2.2, H-6.4), clear of the pin where it stands."""
    table = params.table
    dtype = state.positions.dtype
    if ruleset.is_hungarian:
        set_up = jnp.stack([table.centre, table.base_spots[0], table.base_spots[1]]).astype(dtype)
        standing = state.pin_state == PinState.STANDING
        placed = respot.place_on_cross_axis(
            ruleset, params, set_up, 0, table.cross_axis_spots[0, 1], standing, state.pin_position
        )
        return placed.astype(dtype), jnp.asarray(True)
    start = respot.starting_position(table, state.current_player).astype(dtype)
    lag = respot.lag_position(table).astype(dtype)
    return jnp.where(state.phase == Phase.LAG, lag, start), jnp.asarray(False)


def restart(ruleset, params, state: GameState) -> GameState:
    """The state with its balls on the starting layout (see ``starting_layout``)."""
    positions, in_hand = starting_layout(ruleset, params, state)
    state = replace(state, positions=positions, ball_in_hand=state.ball_in_hand | in_hand,
                    base_spot_ball=jnp.asarray(-1, jnp.int32))
    return choices.refresh_frozen(ruleset, state, params)


def moved(params, before, after):
    """(n,) bool: balls that moved by more than rounding."""
    return jnp.linalg.norm(after - before, axis=-1) > tolerance(params, before.dtype)


def _counted(state: GameState, repaired) -> GameState:
    return replace(state, repairs=state.repairs + jnp.asarray(repaired, jnp.int32))


def after_shot(ruleset, params, state: GameState, marked) -> tuple[GameState, jnp.ndarray]:
    """(state, (3,) bool moved): the judged shot's next state with overlapping balls parted (and
    everything re-laid from the start if they cannot be); ``marked`` (from ``mark_outside``) and
    a parting each count one repair."""
    dtype = state.positions.dtype
    standing = state.pin_state == PinState.STANDING
    bad = overlapping(ruleset, params, state.positions, state.pin_position, standing, tolerance(params, dtype))
    bad = bad | ~layout_ok(params, state)  # what the physics would refuse to play from
    parted = replace(state, positions=part(ruleset, params, state.positions, state.pin_position, standing))
    parted = choices.refresh_frozen(ruleset, parted, params)
    parted = select(layout_ok(params, parted), parted, restart(ruleset, params, parted))
    new = select(bad, parted, state)
    parted_balls = moved(params, state.positions, new.positions)
    return _counted(new, jnp.asarray(marked).astype(jnp.int32) + bad.astype(jnp.int32)), parted_balls


def relay(ruleset, params, state: GameState) -> GameState:
    """A state whose layout the physics refused, re-laid so that the next shot is playable: balls
    moved inside the cushions and parted; a ball far outside (or not finite), or balls that cannot
    be parted, send every ball to the starting layout. Counts one repair."""
    standing = state.pin_state == PinState.STANDING
    parted = replace(state, positions=part(ruleset, params, state.positions, state.pin_position, standing))
    parted = choices.refresh_frozen(ruleset, parted, params)
    fixable = ~jnp.any(outside(params, state.positions)) & layout_ok(params, parted)
    return _counted(select(fixable, parted, restart(ruleset, params, state)), 1)


__all__ = ["tolerance", "outside", "mark_outside", "overlapping", "part", "layout_ok", "starting_layout",
           "restart", "moved", "after_shot", "relay"]
