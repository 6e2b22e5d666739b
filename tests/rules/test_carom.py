"""Part C clauses judged from hand-made shots: carom, cushions, fouls, end of game, re-spots,
frozen balls, the lag, the referee's calls. Expected answers come from the clauses, not from the
code."""
from __future__ import annotations

import numpy as np
import pytest

import rules
from rules import Reason
from rules.codes import Call
from tests.support.shot_logs import event, script
from physics.events import EventKind
from tests.support.rules import make, judge, state_with

# White, yellow, red well apart, outside every corner field, in three different balkline fields.
FREE = np.array([[0.5, 0.4], [1.5, 1.0], [2.2, 0.6]])
R = 0.03075


def play(discipline="straight_rail", steps=("ball 2", "ball 1"), final=None, options=None, **fields):
    r, p = make(discipline, **(options or {}))
    fields.setdefault("positions", FREE)
    fields.setdefault("current_player", 0)
    fields.setdefault("first_carom_pending", False)
    s = state_with(r, p, **fields)
    return judge(r, p, s, list(steps), final=final)


def spots(p):
    t = p.table
    return dict(top=np.asarray(t.top_spot), centre=np.asarray(t.centre), head=np.asarray(t.head_string_spots))


# ---- C-2 starting position ------------------------------------------------------------------

def test_C_2_1_starting_position_red_top_opponent_middle_breaker_side():
    r, p = make("three_cushion")
    for seed in range(4):
        s = rules.init_game(r, __import__("jax").random.PRNGKey(seed), p)
        b = int(s.breaker)
        sp = spots(p)
        assert np.allclose(s.positions[2], sp["top"])
        assert np.allclose(s.positions[1 - b], sp["head"][1])
        assert np.allclose(s.positions[b], sp["head"][0])
        assert int(s.current_player) == b and int(s.cue_ball) == b and bool(s.may_choose_side)
        left = rules.choose_start_side(r, s, 1, p)
        assert np.allclose(left.positions[b], sp["head"][2])


def test_C_2_2_first_carom_must_be_made_off_the_red():
    state, out = play(steps=("ball 1", "ball 2"), first_carom_pending=True)
    assert int(out.reason) == Reason.FIRST_CAROM_NOT_OFF_RED and int(out.shot_value) == 0
    assert bool(out.turn_passes)
    state, out = play(steps=("cushion", "ball 2", "ball 1"), first_carom_pending=True)
    assert int(out.reason) == Reason.SCORED and not bool(state.first_carom_pending)


def test_C_2_2_red_and_white_at_once_is_read_against_the_shooter():
    # rule O-7 / H-6.6: contacts the log cannot separate are not "the red first"
    state, out = play(steps=("ball 2", "=ball 1"), first_carom_pending=True)
    assert int(out.reason) == Reason.FIRST_CAROM_NOT_OFF_RED


def test_C_2_2_red_within_the_tolerance_before_the_other_ball_is_not_off_the_red():
    # rule O-7: two touches closer than the event-time tolerance cannot be ordered, even when the
    # log puts the red first; a gap of two tolerances can
    r, p = make("straight_rail")
    tol = float(r.time_tolerance)
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=True)
    for gap, reason in ((0.5 * tol, Reason.FIRST_CAROM_NOT_OFF_RED), (2 * tol, Reason.SCORED)):
        events = [event(EventKind.CUE_STRIKE, 0.0, 0), event(EventKind.BALL_BALL, 0.3, 0, 2),
                  event(EventKind.BALL_BALL, 0.3 + gap, 0, 1)]
        state, out = judge(r, p, s, events)
        assert int(out.reason) == reason, gap


def test_C_2_2_only_the_first_carom_of_the_game():
    state, out = play(steps=("ball 1", "ball 2"), first_carom_pending=False)
    assert int(out.reason) == Reason.SCORED


# ---- C-3 carom ------------------------------------------------------------------------------

def test_C_3_2_carom_is_the_cue_ball_touching_both_other_balls():
    state, out = play(steps=("ball 1", "cushion", "ball 2"))
    assert bool(out.carom) and int(out.shot_value) == 1 and list(np.asarray(out.points)) == [1, 0]


def test_C_3_2_object_balls_touching_each_other_is_no_carom():
    state, out = play(steps=("ball 1", "balls 1-2"))
    assert not bool(out.carom) and int(out.reason) == Reason.EMPTY


