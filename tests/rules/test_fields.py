"""Restricted fields and anchors: straight rail (C-11) and balkline (C-12), judged from hand-made
shots. Geometry expectations are computed here from the clauses' numbers."""
from __future__ import annotations

import numpy as np
import pytest

import rules
from rules import PositionCall, Reason
from tests.support.shot_logs import script
from tests.support.rules import judge, make, state_with

CAROM = ("ball 2", "ball 1")  # white's carom: red, then yellow


def run_shot(r, p, s, final=None, leave=None):
    """A white carom; ``leave``: (ball, point) where an object ball is seen mid-shot."""
    events = script(0, *CAROM)
    if leave is not None:
        ball, point = leave
        positions = np.array(s.positions if final is None else final, float)
        positions[ball] = point
        events[1]["positions"] = positions
    return judge(r, p, s, events, final=final)


# ---- C-11 straight rail ---------------------------------------------------------------------

IN_CORNER = np.array([[1.0, 0.7], [0.15, 0.1], [0.3, 0.12]])  # yellow and red in the BOTTOM-RIGHT field


def test_C_11_1_caroms_outside_the_fields_are_unlimited():
    r, p = make("straight_rail")
    s = state_with(r, p, positions=np.array([[1.0, 0.7], [1.4, 0.5], [1.6, 0.9]]), current_player=0,
                   first_carom_pending=False)
    for k in range(5):
        s, out = run_shot(r, p, s)
        assert int(out.reason) == Reason.SCORED, k
    assert int(s.run) == 5 and int(s.field_zone) == -1


def test_C_11_2_two_caroms_in_a_field_then_one_ball_must_leave():
    r, p = make("straight_rail")
    s = state_with(r, p, positions=IN_CORNER, current_player=0, first_carom_pending=False)
    s1, out = run_shot(r, p, s)  # first carom in the field: counts
    assert int(out.reason) == Reason.SCORED and int(s1.field_count) == 1
    s2, out = run_shot(r, p, s1)  # second, both stay in: does not count
    assert int(out.reason) == Reason.FIELD_LIMIT and int(out.shot_value) == 0 and bool(out.turn_passes)
    assert not bool(out.foul)
    s2, out = run_shot(r, p, s1, final=IN_CORNER + [[0, 0], [0.9, 0.6], [0, 0]])  # yellow driven out
    assert int(out.reason) == Reason.SCORED and int(s2.field_count) == 0


def test_C_11_2_a_ball_that_leaves_and_comes_straight_back_gives_a_first_carom_again():
    r, p = make("straight_rail")
    s = state_with(r, p, positions=IN_CORNER, current_player=0, first_carom_pending=False,
                   field_zone=0, field_count=1)
    s2, out = run_shot(r, p, s, leave=(1, [1.2, 0.5]))  # seen outside mid-shot, back at rest
    assert int(out.reason) == Reason.SCORED
    assert int(s2.field_count) == 0 and int(out.field_call) == PositionCall.ENTRE
    s3, out = run_shot(r, p, s2)  # the "first" carom in the field again
    assert int(out.reason) == Reason.SCORED and int(s3.field_count) == 1


def test_C_11_3_frozen_balls_go_to_the_starting_position():
    r, p = make("straight_rail")
    s = state_with(r, p, positions=np.array([[1.0, 0.7], [1.4, 0.5], [1.6, 0.9]]), current_player=0,
                   first_carom_pending=False)
    frozen = np.array([[1.0, 0.7], [1.4, 0.5], [1.0 + 2 * 0.03075 + 5e-5, 0.7]])  # white touches red
    state, out = judge(r, p, s, list(CAROM), final=frozen)
    t = p.table
    assert int(out.reason) == Reason.SCORED and int(state.current_player) == 0
    assert np.allclose(state.positions[2], t.top_spot) and np.allclose(state.positions[0], t.head_string_spots[0])
    assert np.allclose(state.positions[1], t.head_string_spots[1])
    assert not bool(state.may_respot) and bool(state.may_choose_side)


def test_C_11_4_jumped_ball_all_three_to_the_starting_position():
    r, p = make("straight_rail")
    s = state_with(r, p, positions=IN_CORNER, current_player=0, first_carom_pending=False)
    state, out = judge(r, p, s, ["ball 2", "ball 1", "off 2"])
    t = p.table
    assert int(out.reason) == Reason.JUMPED and int(state.current_player) == 1
    assert np.allclose(state.positions[2], t.top_spot) and np.allclose(state.positions[1], t.head_string_spots[0])
    assert np.allclose(state.positions[0], t.head_string_spots[1])


@pytest.mark.parametrize("offset, limited", [(0.0, True), (0.002, False)])
def test_C_11_5_a_ball_on_the_field_line_counts_inside(offset, limited):
    r, p = make("straight_rail")
    a, b = 0.71, 0.355
    normal = np.array([b, a]) / np.hypot(a, b)
    on_line = np.array([a / 2, b / 2]) + offset * normal  # the hypotenuse's midpoint, or 2 mm out
    layout = np.array([[1.0, 0.7], on_line, [0.15, 0.1]])
    s = state_with(r, p, positions=layout, current_player=0, first_carom_pending=False, field_zone=0, field_count=1)
    state, out = run_shot(r, p, s)
    assert int(out.reason) == (Reason.FIELD_LIMIT if limited else Reason.SCORED)


