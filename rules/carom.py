"""One shot of a carom discipline (Part C): verdict, end of game, re-spots, counters, calls."""
from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from physics.events import ShotResult
from rules import fields as zone_rules
from rules import geometry, judge, respot, scoring
from rules.codes import FrozenRespot, JumpedRespot
from rules.outcome import countdown, shot_outcome
from rules.state import RED_CAROM, GameState, cue_ball_of, replace


class GameEnd(NamedTuple):
    """() arrays: scores (2,), game_over, winner, draw, turn_passes, start_equalizing."""

    scores: jnp.ndarray
    game_over: jnp.ndarray
    winner: jnp.ndarray
    draw: jnp.ndarray
    turn_passes: jnp.ndarray
    start_equalizing: jnp.ndarray


def game_end(ruleset, state: GameState, points) -> GameEnd:
    """Rules C-3.3, C-8.3, C-8.4: scores, the end of the game and the equalizing inning."""
    p = state.current_player
    scored = points > 0
    scores = state.scores.at[p].add(points)
    reached = scores[p] >= ruleset.distance
    # rule C-8.3: the breaker reaching the distance gives the opponent one more inning.
    start_equalizing = reached & (p == state.breaker) & ~state.equalizing & ruleset.equalizing_inning
    win_now = reached & ~start_equalizing & ~state.equalizing
    draw = state.equalizing & reached  # rule C-8.4
    breaker_wins = state.equalizing & ~scored  # rule C-8.3: the last inning ended short
    game_over = win_now | draw | breaker_wins
    winner = jnp.where(win_now, p, jnp.where(breaker_wins, state.breaker, -1)).astype(jnp.int32)
    turn_passes = (~scored | start_equalizing) & ~game_over  # rule C-9.2: no point, next player
    return GameEnd(scores, game_over, winner, draw, turn_passes, start_equalizing)


def layout_after(ruleset, params, final_positions, jumped, next_player, start_equalizing):
    """The layout for the next shot: ((3, 2) positions, () bool in the starting position).

    Jumped balls: all to the starting position (C-11.4, C-12.8, C-13.4 a) or, three-cushion, each
    to its spot (C-13.4 b-d). The equalizing inning starts from the starting position (C-8.3).
    Straight rail: frozen balls go to the starting position (C-11.3); the other disciplines offer
    it as a choice (C-12.7 a, C-13.3 a; see ``choices.choose_respot``).
    """
    table = params.table
    R = params.ball.radius
    start = respot.starting_position(table, next_player)
    any_jumped = jnp.any(jumped)
    to_start = ruleset.jumped_respot == JumpedRespot.START
    spots = respot.three_cushion_spots(table, next_player)
    on_spots = respot.respot_to_spots(final_positions, jumped, spots, 2 * R + ruleset.frozen_tolerance)
    positions = jnp.where(any_jumped, jnp.where(to_start, start, on_spots), final_positions)
    in_start = any_jumped & to_start
    positions = jnp.where(start_equalizing, start, positions)
    in_start = in_start | start_equalizing
    cue = cue_ball_of(ruleset, next_player)
    frozen = jnp.any(geometry.frozen_balls(positions, cue, R, ruleset.frozen_tolerance))
    forced = frozen & (ruleset.frozen_respot == FrozenRespot.START_FORCED)  # rule C-11.3
    positions = jnp.where(forced, start, positions)
    in_start = in_start | forced
    return positions, in_start


def play(ruleset, state: GameState, shot: ShotResult, params):
    """(GameState, Outcome) after a carom-discipline shot."""
    table = params.table
    p = state.current_player
    facts = judge.read(ruleset, params, state.positions, state.cue_ball, shot)
    fields, anchors = geometry.zones(ruleset, table)
    fz = zone_rules.count_shot(ruleset, fields, state.field_zone, state.field_count, state.positions, facts.objects,
                               shot)
    az = zone_rules.count_shot(ruleset, anchors, state.anchor_zone, state.anchor_count, state.positions, facts.objects,
                               shot)
    verdict = scoring.carom_verdict(ruleset, facts, state.first_carom_pending, RED_CAROM, fz, az)
    end = game_end(ruleset, state, verdict.shot_value)
    next_p = jnp.where(end.turn_passes, 1 - p, p).astype(jnp.int32)
    next_cue = cue_ball_of(ruleset, next_p)
    positions, in_start = layout_after(ruleset, params, shot.final_positions, facts.jumped, next_p,
                                       end.start_equalizing)
    frozen = geometry.frozen_balls(positions, next_cue, params.ball.radius, ruleset.frozen_tolerance)
    choice = ruleset.respot_offered()

    # Zone counters live for a run only (C-11.2, C-12.3: "within a run").
    keep = verdict.scored & ~end.turn_passes & ~end.game_over
    fzone, fcount = zone_rules.after_carom(fz)
    azone, acount = zone_rules.after_carom(az)
    fzone, fcount = jnp.where(keep, fzone, -1), jnp.where(keep, fcount, 0)
    azone, acount = jnp.where(keep, azone, -1), jnp.where(keep, acount, 0)
    objects_next = jnp.arange(positions.shape[0]) != next_cue
    field_call, anchor_call = zone_rules.announce(
        ruleset, fields, anchors, positions, objects_next, fzone, fcount, azone, acount
    )

    new_state = replace(
        state,
        positions=positions.astype(state.positions.dtype),
        scores=end.scores,
        run=jnp.where(keep, state.run + verdict.shot_value, 0).astype(jnp.int32),
        current_player=jnp.where(end.game_over, p, next_p).astype(jnp.int32),
        cue_ball=jnp.where(end.game_over, state.cue_ball, next_cue).astype(jnp.int32),
        innings=jnp.where(end.turn_passes, state.innings.at[1 - p].add(1), state.innings),
        shots=state.shots + 1,
        pure_caroms=jnp.asarray(0, jnp.int32),
        field_zone=fzone, field_count=fcount, anchor_zone=azone, anchor_count=acount,
        frozen_balls=frozen,
        frozen_cushions=geometry.frozen_cushions(positions[next_cue], params.cushion_reach, table,
                                                 ruleset.frozen_tolerance),
        may_respot=jnp.any(frozen) & choice & ~end.game_over,
        may_choose_side=in_start & ~end.game_over,
        may_choose_breaker=jnp.asarray(False),
        first_carom_pending=state.first_carom_pending & ~verdict.scored,  # rule C-2.2
        equalizing=state.equalizing | end.start_equalizing,
        game_over=end.game_over,
        winner=end.winner,
        draw=end.draw,
    )
    outcome = shot_outcome(
        ruleset, facts, verdict, shooter=p, points=jnp.zeros((2,), jnp.int32).at[p].add(verdict.shot_value),
        turn_passes=end.turn_passes, game_over=end.game_over, winner=end.winner, draw=end.draw,
        countdown_value=countdown(ruleset, end.scores, next_p, end.game_over), frozen=frozen,
        positions=positions, final_positions=shot.final_positions, ball_in_hand=False, pin_down=False,
        field_call=field_call, anchor_call=anchor_call,
    )
    return new_state, outcome
