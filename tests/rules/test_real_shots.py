"""Real simulated shots through both referees: the JAX referee and the plain-Python reference must
agree on logs the physics writes (not only on generated ones), and the referee's bookkeeping must
add up. A small batch, so that it stays quick."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import physics
import rules
from agents.base import index_tree
from tests.support import reference_referee as ref
from tests.support.rules import REFEREE, make, options_dict, shot_dict, table_dict, to_python

N_SHOTS = 64


@pytest.fixture(scope="module")
def simulated():
    r, p = make("three_cushion")
    state = rules.init_game(r, jax.random.PRNGKey(0), p)
    rng = np.random.default_rng(7)
    shot = physics.Shot(
        V0=jnp.asarray(rng.uniform(1.0, 6.0, N_SHOTS)), phi=jnp.asarray(rng.uniform(0.0, 360.0, N_SHOTS)),
        theta=jnp.zeros(N_SHOTS), a=jnp.asarray(rng.uniform(-0.4, 0.4, N_SHOTS)),
        b=jnp.asarray(rng.uniform(-0.4, 0.4, N_SHOTS)),
    )
    positions = jnp.broadcast_to(state.positions, (N_SHOTS, 3, 2))
    results = physics.simulate_batch(positions, shot, state.cue_ball, p)
    return r, p, state, results


def test_real_logs_keep_the_contract(simulated):
    r, p, state, results = simulated
    for k in range(N_SHOTS):
        shot = index_tree(results, k)
        n = int(shot.num_events)
        times = np.asarray(shot.events.time[:n])
        assert np.all(np.diff(times) >= 0)
        kinds = np.asarray(shot.events.kind[:n])
        balls = np.asarray(shot.events.balls[:n])
        pairs = balls[kinds == physics.EventKind.BALL_BALL]
        assert np.all(pairs[:, 0] < pairs[:, 1])


def test_real_logs_both_referees_agree(simulated):
    r, p, state, results = simulated
    options, table = options_dict(r), table_dict(p)
    before = to_python(state)
    reasons = set()
    for k in range(N_SHOTS):
        shot = index_tree(results, k)
        new_state, outcome = REFEREE(r, state, shot, p)
        ref_state, ref_outcome = ref.referee("three_cushion", options, before, shot_dict(shot), table)
        got_state, got_outcome = to_python(new_state), to_python(outcome)
        for name, value in ref_state.items():
            if name in ("positions", "pin_position"):
                assert np.allclose(got_state[name], value, atol=1e-9), (k, name)
            else:
                assert got_state[name] == value, (k, name, got_state[name], value)
        for name, value in ref_outcome.items():
            assert got_outcome[name] == value, (k, name, got_outcome[name], value)
        reasons.add(int(outcome.reason))
        # the bookkeeping adds up: the points given are the change of the scores
        assert np.array_equal(np.asarray(new_state.scores) - np.asarray(state.scores), np.asarray(outcome.points))
    assert len(reasons) >= 2