def test_C_11_restricted_fields_can_be_switched_off():
    r, p = make("straight_rail", restricted_fields=False)
    s = state_with(r, p, positions=IN_CORNER, current_player=0, first_carom_pending=False)
    for _ in range(4):
        s, out = run_shot(r, p, s)
        assert int(out.reason) == Reason.SCORED and int(out.field_call) == PositionCall.NONE


def test_O_5_corner_field_size_is_an_option():
    r, p = make("straight_rail", corner_long_leg=0.2, corner_short_leg=0.1)
    s = state_with(r, p, positions=IN_CORNER, current_player=0, first_carom_pending=False, field_zone=0, field_count=1)
    state, out = run_shot(r, p, s)  # red at (0.3, 0.12) is outside the smaller field
    assert int(out.reason) == Reason.SCORED


# ---- C-12 balkline --------------------------------------------------------------------------

def test_C_12_2_47_cm_lines_make_nine_fields_and_eight_anchors():
    r, p = make("balkline_47_2")
    fields, anchors = rules.geometry.zones(r, p.table)
    assert fields.shape[0] == 9 and anchors.shape[0] == 8
    L, W, d = 2.84, 1.42, 0.47
    rng = np.random.default_rng(0)
    pts = np.column_stack([rng.uniform(0, L, 400), rng.uniform(0, W, 400)])
    inside = np.asarray(rules.geometry.inside(fields, pts, 0.0))
    expected_field = (np.searchsorted([d, L - d], pts[:, 0]) * 3 + np.searchsorted([d, W - d], pts[:, 1]))
    assert np.all(inside.sum(axis=1) == 1)
    assert np.all(np.argmax(inside, axis=1) == expected_field)
    side = W / 8  # rule C-12.2 b
    # an anchor square centred on the line x = 47 cm, its base on the RIGHT cushion (y = 0)
    a0 = lambda q: bool(rules.geometry.inside(anchors[:1], np.asarray(q), 0.0)[0])  # noqa: E731
    assert a0([d - side / 2 + 1e-3, side - 1e-3]) and a0([d + side / 2 - 1e-3, 1e-3])
    assert not a0([d - side / 2 - 1e-3, 0.05]) and not a0([d, side + 1e-3])


def test_C_12_5_71_cm_lines_make_six_fields():
    r, p = make("balkline_71_2")
    fields, anchors = rules.geometry.zones(r, p.table)
    rng = np.random.default_rng(1)
    pts = np.column_stack([rng.uniform(0, 2.84, 400), rng.uniform(0, 1.42, 400)])
    pts = pts[np.abs(pts[:, 1] - 0.71) > 1e-3]
    inside = np.asarray(rules.geometry.inside(fields, pts, 0.0))
    assert np.all(inside.sum(axis=1) == 1)
    labels = {tuple(row) for row in inside.astype(int)}
    assert len(labels) == 6  # two rectangles and four squares (the middle row is empty)
    # squares 71 x 71 cm at the ends, rectangles 142 x 71 cm in the middle
    same = lambda a, b: bool(np.any(np.asarray(rules.geometry.inside(fields, np.array([a, b]), 0.0)).all(axis=0)))  # noqa: E731
    assert same([0.1, 0.1], [0.7, 0.7]) and not same([0.7, 0.7], [0.72, 0.7 - 0.02])
    assert same([0.8, 0.1], [2.1, 0.6]) and not same([1.4, 0.6], [1.4, 0.8])


BALK = np.array([[0.3, 1.2], [1.2, 0.6], [1.6, 0.8]])  # yellow and red in the central field


@pytest.mark.parametrize("discipline", ["balkline_47_2", "balkline_71_2"])
def test_C_12_3_and_C_12_6_two_caroms_in_a_field_then_drive_one_out(discipline):
    r, p = make(discipline)
    layout = BALK if discipline == "balkline_47_2" else np.array([[0.3, 1.2], [1.2, 0.3], [1.6, 0.5]])
    s = state_with(r, p, positions=layout, current_player=0, first_carom_pending=False)
    s1, out = run_shot(r, p, s)
    assert int(out.reason) == Reason.SCORED and int(out.field_call) == PositionCall.DEDANS
    s2, out = run_shot(r, p, s1)
    assert int(out.reason) == Reason.FIELD_LIMIT and bool(out.turn_passes)
    moved = layout.copy()
    moved[2] = [2.6, 0.2]  # red driven into another field
    s2, out = run_shot(r, p, s1, final=moved)
    assert int(out.reason) == Reason.SCORED


