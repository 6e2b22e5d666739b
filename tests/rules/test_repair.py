"""Impossible states the physics may hand back, repaired by the referee (rules.repair, rules.void).

Hand-made shot results with each impossible state: the next state must be one the physics plays
from (``physics.simulate.layout_is_valid``), the repair counted, and a normal shot left exactly as
the family's own judgement leaves it (no repair counted).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import physics
import rules
from physics.simulate import layout_is_valid
from rules import PinState, Reason, carom, hungarian
from rules.void import VOID_LIMIT
from tests.support.shot_logs import build_shot, script
from tests.support.rules import REFEREE, judge, make, state_with

R = 0.03075
FREE = np.array([[0.5, 0.4], [1.5, 1.0], [2.2, 0.6]])  # match table, apart from everything
HUN = np.array([[0.7, 0.3], [1.4, 0.8], [1.6, 0.3]])  # Hungarian table, away from the pin and spots
# docs/physics.md section 2: the centre of a ball touching a cushion, on the match table (R cos of
# the nose's contact angle: 30.1 mm with the reference values, 29.7 mm with the tracked ones)
CORNER = float(physics.default_params().cushion_reach)


def valid(state, params):
    """The next shot can be played: the physics' own layout check, the standing pin included."""
    pin = state.pin_position if int(state.pin_state) == PinState.STANDING else jnp.full((2,), -1e3)
    return bool(layout_is_valid(jnp.asarray(state.positions), params, jnp.asarray(pin, state.positions.dtype)))


def carom_shot(final, **kw):
    r, p = make("three_cushion")
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)
    return r, p, s, judge(r, p, s, ["cushion", "ball 1", "cushion", "cushion", "ball 2"], final=final, **kw)


# ---- a ball outside the cushions though reported on the table ------------------------------------

def test_C_9_2_b_and_C_13_4_a_ball_at_rest_outside_the_cushions_has_jumped():
    # the physics' pass-through: ball 0 rests at (2.226, 1.660) on a 1.42 m wide table, on_table True
    final = FREE.copy()
    final[0] = [2.226, 1.660]
    r, p, s, (state, out) = carom_shot(final)
    assert int(out.reason) == Reason.JUMPED and bool(out.foul) and bool(out.jumped[0])
    assert int(state.current_player) == 1 and int(state.repairs) == 1
    # C-13.4 b: the shooter's (white) ball goes to the centre spot when the yellow shoots next
    assert np.allclose(state.positions[0], p.table.centre) and np.allclose(state.positions[1:], FREE[1:])
    assert valid(state, p)


def test_C_9_2_b_a_ball_logged_off_the_table_but_reported_on_it_is_judged_jumped_without_a_repair():
    # the log has the ball's OFF_TABLE event: the referee judges it jumped as always; the final
    # position outside the table is not used, so there is nothing to repair
    final = FREE.copy()
    final[1] = [-0.0615, 0.39]
    r, p = make("three_cushion")
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)
    state, out = judge(r, p, s, ["cushion", "ball 1", "off 1"], final=final, on_table=[True] * 3)
    assert int(out.reason) == Reason.JUMPED and int(state.repairs) == 0 and valid(state, p)
    assert np.allclose(state.positions[1], p.table.head_string_spots[1])  # C-13.4 b: the next shooter's ball


def test_C_13_4_a_ball_reported_on_the_table_with_no_position_has_jumped():
    final = FREE.copy()
    final[2] = [np.nan, np.nan]
    r, p, s, (state, out) = carom_shot(final)
    assert int(out.reason) == Reason.JUMPED and int(state.repairs) == 1
    assert np.allclose(state.positions[2], p.table.top_spot) and valid(state, p)  # C-13.4 b: red to the top spot


def test_H_7_1_a_ball_at_rest_outside_the_playing_area_has_jumped():
    r, p = make("hungarian_1000")
    s = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=False)
    final = HUN.copy()
    final[1] = [-0.0615, 0.39]  # off the table, yet reported on it
    state, out = judge(r, p, s, ["ball 1", "ball 2"], final=final, pin_present=True,
                       pin_position=np.asarray(s.pin_position))
    assert int(out.reason) == Reason.JUMPED and int(state.repairs) == 1
    assert np.allclose(state.positions[1], p.table.base_spots[0])  # H-7.3: to a free base spot
    assert bool(state.ball_in_hand) and np.isclose(state.positions[0, 0], float(p.table.length) / 2)  # H-6.4
    assert valid(state, p)


def test_a_ball_within_rounding_of_the_cushion_line_is_not_repaired():
    final = FREE.copy()
    final[1, 1] = CORNER - 1e-15  # touching the right cushion, below the line by rounding only
    r, p, s, (state, out) = carom_shot(final)
    assert int(out.reason) == Reason.SCORED and int(state.repairs) == 0
    assert np.array_equal(np.asarray(state.positions), final)


# ---- balls overlapping at rest -----------------------------------------------------------------

