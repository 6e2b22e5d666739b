"""Calibration against tracked shots (experiments.calibrate, experiments.rebounds,
experiments.collisions, experiments.slides): the parameter space, rebound, ball-ball hit and
first-slide measurements on made-up and real tracks, and the command end to end on a tiny
setting. Data: erdo100/3cushiontool, 20221225_2_Match_Ersin_Cemal.pkl, Apache-2.0."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import physics
from experiments import calibrate, collisions, rebounds, reconstruct, slides, track_events, tracking


def test_params_with_sets_the_fitted_values():
    p = calibrate.params_with({"e_c": 0.91, "f_c": 0.29, "height": 0.040, "throw_scale": 2.0})
    base = physics.default_params(calibration=calibrate.START)  # a calibration starts from the reference values
    assert float(p.cushion.e_c) == 0.91 and float(p.cushion.f_c) == 0.29 and float(p.cushion.height) == 0.040
    assert float(p.ball.throw_a) == pytest.approx(2 * float(base.ball.throw_a))
    assert float(p.ball.throw_b) == pytest.approx(2 * float(base.ball.throw_b))
    assert float(p.ball.u_s) == float(base.ball.u_s)
    assert p.ball_ball == "frictional" and p.cushion_model == calibrate.CUSHION
    assert calibrate.params_with({"e_b": 0.9}, "frictional_bed").ball_ball == "frictional_bed"


def test_params_with_refuses_unknown_and_out_of_range_values():
    with pytest.raises(ValueError, match="unknown calibration parameter.*valid: e_c"):
        calibrate.params_with({"e_cushion": 0.9})
    with pytest.raises(ValueError, match="e_c must be in"):
        calibrate.params_with({"e_c": 1.2})
    with pytest.raises(ValueError, match="unknown ball_ball model 'sticky'"):
        calibrate.params_with({"e_c": 0.9}, "sticky")


def test_defaults_lie_inside_the_search_box():
    for name, value in calibrate.defaults().items():
        low, high = calibrate.SPACE[name]
        # Floors that are physical: u_r_step 0 is one rolling resistance at every speed, f_bed 0
        # is Han's cushion without the cloth's friction during the impact, give 0 an instant turn.
        if name in ("u_r_step", "f_bed", "give"):
            assert low == value == 0.0
            continue
        assert low < value < high, name


def test_stacked_params_have_a_batch_axis():
    sets = [calibrate.params_with({"e_c": e}) for e in (0.8, 0.9, 0.95)]
    both = calibrate.stacked(sets)
    np.testing.assert_allclose(both.cushion.e_c, [0.8, 0.9, 0.95])
    assert np.shape(both.ball.radius) == (3,)


def test_rebound_of_a_made_up_bounce():
    # 45 deg into the RIGHT cushion (y = R) at 2 m/s; out with half the normal speed, same along it.
    v_in = np.array([np.sqrt(2), -np.sqrt(2)])
    v_out = np.array([np.sqrt(2), 0.5 * np.sqrt(2)])
    hit = np.array([1.0, tracking.RADIUS])

    def position(ts):
        ts = np.asarray(ts)[:, None]
        return np.where(ts < 0.5, hit + (ts - 0.5) * v_in, hit + (ts - 0.5) * v_out)

    row = rebounds.rebound(position, 0.5, physics.Cushion.RIGHT)
    incidence, rebound, normal_ratio, speed_ratio, settled, bend = row
    assert incidence == pytest.approx(45.0) and normal_ratio == pytest.approx(0.5)
    assert rebound == pytest.approx(np.degrees(np.arctan(2.0)))
    assert speed_ratio == pytest.approx(np.hypot(1, 0.5) / np.hypot(1, 1))
    assert settled == pytest.approx(1.0) and bend == pytest.approx(0.0, abs=1e-9)  # no curve after the cushion


def _turning_shot(past, speed_in=1.5, speed_out=1.0, step=0.03):
    """A shot whose ball 0 runs into the RIGHT cushion (y = R) and turns ``past`` m past the line
    at t = 0.5 s, sampled every ``step`` s off the turn."""
    t = 0.5 + step * (np.arange(-8, 9) + 0.37)
    across = np.where(t < 0.5, speed_in * (0.5 - t), speed_out * (t - 0.5)) - past
    xy = np.stack([1.0 + 0.8 * (t - 0.5), tracking.RADIUS + across], -1)
    rest = [tracking.Track(np.array([0.0, 1.0]), np.array([p, p])) for p in ([2.0, 1.0], [2.5, 1.0])]
    return tracking.TrackedShot(1, (tracking.Track(t, xy), *rest))


def test_turns_reads_how_far_past_the_line_a_ball_turns():
    for past in (0.0, 0.004):
        rows = rebounds.turns(_turning_shot(past))
        assert len(rows) == 1
        ball, cushion, when, speed, turn = rows[0]
        assert (ball, cushion) == (0, physics.Cushion.RIGHT)
        assert when == pytest.approx(0.5) and speed == pytest.approx(1.5) and turn == pytest.approx(past)
    pairs = rebounds.paired_turns(_turning_shot(0.004), _turning_shot(0.001))
    assert pairs.shape == (1, 2, 5) and pairs[0, 1, 4] - pairs[0, 0, 4] == pytest.approx(-0.003)
    assert len(rebounds.turns(_turning_shot(0.004, speed_in=0.1))) == 0  # too slow to read


def test_turns_of_a_simulated_shot_show_the_cushion_s_give():
    """A simulated shot sampled like the camera: its rebounds turn on the line without a give, and
    give times the speed into the cushion past it with one (docs/physics.md section 2)."""
    start = np.array([[0.5, 0.4], [2.3, 1.1], [2.6, 0.3]])
    strike = np.array([3.0, 70.0, 0.0, 0.2])
    for give in (0.0, 0.003):
        rows = rebounds.turns(reconstruct.sampled(start, strike, physics.default_params(give=give)))
        assert len(rows) >= 3
        np.testing.assert_allclose(rows[:, 4], give * rows[:, 3], atol=1.5e-3)


def test_turns_by_speed_takes_differences_rebound_by_rebound():
    track = np.array([[0, 2, 0.1, 0.4, 0.000], [0, 2, 0.9, 1.2, 0.003], [1, 0, 1.7, 1.4, 0.004]])
    sim = track.copy()
    sim[:, 4] = [0.001, 0.000, 0.000]
    table = rebounds.turns_by_speed(np.stack([track, sim], axis=1), edges=(0.0, 1.0, 9.0))
    assert [b["n"] for b in table] == [1, 2]
    assert table[0]["difference"] == pytest.approx(0.001)
    assert table[1]["track"] == pytest.approx(0.0035) and table[1]["difference"] == pytest.approx(-0.0035)


def test_rebound_settles_and_bends_after_the_cushion():
    """A ball that leaves at (1, 1) m/s and turns to (1.2, 0.6) m/s 0.1 s later: the settled speed
    ratio and the bend away from the normal are read over ``LATE``; not free, neither is."""
    hit, turn = np.array([1.0, tracking.RADIUS]), 0.6
    v_in, v_out, v_late = np.array([1.0, -1.0]), np.array([1.0, 1.0]), np.array([1.2, 0.6])
    at_turn = hit + (turn - 0.5) * v_out

    def position(ts):
        ts = np.asarray(ts)[:, None]
        return np.where(ts < 0.5, hit + (ts - 0.5) * v_in,
                        np.where(ts < turn, hit + (ts - 0.5) * v_out, at_turn + (ts - turn) * v_late))

    row = rebounds.rebound(position, 0.5, physics.Cushion.RIGHT)
    assert row[4] == pytest.approx(np.hypot(1.2, 0.6) / np.hypot(1.0, 1.0))
    assert row[5] == pytest.approx(np.degrees(np.arctan(2.0)) - 45.0)
    assert np.all(np.isnan(rebounds.rebound(position, 0.5, physics.Cushion.RIGHT, free=False)[4:]))


def test_a_simulated_shot_is_read_at_its_track_s_sample_times():
    """``sampled_like`` puts the simulated strike at ``delay`` on the recording's clock: a shot
    sampled like the camera (``reconstruct.sampled``, strike at its lead) reads back the same
    rebounds from its simulation."""
    params = physics.default_params()
    start = np.array([[0.5, 0.4], [2.3, 1.1], [2.6, 0.3]])
    strike = np.array([3.0, 70.0, 0.0, 0.2])
    lead = 0.01
    shot = reconstruct.sampled(start, strike, params, lead=lead)
    result = reconstruct.final_result(reconstruct.Target.of(shot), np.array([*strike, 0.0, 0.0]), params)
    again = rebounds.sampled_like(shot, result, params, lead)
    for a, b in zip(shot.tracks, again.tracks):
        np.testing.assert_allclose(a.xy, b.xy, atol=1e-9)
    rows = rebounds.simulated(shot, result, params, lead)
    assert len(rows) >= 2
    np.testing.assert_allclose(rows, rebounds.tracked(shot), atol=1e-9)
    pairs = rebounds.paired(shot, again)  # each rebound with itself
    assert pairs.shape == (len(rows), 2, len(rebounds.COLUMNS))
    np.testing.assert_allclose(pairs[:, 0], pairs[:, 1], atol=1e-9)
    late = rebounds.paired(shot, rebounds.sampled_like(shot, result, params, lead + 0.1))  # 0.1 s late: paired
    assert len(late) == len(rows)
    far = rebounds.sampled_like(shot, result, params, lead + 2 * rebounds.MATCH)
    assert len(rebounds.paired(shot, far)) < len(rows)


def test_a_late_strike_reads_as_error_along_the_path():
    """The camera-sampled shot evaluated with its strike put 10 ms late: on the straight run before
    the cue ball's first contact the track is ahead of the simulation by the ball's travel in
    10 ms, along its path and not across it (``calibrate.evaluate``'s split)."""
    params = physics.default_params()
    start = np.array([[0.5, 0.4], [2.3, 1.1], [2.6, 0.3]])
    strike = np.array([3.0, 70.0, 0.0, 0.0])
    lead, late = 0.01, 0.01
    shot = reconstruct.sampled(start, strike, params, lead=lead)
    target = reconstruct.Target.of(shot)
    fit = reconstruct.Fit(np.array([*strike, lead - shot.strike_time + late, 0.0]), 0.0, 0.0)
    row = calibrate.evaluate(shot, target, fit, params)
    along, across, moving, when = row["split"]
    result = reconstruct.final_result(target, np.array([*strike, 0.0, 0.0]), params)
    first = float(result.events.time[1])  # the first event after the strike: the path is straight until then
    run = moving & (when > 0.05) & (when < first - 0.05) & (target.ball[target.used] == shot.cue)
    assert run.sum() >= 3
    speed = np.linalg.norm(np.diff(shot.tracks[shot.cue].xy, axis=0), axis=1) / np.diff(shot.tracks[shot.cue].t)
    assert np.median(along[run]) == pytest.approx(late * np.median(speed[:5]), rel=0.15)
    assert np.max(np.abs(across[run])) < 0.05 * np.median(along[run])
    table = calibrate._split_by_time([row["split"]])
    assert table["n"][0] > 0 and table["along"][0] > 5 * table["across"][0]
    # The point calls are the referee's yes or no, the simulation's alike with the track's (the
    # same strike, only later), so the agreement of this one shot is whole.
    assert isinstance(row["sim_point"], (bool, np.bool_)) and isinstance(row["real_point"], (bool, np.bool_))
    late_result = reconstruct.final_result(target, fit.strike, params)
    assert row["sim_point"] == track_events.scores_point(late_result, target.start, target.cue)
    assert calibrate.summary([dict(row, rms=0.0, rms_early=0.0)])["agreement"] == 1.0


def test_paired_differences_are_taken_rebound_by_rebound():
    """Medians of simulation - track per bin of the track's incidence; the incidence is the track's."""
    track = np.array([[10.0, 12.0, 0.6, 0.62, 0.95, 0.0], [12.0, 13.0, 0.7, 0.70, 0.90, 1.0],
                      [50.0, 55.0, 0.65, 0.75, np.nan, np.nan]])
    sim = track + np.array([[1.0, -2.0, 0.1, 0.08, -0.1, 2.0], [3.0, -4.0, 0.1, 0.12, -0.2, 4.0],
                            [2.0, 1.0, -0.05, 0.0, 0.1, 1.0]])
    table = rebounds.paired_differences(np.stack([track, sim], axis=1), edges=(0, 30, 90))
    assert [b["n"] for b in table] == [2, 1]
    first, second = table
    assert first["incidence"] == pytest.approx(11.0) and second["incidence"] == pytest.approx(50.0)
    assert first["rebound"] == pytest.approx(-3.0) and first["normal_ratio"] == pytest.approx(0.1)
    assert first["settled_ratio"] == pytest.approx(-0.15) and first["bend"] == pytest.approx(3.0)
    assert np.isnan(second["settled_ratio"]) and second["speed_ratio"] == pytest.approx(0.0)


def test_rebounds_of_a_real_shot():
    shot = {s.shot_id: s for s in tracking.load()}[545712]
    rows = rebounds.tracked(shot)
    assert len(rows) >= 5 and np.all(np.isfinite(rows[:, :4]))
    assert np.isfinite(rows[:, 4:]).any()  # some rebounds run free long enough to settle
    assert np.all((rows[:, 0] >= 0) & (rows[:, 0] <= 90)) and np.all((rows[:, 2] > 0.2) & (rows[:, 2] < 1.5))
    table = rebounds.by_incidence(rows)
    assert sum(b["n"] for b in table) == len(rows)


def _hit_on_a_ball_at_rest(params, cut, b=0.4):
    """A rolling ball (b = 0.4: rolling from the strike) hitting a ball at rest at ``cut`` degrees,
    sampled like the camera, and its simulated result."""
    cue, d = np.array([0.6, 0.71]), 0.8
    start = np.array([cue, cue + [d, 0.0], [2.7, 1.3]])
    strike = [2.0, np.degrees(np.arcsin(2 * tracking.RADIUS * np.sin(np.radians(cut)) / d)), 0.0, b]
    shot = reconstruct.sampled(start, strike, params)
    return shot, reconstruct.final_result(reconstruct.Target.of(shot), np.array([*strike, 0.0, 0.0]), params)


@pytest.mark.parametrize("cut", [15.0, 45.0])
def test_collisions_read_a_frictionless_elastic_hit(cut):
    """docs/physics.md section 2: frictionless balls send the struck ball along the line of
    centres (no throw) at (1 + e_b) / 2 of the normal speed; tracks and simulated paths read alike."""
    params = physics.default_params(e_b=1.0, throw_a=0.0, throw_b=0.0)
    shot, result = _hit_on_a_ball_at_rest(params, cut)
    for rows in (collisions.tracked(shot), collisions.simulated(result, params, 10.0)):
        assert rows.shape[0] >= 1  # the first hit; the balls may meet again later
        assert rows[0, 0] == pytest.approx(cut, abs=0.5)
        assert abs(rows[0, 1]) < 0.2
        assert rows[0, 2] == pytest.approx(1.0, abs=0.02)


def test_collisions_throw_drags_the_struck_ball_along_the_striker_s_travel():
    """Friction between the balls turns the struck ball towards the striker's direction of travel:
    a positive throw, a degree or so at a half-ball hit (TP A-14's fit)."""
    params = physics.default_params()
    shot, result = _hit_on_a_ball_at_rest(params, 30.0)
    throw = collisions.simulated(result, params, 10.0)[0, 1]
    assert 0.3 < throw < 3.0
    assert collisions.tracked(shot)[0, 1] == pytest.approx(throw, abs=0.2)


def test_slowdown_follows_a_struck_ball_sliding_from_the_hit():
    """docs/physics.md sections 1 and 2: frictionless elastic balls give the struck ball the
    striker's normal speed v_n and no spin, so it slides, slowing by u_s g: m s after the hit it
    has v_n - u_s g m. The reading divides by the striker's normal speed read 40 ms before the hit,
    when the striker (rolling) was faster by u_r g 0.04."""
    params = physics.default_params(e_b=1.0, throw_a=0.0, throw_b=0.0)
    shot, result = _hit_on_a_ball_at_rest(params, 15.0)
    hit = next(e for e in physics.event_list(result) if e["kind"] == "ball_ball")
    v_n = float(np.linalg.norm(hit["velocities"][1]))
    slide, roll = float(params.ball.u_s * params.g), float(params.ball.u_r * params.g)
    read_normal = v_n + roll * (collisions.GAP + collisions.SPAN / 2) * np.cos(np.radians(15.0))
    rows = collisions.tracked_slowdowns(shot, collisions.WINDOWS[:3])
    assert rows.shape[0] >= 1 and rows.shape[1] == 3  # the first hit; the balls may meet again later
    mid = np.mean(collisions.WINDOWS[:3], axis=1)
    assert rows[0] == pytest.approx((v_n - slide * mid) / read_normal, abs=0.005)


def test_collisions_of_real_shots():
    rows = np.concatenate([collisions.tracked(s) for s in tracking.load()[:30]])
    slow = np.concatenate([collisions.tracked_slowdowns(s) for s in tracking.load()[:30]])
    middle = np.median(slow, axis=0)  # (a thin cut's normal speed is read coarsely: medians)
    assert len(slow) >= 10 and np.all(np.isfinite(slow)) and np.all((middle > 0.4) & (middle < 1.0))
    assert middle[0] > middle[-1]  # the struck balls slow down
    assert len(rows) >= 20 and np.all(np.isfinite(rows))
    assert np.all((rows[:, 0] >= 0) & (rows[:, 0] <= 90)) and np.all(np.abs(rows[:, 1]) < 45)
    table = collisions.by_cut(rows)
    assert sum(b["n"] for b in table) == len(rows)


def test_slides_read_a_made_up_slide_and_stop_at_a_turn():
    t = np.arange(0.0, 0.5, 0.02)
    along = 3.0 * t - 0.5 * 2.0 * t**2  # 3 m/s, slowing by 2 m/s^2
    xy = np.array([0.3, 0.2]) + along[:, None] * np.array([0.8, 0.6])
    decel, speed, duration = slides.first_stretch(t, xy)
    assert decel == pytest.approx(2.0, rel=1e-9) and speed == pytest.approx(3.0 - 2.0 * 0.01, rel=1e-9)
    assert duration == pytest.approx(t[-1])
    turned = xy.copy()
    turned[11:] = turned[10] + (xy[11:] - xy[10]) @ np.array([[0.0, 1.0], [-1.0, 0.0]])  # a quarter turn at 0.2 s
    assert slides.first_stretch(t, turned)[2] == pytest.approx(0.2)
    assert slides.first_stretch(t[:4], xy[:4]) is None  # too short to read


def test_slides_tell_a_sliding_start_from_a_rolling_one():
    """A centre hit slides (about u_s g), a hit at 2/5 R above the centre rolls from the strike
    (u_r g), read at a real track's sample times; and on the tracks, shot 545651's cue ball rolls
    from the first frame."""
    params = physics.default_params(calibration="reference")
    shot = {s.shot_id: s for s in tracking.load()}[545651]
    target = reconstruct.Target.of(shot)
    strike = reconstruct.first_guess(shot)
    read = {}
    for b in (0.0, 0.4):
        strike[3] = b
        read[b] = slides.simulated(shot, reconstruct.final_result(target, strike, params), params)
    # The centre hit's speed in closed form: v0 = 2 M V0 / (M + m) (tip restitution 1), down by
    # u_s g until 5/7 of it (rolling), then by u_r g; a line through it at the same times.
    ball, g = params.ball, float(params.g)
    M, m = float(params.cue.mass), float(ball.mass)
    v0 = 2.0 * M * strike[0] / (M + m)
    t = shot.tracks[shot.cue].t - shot.strike_time
    t = t[t > 0.0]
    k = int(np.argmin(np.abs(t - t[0] - read[0.0][2])))
    mid = 0.5 * (t[:k] + t[1:k + 1])
    u_s, u_r = float(ball.u_s), float(ball.u_r)
    t_roll = (2.0 / 7.0) * v0 / (u_s * g)
    speed = np.where(mid < t_roll, v0 - u_s * g * mid, 5.0 / 7.0 * v0 - u_r * g * (mid - t_roll))
    assert read[0.0][0] == pytest.approx(-np.polyfit(mid, speed, 1)[0], rel=0.03)
    assert read[0.0][0] > slides.ROLLING > abs(read[0.4][0])
    assert slides.tracked(shot)[0] < slides.ROLLING and slides.tracked(shot)[2] > 0.4


@pytest.mark.slow
def test_command_writes_the_report(tmp_path):
    tiny = ["--shots", "4", "--folds", "2", "--generations", "1", "--candidates", "2", "--subset", "2",
            "--pop", "16", "--rounds", "2", "--base-pop", "16", "--base-rounds", "2", "--base-restarts", "2",
            "--base-polish", "1", "--held-pop", "16",
            "--held-rounds", "2", "--chunk", "64", "--no-progress", "--out", str(tmp_path)]
    report = calibrate.main(tiny)
    saved = json.loads((tmp_path / "calibrate.json").read_text())
    assert [s["shots"] for s in saved["held_out"].values()] == [4, 4, 4]
    assert set(saved["fitted"]) == set(calibrate.SPACE)
    assert report["source"] == tracking.SOURCE
    assert set(saved["paired_rebounds"]) == {calibrate.BASELINE, calibrate.CALIBRATED}
    assert sum(b["n"] for b in saved["paired_rebounds"][calibrate.BASELINE]) > 0
    assert "paired with their tracks" in calibrate.markdown(report)
    assert sum(b["n"] for b in saved["turns"][calibrate.CALIBRATED]) > 0
    assert "past the contact line" in calibrate.markdown(report)
    assert set(saved["struck_slowdown"]) == {"real", calibrate.BASELINE, calibrate.CALIBRATED}
    assert "struck at rest" in calibrate.markdown(report)
    assert set(saved["error_split"]) == {calibrate.BASELINE, calibrate.CALIBRATED}
    assert sum(saved["error_split"][calibrate.CALIBRATED]["n"]) > 0
    assert "along the simulated path" in calibrate.markdown(report)
    for name in ("heldout.csv", "rebounds.csv", "hits.csv", "error_vs_time.png", "rebounds.png"):
        assert (tmp_path / name).stat().st_size > 100


@pytest.mark.slow
def test_command_held_search_full_reconstructs_held_out_shots_from_first_guesses(tmp_path, monkeypatch):
    """--held-search full: the held-out shots are found by the reconstruction's own search (its
    settings, shrunk here), from each shot's first guess; the baseline is the only control."""
    from experiments import reconstruct as rc

    monkeypatch.setattr(rc, "POP", 16)
    monkeypatch.setattr(rc, "ROUNDS", 3)
    monkeypatch.setattr(rc, "RESTARTS", 2)
    monkeypatch.setattr(rc, "POLISH", 1)
    calls = []
    fit = rc.fit
    monkeypatch.setattr(rc, "fit", lambda targets, params, **kw: calls.append(kw) or fit(targets, params, **kw))
    shots = tracking.load()[:4]
    tiny = ["--shots", "4", "--folds", "2", "--generations", "1", "--candidates", "2", "--subset", "2",
            "--pop", "16", "--rounds", "2", "--base-pop", "16", "--base-rounds", "2", "--base-restarts", "2",
            "--base-polish", "1", "--held-search", "full", "--held-searches", "2", "--chunk", "64", "--no-progress",
            "--out", str(tmp_path)]
    report = calibrate.main(tiny)
    assert list(report["held_out"]) == [calibrate.BASELINE, calibrate.CALIBRATED]
    held = [kw for kw in calls if kw.get("restarts") == 2 and kw.get("pop") == 16 and kw.get("rounds") == 3
            and kw.get("searches") == 2]
    assert len(held) == 2  # one search per fold, of two searches a shot
    guesses = {tuple(reconstruct.first_guess(s)) for s in shots}
    assert all(tuple(row) in guesses for kw in held for row in kw["init"])


@pytest.mark.parametrize("follow", [False, True])
def test_fit_params_follow_starts_from_the_best_candidates_strikes(monkeypatch, follow):
    """With ``follow``, a generation's strike searches start from the strikes fitted under the
    previous generation's best candidate; without it, always from the warm strikes given."""
    inits = []

    def fake_fit(targets, lanes, *, init, **kw):  # candidate c's strikes: its start + 1 + c; candidate 1 fits best
        inits.append(init.copy())
        per = len(targets) // 4
        return [reconstruct.Fit(row + 1 + k // per, 0.1 if k // per == 1 else 0.2, 0.0) for k, row in enumerate(init)]

    monkeypatch.setattr(calibrate.reconstruct, "fit", fake_fit)
    train, warm = [None] * 3, np.zeros((3, 6))
    calibrate.fit_params(train, warm, np.random.default_rng(0), generations=2, candidates=4, subset=3, pop=8,
                         rounds=1, chunk=64, follow=follow)
    assert np.all(inits[0] == 0) and np.all(warm == 0)  # the caller's warm strikes are left alone
    assert np.all(inits[1] == (2 if follow else 0))


def test_fit_params_holds_what_it_is_told_to(monkeypatch):
    """Held parameters keep their start values in every candidate and in the result; the others move."""
    seen = []

    def fake_fit(targets, lanes, *, init, **kw):  # the candidates' f_bed, and a score that prefers a high e_c
        seen.append(np.asarray(lanes.cushion.f_bed))
        return [reconstruct.Fit(row, 1.0 - float(e), 0.0) for row, e in zip(init, np.asarray(lanes.cushion.e_c))]

    monkeypatch.setattr(calibrate.reconstruct, "fit", fake_fit)
    values = calibrate.fit_params([None] * 3, np.zeros((3, 6)), np.random.default_rng(0), generations=3,
                                  candidates=6, subset=3, pop=8, rounds=1, chunk=64,
                                  start={"f_bed": 0.3, "e_c": 0.8}, hold=("f_bed",))
    assert set(values) == set(calibrate.SPACE)
    assert values["f_bed"] == pytest.approx(0.3) and all(np.allclose(f, 0.3) for f in seen)
    assert values["e_c"] > 0.8


def test_command_refuses_an_unknown_held_parameter(capsys):
    with pytest.raises(SystemExit):
        calibrate.main(["--hold", "f_bed,spin", "--no-progress"])
    assert "--hold: unknown parameter(s) spin" in capsys.readouterr().err


def test_command_refuses_a_strike_spread_that_is_not_positive(capsys):
    with pytest.raises(SystemExit):
        calibrate.main(["--strike-spread", "0", "--no-progress"])
    assert "--strike-spread must be positive, got 0.0" in capsys.readouterr().err


def test_command_refuses_no_held_search(capsys):
    with pytest.raises(SystemExit):
        calibrate.main(["--held-searches", "0", "--no-progress"])
    assert "--held-searches must be at least 1, got 0" in capsys.readouterr().err


def test_parse_values_checks_names_and_box():
    assert calibrate.parse_values("e_c=0.91, f_c=0.29") == {"e_c": 0.91, "f_c": 0.29}
    assert calibrate.parse_values("") == {}
    with pytest.raises(ValueError, match="unknown parameter 'ec'; valid: e_c"):
        calibrate.parse_values("ec=0.9")
    with pytest.raises(ValueError, match=r"u_r must be in \[0.002, 0.012\], got 0.1"):
        calibrate.parse_values("u_r=0.1")
    with pytest.raises(ValueError, match="e_b must be a number, got 'high'"):
        calibrate.parse_values("e_b=high")


def test_fitted_set_is_valid_and_built_on_the_reference_values():
    p = calibrate.fitted_params()
    assert float(p.cushion.f_c) == 0.2805 and float(p.ball.u_r) == 0.004268 and float(p.ball.u_r_step) == 0.001173
    assert p.cushion_model == "graded" and float(p.cushion.f_c_slope) == 0.02258
    reference = physics.default_params(calibration="reference")
    assert float(reference.cushion.f_c) == 0.15 and float(p.ball.e_table) == float(reference.ball.e_table)
    for name, value in calibrate.FITTED.items():
        low, high = calibrate.SPACE[name]
        assert low <= value <= high, name


def test_the_match_tables_default_is_the_fitted_set_without_the_slopes():
    """The "tracked" calibration (the match table's default) is ``FITTED`` on the han2005 cushion:
    the same values, the throw fit scaled, the graded slopes dropped; the Hungarian table keeps the
    reference values."""
    fitted, default = calibrate.fitted_params(), physics.default_params()
    assert default.cushion_model == "han2005"
    for name in ("e_c", "f_c", "height"):  # rounded to three figures
        assert float(getattr(default.cushion, name)) == pytest.approx(float(getattr(fitted.cushion, name)), abs=6e-4)
    for name in ("u_s", "u_r", "u_r_step", "u_sp_proportionality", "e_b"):
        assert float(getattr(default.ball, name)) == pytest.approx(float(getattr(fitted.ball, name)), rel=3e-3), name
    for name in ("throw_a", "throw_b"):
        assert float(getattr(default.ball, name)) == pytest.approx(float(getattr(fitted.ball, name)), rel=1e-3), name
    hungarian, reference = physics.default_params("hungarian"), physics.default_params(calibration="reference")
    assert float(hungarian.cushion.e_c) == float(reference.cushion.e_c) == 0.85
    assert float(physics.default_params(calibration="reference", e_c=0.8).cushion.e_c) == 0.8  # overrides on top
    with pytest.raises(ValueError, match="unknown calibration 'lab'; valid: reference, tracked"):
        physics.default_params(calibration="lab")


def test_the_documented_calibrations_are_the_code_s():
    """docs/physics.md section 6's table of the two sets lists what ``physics.CALIBRATIONS`` gives."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "physics.md").read_text(encoding="utf-8")
    rows = re.findall(r"^  \| `(\w+)`(?:, `(\w+)`)? \| ([\d.e, -]+) \| ([\d.e, -]+?)(?: \(.*\))? \|$", text, re.M)
    sets = {name: physics.default_params(calibration=name) for name in ("reference", "tracked")}
    seen = set()
    for first, second, reference, tracked in rows:
        for k, name in enumerate(filter(None, (first, second))):
            for calibration, cell in (("reference", reference), ("tracked", tracked)):
                p = sets[calibration]
                value = getattr(p.ball, name, None)
                value = getattr(p.cushion, name) if value is None else value
                assert float(cell.split(",")[k]) == pytest.approx(float(value), rel=1e-3), (name, calibration)
            seen.add(name)
    assert seen == set(physics.CALIBRATIONS["tracked"])