def test_C_12_3_b_a_ball_driven_out_may_come_straight_back():
    r, p = make("balkline_47_2")
    central = 1 * 3 + 1  # the fields are numbered row by row: the central one
    s = state_with(r, p, positions=BALK, current_player=0, first_carom_pending=False,
                   field_zone=central, field_count=1)
    s1, out = run_shot(r, p, s, leave=(2, [2.6, 0.2]))  # the second carom: the red out and back
    assert int(out.reason) == Reason.SCORED and int(s1.field_count) == 0
    s2, out = run_shot(r, p, s1)  # a "first" carom in the field again
    assert int(out.reason) == Reason.SCORED and int(s2.field_count) == 1
    s3, out = run_shot(r, p, s2)  # and the next must drive a ball out
    assert int(out.reason) == Reason.FIELD_LIMIT


def test_C_12_4_47_1_every_carom_in_a_field_must_drive_a_ball_out():
    r, p = make("balkline_47_1")
    s = state_with(r, p, positions=BALK, current_player=0, first_carom_pending=False)
    state, out = run_shot(r, p, s)
    assert int(out.reason) == Reason.FIELD_LIMIT
    state, out = run_shot(r, p, s, leave=(1, [1.2, 0.3]))  # out and straight back
    assert int(out.reason) == Reason.SCORED and int(out.field_call) == PositionCall.ENTRE


ANCHOR = np.array([[1.5, 1.0], [0.42, 0.08], [0.52, 0.1]])  # yellow and red in one anchor, astride x = 47 cm


def test_C_12_3_c_the_same_limit_holds_in_an_anchor():
    r, p = make("balkline_47_2")
    s = state_with(r, p, positions=ANCHOR, current_player=0, first_carom_pending=False)
    s1, out = run_shot(r, p, s)
    assert int(out.reason) == Reason.SCORED
    assert int(out.field_call) == PositionCall.A_CHEVAL and int(out.anchor_call) == PositionCall.DEDANS
    words = rules.call_words(out, "balkline_47_2")
    assert words.index("à cheval") < words.index("dedans")  # first the field, then the anchor (C-12.10)
    s2, out = run_shot(r, p, s1)
    assert int(out.reason) == Reason.ANCHOR_LIMIT


def test_C_12_4_b_47_1_anchor():
    r, p = make("balkline_47_1")
    s = state_with(r, p, positions=ANCHOR, current_player=0, first_carom_pending=False)
    state, out = run_shot(r, p, s)
    assert int(out.reason) == Reason.ANCHOR_LIMIT


def test_C_12_7_a_frozen_balls_may_go_to_the_starting_position():
    r, p = make("balkline_47_2")
    s = state_with(r, p, positions=BALK, current_player=0, first_carom_pending=False)
    frozen = np.array([[1.0, 0.3], [2.0, 1.2], [1.0, 0.3 + 2 * 0.03075]])
    state, out = judge(r, p, s, list(CAROM), final=frozen)
    assert bool(state.may_respot) and bool(out.frozen_warning)
    chosen = rules.choose_respot(r, state, True, p)
    t = p.table
    assert np.allclose(chosen.positions[0], t.head_string_spots[0]) and np.allclose(chosen.positions[2], t.top_spot)


def test_C_12_7_c_release_masse_moving_the_frozen_ball_is_a_foul():
    r, p = make("balkline_47_2")
    frozen = np.array([[1.0, 0.3], [2.0, 1.2], [1.0, 0.3 + 2 * 0.03075]])
    s = state_with(r, p, positions=frozen, current_player=0, first_carom_pending=False)
    state, out = judge(r, p, s, script(0, "ball 2", "ball 1", dt=0.001))
    assert int(out.reason) == Reason.FROZEN_BALL_MOVED


def test_C_12_8_jumped_balls_all_three_to_the_starting_position():
    r, p = make("balkline_47_1")
    s = state_with(r, p, positions=BALK, current_player=1, first_carom_pending=False)
    state, out = judge(r, p, s, ["ball 2", "off 0"])
    t = p.table
    assert int(state.current_player) == 0
    assert np.allclose(state.positions[0], t.head_string_spots[0])
    assert np.allclose(state.positions[1], t.head_string_spots[1])


@pytest.mark.parametrize("x, limited", [(0.47, True), (0.4704, True), (0.472, False)])
def test_C_12_9_a_ball_on_the_balkline_counts_inside(x, limited):
    r, p = make("balkline_47_1")
    layout = np.array([[1.5, 1.0], [x, 0.3], [0.3, 0.2]])  # red in the corner field, yellow on its line
    s = state_with(r, p, positions=layout, current_player=0, first_carom_pending=False)
    state, out = run_shot(r, p, s)
    assert int(out.reason) == (Reason.FIELD_LIMIT if limited else Reason.SCORED)


def test_C_12_10_entre_when_both_object_balls_come_to_rest_in_one_field():
    r, p = make("balkline_47_2")
    s = state_with(r, p, positions=np.array([[0.5, 0.4], [1.5, 1.0], [2.2, 0.6]]), current_player=0,
                   first_carom_pending=False)
    state, out = run_shot(r, p, s, final=BALK)
    assert int(out.field_call) == PositionCall.ENTRE and int(out.anchor_call) == PositionCall.NONE
    assert "entré" in rules.call_words(out, "balkline_47_2")
