"""Part H clauses (the Hungarian 1000 game) judged from hand-made shots. Ball 0 is the red, the
cue ball of both players; 1 white and 2 yellow are the target balls."""
from __future__ import annotations

import jax
import numpy as np
import pytest

import rules
from rules import PinState, Reason
from tests.support.shot_logs import event, script
from physics.events import EventKind
from tests.support.rules import INIT, judge, make, state_with

R = 0.03075
PIN_R = 0.010  # the default pin radius (docs/physics.md section 4)
HUN = np.array([[0.7, 0.3], [1.4, 0.8], [1.6, 0.3]])  # away from the pin and the spots


def game(**options):
    r, p = make("hungarian_1000", **options)
    return r, p


def play(steps, final=None, options=None, strike=True, **fields):
    r, p = game(**(options or {}))
    fields.setdefault("positions", HUN)
    fields.setdefault("current_player", 0)
    fields.setdefault("ball_in_hand", False)
    s = state_with(r, p, **fields)
    pin = dict(pin_present=True, pin_position=np.asarray(s.pin_position))
    events = script(int(s.cue_ball), *steps, strike=strike)
    return judge(r, p, s, events, final=final, **pin)


def pts(out):
    return [int(v) for v in np.asarray(out.points)]


# ---- H-2, H-3, H-5 set-up and turns ---------------------------------------------------------

def test_H_2_set_up_and_H_5_1_ball_in_hand_for_the_break():
    r, p = game()
    s = INIT(r, jax.random.PRNGKey(3), p)
    t = p.table
    assert int(s.pin_state) == PinState.STANDING and np.allclose(s.pin_position, t.centre)  # H-2.1
    assert np.isclose(s.positions[0, 0], 2.10 / 2)  # H-2.2: on the cross axis
    assert np.linalg.norm(s.positions[0] - t.centre) >= R + PIN_R  # not touching the pin
    assert np.allclose(s.positions[1], t.base_spots[0]) and np.allclose(s.positions[2], t.base_spots[1])  # H-2.3
    assert bool(s.ball_in_hand) and int(s.cue_ball) == 0


def test_H_5_1_starter_by_lot():
    r, p = game()
    breakers = {int(INIT(r, jax.random.PRNGKey(k), p).breaker) for k in range(16)}
    assert breakers == {0, 1}


def test_H_3_1_the_red_is_the_cue_ball_of_both_players():
    state, out = play(["ball 1"])
    assert bool(out.turn_passes) and int(state.current_player) == 1 and int(state.cue_ball) == 0


def test_H_3_4_a_player_shoots_on_while_he_scores():
    state, out = play(["ball 1", "ball 2"], run=10)
    assert not bool(out.turn_passes) and int(state.current_player) == 0 and int(state.run) == 20


# ---- H-6.2 carom; H-9.2 to H-9.4 points -----------------------------------------------------

def test_H_6_2_and_H_9_2_carom_with_the_pin_standing_is_10():
    state, out = play(["ball 1", "cushion", "ball 2"])
    assert int(out.shot_value) == 10 and pts(out) == [10, 0] and bool(out.carom)


def test_H_6_2_target_balls_touching_each_other_is_no_carom():
    state, out = play(["ball 1", "balls 1-2"])
    assert not bool(out.carom) and int(out.reason) == Reason.EMPTY


def test_H_6_2_at_most_one_carom_per_shot():
    state, out = play(["ball 1", "ball 2", "ball 1", "ball 2"])
    assert int(out.shot_value) == 10


def test_H_9_3_pin_knocked_down_by_a_target_ball_is_50():
    state, out = play(["ball 1", "pin down by 1"])
    assert int(out.shot_value) == 50 and bool(out.pin_down) and not bool(out.foul)


def test_H_9_4_carom_and_pin_down_is_100_in_all():
    state, out = play(["ball 2", "pin down by 2", "ball 1"])
    assert int(out.shot_value) == 100


