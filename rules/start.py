"""``init_game``: the first state of a game (rules C-2.1, C-1.1, H-2, H-5.1)."""
from __future__ import annotations

from typing import Optional

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from physics.params import Params
from rules import geometry, respot
from rules.codes import Phase, PinState
from rules.options import Rules
from rules.state import GameState, blank_state, cue_ball_of, replace


def init_game(ruleset: Rules, key: jax.Array, params: Params, breaker: Optional[ArrayLike] = None) -> GameState:
    """The starting state. The breaker is drawn from ``key`` (open point O-10; H-5.1 "by lot"),
    unless the rules play a lag (C-1), which then decides it, or ``breaker`` (0 or 1, may be
    traced) names him: the next game of a match is started by the other player (H-5.1).

    Carom: red on the top spot, the breaker's ball on the right head-string spot (he may choose
    the left one, ``choose_start_side``), the other ball on the middle spot (C-2.1).
    Hungarian: the pin on the centre spot (H-2.1), white and yellow on the bottom and top base spots
    (H-2.3; open point: which on which is not said), the red on the cross axis in hand (H-2.2,
    H-5.1, H-6.4), placed at the right cross-axis spot until the breaker places it.
    """
    table = params.table
    dtype = table.length.dtype
    drawn = jax.random.randint(key, (), 0, 2).astype(jnp.int32)
    breaker = drawn if breaker is None else jnp.clip(jnp.asarray(breaker, jnp.int32), 0, 1)
    R = params.ball.radius
    tol = ruleset.frozen_tolerance
    if ruleset.is_hungarian:
        base = table.base_spots
        positions = jnp.stack([table.centre, base[0], base[1]]).astype(dtype)
        pin_position = table.centre.astype(dtype)
        positions = respot.place_on_cross_axis(
            ruleset, params, positions, 0, table.cross_axis_spots[0, 1], jnp.asarray(True), pin_position
        )
        state = blank_state(positions)
        state = replace(
            state, ball_in_hand=jnp.asarray(True), pin_state=jnp.asarray(PinState.STANDING, jnp.int32),
            pin_position=pin_position, first_carom_pending=jnp.asarray(False),
        )
    elif ruleset.lag:
        state = blank_state(respot.lag_position(table).astype(dtype))
        state = replace(state, phase=jnp.asarray(Phase.LAG, jnp.int32))
        breaker = jnp.asarray(0, jnp.int32)
    else:
        state = blank_state(respot.starting_position(table, breaker).astype(dtype))
        state = replace(state, may_choose_side=jnp.asarray(True))
    cue = cue_ball_of(ruleset, breaker)
    positions = state.positions
    innings = jnp.where(state.phase == Phase.PLAY, jnp.zeros((2,), jnp.int32).at[breaker].set(1), 0)
    return replace(
        state,
        current_player=breaker,
        breaker=breaker,
        cue_ball=cue,
        innings=innings.astype(jnp.int32),
        frozen_balls=geometry.frozen_balls(positions, cue, R, tol),
        frozen_cushions=geometry.frozen_cushions(positions[cue], params.cushion_reach, table, tol),
    )


# -- practice positions: a game in play from any layout -----------------------------------------

# Clearance of a random layout: well above the frozen tolerance (O-3), so nothing starts frozen.
LAYOUT_GAP = 0.005  # m
LAYOUT_TRIES = 32  # candidate layouts drawn; the first legal one is used


def game_from_layout(ruleset: Rules, positions: ArrayLike, params: Params, player: ArrayLike = 0) -> GameState:
    """A game in play from a layout (3, 2): ``player`` (may be traced) shoots his cue ball (C-3.4,
    H-3.1), nothing scored, his first inning, the first-carom rule of the break (C-2.2) no longer
    applies, no ball in hand, the Hungarian pin standing on the centre spot (H-2.1), the frozen
    flags (O-3) and the re-spot offer (C-12.7 a, C-13.3 a) computed as the referee would."""
    table = params.table
    dtype = table.length.dtype
    positions = jnp.asarray(positions, dtype)
    player = jnp.asarray(player, jnp.int32)
    cue = cue_ball_of(ruleset, player)
    tol = ruleset.frozen_tolerance
    frozen = geometry.frozen_balls(positions, cue, params.ball.radius, tol)
    offered = ruleset.respot_offered()
    state = replace(
        blank_state(positions),
        current_player=player, breaker=player, cue_ball=cue,
        innings=jnp.zeros((2,), jnp.int32).at[player].set(1),
        frozen_balls=frozen,
        frozen_cushions=geometry.frozen_cushions(positions[cue], params.cushion_reach, table, tol),
        may_respot=jnp.any(frozen) & offered,
        first_carom_pending=jnp.asarray(False),
    )
    if ruleset.is_hungarian:
        state = replace(state, pin_state=jnp.asarray(PinState.STANDING, jnp.int32),
                        pin_position=table.centre.astype(dtype))
    return state


def random_layout(ruleset: Rules, key: jax.Array, params: Params, gap: float = LAYOUT_GAP) -> jax.Array:
    """(3, 2): three ball centres uniform inside the cushions, at least ``gap`` from each other,
    from the cushions and (Hungarian) from the pin on the centre spot, so that nothing is frozen.
    Pure; vmap over keys. In the vanishing case that none of the candidates is legal, the
    discipline's starting position."""
    table = params.table
    dtype = table.length.dtype
    R = params.ball.radius
    lo = params.cushion_reach + gap
    hi = jnp.stack([table.length, table.width]) - lo
    cand = lo + jax.random.uniform(key, (LAYOUT_TRIES, 3, 2), dtype) * (hi - lo)
    i, j = jnp.array([0, 0, 1]), jnp.array([1, 2, 2])
    ok = jnp.all(jnp.linalg.norm(cand[:, i] - cand[:, j], axis=-1) >= 2 * R + gap, axis=-1)
    if ruleset.is_hungarian:
        to_pin = jnp.linalg.norm(cand - table.centre, axis=-1)
        ok = ok & jnp.all(to_pin >= R + ruleset.pin_radius + gap, axis=-1)
    fallback = init_game(ruleset, key, params, breaker=0).positions
    return jnp.where(jnp.any(ok), cand[jnp.argmax(ok)], fallback).astype(dtype)