def test_overlapping_balls_at_a_cushion_are_parted_minimally():
    # 31.6 um of overlap between two balls resting on the bottom cushion, one of them in the corner
    final = np.array([[CORNER, CORNER], [CORNER + 2 * R - 31.6e-6, CORNER], [1.1565, 0.8076]])
    r, p, s, (state, out) = carom_shot(final)
    positions = np.asarray(state.positions)
    assert int(state.repairs) == 1 and valid(state, p)
    assert np.linalg.norm(positions[1] - positions[0]) >= 2 * R
    moved = np.linalg.norm(positions - final, axis=-1)
    assert moved[0] < 1e-12  # the corner ball cannot move: the other takes the whole push
    assert 31.6e-6 <= moved[1] < 32e-6 and moved[2] == 0.0
    assert bool(out.respotted[1]) and not bool(out.respotted[2])


def test_coincident_balls_and_a_chain_of_three_are_parted():
    mid = np.array([1.4, 0.7])
    cases = [
        np.array([mid, mid, [2.0, 0.3]]),  # two balls on one point
        np.array([mid, mid + [2 * R - 0.01, 0.0], mid + [4 * R - 0.02, 0.0]]),  # a chain
        np.array([[CORNER, CORNER], [CORNER + 0.03, CORNER + 0.01], [CORNER + 0.01, CORNER + 0.03]]),  # a corner knot
    ]
    for final in cases:
        r, p, s, (state, out) = carom_shot(final)
        d = np.linalg.norm(np.asarray(state.positions)[:, None] - np.asarray(state.positions)[None], axis=-1)
        assert int(state.repairs) == 1 and valid(state, p), final
        assert (d + np.eye(3) * 1.0).min() >= 2 * R


def test_parting_is_deterministic():
    final = np.array([[1.4, 0.7], [1.4 + 0.03, 0.7 + 0.01], [1.4 + 0.01, 0.7 + 0.04]])
    a = carom_shot(final)[3][0]
    b = carom_shot(final)[3][0]
    assert np.array_equal(np.asarray(a.positions), np.asarray(b.positions))


def test_a_ball_inside_the_standing_pin_is_moved_off_it():
    r, p = make("hungarian_1000")
    s = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=False)
    final = HUN.copy()
    pin = np.asarray(s.pin_position)
    final[2] = pin + [R * 0.5, 0.0]  # the yellow rests half inside the standing pin
    state, out = judge(r, p, s, ["ball 1", "ball 2"], final=final, pin_present=True, pin_position=pin)
    assert int(state.pin_state) == PinState.STANDING and int(state.repairs) == 1 and valid(state, p)
    assert np.isclose(state.positions[2, 1], final[2, 1])  # pushed straight away from the pin
    assert np.all(np.asarray(state.positions[:2]) == final[:2])


def test_float32_overlap_beyond_the_layout_check_is_parted():
    # float32 resolves ~1e-7 m on a table: balls resting 2.6e-7 m inside each other
    r = rules.make_rules("three_cushion")
    p = physics.default_params("match", dtype="float32")
    s = rules.game_from_layout(r, FREE.astype(np.float32), p)
    s = rules.state.replace(s, first_carom_pending=jnp.asarray(False))
    final = np.array([[1.0, 0.7], [1.0 + 2 * R - 2.6e-7, 0.7], [2.2, 0.6]], np.float32)
    shot = build_shot(script(0, "ball 1", "ball 2"), final, dtype=np.float32)
    state, out = jax.jit(rules.referee)(r, s, shot, p)
    assert state.positions.dtype == jnp.float32 and valid(state, p)
    # repaired exactly when the physics would have refused to play from it
    refused = not bool(layout_is_valid(jnp.asarray(final), p))
    assert int(state.repairs) == int(refused)


# ---- a layout the physics refused --------------------------------------------------------------

@pytest.mark.parametrize("discipline", ["one_cushion", "hungarian_1000"])
def test_an_invalid_layout_is_re_laid_so_the_next_shot_is_playable(discipline):
    r, p = make(discipline)
    base = HUN if discipline == "hungarian_1000" else FREE
    bad = base.copy()
    bad[2] = bad[1] + [0.01, 0.0]  # two balls inside each other: the physics refuses to play
    s = state_with(r, p, positions=bad, current_player=0, ball_in_hand=False)
    assert not valid(s, p)
    state, out = judge(r, p, s, [], final=bad, status=physics.events.Status.INVALID_LAYOUT)
    assert int(out.reason) == Reason.INVALID_SHOT and not bool(out.turn_passes)
    assert int(state.repairs) == 1 and int(state.void_streak) == 1 and valid(state, p)
    assert np.allclose(state.positions[0], bad[0])  # the ball clear of the knot stays
    # the next shot is judged normally, and the streak of void shots ends
    cue = int(state.cue_ball)
    state2, out2 = judge(r, p, state, ["ball 1", "ball 2"] if cue == 0 else ["ball 0", "ball 2"])
    assert int(out2.reason) != Reason.INVALID_SHOT and int(state2.void_streak) == 0


