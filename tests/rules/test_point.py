"""The three-cushion point of a tracked shot (rules.point, docs/rules.md C-13.2), read by the
referee from the contacts seen in the tracks (physics.tracking.events.event_log), on the match
data (erdo100/3cushiontool, 20221225_2_Match_Ersin_Cemal.pkl, Apache-2.0)."""
from __future__ import annotations

import pytest

from physics import Cushion
from physics.tracking import events
from rules.point import scores_point
from tests.support.tracking import match_shots


@pytest.fixture(scope="module")
def shots():
    return match_shots()


def test_rule_c13_2_point_read_from_tracks(shots):
    # 545712: ball 1, three cushions, ball 2: a point. 545599: ball "2" never moves: no point.
    yes, no = shots[545712], shots[545599]
    assert scores_point(events.event_log(yes), yes.start, yes.cue)
    assert not scores_point(events.event_log(no), no.start, no.cue)


def test_rule_c13_2_two_cushions_is_no_point(shots):
    s = shots[545712]
    found = events.contacts(s)
    without = [c for c in found if not (c.kind == "cushion" and c.cushion == Cushion.BOTTOM and s.cue in c.balls)]
    assert len(without) == len(found) - 1
    assert not scores_point(events.event_log(s, without), s.start, s.cue)


def test_points_over_the_data(shots):
    points = [scores_point(events.event_log(s), s.start, s.cue) for s in shots.values()]
    assert sum(points) == 22


def test_a_corner_seen_as_a_pause_makes_545787_a_point(shots):
    """The corner's second cushion, seen as a pause at its line (tests/physics/test_tracking.py),
    is the third cushion before the second ball: a point (C-13.2)."""
    s = shots[545787]
    assert scores_point(events.event_log(s), s.start, s.cue)
