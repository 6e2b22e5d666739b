"""The next shooter's choices, written into the state before the shot.

Each function is pure and jittable, takes the choice as a (traced) number, and is a no-op when
the state does not offer that choice, so an environment may call it unconditionally:

=====================  =========================  ==================================================
function               offered when               what it does
=====================  =========================  ==================================================
place_cue_ball         state.ball_in_hand         red on the cross axis at a fraction of the width,
                                                  moved to the nearest place that touches no ball
                                                  and no standing pin (H-6.4, O-6)
choose_base_spot       state.base_spot_ball >= 0  the jumped target ball to base spot 0 (bottom) or
                                                  1 (top), if that spot is free (H-7.3)
choose_respot          state.may_respot           frozen balls re-spotted (C-12.7 a, C-13.3 a)
choose_start_side      state.may_choose_side      the shooter's ball on the right (0) or left (1)
                                                  side spot of the head string (C-2.1 c)
choose_breaker         state.may_choose_breaker   the lag winner names the breaker (C-1.2)
=====================  =========================  ==================================================
The release massé and playing the free ball (C-12.7 b, c; C-13.3 b, c) need no call: they are
shots, judged by the referee (a frozen ball may be hit first, but not moved at once: O-3).
"""
from __future__ import annotations

import jax.numpy as jnp
from jax.typing import ArrayLike

from physics.params import Params
from rules import geometry, respot
from rules.codes import FrozenRespot, PinState
from rules.options import Rules
from rules.state import GameState, cue_ball_of, replace, select


def refresh_frozen(ruleset, state: GameState, params) -> GameState:
    """Recompute the frozen flags for the cue ball after the layout changed."""
    tol = ruleset.frozen_tolerance
    cue = state.cue_ball
    return replace(
        state,
        frozen_balls=geometry.frozen_balls(state.positions, cue, params.ball.radius, tol),
        frozen_cushions=geometry.frozen_cushions(state.positions[cue], params.cushion_reach, params.table, tol),
    )


def place_cue_ball(ruleset: Rules, state: GameState, fraction: ArrayLike, params: Params) -> GameState:
    """Rule H-6.4: place the red in hand on the cross axis, ``fraction`` (0..1, clipped) of the way
    from the RIGHT (y = 0) to the LEFT cushion, shifted to the nearest legal place."""
    if not ruleset.is_hungarian:
        return state
    table = params.table
    reach = params.cushion_reach
    f = jnp.clip(jnp.nan_to_num(jnp.asarray(fraction, table.width.dtype), nan=0.5), 0.0, 1.0)
    moved = _place_at(ruleset, state, reach + f * (table.width - 2 * reach), params)
    return select(state.ball_in_hand & ~state.game_over, moved, state)


def _place_at(ruleset, state: GameState, wanted_y, params) -> GameState:
    """The red placed on the cross axis as near wanted_y as is legal (H-6.4)."""
    placed = respot.place_on_cross_axis(
        ruleset, params, state.positions, state.cue_ball, wanted_y,
        state.pin_state == PinState.STANDING, state.pin_position,
    )
    return refresh_frozen(ruleset, replace(state, positions=placed.astype(state.positions.dtype)), params)


def choose_base_spot(ruleset: Rules, state: GameState, spot: ArrayLike, params: Params) -> GameState:
    """Rule H-7.3: move the jumped target ball to base spot ``spot`` (0 bottom, 1 top); offered only
    when both were free, and used up by the call. The red in hand stays legal."""
    if not ruleset.is_hungarian:
        return state
    ball = state.base_spot_ball
    spot = jnp.clip(jnp.asarray(spot, jnp.int32), 0, 1)
    target = params.table.base_spots[spot].astype(state.positions.dtype)
    positions = state.positions.at[jnp.maximum(ball, 0)].set(target)
    chosen = replace(state, positions=positions, base_spot_ball=jnp.asarray(-1, jnp.int32))
    chosen = select(state.ball_in_hand, _place_at(ruleset, chosen, state.positions[state.cue_ball, 1], params), chosen)
    return select((ball >= 0) & ~state.game_over, chosen, state)


def choose_respot(ruleset: Rules, state: GameState, respot_balls: ArrayLike, params: Params) -> GameState:
    """Rules C-12.7 a, C-13.3 a: when the cue ball is frozen, the shooter may have the balls
    re-spotted: one-cushion and balkline all three to the starting position, three-cushion only
    the frozen balls (the cue ball and those touching it) to their spots (C-13.4 b, c).
    ``respot_balls``: () bool; False declines (the shooter plays the free ball or a massé)."""
    offered = ruleset.respot_offered()
    table = params.table
    p = state.current_player
    to_start = ruleset.frozen_respot == FrozenRespot.START_CHOICE
    off = state.frozen_balls.at[state.cue_ball].set(True)
    clearance = 2 * params.ball.radius + ruleset.frozen_tolerance
    on_spots = respot.respot_to_spots(state.positions, off, respot.three_cushion_spots(table, p), clearance)
    positions = jnp.where(to_start, respot.starting_position(table, p), on_spots)
    side = to_start
    chosen = refresh_frozen(
        ruleset,
        replace(state, positions=positions.astype(state.positions.dtype), may_respot=jnp.asarray(False),
                may_choose_side=side),
        params,
    )
    declined = replace(state, may_respot=jnp.asarray(False))
    decision = select(jnp.asarray(respot_balls, bool), chosen, declined)
    return select(state.may_respot & offered & ~state.game_over, decision, state)


def choose_start_side(ruleset: Rules, state: GameState, side: ArrayLike, params: Params) -> GameState:
    """Rule C-2.1 c: in the starting position, put the shooter's ball on the right (0) or left (1)
    head-string spot."""
    if ruleset.is_hungarian:
        return state
    side = jnp.clip(jnp.asarray(side, jnp.int32), 0, 1)
    positions = respot.starting_position(params.table, state.current_player, side)
    chosen = refresh_frozen(ruleset, replace(state, positions=positions.astype(state.positions.dtype)), params)
    return select(state.may_choose_side & ~state.game_over, chosen, state)


def choose_breaker(ruleset: Rules, state: GameState, breaker: ArrayLike, params: Params) -> GameState:
    """Rule C-1.2: the lag winner decides who breaks (0 or 1); the balls go to the starting
    position for that player."""
    if ruleset.is_hungarian:
        return state
    b = jnp.clip(jnp.asarray(breaker, jnp.int32), 0, 1)
    chosen = replace(
        state,
        breaker=b,
        current_player=b,
        cue_ball=cue_ball_of(ruleset, b),
        innings=jnp.zeros((2,), jnp.int32).at[b].set(1),
        positions=respot.starting_position(params.table, b).astype(state.positions.dtype),
        may_choose_breaker=jnp.asarray(False),
        may_choose_side=jnp.asarray(True),
    )
    chosen = refresh_frozen(ruleset, chosen, params)
    return select(state.may_choose_breaker & ~state.game_over, chosen, state)