def test_C_3_2_yellow_as_cue_ball():
    state, out = play(steps=("ball 0", "ball 2"), current_player=1)
    assert int(out.reason) == Reason.SCORED and list(np.asarray(out.points)) == [0, 1]
    state, out = play(steps=("ball 1", "ball 2"), current_player=1)  # the white's contacts do not count
    assert int(out.reason) == Reason.EMPTY


def test_C_3_3_each_carom_one_point_and_the_run_goes_on():
    state, out = play(scores=[7, 3], run=2)
    assert list(np.asarray(state.scores)) == [8, 3] and int(state.run) == 3
    assert int(state.current_player) == 0 and not bool(out.turn_passes)


def test_C_3_3_reaching_the_distance_ends_the_game():
    # the non-breaker reaches 40: both had the same innings, the game is over at once
    state, out = play("three_cushion", steps=("cushion", "cushion", "cushion", "ball 2", "ball 1"),
                      scores=[39, 20], breaker=1)
    assert bool(out.game_over) and int(out.winner) == 0 and bool(state.game_over)


def test_C_3_4_the_next_player_shoots_his_own_ball():
    state, out = play(steps=("ball 2",))
    assert bool(out.turn_passes) and int(state.current_player) == 1 and int(state.cue_ball) == 1


# ---- C-8 end of game ------------------------------------------------------------------------

def test_C_8_3_breaker_reaching_the_distance_gives_an_equalizing_inning():
    r, p = make("one_cushion")
    s = state_with(r, p, positions=FREE, current_player=0, breaker=0, scores=[99, 50], innings=[12, 11],
                   first_carom_pending=False)
    state, out = judge(r, p, s, ["cushion", "ball 1", "ball 2"])
    assert not bool(out.game_over) and bool(out.turn_passes) and bool(state.equalizing)
    assert int(state.current_player) == 1 and list(np.asarray(state.innings)) == [12, 12]
    sp = spots(p)
    # from the starting position, the equalizing player in the breaker's place
    assert np.allclose(state.positions[2], sp["top"]) and np.allclose(state.positions[0], sp["head"][1])
    assert np.allclose(state.positions[1], sp["head"][0])


def test_C_8_3_equalizing_inning_that_falls_short_loses():
    r, p = make("one_cushion")
    s = state_with(r, p, positions=FREE, current_player=1, breaker=0, scores=[100, 97], equalizing=True,
                   first_carom_pending=False)
    state, out = judge(r, p, s, ["cushion", "ball 0", "ball 2"])
    assert int(out.shot_value) == 1 and not bool(out.game_over)
    state, out = judge(r, p, state, ["ball 0"], final=FREE)
    assert bool(out.game_over) and int(out.winner) == 0 and not bool(out.draw)


def test_C_8_4_equalizing_inning_reaching_the_distance_is_a_draw():
    r, p = make("one_cushion")
    s = state_with(r, p, positions=FREE, current_player=1, breaker=0, scores=[100, 99], equalizing=True,
                   first_carom_pending=False)
    state, out = judge(r, p, s, ["cushion", "ball 0", "ball 2"])
    assert bool(out.game_over) and bool(out.draw) and int(out.winner) == -1
    assert list(np.asarray(state.scores)) == [100, 100]


def test_C_8_3_without_equalizing_inning_the_breaker_wins_at_once():
    state, out = play("one_cushion", steps=("cushion", "ball 1", "ball 2"), scores=[99, 0], breaker=0,
                      options=dict(equalizing_inning=False))
    assert bool(out.game_over) and int(out.winner) == 0


# ---- C-9 fouls ------------------------------------------------------------------------------

def test_C_9_2_a_no_carom_is_empty_and_passes_the_turn():
    state, out = play(steps=("cushion", "ball 1"), run=4, scores=[10, 3])
    assert int(out.reason) == Reason.EMPTY and bool(out.foul) and int(out.call) == Call.EMPTY
    assert bool(out.turn_passes) and list(np.asarray(state.scores)) == [10, 3] and int(state.run) == 0
    words = rules.call_words(out, "straight_rail")
    assert words.startswith("empty, no point") and "üres" not in words  # the carom games speak English


def test_C_9_1_and_C_9_2_b_a_jumped_ball_voids_the_carom():
    state, out = play(steps=("ball 2", "ball 1", "off 1"))
    assert bool(out.carom) and int(out.reason) == Reason.JUMPED and int(out.shot_value) == 0
    assert bool(out.foul) and bool(out.turn_passes) and "jumped" in rules.call_words(out, "straight_rail")