@pytest.mark.parametrize("steps, option, value", [
    (["ball 1", "cushion", "ball 2"], "carom_points", 20),  # H-9.2
    (["ball 1", "pin down by 1"], "pin_points", 40),  # H-9.3
    (["ball 2", "pin down by 2", "ball 1"], "carom_with_pin_points", 150),  # H-9.4
])
def test_H_9_2_to_H_9_4_point_values_are_rule_options(steps, option, value):
    """A variant with other point values scores them, and a foul hands them over (H-9.7)."""
    state, out = play(steps, options={option: value})
    assert int(out.shot_value) == value and pts(out) == [value, 0]
    state, out = play(["pin"] + steps, options={option: value, "scoring_mode": 2})
    assert bool(out.foul) and pts(out) == [0, value]


def test_H_9_2_point_values_refuse_what_no_scoresheet_holds():
    with pytest.raises(ValueError, match="carom_points must be >= 0"):
        rules.make_rules("hungarian_1000", carom_points=-10)
    with pytest.raises(ValueError, match="unknown option"):
        rules.make_rules("three_cushion", pin_points=50)


def test_H_8_1_yellow_may_knock_the_pin_after_the_white_was_hit():
    state, out = play(["ball 1", "balls 1-2", "pin down by 2"])
    assert int(out.shot_value) == 50


def test_H_6_5_cushions_before_the_contacts_and_the_pin():
    state, out = play(["cushion", "cushion", "ball 1", "cushion", "cushion", "ball 2"])
    assert int(out.shot_value) == 10


# ---- H-4 validity ---------------------------------------------------------------------------

def test_H_4_8_cue_ball_touching_the_pin_without_felling_it_is_no_foul():
    state, out = play(["ball 1", "pin", "ball 2"])
    assert not bool(out.foul) and int(out.shot_value) == 10


def test_H_4_8_cue_ball_knocking_the_pin_down_is_a_foul():
    state, out = play(["ball 1", "pin", "=pin down"], run=30, scores=[100, 200])
    assert int(out.reason) == Reason.PIN_NOT_BY_TARGET and bool(out.foul)
    # H-9.7: the opponent gets the pin's 50; mode 1 (H-9.9): and the run's 30
    assert [int(v) for v in np.asarray(state.scores)] == [100, 280] and pts(out) == [-30, 80]


def test_H_4_9_no_target_ball_is_a_foul():
    state, out = play(["cushion", "cushion"])
    assert int(out.reason) == Reason.NO_TARGET_BALL and bool(out.foul) and bool(out.turn_passes)


def test_H_4_9_pin_first_is_a_foul_and_the_opponent_gets_the_carom():
    state, out = play(["pin", "ball 1", "ball 2"])
    assert int(out.reason) == Reason.PIN_FIRST and pts(out) == [0, 10]


def test_H_6_6_pin_and_target_at_once_is_read_against_the_shooter():
    state, out = play(["ball 1", "=pin", "ball 2"])
    assert int(out.reason) == Reason.PIN_FIRST


def test_H_8_1_a_pin_fall_that_names_no_target_ball_is_a_foul():
    r, p = game()
    s = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=False)
    events = script(0, "ball 1", "ball 2") + [event(EventKind.PIN_DOWN, 0.15, -1)]
    state, out = judge(r, p, s, events, pin_present=True, pin_position=np.asarray(s.pin_position))
    assert int(out.reason) == Reason.PIN_NOT_BY_TARGET and pts(out) == [0, 100]


def test_H_6_6_pin_falling_as_the_cue_ball_touches_it_is_the_cue_balls():
    state, out = play(["ball 1", "pin down by 1", "=pin"])
    assert int(out.reason) == Reason.PIN_NOT_BY_TARGET


def test_H_4_9_and_H_9_10_pin_down_before_the_cue_ball_reached_a_target_ball():
    # the yellow knocks the pin before the red has touched a target ball: no valid shot; the
    # opponent gets the carom and the pin (H-9.7), and in mode 3 another 10 (H-9.10)
    state, out = play(["pin down by 2", "ball 1", "ball 2"])
    assert int(out.reason) == Reason.PIN_BEFORE_TARGET and bool(out.foul) and pts(out) == [0, 100]
    state, out = play(["pin down by 2", "ball 1", "ball 2"], options=dict(scoring_mode=3))
    assert pts(out) == [0, 110]


def frozen_red(gap=5e-5):
    return np.array([[0.7, 0.3], [0.7 + 2 * R + gap, 0.3], [1.6, 0.8]])


