"""Void shots: a shot whose simulation status is not OK is not judged, and does not repeat forever.

The referee never judges a log it cannot trust (log overflow, an invalid strike, a layout the
physics refused): the shot is void, nobody scores, the same player shoots again. Two things keep a
game from wedging on it:

* a void shot from a layout the physics refused (``Status.INVALID_LAYOUT``, or the state's own
  layout fails the check) re-lays the layout (``repair.relay``): that shot stays void, the next
  one is playable;
* the ``VOID_LIMIT``-th void shot in a row is resolved as a miss: a shot that cannot be judged is
  decided against the shooter (H-6.6) without giving anyone points, since the fault is the
  simulation's. Carom: no point, the turn passes (C-9.2 a), and an equalizing inning ends short
  (C-8.3). Hungarian: as a shot without carom or pin (H-9.5), the shooter records his run and
  the turn passes. The balls then go to the starting layout for the next shooter (C-2.1, as the
  re-spots of C-11.4, C-12.8, C-13.4 a; Hungarian H-2 with the pin re-set on its spot, H-8.7, and
  the red in hand, H-6.4), because the void shot's final layout cannot be trusted. During a lag
  the lag is played again from its layout (C-1.1). Each resolution counts one repair.
"""
from __future__ import annotations

import jax.numpy as jnp

from physics.events import Status
from rules import carom, hungarian, repair
from rules.codes import Phase, PinState, Reason
from rules.outcome import quiet_outcome
from rules.scoring import Verdict
from rules.state import GameState, board_scores_of, cue_ball_of, replace, select

VOID_LIMIT = 3  # void shots in a row before the next one is resolved as a miss


def _missed(ruleset, state: GameState):
    """(scores (2,), run, turn_passes, game_over, winner, draw): the end of a shot that scored
    nothing and was no foul (C-8.3, C-8.4, C-9.2; H-9.5)."""
    zero = jnp.asarray(0, jnp.int32)
    if ruleset.is_hungarian:
        miss = Verdict(jnp.asarray(Reason.EMPTY, jnp.int32), jnp.asarray(False), jnp.asarray(False), zero, zero)
        run_end = hungarian.run_points(ruleset, state, miss)
        return run_end.scores, run_end.run, ~run_end.game_over, run_end.game_over, run_end.winner, jnp.asarray(False)
    end = carom.game_end(ruleset, state, zero)
    return end.scores, zero, end.turn_passes, end.game_over, end.winner, end.draw


def resolve(ruleset, params, state: GameState):
    """(GameState, Outcome): the void shot in ``state`` (shot counter already advanced) resolved
    as a miss from the starting layout (see the module docstring)."""
    p = state.current_player
    scores, run, turn_passes, game_over, winner, draw = _missed(ruleset, state)
    turn_passes = turn_passes & (state.phase == Phase.PLAY)
    game_over = game_over & (state.phase == Phase.PLAY)
    next_p = jnp.where(turn_passes, 1 - p, p).astype(jnp.int32)
    no = jnp.asarray(False)
    missed = replace(
        state,
        scores=jnp.where(state.phase == Phase.PLAY, scores, state.scores),
        run=jnp.asarray(run, jnp.int32),
        current_player=next_p,
        cue_ball=jnp.where(state.phase == Phase.PLAY, cue_ball_of(ruleset, next_p), state.cue_ball).astype(jnp.int32),
        innings=jnp.where(turn_passes, state.innings.at[1 - p].add(1), state.innings),
        pure_caroms=jnp.asarray(0, jnp.int32),
        field_zone=jnp.asarray(-1, jnp.int32), field_count=jnp.asarray(0, jnp.int32),
        anchor_zone=jnp.asarray(-1, jnp.int32), anchor_count=jnp.asarray(0, jnp.int32),
        ball_in_hand=no,
        may_respot=no,
        may_choose_side=(state.phase == Phase.PLAY) & ~game_over & (not ruleset.is_hungarian),  # C-2.1 c
        game_over=game_over,
        winner=jnp.where(game_over, winner, -1).astype(jnp.int32),
        draw=draw & game_over,
        void_streak=jnp.asarray(0, jnp.int32),
    )
    if ruleset.is_hungarian:  # rules H-2.1, H-8.7: the set-up, the pin on its spot
        missed = replace(missed, pin_state=jnp.asarray(PinState.STANDING, jnp.int32),
                         pin_position=params.table.centre.astype(state.pin_position.dtype))
    missed = repair.restart(ruleset, params, missed)
    missed = replace(missed, ball_in_hand=missed.ball_in_hand & ~game_over, repairs=state.repairs + 1)
    outcome = quiet_outcome(
        Reason.VOID_LIMIT, p,
        points=board_scores_of(ruleset, missed) - board_scores_of(ruleset, state),
        turn_passes=turn_passes, ball_in_hand=missed.ball_in_hand, game_over=game_over,
        winner=missed.winner, draw=missed.draw,
        respotted=repair.moved(params, state.positions, missed.positions),
    )
    return missed, outcome


def void_shot(ruleset, params, state: GameState, shot):
    """(GameState, Outcome) for a shot whose status is not OK (see the module docstring)."""
    refused = ((shot.status & Status.INVALID_LAYOUT) != 0) | ~repair.layout_ok(params, state)
    voided = replace(state, shots=state.shots + 1, void_streak=state.void_streak + 1)
    voided = select(refused, repair.relay(ruleset, params, voided), voided)
    outcome = quiet_outcome(Reason.INVALID_SHOT, state.current_player, ball_in_hand=voided.ball_in_hand)
    return select(voided.void_streak >= VOID_LIMIT, resolve(ruleset, params, voided), (voided, outcome))


__all__ = ["VOID_LIMIT", "void_shot", "resolve"]
