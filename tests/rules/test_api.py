"""The rules API: the discipline table, options and bad input, jit / vmap behaviour, void shots,
finished games, and the calls in words."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import rules
from agents.base import index_tree
from rules import Reason
from tests.support.shot_logs import build_shot, script, stack
from tests.support.rules import BATCH_REFEREE, INIT, REFEREE, judge, make, state_with

FREE = np.array([[0.5, 0.4], [1.5, 1.0], [2.2, 0.6]])


def test_discipline_ids_follow_the_design_table():
    assert rules.DISCIPLINES == ("three_cushion", "one_cushion", "straight_rail", "balkline_47_2",
                                 "balkline_47_1", "balkline_71_2", "hungarian_1000")


@pytest.mark.parametrize("discipline, distance", [("three_cushion", 40), ("one_cushion", 100),
                                                  ("straight_rail", 300), ("balkline_47_2", 200),
                                                  ("balkline_47_1", 150), ("balkline_71_2", 200),
                                                  ("hungarian_1000", 1000)])
def test_O_1_default_game_distances(discipline, distance):
    assert int(rules.make_rules(discipline).distance) == distance


def test_discipline_differences_are_data():
    r = {d: rules.make_rules(d) for d in rules.DISCIPLINES}
    assert int(r["three_cushion"].cushions_required) == 3  # C-13.2
    assert int(r["one_cushion"].cushions_required) == 1  # C-13.1
    assert int(r["straight_rail"].cushions_required) == 0
    assert int(r["balkline_47_2"].field_limit) == 2 and int(r["balkline_47_1"].field_limit) == 1  # C-12.3, C-12.4
    assert int(r["balkline_71_2"].field_limit) == 2 and int(r["straight_rail"].field_limit) == 2  # C-12.6, C-11.2
    assert float(r["balkline_47_2"].line_distance) == 0.47 and float(r["balkline_71_2"].line_distance) == 0.71
    assert float(r["balkline_47_2"].anchor_fraction) == 1 / 8  # C-12.2 b
    assert int(r["three_cushion"].countdown_from) == 3 and int(r["one_cushion"].countdown_from) == 5  # C-14.1
    # the columns and options are pytree leaves, only the family is static: one treedef (one
    # compiled referee) for the six carom disciplines
    leaves, treedef = jax.tree_util.tree_flatten(r["balkline_47_2"])
    assert len(leaves) == 25 and "carom" in str(treedef)
    carom = {jax.tree_util.tree_structure(r[d]) for d in rules.DISCIPLINES if d != "hungarian_1000"}
    assert carom == {treedef} and jax.tree_util.tree_structure(r["hungarian_1000"]) != treedef


def test_unknown_discipline_lists_the_valid_ones():
    with pytest.raises(ValueError) as err:
        rules.make_rules("snooker")
    for d in rules.DISCIPLINES:
        assert d in str(err.value)


@pytest.mark.parametrize("options, words", [
    (dict(colour="red"), "unknown option"),
    (dict(scoring_mode=2), "unknown option"),  # not a carom option
    (dict(distance=0), "distance"),
    (dict(distance=2.5), "integer"),
    (dict(distance="40"), "number"),
    (dict(time_tolerance=-1.0), "time_tolerance"),
    (dict(time_tolerance=float("nan")), "finite"),
    (dict(equalizing_inning=2), "True or False"),
    (dict(cushions_required=-1), "cushions_required"),
])
def test_bad_options_raise(options, words):
    with pytest.raises(ValueError) as err:
        rules.make_rules("three_cushion", **options)
    assert words in str(err.value)


def test_bad_hungarian_and_balkline_options_raise():
    with pytest.raises(ValueError, match="1, 2 or 3"):
        rules.make_rules("hungarian_1000", scoring_mode=4)
    with pytest.raises(ValueError, match="unknown option"):
        rules.make_rules("hungarian_1000", lag=True)
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        rules.make_rules("balkline_47_2", anchor_fraction=1.5)
    with pytest.raises(ValueError, match="valid:.*line_distance"):
        rules.make_rules("balkline_47_2", corner_long_leg=0.5)
    assert "scoring_mode" in rules.valid_options("hungarian_1000")


def test_init_and_referee_jit_and_vmap():
    r, p = make("three_cushion")
    keys = jax.random.split(jax.random.PRNGKey(0), 8)
    states = jax.jit(jax.vmap(rules.init_game, in_axes=(None, 0, None)))(r, keys, p)
    assert states.positions.shape == (8, 3, 2) and states.scores.dtype == jnp.int32
    assert set(np.asarray(states.breaker).tolist()) == {0, 1}
    # a batch of shots gives what the single shots give
    singles = []
    shots = []
    for k in range(8):
        s = index_tree(states, k)
        cue = int(s.cue_ball)
        steps = ("cushion",) * (k % 4) + ("ball 2", f"ball {1 - cue}")
        shot = build_shot(script(cue, *steps), np.asarray(s.positions))
        shots.append(shot)
        singles.append(REFEREE(r, s, shot, p))
    batch_states, batch_out = BATCH_REFEREE(r, states, stack(shots), p)
    for k, (s1, o1) in enumerate(singles):
        for a, b in zip(jax.tree_util.tree_leaves((s1, o1)), jax.tree_util.tree_leaves((batch_states, batch_out))):
            assert np.array_equal(np.asarray(a), np.asarray(b)[k])
    assert [int(v) for v in np.asarray(batch_out.shot_value)] == [0, 0, 0, 1, 0, 0, 0, 1]


def test_rule_options_vmap():
    """One compiled referee over a batch of scoring modes (H-9.9)."""
    r, p = make("hungarian_1000")
    modes = jnp.asarray([1, 2, 3], jnp.int32)
    batch_rules = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (3,) + x.shape), r)
    batch_rules = rules.options.Rules(**{**vars(batch_rules), "scoring_mode": modes})
    s = state_with(r, p, positions=np.array([[0.7, 0.3], [1.4, 0.8], [1.6, 0.3]]), current_player=0,
                   ball_in_hand=False, run=50)
    shot = build_shot(script(0, "cushion"), np.asarray(s.positions))
    f = jax.vmap(rules.referee, in_axes=(0, None, None, None))
    states, outs = jax.jit(f)(batch_rules, s, shot, p)
    assert np.asarray(states.scores).tolist() == [[0, 50], [0, 0], [50, 10]]


@pytest.mark.parametrize("status, overflow", [(1, True), (2, False), (4, False)])
def test_a_shot_with_a_bad_status_is_void(status, overflow):
    r, p = make("one_cushion")
    s = state_with(r, p, positions=FREE, current_player=1, scores=[3, 4], run=2, first_carom_pending=False)
    state, out = judge(r, p, s, ["cushion", "ball 0", "ball 2", "off 2"], final=FREE + 9.0,
                       status=status, overflow=overflow)
    assert int(out.reason) == Reason.INVALID_SHOT and not bool(out.turn_passes) and not bool(out.foul)
    assert np.asarray(out.points).tolist() == [0, 0]
    # the streak of void shots grows; a layout the physics refused is checked and re-laid, which
    # counts as a repair even when (as here) nothing had to move
    counted = {"shots": 1, "void_streak": 1, "repairs": int(status == 4)}
    for name in vars(s):
        expected = np.asarray(getattr(s, name)) + counted.get(name, 0)
        assert np.array_equal(np.asarray(getattr(state, name)), expected), name


@pytest.mark.parametrize("discipline", ["straight_rail", "hungarian_1000"])
def test_refereeing_a_finished_game_is_a_no_op(discipline):
    r, p = make(discipline)
    s = state_with(r, p, game_over=True, winner=0, current_player=1)
    state, out = judge(r, p, s, ["ball 2", "ball 0"])
    assert int(out.reason) == Reason.GAME_OVER and bool(out.game_over) and int(out.winner) == 0
    for a, b in zip(jax.tree_util.tree_leaves(state), jax.tree_util.tree_leaves(s)):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_call_words_takes_one_outcome():
    r, p = make("three_cushion")
    s = INIT(r, jax.random.PRNGKey(0), p)
    _, one = REFEREE(r, s, build_shot(script(int(s.cue_ball), "ball 2"), np.asarray(s.positions)), p)
    assert rules.call_words(one, "three_cushion").startswith("empty, no point")
    with pytest.raises(ValueError):
        rules.call_words(stack([one, one]), "three_cushion")
    with pytest.raises(ValueError, match="unknown discipline"):
        rules.call_words(one, "pool")


def test_each_family_speaks_its_own_words():
    """The carom games are called in English, the Hungarian game in Hungarian with the English beside."""
    r, p = make("three_cushion")
    s = INIT(r, jax.random.PRNGKey(0), p)
    _, one = REFEREE(r, s, build_shot(script(int(s.cue_ball), "ball 2"), np.asarray(s.positions)), p)
    assert rules.call_words(one, "three_cushion").startswith("empty, no point")
    assert rules.call_words(one, "hungarian_1000").startswith("üres (empty, no point)")


def test_every_code_has_words():
    from rules import calls
    from rules.codes import Call, PositionCall
    assert set(calls.CALL_WORDS) == set(Call) and set(calls.POSITION_WORDS) == set(PositionCall)
    assert set(calls.REASON_WORDS) == set(Reason)


def test_choices_are_no_ops_when_not_offered_and_jit():
    r, p = make("hungarian_1000")
    s = state_with(r, p, positions=np.array([[0.7, 0.3], [1.4, 0.8], [1.6, 0.3]]), current_player=0,
                   ball_in_hand=False, base_spot_ball=-1)
    for f, arg in ((rules.place_cue_ball, 0.3), (rules.choose_base_spot, 1)):
        out = jax.jit(f)(r, s, arg, p)
        assert np.allclose(out.positions, s.positions)
    rc, pc = make("three_cushion")
    sc = state_with(rc, pc, positions=FREE, current_player=0, may_respot=False, may_choose_side=False,
                    may_choose_breaker=False)
    for f, arg in ((rules.choose_respot, True), (rules.choose_start_side, 1), (rules.choose_breaker, 1)):
        out = jax.jit(f)(rc, sc, arg, pc)
        for a, b in zip(jax.tree_util.tree_leaves(out), jax.tree_util.tree_leaves(sc)):
            assert np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("discipline", rules.DISCIPLINES)
def test_state_keeps_its_shapes_and_dtypes(discipline):
    """So that an environment can carry the state through lax.scan and vmap."""
    r, p = make(discipline)
    s = INIT(r, jax.random.PRNGKey(0), p)
    shot = build_shot(script(int(s.cue_ball), "cushion", "ball 2", "ball 1", "off 2"), np.asarray(s.positions))
    new, out = REFEREE(r, s, shot, p)
    for a, b in zip(jax.tree_util.tree_leaves(s), jax.tree_util.tree_leaves(new)):
        assert a.dtype == b.dtype and a.shape == b.shape
    assert jax.tree_util.tree_structure(s) == jax.tree_util.tree_structure(new)
    assert out.points.dtype == jnp.int32 and out.jumped.shape == (3,)


@pytest.mark.parametrize("discipline", ["three_cushion", "hungarian_1000"])
def test_game_from_a_random_layout_is_in_play_and_nothing_is_frozen(discipline):
    # O-3: every ball clear of the others and of the cushions; C-3.4 / H-3.1: the shooter's cue
    # ball; H-2.1: the pin standing on the centre spot.
    ruleset, params = make(discipline)
    keys = jax.random.split(jax.random.PRNGKey(3), 64)
    layouts = jax.vmap(lambda k: rules.random_layout(ruleset, k, params))(keys)
    R, reach = params.ball.radius, params.cushion_reach
    lo = np.asarray(reach)
    hi = np.array([float(params.table.length), float(params.table.width)]) - lo
    pos = np.asarray(layouts)
    assert np.all(pos >= lo) and np.all(pos <= hi)
    for i, j in ((0, 1), (0, 2), (1, 2)):
        assert np.all(np.linalg.norm(pos[:, i] - pos[:, j], axis=-1) > 2 * R + 1e-3)
    assert len({tuple(p.ravel()) for p in pos}) == 64
    for player in (0, 1):
        state = rules.game_from_layout(ruleset, pos[0], params, player)
        assert int(state.current_player) == player and int(state.innings[player]) == 1
        assert int(state.cue_ball) == int(rules.cue_ball_of(ruleset, player))
        assert not bool(state.ball_in_hand) and not bool(state.first_carom_pending)
        assert not np.any(np.asarray(state.frozen_balls)) and not np.any(np.asarray(state.frozen_cushions))
        np.testing.assert_array_equal(np.asarray(state.positions), pos[0])
    if ruleset.is_hungarian:
        assert int(state.pin_state) == int(rules.PinState.STANDING)
        np.testing.assert_allclose(np.asarray(state.pin_position), np.asarray(params.table.centre))
        to_pin = np.linalg.norm(pos - np.asarray(params.table.centre), axis=-1)
        assert np.all(to_pin > R + float(ruleset.pin_radius))
    else:
        assert int(state.pin_state) == int(rules.PinState.NO_PIN)


def test_game_from_a_frozen_layout_flags_it_and_offers_the_respot():
    # O-3 frozen balls; C-13.3 a: three-cushion offers the re-spot when the cue ball is frozen.
    ruleset, params = make("three_cushion")
    d = 2 * params.ball.radius
    pos = np.array([[1.0, 0.7], [1.0 + d, 0.7], [2.0, 0.3]])
    state = rules.game_from_layout(ruleset, pos, params, 0)
    assert np.asarray(state.frozen_balls).tolist() == [False, True, False]
    assert bool(state.may_respot)