def test_H_4_6_a_frozen_cue_ball_may_only_be_shot_away():
    r, p = game()
    s = state_with(r, p, positions=frozen_red(), current_player=0, ball_in_hand=False)
    into = [event(EventKind.CUE_STRIKE, 0.0, 0), event(EventKind.BALL_BALL, 2e-4, 0, 1),
            event(EventKind.BALL_BALL, 0.5, 0, 2)]
    state, out = judge(r, p, s, into)
    assert int(out.reason) == Reason.FROZEN_BALL_MOVED
    away = script(0, "cushion", "ball 1", "ball 2", dt=0.3)
    state, out = judge(r, p, s, away)
    assert int(out.reason) == Reason.SCORED


def test_H_4_6_a_cue_ball_frozen_to_a_cushion_may_not_be_shot_into_it():
    r, p = game()
    reach = float(p.cushion_reach)
    layout = np.array([[0.7, reach + 5e-5], [1.4, 0.8], [1.6, 0.3]])  # red touching the RIGHT cushion
    s = state_with(r, p, positions=layout, current_player=0, ball_in_hand=False)
    assert bool(np.asarray(s.frozen_cushions)[2])
    into = script(0, "cushion right", "ball 1", "ball 2", dt=0.001)
    state, out = judge(r, p, s, into)
    assert int(out.reason) == Reason.FROZEN_BALL_MOVED
    later = script(0, "ball 1", "cushion right", "ball 2", dt=0.3)
    state, out = judge(r, p, s, later)
    assert int(out.reason) == Reason.SCORED


def test_H_4_7_and_H_9_8_jumped_ball_is_a_foul_worth_10_more():
    state, out = play(["ball 1", "ball 2", "off 2"])
    assert int(out.reason) == Reason.JUMPED and pts(out) == [0, 20]  # the carom's 10 + 10 for the jump
    state, out = play(["ball 1", "off 1", "off 2"])
    assert pts(out) == [0, 20]


# ---- H-6.3 / H-9.6 pure caroms --------------------------------------------------------------

def test_H_6_3_third_pure_carom_scores_nothing():
    state, out = play(["ball 1", "ball 2"], pure_caroms=2, run=20, scores=[0, 0])
    assert int(out.reason) == Reason.PURE_CAROM_LIMIT and int(out.shot_value) == 0 and not bool(out.foul)
    assert bool(out.turn_passes) and [int(v) for v in np.asarray(state.scores)] == [20, 0]  # H-9.6


def test_H_6_3_a_carom_with_the_pin_is_always_allowed():
    state, out = play(["ball 1", "pin down by 1", "ball 2"], pure_caroms=2)
    assert int(out.shot_value) == 100 and int(state.pure_caroms) == 0


def test_H_6_3_counting_within_a_run():
    r, p = game()
    s = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=False)
    values = []
    for steps in (["ball 1", "ball 2"], ["ball 2", "ball 1"], ["ball 1", "pin down by 1"], ["ball 1", "ball 2"],
                  ["ball 1", "ball 2"], ["ball 1", "ball 2"]):
        s, out = judge(r, p, s, steps, pin_present=True, pin_position=np.asarray(s.pin_position))
        values.append(int(out.shot_value))
    assert values == [10, 10, 50, 10, 10, 0]


def test_H_6_3_limit_can_be_switched_off():
    state, out = play(["ball 1", "ball 2"], pure_caroms=5, options=dict(pure_carom_limit=False))
    assert int(out.shot_value) == 10


# ---- H-9 scoring ----------------------------------------------------------------------------

def test_H_9_5_a_target_hit_without_carom_or_pin_passes_and_the_run_is_recorded():
    state, out = play(["ball 2", "cushion"], run=60, scores=[100, 40])
    assert int(out.reason) == Reason.EMPTY and not bool(out.foul) and bool(out.turn_passes)
    assert [int(v) for v in np.asarray(state.scores)] == [160, 40] and pts(out) == [0, 0] and int(state.run) == 0


@pytest.mark.parametrize("mode, scores, points", [(1, [100, 150], [-120, 140]), (2, [100, 30], [-120, 20]),
                                                  (3, [220, 30], [0, 20])])