def test_C_6_2_a_ball_not_on_the_table_at_the_end_has_jumped():
    r, p = make("straight_rail")
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)
    state, out = judge(r, p, s, ["ball 2", "ball 1"], on_table=[True, True, False])
    assert int(out.reason) == Reason.JUMPED and list(np.asarray(out.jumped)) == [False, False, True]


def test_C_9_2_j_playing_the_opponents_ball():
    r, p = make("straight_rail")
    s = state_with(r, p, positions=FREE, current_player=0, scores=[5, 2], run=5, first_carom_pending=False)
    final = FREE + 0.05
    events = script(1, "ball 0", "ball 2")  # the yellow was struck
    state, out = judge(r, p, s, events, final=final)
    assert int(out.reason) == Reason.WRONG_BALL and bool(out.turn_passes) and int(out.shot_value) == 0
    assert list(np.asarray(state.scores)) == [5, 2]  # points made until then count
    assert np.allclose(state.positions, final)  # balls stay where they are
    assert "the opponent's ball" in rules.call_words(out, "straight_rail")


# ---- C-13 cushion games ---------------------------------------------------------------------

@pytest.mark.parametrize("steps, scores", [
    (("ball 1", "ball 2"), False),
    (("cushion", "ball 1", "ball 2"), True),
    (("ball 1", "cushion", "ball 2"), True),
    (("ball 1", "ball 2", "cushion"), False),
])
def test_C_13_1_one_cushion_before_the_carom_is_completed(steps, scores):
    state, out = play("one_cushion", steps=steps)
    assert bool(out.carom)
    assert int(out.reason) == (Reason.SCORED if scores else Reason.TOO_FEW_CUSHIONS)


def test_C_13_2_two_cushions_is_no_point():
    state, out = play("three_cushion", steps=("cushion", "ball 2", "cushion", "ball 1"))
    assert int(out.reason) == Reason.TOO_FEW_CUSHIONS and int(out.cushions) == 2 and bool(out.foul)


def test_C_13_2_three_cushions_before_the_second_ball_score():
    state, out = play("three_cushion", steps=("cushion", "cushion", "ball 2", "cushion", "ball 1"))
    assert int(out.reason) == Reason.SCORED and int(out.cushions) == 3


def test_C_13_2_one_cushion_three_times_counts():
    state, out = play("three_cushion", steps=("ball 2", "cushion top", "cushion top", "cushion top", "ball 1"))
    assert int(out.reason) == Reason.SCORED


def test_C_13_2_cushions_after_the_carom_do_not_count():
    state, out = play("three_cushion", steps=("ball 2", "cushion", "cushion", "ball 1", "cushion"))
    assert int(out.reason) == Reason.TOO_FEW_CUSHIONS


def test_C_13_2_three_cushions_all_before_the_first_ball_count():
    state, out = play("three_cushion", steps=("cushion", "cushion", "cushion", "ball 2", "ball 1"))
    assert int(out.reason) == Reason.SCORED and int(out.cushions) == 3


def test_C_13_2_the_carom_is_completed_at_the_first_touch_of_the_second_ball():
    # red, yellow: the carom is complete; three cushions and the yellow again come too late
    state, out = play("three_cushion", steps=("ball 2", "ball 1", "cushion", "cushion", "cushion", "ball 1"))
    assert int(out.reason) == Reason.TOO_FEW_CUSHIONS and int(out.cushions) == 0
    # touching the first object ball again before the cushions changes nothing
    state, out = play("three_cushion", steps=("ball 2", "cushion", "cushion", "cushion", "ball 2", "ball 1"))
    assert int(out.reason) == Reason.SCORED and int(out.cushions) == 3


def test_C_13_2_only_the_cue_balls_cushions_count():
    r, p = make("three_cushion")
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)
    events = script(0, "ball 2", "cushion", "ball 1")  # the white: one cushion
    events += [event(EventKind.BALL_CUSHION, t, b, cushion=c) for t, b, c in
               ((0.12, 2, 1), (0.14, 2, 3), (0.16, 2, 0), (0.18, 2, 2))]  # the red: four
    state, out = judge(r, p, s, events)
    assert int(out.reason) == Reason.TOO_FEW_CUSHIONS and int(out.cushions) == 1


