"""Shot reconstruction (experiments.reconstruct): a shot made by the physics with a known strike,
sampled like the camera tracks, is found again; the error measures and the command."""
from __future__ import annotations

import csv

import numpy as np
import pytest

import physics
from experiments import reconstruct as rc
from experiments import tracking

CHUNK = 64  # the batch of the other real-shot tests: one compiled simulation
START = np.array([[0.7, 0.35], [1.4, 0.9], [2.1, 0.6]])
STRIKE = np.array([3.0, 32.0, 0.25, 0.2])  # V0 (m/s), phi (deg), a, b


@pytest.fixture(scope="module")
def made():
    params = physics.default_params(calibration="reference")  # the layout and strike were chosen on these values
    return params, rc.sampled(START, STRIKE, params, shot_id=7, chunk=CHUNK)


def test_made_shot_looks_tracked(made):
    _, shot = made
    assert shot.cue == 0 and shot.strike_time == pytest.approx(0.01, abs=1e-9)
    assert len(shot.tracks[1].t) == 2  # ball 2 is not hit by this strike
    assert len(shot.tracks[2].t) > 100
    np.testing.assert_allclose(np.diff(shot.tracks[0].t[:5]), 0.02)


def test_true_strike_scores_zero_and_a_faster_or_raised_one_does_not(made):
    params, shot = made
    target = rc.Target.of(shot)
    strikes = np.array([[*STRIKE, 0.0, 0.0], [3.05, *STRIKE[1:], 0.0, 0.0], [*STRIKE, 0.0, 8.0]])
    _, d2, rel, _ = rc.simulate([target] * 3, strikes, params, chunk=CHUNK)
    whole = rc.rms(d2, np.stack([target.used] * 3))
    assert whole[0] < 1e-9 and whole[1] > 0.02 and whole[2] > 0.02  # the elevation (column 5) is simulated


def test_the_tracked_contacts_are_constraints_the_true_strike_meets(made):
    """The made shot's cue ball passes ball 2 about 1.3 cm apart, then hits ball 3: the target asks
    for that gap and for the hit (a gap of 0), each in a window around its time. The true strike
    meets both; a strike aimed 4 degrees off misses ball 3, by a gap that the search's objective
    adds to the mean squared error, and only once its window opens within the horizon."""
    params, shot = made
    target = rc.Target.of(shot)
    near = target.near
    assert list(near.other) == [1, 2] and list(near.used) == [True, True]
    assert 0.005 < near.gap[0] < rc.NEAR_RANGE and near.gap[1] == 0.0
    truth = rc.final_result(target, np.array([*STRIKE, 0.0, 0.0]), params, chunk=CHUNK)
    log = truth.events
    hit = [float(t) for k, b, t in zip(np.asarray(log.kind), np.asarray(log.balls), np.asarray(log.time))
           if k == physics.EventKind.BALL_BALL and sorted(b) == [0, 2]][0] + shot.strike_time
    assert near.times[1, 0] < hit < near.times[1, -1]
    strikes = np.array([[*STRIKE, 0.0, 0.0], [STRIKE[0], STRIKE[1] + 4.0, *STRIKE[2:], 0.0, 0.0]])
    _, d2, _, misses = rc.simulate([target] * 2, strikes, params, chunk=CHUNK)
    assert misses.sq[0].max() < 1e-12 and misses.sq[1, 1] > 0.01**2
    plain = rc.rms(d2, np.stack([target.used] * 2))
    judged = rc.rms(d2, np.stack([target.used] * 2), misses.within())
    assert judged[0] == plain[0]
    assert judged[1] ** 2 == pytest.approx(plain[1] ** 2 + rc.CONTACT_WEIGHT * misses.sq[1].sum())
    assert misses.within(misses.start[1, 1] - 1e-3)[1] == misses.sq[1, 0]  # ball 3's window opens later
    # aimed 2 degrees off, the cue ball hits ball 2, which the tracks show it passing: the whole gap is missed
    _, _, _, misses = rc.simulate([target], np.array([[STRIKE[0], STRIKE[1] + 2.0, *STRIKE[2:], 0.0, 0.0]]), params,
                                  chunk=CHUNK)
    assert misses.sq[0, 0] == pytest.approx(near.gap[0] ** 2)