def test_H_9_9_where_the_fouling_players_run_goes(mode, scores, points):
    # a foul worth 20 of its own (carom 10 + one jumped ball 10) after a run of 120
    state, out = play(["ball 1", "ball 2", "off 1"], run=120, scores=[100, 10], options=dict(scoring_mode=mode))
    assert [int(v) for v in np.asarray(state.scores)] == scores and pts(out) == points


@pytest.mark.parametrize("mode, extra", [(1, 0), (2, 0), (3, 10)])
def test_H_9_10_mode_3_gives_10_more_when_no_target_ball_is_touched(mode, extra):
    state, out = play(["cushion"], options=dict(scoring_mode=mode))
    assert pts(out)[1] == extra


def test_H_9_10_mode_3_target_touched_only_after_the_pin_fell():
    state, out = play(["pin", "=pin down", "ball 1"], options=dict(scoring_mode=3))
    assert pts(out) == [0, 60]  # the pin's 50, and 10 more
    state, out = play(["pin", "=pin down", "ball 1"], options=dict(scoring_mode=2))
    assert pts(out) == [0, 50]


@pytest.mark.parametrize("steps, value", [
    (["pin", "ball 1"], 0),
    (["pin", "ball 1", "ball 2"], 10),  # H-9.2
    (["pin", "ball 1", "pin down by 1"], 50),  # H-9.3
    (["pin", "ball 2", "pin down by 2", "ball 1"], 100),  # H-9.4
])
def test_H_9_7_a_foul_gives_the_opponent_the_value_of_the_foul_shot(steps, value):
    # the red touches the pin first (H-4.9): whatever the shot made goes to the opponent
    state, out = play(steps, scores=[300, 200], options=dict(scoring_mode=2))
    assert bool(out.foul) and int(out.shot_value) == 0 and pts(out) == [0, value]
    assert [int(v) for v in np.asarray(state.scores)] == [300, 200 + value]


def test_H_9_1_a_foul_never_scores_for_the_shooter():
    state, out = play(["pin", "ball 1", "pin down by 1", "ball 2"])
    assert bool(out.foul) and int(out.shot_value) == 0 and pts(out) == [0, 100]  # H-9.7


def test_H_10_1_reaching_1000_wins_at_once():
    state, out = play(["ball 1", "pin down by 1", "ball 2"], scores=[850, 900], run=60)
    assert bool(out.game_over) and int(out.winner) == 0
    assert [int(v) for v in np.asarray(state.scores)] == [1010, 900]


def test_H_10_1_the_opponent_can_win_on_foul_points():
    state, out = play(["ball 1", "pin down by 0"], scores=[500, 960])
    assert bool(out.game_over) and int(out.winner) == 1


def test_H_10_1_a_finished_game_is_not_refereed():
    r, p = game()
    s = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=False, game_over=True, winner=1,
                   scores=[400, 1000])
    state, out = judge(r, p, s, ["ball 1", "ball 2"])
    assert int(out.reason) == Reason.GAME_OVER and pts(out) == [0, 0]
    for a, b in zip(jax.tree_util.tree_leaves(state), jax.tree_util.tree_leaves(s)):
        assert np.array_equal(np.asarray(a), np.asarray(b))


# ---- H-6.4 ball in hand, H-7 jumped balls ---------------------------------------------------

def test_H_6_4_ball_in_hand_on_the_cross_axis_not_touching_pin_or_ball():
    r, p = game()
    s = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=True)
    t = p.table
    assert np.allclose(t.centre, [1.05, 0.525])  # the middle of the cross axis the figures below use
    clear_pin = R + PIN_R + 1e-4
    placed = rules.place_cue_ball(r, s, 0.5, p)  # the middle is the pin's spot: moved off it
    assert np.isclose(placed.positions[0, 0], 1.05)
    assert np.isclose(abs(placed.positions[0, 1] - 0.525), clear_pin)
    # a target ball lying on the cross axis blocks its place too
    s2 = state_with(r, p, positions=np.array([[0.7, 0.3], [1.05, 0.2], [1.6, 0.3]]), current_player=0,
                    ball_in_hand=True)
    placed = rules.place_cue_ball(r, s2, (0.2 - 0.0301) / (1.05 - 2 * 0.0301), p)
    assert np.linalg.norm(placed.positions[0] - placed.positions[1]) >= 2 * R
    assert np.isclose(abs(placed.positions[0, 1] - 0.2), 2 * R + 1e-4)
    # placing is only possible with the ball in hand
    s3 = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=False)
    assert np.allclose(rules.place_cue_ball(r, s3, 0.9, p).positions, HUN)
    # the ends of the axis: inside the cushions
    edge = rules.place_cue_ball(r, s, 1.0, p)
    assert np.isclose(edge.positions[0, 1], 1.05 - float(p.cushion_reach))


