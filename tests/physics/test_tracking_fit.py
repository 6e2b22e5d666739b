"""Strike reconstruction (physics.tracking.fit, target, objective, errors, camera): a shot made by
the physics with a known strike, sampled like the camera tracks, is found again; the tracked
contacts as constraints, the error measures and the search's settings (``TrackingConfig``)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import physics
from physics.tracking import DEFAULT, TrackingConfig
from physics.tracking.camera import sampled
from physics.tracking.errors import along_across, to_polyline
from physics.tracking.fit import _side_spins, first_guess, fit, ghost_aim, reconstruct
from physics.tracking.objective import final_result, rms, simulate
from physics.tracking.target import Target, separated

CONFIG = TrackingConfig(chunk=64)  # the batch of the other real-shot tests: one compiled simulation
START = np.array([[0.7, 0.35], [1.4, 0.9], [2.1, 0.6]])
STRIKE = np.array([3.0, 32.0, 0.25, 0.2])  # V0 (m/s), phi (deg), a, b


def search(**settings) -> TrackingConfig:
    """``CONFIG`` with another strike search."""
    return dataclasses.replace(CONFIG, **settings)


@pytest.fixture(scope="module")
def made():
    params = physics.default_params(calibration="reference")  # the layout and strike were chosen on these values
    return params, sampled(START, STRIKE, params, CONFIG, shot_id=7)


def test_made_shot_looks_tracked(made):
    _, shot = made
    assert shot.cue == 0 and shot.strike_time == pytest.approx(0.01, abs=1e-9)
    assert len(shot.tracks[1].t) == 2  # ball 2 is not hit by this strike
    assert len(shot.tracks[2].t) > 100
    np.testing.assert_allclose(np.diff(shot.tracks[0].t[:5]), 0.02)


def test_true_strike_scores_zero_and_a_faster_or_raised_one_does_not(made):
    params, shot = made
    target = Target.of(shot, CONFIG)
    strikes = np.array([[*STRIKE, 0.0, 0.0], [3.05, *STRIKE[1:], 0.0, 0.0], [*STRIKE, 0.0, 8.0]])
    _, d2, rel, _ = simulate([target] * 3, strikes, params, CONFIG)
    whole = rms(d2, np.stack([target.used] * 3))
    assert whole[0] < 1e-9 and whole[1] > 0.02 and whole[2] > 0.02  # the elevation (column 5) is simulated


def test_the_tracked_contacts_are_constraints_the_true_strike_meets(made):
    """The made shot's cue ball passes ball 2 about 1.3 cm apart, then hits ball 3: the target asks
    for that gap and for the hit (a gap of 0), each in a window around its time. The true strike
    meets both; a strike aimed 4 degrees off misses ball 3, by a gap that the search's objective
    adds to the mean squared error, and only once its window opens within the horizon."""
    params, shot = made
    target = Target.of(shot, CONFIG)
    near = target.near
    assert list(near.other) == [1, 2] and list(near.used) == [True, True]
    assert 0.005 < near.gap[0] < CONFIG.near_range and near.gap[1] == 0.0
    truth = final_result(target, np.array([*STRIKE, 0.0, 0.0]), params, CONFIG)
    log = truth.events
    hit = [float(t) for k, b, t in zip(np.asarray(log.kind), np.asarray(log.balls), np.asarray(log.time))
           if k == physics.EventKind.BALL_BALL and sorted(b) == [0, 2]][0] + shot.strike_time
    assert near.times[1, 0] < hit < near.times[1, -1]
    strikes = np.array([[*STRIKE, 0.0, 0.0], [STRIKE[0], STRIKE[1] + 4.0, *STRIKE[2:], 0.0, 0.0]])
    _, d2, _, misses = simulate([target] * 2, strikes, params, CONFIG)
    assert misses.sq[0].max() < 1e-12 and misses.sq[1, 1] > 0.01**2
    plain = rms(d2, np.stack([target.used] * 2))
    judged = rms(d2, np.stack([target.used] * 2), misses.within())
    assert judged[0] == plain[0]
    assert judged[1] ** 2 == pytest.approx(plain[1] ** 2 + CONFIG.contact_weight * misses.sq[1].sum())
    assert misses.within(misses.start[1, 1] - 1e-3)[1] == misses.sq[1, 0]  # ball 3's window opens later
    # aimed 2 degrees off, the cue ball hits ball 2, which the tracks show it passing: the whole gap is missed
    _, _, _, misses = simulate([target], np.array([[STRIKE[0], STRIKE[1] + 2.0, *STRIKE[2:], 0.0, 0.0]]), params,
                               CONFIG)
    assert misses.sq[0, 0] == pytest.approx(near.gap[0] ** 2)


def test_reconstruction_recovers_the_strike(made):
    params, shot = made
    # one search from the first guess (the made shot's side spin needs no restarts), then the polish
    best, shape = reconstruct(shot, params, search(pop=512, rounds=30, restarts=1, searches=1))
    assert best.rms < 0.01 and best.rms_early < 0.01 and shape < 0.01
    assert abs(best.strike[0] - STRIKE[0]) < 0.03 and abs(best.strike[1] - STRIKE[1]) < 0.3
    assert abs(best.strike[4]) < 0.005


def test_first_guess_aims_at_the_ghost_ball_of_an_early_hit():
    """A ball 4.4 cm from the cue ball, cut at once (as in match shot 545762): the cue ball's first
    60 ms, already turned by the hit, point more than 10 degrees off the aim; the ghost ball (2 R
    back from the struck ball along the line it leaves on) gives the aim to within the throw."""
    params = physics.default_params(calibration="reference")
    start = np.array([[1.0, 0.7], [1.1, 0.73], [2.0, 1.2]])
    for aim in (-15.0, 45.0):
        shot = sampled(start, np.array([4.0, aim, 0.0, 0.0]), params, CONFIG, shot_id=8)
        track = shot.tracks[0]
        d = track.xy[np.searchsorted(track.t, shot.strike_time + CONFIG.first_travel)] - track.xy[0]
        assert abs(np.degrees(np.arctan2(d[1], d[0])) - aim) > 10.0
        guess = first_guess(shot, CONFIG)
        assert abs(guess[1] - aim) < 1.0 and guess[1] == ghost_aim(shot, 1, CONFIG)
        assert 3.0 < guess[0] < 4.5


def test_a_horizon_fits_the_start_and_reports_the_whole_shot(made):
    """With a horizon only the first seconds are fitted: a strike a little faster than the true
    one misses the start little and the end a lot, so the start's fit leaves the whole shot's
    error to show (reported over the whole shot, not over the horizon)."""
    params, shot = made
    best, _ = reconstruct(shot, params, search(pop=64, rounds=4, restarts=1, polish=1, searches=1), horizon=0.3)
    target = Target.of(shot, CONFIG)
    _, d2, rel, _ = simulate([target], best.strike[None], params, CONFIG)
    start = rms(d2, target.used[None] & (rel <= 0.3))[0]
    assert best.rms == pytest.approx(rms(d2, target.used[None])[0])
    assert best.rms_early == pytest.approx(rms(d2, target.used[None] & (rel <= CONFIG.early))[0])
    assert start < 0.01 and best.rms > start
    with pytest.raises(ValueError, match="horizon must be a positive number of seconds, got 0"):
        reconstruct(shot, params, CONFIG, horizon=0)


def test_path_distance_is_time_free():
    line = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    np.testing.assert_allclose(to_polyline(np.array([[0.5, 0.2], [1.3, 0.5], [2.0, 2.0]]), line),
                               [0.2, 0.3, np.hypot(1.0, 1.0)])


def test_along_across_splits_an_error_by_the_simulated_travel():
    """A ball running +x at 2 m/s: a track 3 cm ahead and 1 cm to its left reads +3 cm along and
    +1 cm across; the same heading -y turns them; a ball at rest gives no split."""
    step = DEFAULT.split_step
    sim = np.array([[1.0, 0.5], [1.0, 0.5], [1.0, 0.5]])
    before = sim - np.array([[2.0, 0.0], [0.0, -2.0], [0.0, 0.0]]) * step
    after = sim + np.array([[2.0, 0.0], [0.0, -2.0], [0.0, 0.0]]) * step
    xy = sim + np.array([[0.03, 0.01], [0.01, -0.03], [0.03, 0.01]])
    along, across, moving = along_across(before, after, sim, xy)
    np.testing.assert_allclose(along, [0.03, 0.03, 0.0], atol=1e-12)
    np.testing.assert_allclose(across, [0.01, 0.01, 0.0], atol=1e-12)
    assert moving.tolist() == [True, True, False]


def test_overlapping_start_balls_are_pushed_apart():
    r = DEFAULT.radius
    start = separated(np.array([[1.0, 0.5], [1.0 + 2 * r - 0.002, 0.5], [2.0, 1.0]]))
    assert np.linalg.norm(start[1] - start[0]) >= 2 * r
    np.testing.assert_allclose(start.mean(0), [(1.0 + 1.0 + 2 * r - 0.002 + 2.0) / 3, 2.0 / 3])


def test_the_config_refuses_a_search_that_cannot_run():
    with pytest.raises(ValueError, match="at least 8 candidates per search, got pop=4, restarts=1"):
        search(pop=4, restarts=1)
    with pytest.raises(ValueError, match="pop must be a multiple of restarts.*got pop=100, restarts=3"):
        search(pop=100, restarts=3)
    with pytest.raises(ValueError, match="polish in \\[0, rounds\\), got rounds=3, polish=3"):
        search(pop=16, restarts=1, rounds=3, polish=3)
    with pytest.raises(ValueError, match="searches must be at least 1, got 0"):
        search(searches=0)
    assert DEFAULT == TrackingConfig() and DEFAULT.near_samples == 41


def test_fit_refuses_an_init_of_the_wrong_shape(made):
    params, shot = made
    with pytest.raises(ValueError, match=r"init must hold a starting strike per target, shape \(1, 6\)"):
        fit([Target.of(shot, CONFIG)], params, search(pop=16, restarts=1), init=np.zeros((1, 5)))


def test_several_searches_keep_the_one_that_fits_best(made):
    """``searches``: the target searched as many times apart (copies of it in one call, each
    drawing its own candidates), and the copy whose best strike has the lowest objective kept."""
    params, shot = made
    target, init = Target.of(shot, CONFIG), first_guess(shot, CONFIG)[None]
    one = search(pop=16, rounds=2, restarts=1, polish=0, searches=1)
    apart = fit([target] * 3, params, one, init=np.repeat(init, 3, 0))
    best = fit([target], params, dataclasses.replace(one, searches=3), init=init)
    assert len(best) == 1 and len({f.objective for f in apart}) > 1  # the copies went apart
    winner = min(apart, key=lambda f: f.objective)
    assert best[0].objective == winner.objective
    np.testing.assert_array_equal(best[0].strike, winner.strike)


def test_restarts_start_alike_but_for_side_spin():
    init = np.array([[2.0, 30.0, 0.1, 0.2, 0.0, 0.0], [1.0, -45.0, 0.0, 0.0, 0.01, 0.0]])
    start = _side_spins(init, 4)
    assert start.shape == (2, 4, 6)
    np.testing.assert_allclose(start[:, :, 2], [[-0.3, -0.1, 0.1, 0.3]] * 2)
    np.testing.assert_array_equal(np.delete(start, 2, axis=2), np.repeat(np.delete(init, 2, axis=1)[:, None], 4, 1))
    np.testing.assert_array_equal(_side_spins(init, 1)[:, 0], init)  # one search keeps its start