def test_O_7_both_balls_at_once_need_the_cushions_before_the_earlier_touch():
    r, p = make("three_cushion")
    tol = float(r.time_tolerance)
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)

    def shot(yellow_after_red):
        return [event(EventKind.CUE_STRIKE, 0.0, 0), event(EventKind.BALL_CUSHION, 0.2, 0, cushion=2),
                event(EventKind.BALL_CUSHION, 0.4, 0, cushion=1),
                event(EventKind.BALL_CUSHION, 1.0 - 0.5 * tol, 0, cushion=3),
                event(EventKind.BALL_BALL, 1.0, 0, 2), event(EventKind.BALL_BALL, 1.0 + yellow_after_red, 0, 1)]

    # red and yellow within the tolerance: one moment, which the third cushion is not clearly before
    state, out = judge(r, p, s, shot(0.8 * tol))
    assert int(out.reason) == Reason.TOO_FEW_CUSHIONS and int(out.cushions) == 2
    # the yellow clearly after: the carom is completed then, and all three cushions came before it
    state, out = judge(r, p, s, shot(2 * tol))
    assert int(out.reason) == Reason.SCORED and int(out.cushions) == 3


def test_O_7_third_cushion_at_the_same_time_as_the_second_ball_does_not_count():
    state, out = play("three_cushion", steps=("ball 2", "cushion", "cushion", "cushion", "=ball 1"))
    assert int(out.reason) == Reason.TOO_FEW_CUSHIONS


def test_O_7_both_balls_at_once_after_three_cushions_is_a_carom():
    state, out = play("three_cushion", steps=("cushion", "cushion", "cushion", "ball 2", "=ball 1"))
    assert int(out.reason) == Reason.SCORED


# ---- frozen balls (C-5, C-12.7, C-13.3, O-3) ------------------------------------------------

def frozen_layout(gap=5e-5):
    """White frozen to the red (centres 2R + gap apart), yellow far."""
    return np.array([[1.0, 0.7], [2.0, 1.1], [1.0 + 2 * R + gap, 0.7]])


def test_O_3_frozen_means_closer_than_2R_plus_a_tenth_of_a_millimetre():
    r, p = make("three_cushion")
    s = state_with(r, p, positions=frozen_layout(5e-5), current_player=0)
    assert list(np.asarray(s.frozen_balls)) == [False, False, True]
    s = state_with(r, p, positions=frozen_layout(2e-4), current_player=0)
    assert not np.any(np.asarray(s.frozen_balls))


def test_C_13_3_a_frozen_balls_offer_a_respot_and_three_cushion_moves_only_those():
    r, p = make("three_cushion")
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)
    state, out = judge(r, p, s, ["cushion", "cushion", "cushion", "ball 2", "ball 1"], final=frozen_layout())
    assert bool(out.frozen_warning) and bool(state.may_respot)
    assert "the balls are frozen" in rules.call_words(out, "three_cushion")
    chosen = rules.choose_respot(r, state, True, p)
    sp = spots(p)
    # rule C-13.4 b: red to the top spot, the shooter's ball to the middle head-string spot
    assert np.allclose(chosen.positions[2], sp["top"]) and np.allclose(chosen.positions[0], sp["head"][1])
    assert np.allclose(chosen.positions[1], frozen_layout()[1])  # the free ball stays
    assert not bool(chosen.may_respot) and not np.any(np.asarray(chosen.frozen_balls))
    declined = rules.choose_respot(r, state, False, p)
    assert np.allclose(declined.positions, state.positions) and not bool(declined.may_respot)


def test_C_13_3_b_one_cushion_respots_all_three_to_the_starting_position():
    r, p = make("one_cushion")
    s = state_with(r, p, positions=frozen_layout(), current_player=0, may_respot=True)
    chosen = rules.choose_respot(r, s, True, p)
    sp = spots(p)
    assert np.allclose(chosen.positions[2], sp["top"]) and np.allclose(chosen.positions[0], sp["head"][0])
    assert np.allclose(chosen.positions[1], sp["head"][1])


def test_C_13_3_c_release_masse_must_not_move_the_frozen_ball_at_once():
    r, p = make("three_cushion")
    s = state_with(r, p, positions=frozen_layout(), current_player=0, first_carom_pending=False)
    pushed = [event(EventKind.CUE_STRIKE, 0.0, 0), event(EventKind.BALL_BALL, 1e-4, 0, 2)]
    pushed += script(0, "cushion", "cushion", "cushion", "ball 1", strike=False, start=0.2)
    state, out = judge(r, p, s, pushed)
    assert int(out.reason) == Reason.FROZEN_BALL_MOVED and bool(out.foul)
    # the massé curves away and comes back: the frozen ball may be the first ball hit
    masse = script(0, "ball 2", "cushion", "cushion", "cushion", "ball 1", dt=0.2)
    state, out = judge(r, p, s, masse)
    assert int(out.reason) == Reason.SCORED


