"""Playing planned shots: execution noise, one batched simulation, the referee.

``execute`` is what an environment step does with a strike, for a batch of games; the search
agent uses the same pieces on its candidates.
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
import rules as rules_lib
from agents.base import ExecutionNoise, pin_for_simulation
from rules import GameState, Outcome, Rules


@jax.jit
def referee_batch(game_rules, states, results, params):
    """(GameState, Outcome) for a batch: states and results with the same leading axis."""
    return jax.vmap(rules_lib.referee, in_axes=(None, 0, 0, None))(game_rules, states, results, params)


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


@functools.partial(jax.jit, static_argnames=("noise",))
def _with_noise(shots, key, params, noise):
    return noise.apply(shots, key, params)


def simulate_states(game_rules, states, shots, params, lanes=DEFAULT_LANES):
    """One batched simulation of ``shots`` (fields (B,)) from ``states`` (leaves (B, ...))."""
    pin = pin_for_simulation(game_rules, states, params)
    return physics.simulate_batch(states.positions, shots, states.cue_ball, params, pin=pin, lanes=lanes)


def _pad(tree, size):
    """Repeat the last row of every leaf up to ``size`` rows."""
    def one(x):
        x = jnp.asarray(x)
        extra = size - x.shape[0]
        return jnp.concatenate([x, jnp.repeat(x[-1:], extra, axis=0)]) if extra > 0 else x
    return jax.tree_util.tree_map(one, tree)


def execute(game_rules: Rules, states: GameState, shots: physics.Shot, params: Params, key: Optional[jax.Array] = None,
            noise: Optional[ExecutionNoise] = None, lanes: int = DEFAULT_LANES, pad_to: Optional[int] = None,
            ) -> tuple[ShotResult, GameState, Outcome, physics.Shot]:
    """Play ``shots`` (one per state, fields (B,)) with optional ``agents.ExecutionNoise``.

    pad_to: simulate and judge a batch padded to this many rows (the padding is dropped), so
    that batches of different sizes share one compiled simulation.
    Returns (ShotResult, next GameState, Outcome), all with the leading axis B, and the shots
    as actually played.
    """
    B = int(np.shape(shots.V0)[0])
    if noise is not None and noise.scale > 0:
        if key is None:
            raise ValueError("execution noise needs a PRNG key")
        shots = _with_noise(shots, key, params, noise)
    if pad_to is not None and pad_to < B:
        raise ValueError(f"pad_to ({pad_to}) must be at least the batch size {B}")
    run_states, run_shots = (states, shots) if pad_to is None else (_pad(states, pad_to), _pad(shots, pad_to))
    results = simulate_states(game_rules, run_states, run_shots, params, lanes)
    next_states, outcomes = referee_batch(game_rules, run_states, results, params)
    if pad_to is not None:
        results, next_states, outcomes = (jax.tree_util.tree_map(lambda x: x[:B], t)
                                          for t in (results, next_states, outcomes))
    return results, next_states, outcomes, shots
