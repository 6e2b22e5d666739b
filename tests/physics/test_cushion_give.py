"""The cushion's give (``CushionParams.give``; physics/simulate.py ``_yielded``, docs/physics.md
section 2): a ball on the cloth turns ``give`` s after it meets the nose, where its path has taken
it, so its straight paths in and out meet give v_n past the nose line, as the tracked match
rebounds show. Single shots of three balls: the compiled shape of the invariant tests."""
from __future__ import annotations

import jax
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import physics
from physics import EventKind, Shot
from tests.support.physics import check_invariants, random_layout, random_shot

GIVE = 0.003


def with_give(give):
    return physics.default_params(give=give)


def first_rebound(result):
    """The index of the first ball-cushion event of ``result``."""
    kinds = np.asarray(result.events.kind)[: int(result.num_events)]
    k = int(np.argmax(kinds == EventKind.BALL_CUSHION))
    assert kinds[k] == EventKind.BALL_CUSHION
    return k


def velocity_in(result, k, params, h=1e-7):
    """Ball 0's velocity as it meets the cushion at event k (the log's is at the event before),
    read just before it (at the event's time the path is already the one after it)."""
    t = float(result.events.time[k])
    ends = np.asarray(physics.positions_at(result, np.array([t - 2 * h, t - h]), params))[:, 0]
    return (ends[1] - ends[0]) / h


def test_give_turns_the_ball_give_v_n_past_the_nose_line():
    """The lines through the path just before and just after the rebound (as a camera's samples
    give them) meet give times the speed into the cushion past the line where the ball touches."""
    pos = np.array([[0.6, 0.5], [2.5, 1.2], [2.5, 0.2]])
    shot = Shot(V0=1.5, phi=200.0)
    for give in (0.0, GIVE):
        params = with_give(give)
        res = physics.simulate(pos, shot, 0, params)
        k = first_rebound(res)
        t = float(res.events.time[k])
        v_in = velocity_in(res, k, params)
        reach = float(params.cushion_reach)
        h = 2e-3  # s: short enough for straight lines, longer than the give
        before = np.asarray(physics.positions_at(res, np.array([t - 2 * h, t - h]), params))[:, 0]
        after = np.asarray(physics.positions_at(res, np.array([t + 2 * h, t + 3 * h]), params))[:, 0]
        # x (across the bottom cushion) against time: where the two lines cross.
        s_in = (before[1, 0] - before[0, 0]) / h
        s_out = (after[1, 0] - after[0, 0]) / h
        tc = (after[0, 0] - before[1, 0] + s_in * (t - h) - s_out * (t + 2 * h)) / (s_in - s_out)
        x_turn = before[1, 0] + s_in * (tc - (t - h))
        assert x_turn - reach == pytest.approx(-give * abs(v_in[0]), abs=2e-5)
        assert tc - t == pytest.approx(give, abs=1e-4)


def test_give_moves_the_path_after_the_rebound_by_give_times_the_velocity_change():
    """Everything after the rebound is the instant turn's path shifted by give (v_in - v_out)."""
    pos = np.array([[1.0, 0.4], [2.6, 1.3], [2.6, 0.1]])
    shot = Shot(V0=1.2, phi=-120.0, a=0.2, b=0.1)
    plain, given_ = (physics.simulate(pos, shot, 0, with_give(g)) for g in (0.0, GIVE))
    k = first_rebound(plain)
    assert first_rebound(given_) == k
    v_in = velocity_in(plain, k, with_give(0.0))
    v_out = np.asarray(plain.events.velocities[k, 0])
    np.testing.assert_allclose(np.asarray(given_.events.velocities[k, 0]), v_out, atol=1e-12)
    t = float(plain.events.time[k]) + np.array([1e-3, 0.02, 0.05])
    t = t[t < float(plain.events.time[k + 1])]
    shift = (np.asarray(physics.positions_at(given_, t, with_give(GIVE)))[:, 0]
             - np.asarray(physics.positions_at(plain, t, with_give(0.0)))[:, 0])
    np.testing.assert_allclose(shift, np.tile(GIVE * (v_in - v_out), (len(t), 1)), atol=1e-8)


def test_a_ball_past_the_line_pulled_back_meets_the_cushion_where_it_was():
    """A ball 1 mm past the bottom cushion's line, leaving it at 5 cm/s, its spin pulling it back
    (sliding: the cloth decelerates it at u_s g): it turns 0.57 mm on, still past the line, and
    meets the cushion when it is back where it was, 2 x 0.05 / (u_s g) s on, instead of running on
    through the cushion."""
    from physics import detect
    from physics.motion import Balls

    params = physics.default_params()
    reach = float(params.cushion_reach)
    b = Balls(r=np.array([[reach - 0.001, 0.7], [1.5, 0.7], [2.0, 0.7]]), v=np.array([[0.05, 0.0], [0, 0], [0, 0]]),
              w=np.array([[0.0, -20.0, 0.0], [0, 0, 0], [0, 0, 0]]), z=np.zeros(3), vz=np.zeros(3),
              motion=np.array([physics.Motion.SLIDING, 0, 0], np.int8))
    b = jax.tree_util.tree_map(jax.numpy.asarray, b)
    layout = detect.Layout(3, False)
    t = np.asarray(jax.jit(lambda b: detect.candidate_times(b, params, layout))(b))
    decel = float(params.ball.u_s) * float(params.g)
    assert 0.05**2 / (2 * decel) < 0.001  # it turns before it is back on the line
    assert t[layout.cushion + physics.Cushion.BOTTOM] == pytest.approx(2 * 0.05 / decel, rel=1e-9)
    assert np.all(np.isinf(t[layout.cushion + 1:layout.cushion + 4]))  # and meets no other cushion


@settings(max_examples=20, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), give=st.sampled_from([0.003, 0.02]))
def test_invariants_hold_with_a_give(seed, give):
    """Random shots with a give (up to far beyond the table's): energy, no overlap, never past a
    line by more than the give allows, at rest inside the cushions."""
    params = with_give(give)
    rng = np.random.default_rng(seed)
    res = physics.simulate(random_layout(rng, params), random_shot(rng), int(rng.integers(3)), params)
    check_invariants(res, params)


def test_give_is_checked_and_vmaps():
    with pytest.raises(ValueError, match="give"):
        physics.default_params(give=-0.001)
    pos = np.array([[0.6, 0.5], [2.5, 1.2], [2.5, 0.2]])
    shot = Shot(V0=1.5, phi=200.0)
    gives = np.array([0.0, GIVE])
    stacked = jax.tree_util.tree_map(lambda *x: np.stack(x), *(with_give(g) for g in gives))
    batch = physics.simulate_batch(np.stack([pos, pos]), Shot(V0=np.full(2, 1.5), phi=np.full(2, 200.0)),
                                   np.zeros(2, np.int32), stacked, batched_params=True)
    for i, g in enumerate(gives):
        one = physics.simulate(pos, shot, 0, with_give(g))
        np.testing.assert_allclose(np.asarray(batch.final_positions[i]), np.asarray(one.final_positions), atol=1e-12)