def test_H_6_4_a_shot_with_another_ball_than_the_red_gives_the_opponent_ball_in_hand():
    # H-4.3: the cue may touch only the red; the cue struck the white (ball 1), which ran into the
    # yellow. A foul against H-4.1 to H-4.4 gives the opponent ball in hand (H-6.4), and the call
    # is the Hungarian "hiba", not the carom games' "az ellenfél golyója" (H-3.1: no ball is the
    # opponent's).
    final = HUN + [[0.0, 0.0], [-0.3, 0.1], [0.05, 0.0]]
    state, out = play(["strike 1", "balls 1-2"], final=final, strike=False)
    assert int(out.reason) == Reason.WRONG_BALL and bool(out.foul) and bool(out.turn_passes)
    assert int(state.current_player) == 1 and int(out.shot_value) == 0 and pts(out) == [0, 0]
    assert bool(out.ball_in_hand) and bool(state.ball_in_hand)
    assert int(out.call) == rules.Call.FOUL
    words = rules.call_words(out, "hungarian_1000")
    assert words.startswith("hiba (foul)") and "golyó kézben" in words and "ellenfél" not in words
    assert np.isclose(state.positions[0, 0], 1.05)  # the red waits on the cross axis (H-6.4)
    assert np.allclose(state.positions[1:], final[1:])  # the other balls stay where they lie


def test_H_6_4_wrong_ball_run_goes_as_any_foul_with_mode_1():
    # the fouling player's pending run goes to the opponent (H-9.9 mode 1), as for any foul
    state, out = play(["strike 2", "balls 1-2"], run=60, scores=[100, 200], strike=False)
    assert pts(out) == [-60, 60] and bool(state.ball_in_hand)


def test_H_6_1_after_a_foul_the_opponent_plays_the_red_from_where_it_lies():
    final = HUN + [[0.05, 0.05], [0.0, 0.1], [-0.1, 0.0]]
    state, out = play(["cushion", "cushion"], final=final)
    assert bool(out.foul) and bool(out.turn_passes) and int(state.current_player) == 1
    assert not bool(state.ball_in_hand) and not bool(out.ball_in_hand)
    assert np.allclose(state.positions, final)


def test_H_7_1_a_ball_not_on_the_table_at_the_end_has_jumped():
    r, p = game()
    s = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=False)
    state, out = judge(r, p, s, ["ball 1", "ball 2"], on_table=[True, False, True], pin_present=True,
                       pin_position=np.asarray(s.pin_position))
    assert int(out.reason) == Reason.JUMPED and pts(out) == [0, 20]  # the carom's 10 + 10 (H-9.8)
    assert bool(state.ball_in_hand) and np.allclose(state.positions[1], p.table.base_spots[0])  # H-7.3


def test_H_7_2_cue_ball_jumped_next_player_has_ball_in_hand():
    state, out = play(["ball 1", "off 0"])
    assert bool(out.ball_in_hand) and bool(state.ball_in_hand)
    assert "golyó kézben (ball in hand)" in rules.call_words(out, "hungarian_1000")
    assert np.isclose(state.positions[0, 0], 1.05)
    assert np.allclose(state.positions[1:], HUN[1:])


def test_H_7_3_jumped_target_ball_to_a_free_base_spot_of_the_next_players_choice():
    r, p = game()
    t = p.table
    state, out = play(["ball 1", "off 1"])
    assert bool(state.ball_in_hand) and int(state.base_spot_ball) == 1
    assert np.allclose(state.positions[1], t.base_spots[0])
    chosen = rules.choose_base_spot(r, state, 1, p)
    assert np.allclose(chosen.positions[1], t.base_spots[1]) and int(chosen.base_spot_ball) == -1