def test_a_layout_with_a_ball_far_outside_goes_to_the_starting_position():
    r, p = make("straight_rail")
    bad = FREE.copy()
    bad[1] = [5.0, 5.0]
    s = state_with(r, p, positions=bad, current_player=1, first_carom_pending=False)
    state, out = judge(r, p, s, [], final=bad, status=physics.events.Status.INVALID_LAYOUT)
    start = rules.respot.starting_position(p.table, 1)
    assert np.allclose(state.positions, start) and int(state.repairs) == 1 and valid(state, p)


# ---- void shots in a row -----------------------------------------------------------------------

def _overflow(r, p, s, times):
    outs = []
    for _ in range(times):
        s, out = judge(r, p, s, ["cushion"], final=np.asarray(s.positions) + 0.01, status=1, overflow=True)
        outs.append(out)
    return s, outs


def test_C_9_2_a_void_shots_in_a_row_end_as_a_miss_from_the_starting_position():
    r, p = make("three_cushion")
    s = state_with(r, p, positions=FREE, current_player=0, scores=[5, 3], run=2, first_carom_pending=False)
    state, outs = _overflow(r, p, s, VOID_LIMIT)
    assert [int(o.reason) for o in outs] == [Reason.INVALID_SHOT] * (VOID_LIMIT - 1) + [Reason.VOID_LIMIT]
    assert not any(bool(o.foul) for o in outs) and bool(outs[-1].turn_passes)
    assert np.asarray(outs[-1].points).tolist() == [0, 0] and np.asarray(state.scores).tolist() == [5, 3]
    assert int(state.current_player) == 1 and int(state.cue_ball) == 1 and int(state.run) == 0
    assert np.allclose(state.positions, rules.respot.starting_position(p.table, 1))  # C-2.1, yellow breaks
    assert bool(state.may_choose_side) and int(state.repairs) == 1 and int(state.void_streak) == 0


def test_C_8_3_a_void_streak_in_the_equalizing_inning_ends_it_short():
    r, p = make("three_cushion")
    s = state_with(r, p, positions=FREE, current_player=1, breaker=0, scores=[40, 38], equalizing=True,
                   first_carom_pending=False)
    state, outs = _overflow(r, p, s, VOID_LIMIT)
    assert bool(state.game_over) and int(state.winner) == 0 and bool(outs[-1].game_over)


def test_H_9_5_void_shots_in_a_row_end_as_a_miss_and_the_run_is_recorded():
    r, p = make("hungarian_1000")
    s = state_with(r, p, positions=HUN, current_player=0, scores=[100, 200], run=60, ball_in_hand=False)
    state, outs = _overflow(r, p, s, VOID_LIMIT)
    assert int(outs[-1].reason) == Reason.VOID_LIMIT and not bool(outs[-1].foul)
    assert np.asarray(state.scores).tolist() == [160, 200] and int(state.run) == 0
    assert np.asarray(outs[-1].points).tolist() == [0, 0]  # the board does not change
    assert int(state.current_player) == 1 and bool(state.ball_in_hand) and bool(outs[-1].ball_in_hand)
    t = p.table
    assert np.allclose(state.positions[1:], [t.base_spots[0], t.base_spots[1]])  # H-2.3
    assert int(state.pin_state) == PinState.STANDING and np.allclose(state.pin_position, t.centre)  # H-2.1
    assert valid(state, p)


def test_a_judged_shot_ends_the_void_streak():
    r, p = make("one_cushion")
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)
    s, _ = _overflow(r, p, s, VOID_LIMIT - 1)
    s, out = judge(r, p, s, ["cushion", "ball 1", "ball 2"])
    assert int(s.void_streak) == 0
    s, outs = _overflow(r, p, s, VOID_LIMIT - 1)
    assert int(outs[-1].reason) == Reason.INVALID_SHOT and int(s.repairs) == 0


# ---- normal shots are left alone -----------------------------------------------------------------

@pytest.mark.parametrize("discipline", ["three_cushion", "balkline_47_2", "hungarian_1000"])
def test_a_normal_shot_is_judged_exactly_as_the_family_judges_it(discipline):
    r, p = make(discipline)
    hun = discipline == "hungarian_1000"
    base = HUN if hun else FREE
    s = state_with(r, p, positions=base, current_player=0, ball_in_hand=False, first_carom_pending=False)
    touching = base.copy()
    touching[2] = touching[1] + [2 * R, 0.0]  # balls at rest touching, to the last digit
    touching[0, 1] = float(p.cushion_reach)  # and a ball on a cushion line
    steps = ["ball 1", "ball 2"] if hun else ["cushion", "ball 1", "cushion", "cushion", "ball 2"]
    for final in (base + 0.05, touching):
        shot = build_shot(script(int(s.cue_ball), *steps), final,
                          pin_present=hun, pin_position=np.asarray(s.pin_position))
        family = hungarian if hun else carom
        expected, expected_out = jax.jit(family.play)(r, s, shot, p)
        state, out = REFEREE(r, s, shot, p)
        assert int(state.repairs) == 0 and int(state.void_streak) == 0
        for name in vars(expected):
            assert np.array_equal(np.asarray(getattr(state, name)), np.asarray(getattr(expected, name))), name
        for name in vars(expected_out):
            assert np.array_equal(np.asarray(getattr(out, name)), np.asarray(getattr(expected_out, name))), name
