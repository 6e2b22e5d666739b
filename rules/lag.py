"""The lag (rule C-1): both players shoot their ball to the top cushion and back; the ball that
stops nearer the bottom cushion wins the choice of who breaks.

The lag shot's log holds both balls' motion (each struck once, about together). Judged here:
a lag ball fouls (C-1.4) if it touches the red, does not reach the top cushion, touches a long
cushion before any other, or leaves the table (open point: jumping is not listed; a ball that
jumps cannot finish the lag, so we count it a foul). Touching the ball by hand is not simulated.
The lag is repeated (C-1.3) if the balls collide, if they stop equally far (within
``lag_tie_tolerance``), or if both fouled (open point: the documents do not say; we repeat).
Not judged: C-1.3's "a player whose fault makes them collide a second time loses the choice",
because a log does not say whose fault a collision was; every collision repeats the lag and is
counted in ``state.lag_collisions`` so that an environment can stop endless repeats.
"""
from __future__ import annotations

import jax.numpy as jnp

from physics.events import Cushion
from rules import geometry, log, respot
from rules.codes import Phase, Reason
from rules.outcome import quiet_outcome
from rules.state import RED_CAROM, GameState, replace


def lag_fouls(shot):
    """(2,) bool: rule C-1.4, for the white (0) and the yellow (1) lag ball."""
    jumped = log.jumped(shot)
    fouls = []
    for b in (0, 1):
        touched_red = jnp.any(log.ball_ball(shot, b, RED_CAROM))
        reached_top = jnp.any(log.cushion_hits_on(shot, b, Cushion.TOP))
        first = log.first_index(log.cushion_hits(shot, b))
        first_cushion = shot.events.cushion[jnp.maximum(first, 0)].astype(jnp.int32)
        long_first = (first >= 0) & ((first_cushion == Cushion.RIGHT) | (first_cushion == Cushion.LEFT))
        fouls.append(touched_red | ~reached_top | long_first | jumped[b])
    return jnp.stack(fouls)


def judge_lag(ruleset, state: GameState, shot, params):
    """(GameState, Outcome) after a lag shot."""
    table = params.table
    fouls = lag_fouls(shot)
    collided = jnp.any(log.ball_ball(shot, 0, 1))  # rule C-1.3
    x = shot.final_positions[:, 0]  # distance from the bottom cushion (rule C-1.2)
    tie = jnp.abs(x[0] - x[1]) <= ruleset.lag_tie_tolerance
    one_foul = fouls[0] ^ fouls[1]
    repeat = collided | (fouls[0] & fouls[1]) | (~jnp.any(fouls) & tie)
    winner = jnp.where(one_foul, jnp.where(fouls[0], 1, 0), jnp.where(x[0] < x[1], 0, 1)).astype(jnp.int32)
    winner = jnp.where(repeat, -1, winner).astype(jnp.int32)
    decided = winner >= 0
    breaker = jnp.maximum(winner, 0)
    start = respot.starting_position(table, breaker)
    positions = jnp.where(decided, start, respot.lag_position(table)).astype(state.positions.dtype)
    cue = jnp.where(decided, breaker, 0).astype(jnp.int32)
    frozen = geometry.frozen_balls(positions, cue, params.ball.radius, ruleset.frozen_tolerance)
    new_state = replace(
        state,
        positions=positions,
        phase=jnp.where(decided, Phase.PLAY, Phase.LAG).astype(jnp.int32),
        breaker=jnp.where(decided, breaker, state.breaker).astype(jnp.int32),
        current_player=cue,
        cue_ball=cue,
        innings=jnp.where(decided, jnp.zeros((2,), jnp.int32).at[breaker].set(1), state.innings),
        shots=state.shots + 1,
        lag_collisions=state.lag_collisions + collided.astype(jnp.int32),
        may_choose_breaker=decided,  # rule C-1.2: the winner chooses who breaks
        may_choose_side=decided,
        frozen_balls=frozen,
        frozen_cushions=geometry.frozen_cushions(positions[cue], params.cushion_reach, table, ruleset.frozen_tolerance),
    )
    reason = jnp.where(repeat, Reason.LAG_REPEAT, jnp.where(one_foul, Reason.LAG_FOUL, Reason.LAG_DECIDED))
    outcome = quiet_outcome(
        reason.astype(jnp.int32), jnp.asarray(0, jnp.int32),
        foul=jnp.any(fouls), lag_winner=winner, jumped=log.jumped(shot),
        respotted=jnp.ones((3,), bool),
    )
    return new_state, outcome