def test_C_13_3_b_playing_the_free_ball_from_a_frozen_position():
    r, p = make("one_cushion")
    s = state_with(r, p, positions=frozen_layout(), current_player=0, first_carom_pending=False)
    state, out = judge(r, p, s, ["ball 1", "cushion", "ball 2"])
    assert int(out.reason) == Reason.SCORED


# ---- C-13.4 jumped balls --------------------------------------------------------------------

def test_C_13_4_a_one_cushion_jumped_ball_all_three_to_the_starting_position():
    state, out = play("one_cushion", steps=("cushion", "ball 2", "off 2"), final=FREE)
    sp = spots(make("one_cushion")[1])
    # the turn passed to player 1: his ball takes the breaker's place
    assert int(state.current_player) == 1
    assert np.allclose(state.positions[1], sp["head"][0]) and np.allclose(state.positions[0], sp["head"][1])
    assert np.allclose(state.positions[2], sp["top"])


def test_C_13_4_b_three_cushion_jumped_balls_to_their_spots():
    r, p = make("three_cushion")
    sp = spots(p)
    for jumped, where in [(2, "top"), (0, "centre"), (1, "head")]:
        s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)
        state, out = judge(r, p, s, ["cushion", "ball 2", f"off {jumped}"])
        # next shooter is player 1: his ball (yellow) to the head string, white (the
        # opponent's) to the centre, red to the top spot; the others stay
        target = sp[where][1] if where == "head" else sp[where]
        assert np.allclose(state.positions[jumped], target), jumped
        for b in range(3):
            if b != jumped:
                assert np.allclose(state.positions[b], FREE[b])


def test_C_13_4_c_a_taken_spot_sends_the_ball_to_the_spot_of_the_ball_on_it():
    r, p = make("three_cushion")
    sp = spots(p)
    final = np.array([[0.5, 0.4], [1.5, 1.0], [0.0, 0.0]])
    final[0] = sp["top"] + [0.02, 0.0]  # the white covers the red's spot
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)
    state, out = judge(r, p, s, ["cushion", "ball 2", "off 2"], final=final)
    # white is the fouling player's ball: its spot is the table centre
    assert np.allclose(state.positions[2], sp["centre"])
    assert np.allclose(state.positions[0], final[0])


def test_C_13_4_c_the_spot_of_the_ball_on_the_spot_can_be_taken_too():
    r, p = make("three_cushion")
    sp = spots(p)
    # the next shooter is player 1: yellow's spot is the head-string middle, white's the centre
    final = np.array([sp["top"] + [0.01, 0.0], sp["centre"] + [0.0, -0.02], [0.0, 0.0]])
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)
    state, out = judge(r, p, s, ["cushion", "ball 2", "off 2"], final=final)
    # red's spot is taken by the white, the white's by the yellow: the red goes to the yellow's
    assert np.allclose(state.positions[2], sp["head"][1])
    assert np.allclose(state.positions[:2], final[:2])


def test_C_13_4_d_all_three_jumped_go_to_the_three_cushion_spots():
    r, p = make("three_cushion")
    sp = spots(p)
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)
    state, out = judge(r, p, s, ["ball 2", "off 0", "off 1", "off 2"])
    assert np.allclose(state.positions[2], sp["top"]) and np.allclose(state.positions[1], sp["head"][1])
    assert np.allclose(state.positions[0], sp["centre"])
    assert not bool(state.may_choose_side)  # not the starting position


def test_C_13_4_a_ball_that_jumps_and_hits_another_only_the_jumped_ball_is_respotted():
    r, p = make("three_cushion")
    sp = spots(p)
    final = FREE + [[0.1, 0.0], [0.0, 0.0], [0.2, 0.1]]
    s = state_with(r, p, positions=FREE, current_player=0, first_carom_pending=False)
    state, out = judge(r, p, s, ["cushion", "ball 1", "off 1", "balls 1-2"], final=final)
    assert np.allclose(state.positions[1], sp["head"][1])  # yellow, the next shooter's ball
    assert np.allclose(state.positions[2], final[2]) and np.allclose(state.positions[0], final[0])
    assert list(np.asarray(out.respotted)) == [False, True, False]


# ---- C-14 referee ---------------------------------------------------------------------------