def test_reconstruction_recovers_the_strike(made):
    params, shot = made
    # one search from the first guess (the made shot's side spin needs no restarts), then the polish
    best, shape = rc.reconstruct(shot, params, pop=512, rounds=30, chunk=CHUNK, restarts=1, searches=1)
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
        shot = rc.sampled(start, np.array([4.0, aim, 0.0, 0.0]), params, shot_id=8, chunk=CHUNK)
        track = shot.tracks[0]
        d = track.xy[np.searchsorted(track.t, shot.strike_time + rc.FIRST_TRAVEL)] - track.xy[0]
        assert abs(np.degrees(np.arctan2(d[1], d[0])) - aim) > 10.0
        guess = rc.first_guess(shot)
        assert abs(guess[1] - aim) < 1.0 and guess[1] == rc.ghost_aim(shot, 1)
        assert 3.0 < guess[0] < 4.5


def test_a_horizon_fits_the_start_and_reports_the_whole_shot(made):
    """With a horizon only the first seconds are fitted: a strike a little faster than the true
    one misses the start little and the end a lot, so the start's fit leaves the whole shot's
    error to show (reported over the whole shot, not over the horizon)."""
    params, shot = made
    best, _ = rc.reconstruct(shot, params, pop=64, rounds=4, chunk=CHUNK, restarts=1, polish=1, searches=1,
                             horizon=0.3)
    target = rc.Target.of(shot)
    _, d2, rel, _ = rc.simulate([target], best.strike[None], params, chunk=CHUNK)
    start = rc.rms(d2, target.used[None] & (rel <= 0.3))[0]
    assert best.rms == pytest.approx(rc.rms(d2, target.used[None])[0])
    assert best.rms_early == pytest.approx(rc.rms(d2, target.used[None] & (rel <= rc.EARLY))[0])
    assert start < 0.01 and best.rms > start
    with pytest.raises(ValueError, match="horizon must be a positive number of seconds, got 0"):
        rc.reconstruct(shot, params, horizon=0)


def test_path_distance_is_time_free():
    line = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
    np.testing.assert_allclose(rc.to_polyline(np.array([[0.5, 0.2], [1.3, 0.5], [2.0, 2.0]]), line),
                               [0.2, 0.3, np.hypot(1.0, 1.0)])


def test_along_across_splits_an_error_by_the_simulated_travel():
    """A ball running +x at 2 m/s: a track 3 cm ahead and 1 cm to its left reads +3 cm along and
    +1 cm across; the same heading -y turns them; a ball at rest gives no split."""
    step = rc.SPLIT_STEP
    sim = np.array([[1.0, 0.5], [1.0, 0.5], [1.0, 0.5]])
    before = sim - np.array([[2.0, 0.0], [0.0, -2.0], [0.0, 0.0]]) * step
    after = sim + np.array([[2.0, 0.0], [0.0, -2.0], [0.0, 0.0]]) * step
    xy = sim + np.array([[0.03, 0.01], [0.01, -0.03], [0.03, 0.01]])
    along, across, moving = rc.along_across(before, after, sim, xy, step)
    np.testing.assert_allclose(along, [0.03, 0.03, 0.0], atol=1e-12)
    np.testing.assert_allclose(across, [0.01, 0.01, 0.0], atol=1e-12)
    assert moving.tolist() == [True, True, False]


def test_overlapping_start_balls_are_pushed_apart():
    r = tracking.RADIUS
    start = rc.separated(np.array([[1.0, 0.5], [1.0 + 2 * r - 0.002, 0.5], [2.0, 1.0]]))
    assert np.linalg.norm(start[1] - start[0]) >= 2 * r
    np.testing.assert_allclose(start.mean(0), [(1.0 + 1.0 + 2 * r - 0.002 + 2.0) / 3, 2.0 / 3])


