"""The search agent against the baselines on fixed three-cushion layouts, played by the simulator
and judged by the referee; its noisy plays."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import agents
from agents import ExecutionNoise, GeometricAgent, RandomAgent, SearchAgent
from agents.base import index_tree, shot_array, shot_from_array
from agents.search import _trial_shots
from tests.support.agents import SMALL, layouts, setup, successes

N_LAYOUTS = 12


def _plans(agent, ruleset, states, params, keys):
    if isinstance(agent, SearchAgent):
        return agents.stack_states([agent.plan(ruleset, index_tree(states, i), params, keys[i])
                                    for i in range(N_LAYOUTS)])
    return agent.plan_batch(ruleset, states, params, keys)


def test_search_scores_more_often_than_random_and_geometric_on_three_cushion():
    ruleset, params = setup("three_cushion")
    states = layouts("three_cushion", N_LAYOUTS, 11)
    keys = jax.random.split(jax.random.PRNGKey(4), N_LAYOUTS)
    scored = {}
    for agent in (RandomAgent(), GeometricAgent(), SearchAgent(SMALL)):
        shots = _plans(agent, ruleset, states, params, keys)
        scored[agent.name] = successes(ruleset, states, shots, params)
    # With 256 simulated shots per decision the search finds a scoring shot on nearly every
    # layout; uniformly random shots score on about 2 % and geometric lines on about 25 %.
    assert scored["search"] >= 10, scored
    assert scored["search"] > scored["geometric"] + 3, scored
    assert scored["search"] > scored["random"] + 3, scored


def test_noisy_plays_share_their_noise_across_candidates():
    # Common random numbers: every candidate of a state is played with the same T noise draws,
    # of the standard size, so candidates are compared under the same luck.
    _, params = setup("three_cushion")
    S, N, T = 2, 3, 4000
    base = np.array([[3.0, 10.0, 0.0, 0.1, -0.1], [2.0, -50.0, 0.0, 0.0, 0.2], [5.0, 170.0, 0.0, -0.2, 0.0]])
    shots = shot_from_array(jnp.broadcast_to(jnp.asarray(base), (S, N, 5)))
    keys = jax.random.split(jax.random.PRNGKey(0), S)
    played = _trial_shots(shots, keys, params, T, 1.0)
    x = np.asarray(shot_array(played)).reshape(S, N, T, 5)
    delta = x - np.broadcast_to(base[None, :, None], x.shape)
    np.testing.assert_allclose(delta[:, 0, :, :2], delta[:, 1, :, :2], atol=1e-9)  # V0 and aim
    np.testing.assert_allclose(delta[:, 0, :, :2], delta[:, 2, :, :2], atol=1e-9)
    assert not np.allclose(delta[0], delta[1])  # each state its own draws
    std = np.asarray(ExecutionNoise().std(params))
    np.testing.assert_allclose(delta[0, 0, :, :2].std(0), std[:2], rtol=0.06)
    assert np.all(x[..., 2] >= 0)  # a level cue's elevation noise is folded onto theta >= 0
    exact = _trial_shots(shots, keys, params, 2, 0.0)
    np.testing.assert_array_equal(np.asarray(shot_array(exact)).reshape(S, N, 2, 5),
                                  np.broadcast_to(base[None, :, None], (S, N, 2, 5)))