def test_C_14_1_countdown_of_the_last_points():
    state, out = play("three_cushion", steps=("cushion", "cushion", "cushion", "ball 2", "ball 1"), scores=[36, 0],
                      breaker=1)
    assert int(out.countdown) == 3 and "last 3 to come" in rules.call_words(out, "three_cushion")
    state, out = play("three_cushion", steps=("cushion", "cushion", "cushion", "ball 2", "ball 1"), scores=[35, 0],
                      breaker=1)
    assert int(out.countdown) == 0
    state, out = play("one_cushion", steps=("cushion", "ball 2", "ball 1"), scores=[94, 0], breaker=1)
    assert int(out.countdown) == 5


def test_C_14_1_zero_is_announced():
    state, out = play(steps=("ball 2",))
    assert int(out.call) == Call.EMPTY and rules.call_words(out, "straight_rail").startswith("empty")


# ---- C-1 the lag ----------------------------------------------------------------------------

def lag_shot(r, p, s, extra=(), x=(0.3, 0.5), white=("top",), yellow=("top",)):
    events = [event(EventKind.CUE_STRIKE, 0.0, 0), event(EventKind.CUE_STRIKE, 0.0, 1)]
    for ball, cushions in ((0, white), (1, yellow)):
        for k, c in enumerate(cushions):
            cushion = {"top": 1, "bottom": 0, "right": 2, "left": 3}[c]
            events.append(event(EventKind.BALL_CUSHION, 1.0 + k, ball, cushion=cushion))
    events += list(extra)
    final = np.array([[x[0], 0.5], [x[1], 0.9], np.asarray(p.table.top_spot)])
    return judge(r, p, s, events, final=final)


def test_C_1_1_lag_layout():
    r, p = make("three_cushion", lag=True)
    s = rules.init_game(r, __import__("jax").random.PRNGKey(0), p)
    hs = spots(p)["head"]
    assert int(s.phase) == rules.Phase.LAG
    assert np.allclose(s.positions[0], hs[0]) and np.allclose(s.positions[1], hs[2])
    assert np.allclose(s.positions[2], spots(p)["top"])


def test_C_1_2_ball_nearer_the_bottom_cushion_wins_the_choice():
    r, p = make("three_cushion", lag=True)
    s = rules.init_game(r, __import__("jax").random.PRNGKey(0), p)
    state, out = lag_shot(r, p, s, x=(0.4, 0.2))
    assert int(out.reason) == Reason.LAG_DECIDED and int(out.lag_winner) == 1
    assert int(state.phase) == rules.Phase.PLAY and int(state.breaker) == 1 and bool(state.may_choose_breaker)
    chosen = rules.choose_breaker(r, state, 0, p)
    assert int(chosen.breaker) == 0 and int(chosen.current_player) == 0
    assert np.allclose(chosen.positions[0], spots(p)["head"][0])


@pytest.mark.parametrize("case", ["collide", "tie", "both_foul"])
def test_C_1_3_lag_is_repeated(case):
    r, p = make("three_cushion", lag=True)
    s = rules.init_game(r, __import__("jax").random.PRNGKey(0), p)
    if case == "collide":
        state, out = lag_shot(r, p, s, extra=[event(EventKind.BALL_BALL, 1.5, 0, 1)])
        assert int(state.lag_collisions) == 1
    elif case == "tie":
        state, out = lag_shot(r, p, s, x=(0.3, 0.3005))
    else:
        state, out = lag_shot(r, p, s, white=(), yellow=())
    assert int(out.reason) == Reason.LAG_REPEAT and int(state.phase) == rules.Phase.LAG
    assert "the lag is repeated" in rules.call_words(out, "three_cushion")


@pytest.mark.parametrize("foul", ["red", "short", "long_first"])
def test_C_1_4_lag_foul_gives_the_opponent_the_choice(foul):
    r, p = make("three_cushion", lag=True)
    s = rules.init_game(r, __import__("jax").random.PRNGKey(0), p)
    white, extra = ("top",), []
    if foul == "red":
        extra = [event(EventKind.BALL_BALL, 1.2, 0, 2)]
    elif foul == "short":
        white = ()
    else:
        white = ("left", "top")
    # the white stops nearer the bottom cushion, but fouled
    state, out = lag_shot(r, p, s, extra=extra, x=(0.2, 0.6), white=white)
    assert int(out.reason) == Reason.LAG_FOUL and int(out.lag_winner) == 1 and bool(out.foul)
