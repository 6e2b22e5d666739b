"""Shared pieces of the agent tests: one small search budget whose two rounds and whose played
shots all simulate batches of ``BATCH`` shots, so one compiled simulation serves every test."""
from __future__ import annotations

import functools

import jax
import numpy as np

import agents
import billiards_env
from physics.strike import check_shot
from agents import SearchConfig

BATCH = 128
# 128 candidates, then 4 parents x 32 variations: both rounds 128 shots.
SMALL = SearchConfig(candidates=128, seeds=16, refine_parents=4, refine_children=32)
# Under noise, for two states at once: 16 candidates x 4 noisy plays, then 2 parents x 8
# variations x 4 plays, per state.
SMALL_NOISY = SearchConfig(candidates=16, seeds=8, trials=4, noise=1.0, refine_parents=2,
                           refine_children=8, refine_trials=4)


@functools.lru_cache(maxsize=None)
def setup(discipline: str):
    """(rules, params) of a discipline, on its table (the Hungarian game on its 1:2 table),
    ``billiards_env.setup``'s, made once."""
    return billiards_env.setup(discipline)


@functools.lru_cache(maxsize=None)
def layouts(discipline: str, n: int, seed: int):
    """n random games in play (player 0 to shoot)."""
    ruleset, params = setup(discipline)
    return agents.random_states(ruleset, jax.random.PRNGKey(seed), params, n)


def assert_playable(shot, params):
    """Every field finite and within the strike's limits (``physics.strike.check_shot``)."""
    values = [np.asarray(getattr(shot, f), float) for f in ("V0", "phi", "theta", "a", "b")]
    for v in values:
        assert np.all(np.isfinite(v))
    check_shot(*values, max_speed=float(params.cue.max_speed),
                              max_offset=float(params.cue.max_offset))


def successes(game, states, shots, params, noise=None, key=None):
    """How many of the shots scored (the shooter's points went up)."""
    _, _, outcomes, _ = agents.execute(game, states, shots, params, key=key, noise=noise, pad_to=BATCH)
    return int(np.sum(np.asarray(agents.shooter_points(outcomes, states.current_player)) > 0))
