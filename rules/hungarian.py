"""One shot of the Hungarian 1000 game (Part H): verdict, the run's points, jumped balls, the
pin, ball in hand."""
from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from physics.events import ShotResult
from rules import geometry, judge, pin, respot, scoring
from rules.codes import PinState
from rules.outcome import countdown, shot_outcome
from rules.state import GameState, board_scores_of, replace


class RunEnd(NamedTuple):
    """scores: (2,) int32; run: () int32 still pending; game_over: () bool; winner: () int32."""

    scores: jnp.ndarray
    run: jnp.ndarray
    game_over: jnp.ndarray
    winner: jnp.ndarray


def run_points(ruleset, state: GameState, verdict) -> RunEnd:
    """Rules H-3.3, H-9.5, H-9.6, H-9.7, H-9.9, H-10.1: where the shot's and the run's points go.

    A scoring shot adds to the pending run (won at once on reaching the distance); a valid shot
    that does not score ends the run and the shooter records it; a foul gives the opponent its
    points, and the run goes to the opponent (mode 1), to nobody (mode 2) or to the shooter (mode 3).
    """
    p = state.current_player
    opp = 1 - p
    mode = ruleset.scoring_mode
    run_after = state.run + verdict.shot_value
    win = verdict.scored & (state.scores[p] + run_after >= ruleset.distance)
    keeps_run = ~verdict.scored & (~verdict.foul | (mode == 3))
    add_p = jnp.where(win, run_after, jnp.where(keeps_run, state.run, 0))
    add_o = jnp.where(verdict.foul, verdict.foul_points + jnp.where(mode == 1, state.run, 0), 0)
    scores = state.scores.at[p].add(add_p).at[opp].add(add_o)
    opponent_wins = verdict.foul & (scores[opp] >= ruleset.distance)
    winner = jnp.where(win, p, jnp.where(opponent_wins, opp, -1)).astype(jnp.int32)
    run = jnp.where(verdict.scored & ~win, run_after, 0).astype(jnp.int32)
    return RunEnd(scores, run, win | opponent_wins, winner)


def layout_after(ruleset, params, state: GameState, shot: ShotResult, jumped, fell, wrong_ball):
    """The layout, the pin and ball in hand for the next shot.

    Returns ((3, 2) positions, () base_spot_ball, () in_hand, () pin_state, (2,) pin_position).
    Rule H-7: jumped target balls go to the base spots and the red is taken off whenever a ball
    jumped (ball in hand, H-7.2 to H-7.4). Rule H-6.4: a foul against H-4.1 to H-4.4 also gives
    the opponent ball in hand; of those only H-4.3 shows in a shot's log (``wrong_ball``: the cue
    struck another ball than the red), H-4.1, H-4.2 are not simulated and H-4.4 is enforced by the
    simulator. The pin is re-set (H-8.4 to H-8.7) before the red in hand is placed, so that the
    red does not touch it (H-6.4). Default place of the red: the right cross-axis spot, moved to
    the nearest legal place (open point O-6: the shooter may move it).
    """
    table = params.table
    cue = state.cue_ball
    clearance = 2 * params.ball.radius + ruleset.frozen_tolerance
    in_hand = jnp.any(jumped) | wrong_ball  # rules H-7.2 to H-7.4, H-6.4 with H-4.3
    positions, base_spot_ball = respot.hungarian_jumped(shot.final_positions, jumped, table.base_spots, clearance)
    present = jnp.ones((positions.shape[0],), bool).at[cue].set(~in_hand)
    lying = jnp.where(shot.pin_present, shot.pin_position, state.pin_position)
    pin_state, pin_position = pin.after_shot(
        ruleset, params, state.pin_state, state.pin_position, fell, lying, positions, present
    )
    wanted = table.cross_axis_spots[0, 1]
    placed = respot.place_on_cross_axis(ruleset, params, positions, cue, wanted, pin_state == PinState.STANDING,
                                        pin_position)
    positions = jnp.where(in_hand, placed, positions)
    return positions, base_spot_ball, in_hand, pin_state, pin_position


def play(ruleset, state: GameState, shot: ShotResult, params):
    """(GameState, Outcome) after a Hungarian shot."""
    p = state.current_player
    cue = state.cue_ball
    facts = judge.read(ruleset, params, state.positions, cue, shot)
    pin_facts = judge.read_pin(ruleset, state.pin_state == PinState.STANDING, cue, facts, shot)
    verdict = scoring.hungarian_verdict(ruleset, facts, pin_facts, state.pure_caroms)
    end = run_points(ruleset, state, verdict)
    turn_passes = ~verdict.scored & ~end.game_over  # rules H-3.4, H-6.1
    next_p = jnp.where(turn_passes, 1 - p, p).astype(jnp.int32)
    positions, base_spot_ball, in_hand, pin_state, pin_position = layout_after(
        ruleset, params, state, shot, facts.jumped, pin_facts.fell, facts.wrong_ball
    )
    frozen = geometry.frozen_balls(positions, cue, params.ball.radius, ruleset.frozen_tolerance)
    pure = facts.carom & ~pin_facts.fell  # rule H-6.3: counted within the run

    new_state = replace(
        state,
        positions=positions.astype(state.positions.dtype),
        scores=end.scores,
        run=end.run,
        current_player=jnp.where(end.game_over, p, next_p).astype(jnp.int32),
        innings=jnp.where(turn_passes, state.innings.at[1 - p].add(1), state.innings),
        shots=state.shots + 1,
        pure_caroms=jnp.where(verdict.scored & pure & ~turn_passes, state.pure_caroms + 1, 0).astype(jnp.int32),
        ball_in_hand=in_hand & ~end.game_over,
        base_spot_ball=jnp.where(end.game_over, -1, base_spot_ball).astype(jnp.int32),
        frozen_balls=frozen,
        frozen_cushions=geometry.frozen_cushions(positions[cue], params.cushion_reach, params.table,
                                                 ruleset.frozen_tolerance),
        pin_state=pin_state,
        pin_position=pin_position,
        first_carom_pending=jnp.asarray(False),
        game_over=end.game_over,
        winner=end.winner,
    )
    before = state.scores.at[p].add(state.run)  # the board: recorded plus the pending run
    after = end.scores.at[next_p].add(end.run)
    outcome = shot_outcome(
        ruleset, facts, verdict, shooter=p, points=after - before, turn_passes=turn_passes,
        game_over=end.game_over, winner=end.winner, draw=False,
        countdown_value=countdown(ruleset, board_scores_of(ruleset, new_state), next_p, end.game_over),
        frozen=frozen, positions=positions, final_positions=shot.final_positions,
        ball_in_hand=in_hand & ~end.game_over, pin_down=pin_facts.fell,
    )
    return new_state, outcome