def test_fit_refuses_a_tiny_population_and_a_bad_split(made):
    params, shot = made
    args = ([rc.Target.of(shot)], params)
    init = rc.first_guess(shot)[None]
    with pytest.raises(ValueError, match="at least 8 candidates per search, got pop=4, restarts=1"):
        rc.fit(*args, pop=4, init=init)
    with pytest.raises(ValueError, match="pop must be a multiple of restarts.*got pop=100, restarts=3"):
        rc.fit(*args, pop=100, restarts=3, init=init)
    with pytest.raises(ValueError, match="polish in \\[0, rounds\\), got rounds=3, polish=3"):
        rc.fit(*args, pop=16, rounds=3, polish=3, init=init)
    with pytest.raises(ValueError, match=r"init must hold a starting strike per target, shape \(1, 6\)"):
        rc.fit(*args, pop=16, init=np.zeros((1, 5)))


def test_several_searches_keep_the_one_that_fits_best(made):
    """``searches``: the target searched as many times apart (copies of it in one call, each
    drawing its own candidates), and the copy whose best strike has the lowest objective kept."""
    params, shot = made
    target, init = rc.Target.of(shot), rc.first_guess(shot)[None]
    kw = dict(pop=16, rounds=2, chunk=CHUNK)
    apart = rc.fit([target] * 3, params, init=np.repeat(init, 3, 0), **kw)
    best = rc.fit([target], params, init=init, searches=3, **kw)
    assert len(best) == 1 and len({f.objective for f in apart}) > 1  # the copies went apart
    winner = min(apart, key=lambda f: f.objective)
    assert best[0].objective == winner.objective
    np.testing.assert_array_equal(best[0].strike, winner.strike)
    with pytest.raises(ValueError, match="searches must be at least 1, got 0"):
        rc.fit([target], params, init=init, searches=0, **kw)


def test_restarts_start_alike_but_for_side_spin():
    init = np.array([[2.0, 30.0, 0.1, 0.2, 0.0, 0.0], [1.0, -45.0, 0.0, 0.0, 0.01, 0.0]])
    start = rc._side_spins(init, 4)
    assert start.shape == (2, 4, 6)
    np.testing.assert_allclose(start[:, :, 2], [[-0.3, -0.1, 0.1, 0.3]] * 2)
    np.testing.assert_array_equal(np.delete(start, 2, axis=2), np.repeat(np.delete(init, 2, axis=1)[:, None], 4, 1))
    np.testing.assert_array_equal(rc._side_spins(init, 1)[:, 0], init)  # one search keeps its start


@pytest.mark.slow
def test_command_writes_a_picture_and_a_csv(tmp_path):
    rows = rc.main(["--shot", "545712", "--out", str(tmp_path), "--pop", "64", "--rounds", "3", "--polish", "1",
                    "--chunk", str(CHUNK)])
    assert (tmp_path / "shot_545712.png").stat().st_size > 10_000
    with open(tmp_path / "reconstruct.csv") as f:
        saved = list(csv.DictReader(f))
    assert [int(r["shot_id"]) for r in saved] == [545712]
    assert float(saved[0]["rms"]) == pytest.approx(rows[0]["rms"]) and rows[0]["rms"] < 1.0


def test_command_refuses_a_polish_as_long_as_the_search(capsys):
    with pytest.raises(SystemExit):
        rc.main(["--rounds", "3", "--polish", "3"])
    assert "polish in [0, rounds), got rounds=3, polish=3" in capsys.readouterr().err


def test_command_refuses_no_search(capsys):
    with pytest.raises(SystemExit):
        rc.main(["--searches", "0"])
    assert "searches must be at least 1, got 0" in capsys.readouterr().err


def test_command_refuses_a_horizon_that_is_not_positive(capsys):
    with pytest.raises(SystemExit):
        rc.main(["--horizon", "-1"])
    assert "--horizon must be a positive number of seconds, got -1.0" in capsys.readouterr().err
