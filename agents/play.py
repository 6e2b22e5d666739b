"""Playing planned shots: ``execute`` runs a batch of strikes through the environments' own
stages (``billiards_env.functional``: the strike with its execution noise and the pin, the lane
pool, the referee), so that agents are evaluated exactly as the environments play.
"""
from __future__ import annotations

import functools
from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np

import physics
from physics.events import ShotResult
from physics.params import Params
from physics.simulate import DEFAULT_LANES
import rules
from agents.base import ExecutionNoise, index_tree
from billiards_env.functional import simulate_turns, strike
from rules import GameState, Outcome, Rules


def net_points(outcome: Outcome, shooter: jax.Array) -> jax.Array:
    """(...,) int: the shooter's points minus what the shot gave the opponent (Hungarian fouls).

    outcome.points: (..., 2); shooter: (...,) int.
    """
    mine = jnp.take_along_axis(outcome.points, shooter[..., None], -1)[..., 0]
    theirs = jnp.take_along_axis(outcome.points, (1 - shooter)[..., None], -1)[..., 0]
    return mine - theirs


def shooter_points(outcome: Outcome, shooter: jax.Array) -> jax.Array:
    """(...,) int: the shooter's change of score on the board."""
    return jnp.take_along_axis(outcome.points, shooter[..., None], -1)[..., 0]


@functools.partial(jax.jit, static_argnames=("pin",))
def _strikes(states, shots, keys, params, scale, pin: bool):
    """The environments' strike stage on every row: one noise draw per row key, the pin."""
    return jax.vmap(lambda g, s, k: strike(g, s, k, params, scale, pin, False))(states, shots, keys)


def _row_keys(key, n: int):
    """(n, 2): one PRNG key per row, from one key or given per row; fixed ones without a key."""
    if key is None:
        return jax.random.split(jax.random.PRNGKey(0), n)
    key = jnp.asarray(key)
    return key if key.ndim == 2 else jax.random.split(key, n)


def _pad(tree, size):
    """Repeat the last row of every leaf up to ``size`` rows."""
    def one(x):
        x = jnp.asarray(x)
        extra = size - x.shape[0]
        return jnp.concatenate([x, jnp.repeat(x[-1:], extra, axis=0)]) if extra > 0 else x
    return jax.tree_util.tree_map(one, tree)


def execute(ruleset: Rules, states: GameState, shots: physics.Shot, params: Params, key: Optional[jax.Array] = None,
            noise: Optional[ExecutionNoise] = None, lanes: int = DEFAULT_LANES, pad_to: Optional[int] = None,
            ) -> tuple[ShotResult, GameState, Outcome, physics.Shot]:
    """Play ``shots`` (one per state, fields (B,)) through the environments' stages: the strike
    (``billiards_env.functional.strike``: the execution noise of ``noise``, an
    ``agents.ExecutionNoise``, and the pin from ``rules.pin.in_play``), the lane pool, the referee.

    key: one PRNG key (split into one per row) or (B, 2) keys, one per row; needed for noise.
    pad_to: play in batches of this many rows, the last one padded (the padding is dropped), so
    that batches of every size share one compiled simulation.
    Returns (ShotResult, next GameState, Outcome), all with the leading axis B, and the shots
    as actually played.
    """
    B = int(np.shape(shots.V0)[0])
    scale = 0.0 if noise is None else float(noise.scale)
    if scale > 0 and key is None:
        raise ValueError("execution noise needs a PRNG key")
    if pad_to is not None and pad_to < 1:
        raise ValueError(f"pad_to must be a positive number of rows, got {pad_to}")
    keys = _row_keys(key, B)
    size = B if pad_to is None else pad_to
    parts = []
    for start in range(0, B, size):
        rows = slice(start, min(B, start + size))
        run = (_pad(index_tree(t, rows), size) for t in (states, shots, keys))
        turn = _strikes(*run, params, scale, pin=ruleset.pin)
        results = simulate_turns(turn, params, lanes)
        next_states, outcomes = rules.referee_batch(ruleset, turn.game, results, params)
        parts.append(index_tree((results, next_states, outcomes, turn.shot), slice(0, rows.stop - start)))
    if len(parts) == 1:
        return parts[0]
    return jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs), *parts)
