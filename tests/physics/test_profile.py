"""The event-loop profile (physics.profile, ``experiments.bench_physics --profile``): the ball
states it times are the logged ones, and its stages add up to no more than an iteration."""
from __future__ import annotations

import numpy as np
import pytest

import physics
from experiments.bench_physics import batch_inputs, random_shots
from physics import profile

BATCH = 64  # the batch other tests compile the pool for


@pytest.fixture(scope="module")
def played(params):
    pos, shots = batch_inputs(params, random_shots(np.random.default_rng(2), BATCH))
    return pos, shots, physics.simulate_batch(pos, shots, 0, params)


def test_event_states_are_logged_events_with_the_balls_still_moving(played):
    _, _, result = played
    balls = profile.event_states(result, seed=1)
    num = np.asarray(result.num_events)
    rows = np.nonzero(num > 1)[0]
    assert balls.r.shape == (rows.size, 3, 2) and np.all(np.asarray(balls.z) == 0)
    logged = np.asarray(result.events.positions)
    for i, row in enumerate(rows):  # each state is one of its shot's logged events, not its last
        hits = [k for k in range(num[row] - 1) if np.array_equal(logged[row, k], np.asarray(balls.r[i]))]
        assert hits, row
    moving = np.asarray(balls.motion) != physics.Motion.STATIONARY
    assert moving.any(axis=1).all()


def test_event_states_need_a_shot_of_two_events(played):
    _, _, result = played
    one = physics.ShotResult(**{**vars(result), "num_events": np.ones(BATCH, np.int32)})
    with pytest.raises(ValueError, match="at least two events"):
        profile.event_states(one)


@pytest.mark.slow  # the stages compile on their own
def test_the_stages_add_up_to_an_iteration(played, params):
    pos, shots, _ = played
    us = profile.profile(pos, shots, params, repeats=3)
    assert set(profile.STAGES) <= set(us) and us["events"] > 1
    inside = sum(us[s] for s in profile.STAGES if s != "loop")
    assert all(us[s] >= 0 for s in profile.STAGES) and us["iteration"] > 0
    assert us["loop"] == pytest.approx(max(us["iteration"] - inside, 0.0))
