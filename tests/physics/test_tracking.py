"""Tracked match shots (physics.tracking.tracks, physics.tracking.events): loading, cleaning, the cue
ball and the contacts, on the real data (erdo100/3cushiontool, 20221225_2_Match_Ersin_Cemal.pkl,
Apache-2.0) and on small made-up tracks. The points read from them: tests/rules/test_point.py."""
from __future__ import annotations

import json

import numpy as np
import pytest

from physics import Cushion
from physics.tracking import DEFAULT, Track, TrackingConfig, events, load
from physics.tracking.tracks import clean_track, parse_shot
from tests.support.tracking import match_shots

RADIUS, LENGTH, WIDTH = DEFAULT.radius, DEFAULT.length, DEFAULT.width


@pytest.fixture(scope="module")
def shots():
    return match_shots()


def test_every_shot_loads_clean_with_a_cue_ball(shots):
    assert len(shots) == 90
    for s in shots.values():
        assert len(s.tracks) == 3
        for tr in s.tracks:
            assert np.all(np.isfinite(tr.xy)) and np.all(np.diff(tr.t) > 0)
            assert np.all(tr.xy >= RADIUS - 1e-12) and np.all(tr.xy[:, 0] <= LENGTH - RADIUS + 1e-12)
        assert s.cue in (0, 1, 2) and 0.0 <= s.strike_time < 0.1


def test_cue_ball_is_the_first_to_move(shots):
    assert shots[545599].cue == 0 and shots[545600].cue == 1
    s = shots[545599]
    assert np.isinf(s.tracks[1].moves_at)  # ball "2" never moves
    assert s.tracks[2].moves_at == pytest.approx(0.346, abs=0.02)


def test_hand_checked_contacts_545712(shots):
    s = shots[545712]
    cue = [c for c in events.contacts(s) if s.cue in c.balls]
    seen = [(c.kind, c.balls, c.cushion) for c in cue[:5]]
    assert seen == [
        ("ball", (0, 1), -1), ("cushion", (0, -1), Cushion.RIGHT), ("cushion", (0, -1), Cushion.LEFT),
        ("cushion", (0, -1), Cushion.BOTTOM), ("ball", (0, 2), -1),
    ]
    times = [c.t - s.strike_time for c in cue[:5]]
    np.testing.assert_allclose(times, [0.15, 0.26, 1.51, 3.20, 3.69], atol=0.03)


def test_a_corner_seen_as_a_pause_at_the_second_cushion_545787(shots):
    """The cue ball goes into the corner of the LEFT and TOP cushions: the camera sees it at the
    TOP cushion's line twice, 20 ms apart, so its velocity across that cushion reverses over a
    pause, not at one sample. Both cushions count (the shot is then a point: tests/rules/test_point.py)."""
    s = shots[545787]
    corner = [(c.cushion, round(c.t - s.strike_time, 2)) for c in events.cushion_contacts(s.tracks[s.cue], s.cue)
              if 0.55 < c.t - s.strike_time < 0.75]
    assert [k for k, _ in sorted(corner, key=lambda x: x[1])] == [Cushion.LEFT, Cushion.TOP]


def _bounce(pause, dt=0.02):
    """A ball into the LEFT cushion at 1 m/s and out again, seen at the line for ``pause`` s."""
    line = WIDTH - RADIUS
    n_in = 5
    held = int(round(pause / dt))
    y = np.concatenate([line - 0.02 * np.arange(n_in, 0, -1), np.full(held + 1, line), line - 0.02 * np.arange(1, 6)])
    t = dt * np.arange(len(y))
    return Track(t, np.stack([np.linspace(1.0, 1.3, len(y)), y], axis=1))


def test_a_pause_at_the_cushion_is_one_contact_up_to_held():
    for pause in (0.0, 0.02, 0.04):
        found = events.cushion_contacts(_bounce(pause), 0)
        assert [c.cushion for c in found] == [Cushion.LEFT]
        assert found[0].t == pytest.approx(0.1 + pause / 2)  # the segments in and out meet the line there
    # a ball that stays at the line longer than HELD (rolling along it) has no contact there
    assert DEFAULT.held < 0.1
    assert events.cushion_contacts(_bounce(0.1), 0) == []
    # the config passed is the one read: a pause longer than its ``held`` is no contact
    assert events.cushion_contacts(_bounce(0.04), 0, TrackingConfig(held=0.02)) == []


def test_a_track_starts_moving_by_the_config_it_was_cleaned_under():
    """A ball 3 mm from where it lay has not moved under the default ``moved`` (5 mm), but has under
    a config of 2 mm, which the cleaned track keeps and reads (``Track.moves_at``)."""
    t = np.array([0.0, 1.0, 1.02, 1.04])
    xy = np.array([[1.0, 0.7], [1.003, 0.7], [1.003, 0.7], [1.003, 0.7]])
    assert np.isinf(clean_track(t, xy).moves_at)
    track = clean_track(t, xy, config=TrackingConfig(moved=0.002))
    assert track.config.moved == 0.002 and 0.9 <= track.moves_at <= 1.0


def _line(n=6, x0=1.0, y=0.7, dx=0.04, dt=0.02):
    t = np.arange(n) * dt
    return t, np.stack([x0 + dx * np.arange(n), np.full(n, y)], axis=1)


def test_cleaning_clips_near_and_drops_far_beyond_the_cushion():
    t, xy = _line(y=WIDTH - RADIUS - 0.001)  # along the LEFT cushion
    xy[2, 1] = WIDTH - RADIUS + 0.003  # 3 mm beyond: clipped
    xy[4, 1] = WIDTH - RADIUS + 0.02  # 2 cm beyond: dropped
    tr = clean_track(t, xy)
    assert (tr.dropped, tr.clipped) == (1, 1)
    assert tr.xy[2, 1] == pytest.approx(WIDTH - RADIUS) and 0.08 not in tr.t


def test_cleaning_drops_a_jump_onto_another_ball_and_a_too_fast_step():
    t, xy = _line()
    other = (np.array([0.0, 1.0]), np.array([[2.0, 0.3], [2.0, 0.3]]))
    xy[2] = [2.005, 0.3]  # onto the other ball
    xy[4] = [1.16, 1.0]  # 30 cm in 20 ms: 15 m/s
    tr = clean_track(t, xy, [other])
    assert tr.dropped == 2
    np.testing.assert_allclose(tr.t, [0.0, 0.02, 0.06, 0.1])


def test_bad_shot_dicts_name_the_field():
    good = {"t": [0.0, 1.0], "x": [1.0, 1.0], "y": [0.5, 0.5]}
    with pytest.raises(ValueError, match="balls must have the ids"):
        parse_shot({"shot_id": 1, "balls": {"1": good}})
    with pytest.raises(ValueError, match="ball 2: x must be"):
        parse_shot({"shot_id": 1, "balls": {"1": good, "2": {**good, "x": [np.nan, 1.0]}, "3": good}})
    with pytest.raises(TypeError, match="ball 3: t must be a list of numbers"):
        parse_shot({"shot_id": 1, "balls": {"1": good, "2": good, "3": {**good, "t": ["a", "b"]}}})


def test_load_refuses_a_file_without_shots(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"source": "none"}))
    with pytest.raises(ValueError, match="list 'shots'"):
        load(path)
