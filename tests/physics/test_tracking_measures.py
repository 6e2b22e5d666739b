"""Rebounds, ball-ball hits and the cue ball's first stretch measured alike in tracked and
simulated shots (physics.tracking.rebounds, collisions, slides, camera), on made-up tracks, on
shots made by the physics with known answers (docs/physics.md sections 2 and 8) and on the match
data (erdo100/3cushiontool, 20221225_2_Match_Ersin_Cemal.pkl, Apache-2.0)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import physics
from physics.tracking import DEFAULT, Track, TrackedShot, collisions, rebounds, slides
from physics.tracking.camera import sampled, sampled_like
from physics.tracking.fit import first_guess
from physics.tracking.objective import final_result
from physics.tracking.target import Target
from tests.support.tracking import CUSHIONS_START, CUSHIONS_STRIKE, match_shots

RADIUS = DEFAULT.radius


def test_rebound_of_a_made_up_bounce():
    # 45 deg into the RIGHT cushion (y = R) at 2 m/s; out with half the normal speed, same along it.
    v_in = np.array([np.sqrt(2), -np.sqrt(2)])
    v_out = np.array([np.sqrt(2), 0.5 * np.sqrt(2)])
    hit = np.array([1.0, RADIUS])

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
    xy = np.stack([1.0 + 0.8 * (t - 0.5), RADIUS + across], -1)
    rest = [Track(np.array([0.0, 1.0]), np.array([p, p])) for p in ([2.0, 1.0], [2.5, 1.0])]
    return TrackedShot(1, (Track(t, xy), *rest))


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


@pytest.mark.slow  # the quick tier's time budget: the turns' reading is checked on made-up rebounds there
def test_turns_of_a_simulated_shot_show_the_cushion_s_give():
    """A simulated shot sampled like the camera: its rebounds turn on the line without a give, and
    give times the speed into the cushion past it with one (docs/physics.md section 2)."""
    start, strike = CUSHIONS_START, CUSHIONS_STRIKE
    for give in (0.0, 0.003):
        rows = rebounds.turns(sampled(start, strike, physics.default_params(give=give)))
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
    ratio and the bend away from the normal are read over ``late``; not free, neither is."""
    hit, turn = np.array([1.0, RADIUS]), 0.6
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
    sampled like the camera (``camera.sampled``, strike at its lead) reads back the same
    rebounds from its simulation."""
    params = physics.default_params()
    start, strike = CUSHIONS_START, CUSHIONS_STRIKE
    lead = 0.01
    shot = sampled(start, strike, params, lead=lead)
    result = final_result(Target.of(shot), np.array([*strike, 0.0, 0.0]), params)
    again = sampled_like(shot, result, params, lead)
    for a, b in zip(shot.tracks, again.tracks):
        np.testing.assert_allclose(a.xy, b.xy, atol=1e-9)
    rows = rebounds.simulated(shot, result, params, lead)
    assert len(rows) >= 2
    np.testing.assert_allclose(rows, rebounds.tracked(shot), atol=1e-9)
    pairs = rebounds.paired(shot, again)  # each rebound with itself
    assert pairs.shape == (len(rows), 2, len(rebounds.COLUMNS))
    np.testing.assert_allclose(pairs[:, 0], pairs[:, 1], atol=1e-9)
    late = rebounds.paired(shot, sampled_like(shot, result, params, lead + 0.1))  # 0.1 s late: paired
    assert len(late) == len(rows)
    far = sampled_like(shot, result, params, lead + 2 * DEFAULT.match)
    assert len(rebounds.paired(shot, far)) < len(rows)


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
    shot = match_shots()[545712]
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
    strike = [2.0, np.degrees(np.arcsin(2 * RADIUS * np.sin(np.radians(cut)) / d)), 0.0, b]
    shot = sampled(start, strike, params)
    return shot, final_result(Target.of(shot), np.array([*strike, 0.0, 0.0]), params)


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
    read_normal = v_n + roll * (DEFAULT.read_gap + DEFAULT.read_span / 2) * np.cos(np.radians(15.0))
    rows = collisions.tracked_slowdowns(shot, dataclasses.replace(DEFAULT, windows=DEFAULT.windows[:3]))
    assert rows.shape[0] >= 1 and rows.shape[1] == 3  # the first hit; the balls may meet again later
    mid = np.mean(DEFAULT.windows[:3], axis=1)
    assert rows[0] == pytest.approx((v_n - slide * mid) / read_normal, abs=0.005)


def test_collisions_of_real_shots():
    rows = np.concatenate([collisions.tracked(s) for s in list(match_shots().values())[:30]])
    slow = np.concatenate([collisions.tracked_slowdowns(s) for s in list(match_shots().values())[:30]])
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
    shot = match_shots()[545651]
    target = Target.of(shot)
    strike = first_guess(shot)
    read = {}
    for b in (0.0, 0.4):
        strike[3] = b
        read[b] = slides.simulated(shot, final_result(target, strike, params), params)
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
    assert read[0.0][0] > DEFAULT.rolling > abs(read[0.4][0])
    assert slides.tracked(shot)[0] < DEFAULT.rolling and slides.tracked(shot)[2] > 0.4


def test_the_config_passed_is_the_one_read():
    """A rebound, a hit and a first stretch read under another ``TrackingConfig`` follow its fields:
    the made-up bounce at 2 m/s is too slow for a floor of 3 m/s, and the made-up slide too short
    for 30 steps."""
    hit = np.array([1.0, RADIUS])
    v_in, v_out = np.array([np.sqrt(2), -np.sqrt(2)]), np.array([np.sqrt(2), 0.5 * np.sqrt(2)])

    def position(ts):
        ts = np.asarray(ts)[:, None]
        return np.where(ts < 0.5, hit + (ts - 0.5) * v_in, hit + (ts - 0.5) * v_out)

    assert rebounds.rebound(position, 0.5, physics.Cushion.RIGHT) is not None
    assert rebounds.rebound(position, 0.5, physics.Cushion.RIGHT,
                            config=dataclasses.replace(DEFAULT, rebound_min_speed=3.0)) is None
    t = np.arange(0.0, 0.5, 0.02)
    xy = np.array([0.3, 0.2]) + (3.0 * t - t**2)[:, None] * np.array([0.8, 0.6])
    assert slides.first_stretch(t, xy) is not None
    assert slides.first_stretch(t, xy, dataclasses.replace(DEFAULT, stretch_steps=30)) is None
