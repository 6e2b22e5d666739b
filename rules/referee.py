"""``referee``: one shot's event log and the game state in, the next state and the verdict out.

    referee(rules, state, shot, params) -> (GameState, Outcome)

Pure and jittable; ``vmap`` it over states and shots (and rule options). The shared behaviour is
enforced here, once; the families' own rules live in ``rules.carom`` and ``rules.hungarian``:

* a finished game is not refereed: the state comes back unchanged (reason GAME_OVER);
* a shot whose result has a non-zero ``status`` (log overflow, invalid shot or layout) is void:
  the state comes back unchanged except the shot counter, nobody scores, the same player shoots
  again from the same layout (reason INVALID_SHOT, not a foul). Whether to penalise or truncate
  is the environment's choice; the referee never judges a log it cannot trust;
* the lag phase (C-1) goes to ``rules.lag``.
"""
from __future__ import annotations

import jax.numpy as jnp

from physics.events import ShotResult
from rules import carom, hungarian, lag, log
from rules.codes import Phase, Reason
from rules.outcome import quiet_outcome
from rules.state import GameState, replace, select


def referee(rules, state: GameState, shot: ShotResult, params):
    """Judge one shot: (next GameState, Outcome). See the module docstring."""
    if rules.is_hungarian:
        result = hungarian.play(rules, state, shot, params)
    else:
        result = carom.play(rules, state, shot, params)
        if rules.lag:
            result = select(state.phase == Phase.LAG, lag.judge_lag(rules, state, shot, params), result)
    void = (
        replace(state, shots=state.shots + 1),
        quiet_outcome(Reason.INVALID_SHOT, state.current_player, ball_in_hand=state.ball_in_hand),
    )
    result = select(log.status_ok(shot), result, void)
    finished = (
        state,
        quiet_outcome(
            Reason.GAME_OVER, state.current_player, game_over=jnp.asarray(True),
            winner=state.winner, draw=state.draw,
        ),
    )
    return select(state.game_over, finished, result)
