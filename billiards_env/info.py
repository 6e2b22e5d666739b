"""The ``info`` of every adapter, in one table: the same keys after ``reset`` (neutral values) and
after a step, with the same meaning and the same kind of value in one environment and in a batch.

===============  ========================  ===========================  ===================================
key              one environment           a batch (vector envs)        meaning
===============  ========================  ===========================  ===================================
points           list of 2 int             int (num_envs, 2)            each player's change on the board
                                                                        from the step's first shot
foul             bool                      bool (num_envs,)             that shot was a foul
reason           str                       str (num_envs,)              why it scored or not: a
                                                                        ``rules.Reason`` name, lower case
scores           list of 2 int             int (num_envs, 2)            points on the board now, a pending
                                                                        Hungarian run included (H-9.9)
current_player   int                       int (num_envs,)              who shoots next
opponent_shots   int                       int (num_envs,)              the built-in opponent's shots in
                                                                        the step ("game" mode)
rewards          list of 2 float           float32 (num_envs, 2)        both players' rewards of the step
repairs          int                       int (num_envs,)              impossible states the referee
                                                                        repaired in this game so far
call             str                       --                           the referee's call in words
events           list of dict              --                           the shot's events
shot             dict or None              --                           the strike as played (after noise)
===============  ========================  ===========================  ===================================

The last three are one environment's only: words and event lists for every environment of a batch
would cost more than the step. After ``reset`` the step's keys hold neutral values (no points, no
foul, reason "", no rewards, no events), so code that reads them needs no special case. In a batch,
``scores``, ``current_player`` and ``repairs`` describe the game as the step left it, before any
automatic reset.
"""
from __future__ import annotations

import jax
import numpy as np

import rules

REASON_NAMES = np.array([r.name.lower() for r in sorted(rules.Reason)])  # indexed by the code
BATCH_KEYS = ("points", "foul", "reason", "scores", "current_player", "opponent_shots", "rewards", "repairs")
ONE_ONLY_KEYS = ("call", "events", "shot")


def reason_names(codes) -> np.ndarray:
    """``rules.Reason`` codes (any shape) as their lower-case names."""
    return REASON_NAMES[np.asarray(codes, int)]


# (B, 2) points on the board of a batch of games (``rules.board_scores_of``), compiled once per
# discipline and batch size: board_scores_batch(rules, games).
board_scores_batch = jax.jit(jax.vmap(rules.board_scores_of, in_axes=(None, 0)))


def batch_info(state, scores) -> dict:
    """The batch keys of the table for a host (NumPy) ``billiards_env.State`` with leaves (B, ...)
    and its games' ``board_scores_batch`` (fetched with the state, in one transfer)."""
    game = state.game
    return {
        "points": np.asarray(state.outcome.points, int), "foul": np.asarray(state.outcome.foul, bool),
        "reason": reason_names(state.outcome.reason), "scores": np.asarray(scores, int),
        "current_player": np.asarray(state.current_player, int),
        "opponent_shots": np.asarray(state.opponent_shots, int),
        "rewards": np.asarray(state.rewards, np.float32), "repairs": np.asarray(game.repairs, int),
    }


def neutral_info(scores: list, current_player: int, repairs: int) -> dict:
    """One environment's info after a reset: every key of the table, the step's keys neutral."""
    return {"points": [0, 0], "foul": False, "reason": "", "scores": scores, "current_player": current_player,
            "opponent_shots": 0, "rewards": [0.0, 0.0], "repairs": repairs, "call": "", "events": [], "shot": None}


def neutral_batch_info(state, scores) -> dict:
    """``batch_info`` after a reset: the game's keys as they are, the step's keys neutral."""
    info = batch_info(state, scores)
    n = info["foul"].shape[0]
    info.update(points=np.zeros((n, 2), int), foul=np.zeros(n, bool), reason=np.full(n, "", REASON_NAMES.dtype),
                opponent_shots=np.zeros(n, int), rewards=np.zeros((n, 2), np.float32))
    return info