def test_H_7_3_only_one_base_spot_free():
    r, p = game()
    t = p.table
    final = HUN.copy()
    final[2] = np.asarray(t.base_spots[0])  # yellow rests on the bottom base spot
    state, out = play(["ball 1", "ball 2", "off 1", "off 0"], final=final)
    assert np.allclose(state.positions[1], t.base_spots[1]) and int(state.base_spot_ball) == -1
    assert bool(state.ball_in_hand)


@pytest.mark.parametrize("steps", [["ball 1", "off 1", "off 2"], ["ball 1", "off 0", "off 1", "off 2"]])
def test_H_7_4_both_target_balls_jumped_go_on_the_two_base_spots(steps):
    r, p = game()
    t = p.table
    state, out = play(steps)
    assert np.allclose(state.positions[1], t.base_spots[0]) and np.allclose(state.positions[2], t.base_spots[1])
    assert bool(state.ball_in_hand) and np.isclose(state.positions[0, 0], 1.05)


# ---- H-8 the pin between shots --------------------------------------------------------------

def test_H_8_4_a_pushed_pin_that_stays_standing_stays_where_it_is():
    r, p = game()
    s = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=False)
    moved = np.asarray(p.table.centre) + [0.012, 0.0]
    state, out = judge(r, p, s, ["ball 1", "pin by 1", "ball 2"], pin_present=True, pin_position=moved)
    assert int(state.pin_state) == PinState.STANDING and np.allclose(state.pin_position, moved)


def test_H_8_4_and_H_8_7_a_fallen_pin_goes_back_exactly_on_its_spot():
    r, p = game()
    s = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=False)
    state, out = judge(r, p, s, ["ball 1", "pin down by 1"], pin_present=True, pin_position=[0.9, 0.2])
    assert int(state.pin_state) == PinState.STANDING and np.allclose(state.pin_position, p.table.centre)


def test_H_8_5_pin_waits_off_the_table_while_its_spot_is_taken():
    r, p = game()
    s = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=False)
    final = HUN.copy()
    final[1] = np.asarray(p.table.centre) + [0.02, 0.0]  # white rests on the pin's spot
    state, out = judge(r, p, s, ["ball 1", "pin down by 1"], final=final, pin_present=True, pin_position=[0.9, 0.2])
    assert int(state.pin_state) == PinState.WAITING
    # the next shot clears the spot: the pin is put back
    state2, out = judge(r, p, state, ["ball 1", "ball 2"], final=HUN)
    assert int(state2.pin_state) == PinState.STANDING and np.allclose(state2.pin_position, p.table.centre)
    # a pin that is off the table cannot be knocked down: a logged fall does not count
    state3, out = judge(r, p, state, ["ball 1", "pin down by 1"], final=final)
    assert int(out.shot_value) == 0 and not bool(out.pin_down)


def test_H_8_6_a_jammed_pin_stays_and_does_not_count_later():
    r, p = game()
    s = state_with(r, p, positions=HUN, current_player=0, ball_in_hand=False)
    lying = np.array([0.5, 0.6])
    final = HUN.copy()
    final[1] = lying + [R + 0.005, 0.0]  # the white rests against the fallen pin
    state, out = judge(r, p, s, ["ball 1", "pin down by 1"], final=final, pin_present=True, pin_position=lying)
    assert int(out.shot_value) == 50
    assert int(state.pin_state) == PinState.JAMMED and np.allclose(state.pin_position, lying)
    state2, out = judge(r, p, state, ["ball 1", "pin down by 1"], final=final)
    assert int(out.shot_value) == 0 and int(state2.pin_state) == PinState.JAMMED
    state3, out = judge(r, p, state2, ["ball 1", "ball 2"], final=HUN)  # the white moved away
    assert int(state3.pin_state) == PinState.STANDING


def test_H_5_1_the_next_game_is_started_by_the_other_player():
    r, p = game()
    first = rules.init_game(r, jax.random.PRNGKey(0), p)
    second = rules.init_game(r, jax.random.PRNGKey(1), p, breaker=1 - int(first.breaker))
    assert int(second.breaker) == 1 - int(first.breaker) and int(second.current_player) == int(second.breaker)
