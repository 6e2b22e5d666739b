"""``referee``: one shot's event log and the game state in, the next state and the verdict out.

    referee(rules, state, shot, params) -> (GameState, Outcome)

Pure and jittable; ``vmap`` it over states and shots (and rule options). The shared behaviour is
enforced here, once; the families' own rules live in ``rules.carom`` and ``rules.hungarian``:

* a finished game is not refereed: the state comes back unchanged (reason GAME_OVER);
* a shot whose result has a non-zero ``status`` (log overflow, invalid shot or layout) is void:
  nobody scores, the same player shoots again (reason INVALID_SHOT, not a foul); the referee never
  judges a log it cannot trust. A refused layout is re-laid and a streak of void shots is resolved
  as a miss, so that no game repeats a void shot forever (``rules.void``);
* impossible states the physics may return are repaired as a referee would (``rules.repair``):
  a ball at rest outside the cushions has jumped, overlapping balls are parted;
* the lag phase (C-1) goes to ``rules.lag``.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from physics.events import ShotResult
from physics.params import Params
from rules import carom, hungarian, lag, log, repair, void
from rules.codes import Phase, Reason
from rules.options import Rules
from rules.outcome import Outcome, quiet_outcome
from rules.state import GameState, replace, select


def _judged(ruleset, state: GameState, shot: ShotResult, params):
    """(GameState, Outcome) of a shot whose log can be trusted, repairs included."""
    shot, marked = repair.mark_outside(params, shot)  # rules H-7.1, C-9.2 b
    if ruleset.is_hungarian:
        new, outcome = hungarian.play(ruleset, state, shot, params)
    else:
        new, outcome = carom.play(ruleset, state, shot, params)
        if ruleset.lag:
            new, outcome = select(state.phase == Phase.LAG, lag.judge_lag(ruleset, state, shot, params), (new, outcome))
    new, moved = repair.after_shot(ruleset, params, replace(new, void_streak=jnp.asarray(0, jnp.int32)), marked)
    return new, replace(outcome, respotted=outcome.respotted | moved)


def referee(ruleset: Rules, state: GameState, shot: ShotResult, params: Params) -> tuple[GameState, Outcome]:
    """Judge one shot: (next GameState, Outcome). See the module docstring."""
    result = select(log.status_ok(shot), _judged(ruleset, state, shot, params),
                    void.void_shot(ruleset, params, state, shot))
    finished = (
        state,
        quiet_outcome(
            Reason.GAME_OVER, state.current_player, game_over=jnp.asarray(True),
            winner=state.winner, draw=state.draw,
        ),
    )
    return select(state.game_over, finished, result)


@jax.jit
def referee_batch(ruleset: Rules, states: GameState, shots: ShotResult, params: Params) -> tuple[GameState, Outcome]:
    """``referee`` over a batch of states and shot results (one leading axis), under one set of
    rules and params; compiled once per batch size and shared by every caller (agents, experiments
    and tests), so that a batch of a size already used costs no new compile."""
    return jax.vmap(referee, in_axes=(None, 0, 0, None))(ruleset, states, shots, params)
