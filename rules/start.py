"""``init_game``: the first state of a game (rules C-2.1, C-1.1, H-2, H-5.1)."""
from __future__ import annotations

import jax
import jax.numpy as jnp

from rules import geometry, respot
from rules.codes import Phase, PinState
from rules.state import GameState, blank_state, cue_ball_of, replace


def init_game(rules, key, params, breaker=None) -> GameState:
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
    tol = rules.frozen_tolerance
    if rules.is_hungarian:
        base = table.base_spots
        positions = jnp.stack([table.centre, base[0], base[1]]).astype(dtype)
        pin_position = table.centre.astype(dtype)
        positions = respot.place_on_cross_axis(
            rules, params, positions, 0, table.cross_axis_spots[0, 1], jnp.asarray(True), pin_position
        )
        state = blank_state(positions)
        state = replace(
            state, ball_in_hand=jnp.asarray(True), pin_state=jnp.asarray(PinState.STANDING, jnp.int32),
            pin_position=pin_position, first_carom_pending=jnp.asarray(False),
        )
    elif rules.lag:
        state = blank_state(respot.lag_position(table).astype(dtype))
        state = replace(state, phase=jnp.asarray(Phase.LAG, jnp.int32))
        breaker = jnp.asarray(0, jnp.int32)
    else:
        state = blank_state(respot.starting_position(table, breaker).astype(dtype))
        state = replace(state, may_choose_side=jnp.asarray(True))
    cue = cue_ball_of(rules, breaker)
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
