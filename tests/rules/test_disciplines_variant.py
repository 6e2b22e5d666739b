"""A discipline is its row of the table and nothing else: variants registered at run time
(``rules.register_discipline``) are played by every layer, with the table and the pin their row
names. Two variants: the pin game to 500 points, and three-cushion on the Hungarian 1:2 table.

Staged runs (``tests.support.env``): the pin game's physics is the Hungarian game's, and the
small-table three-cushion adds one physics compile (the Hungarian table without a pin).
"""
from __future__ import annotations

import ast
from pathlib import Path

import gymnasium as gym
import jax
import numpy as np
import pytest

import billiards_env
import physics
import rules
from billiards_env.params import replace
from billiards_env.pettingzoo_env import BilliardsAECEnv
from rules import disciplines
from tests.support.env import check_state, random_actions, runner

PIN_GAME = "pin_500"
SMALL_THREE_CUSHION = "three_cushion_small"
# Ball 0 (the red in the pin game, H-3.1; the white in three-cushion, C-3.4) 40 cm short of the
# centre spot on the long axis, the other two balls well off that line.
LAYOUT = [[0.65, 0.525], [0.3, 0.2], [0.3, 0.85]]
STRAIGHT_AT_CENTRE = np.array([0.0, -0.6, -1.0, 0, 0, 0, 0, 0, 0], np.float32)  # phi 0, 2.4 m/s, flat


ROOT = Path(__file__).resolve().parents[2]
# The library and the experiments' shared helpers; the experiments themselves may name disciplines to run.
LIBRARY = ("physics", "rules", "aiming", "billiards_env", "agents")
SCANNED = [p for pkg in LIBRARY for p in sorted((ROOT / pkg).rglob("*.py"))
           if p != ROOT / "rules" / "disciplines.py"] + [ROOT / "experiments" / "common.py"]


def id_comparisons(source: str) -> list[str]:
    """Discipline ids that ``source`` compares with (==, !=, in) or keys a dict literal by: the
    identity that belongs in the table's columns."""
    found = []
    for node in ast.walk(ast.parse(source)):
        operands = ([node.left, *node.comparators] if isinstance(node, ast.Compare)
                    else [k for k in node.keys if k is not None] if isinstance(node, ast.Dict) else [])
        for operand in operands:
            strings = operand.elts if isinstance(operand, (ast.Tuple, ast.List, ast.Set)) else [operand]
            found += [s.value for s in strings if isinstance(s, ast.Constant) and s.value in rules.DISCIPLINES]
    return found


def test_no_package_compares_a_discipline_id_outside_the_table():
    offences = {str(p.relative_to(ROOT)): id_comparisons(p.read_text(encoding="utf-8")) for p in SCANNED}
    assert {path: ids for path, ids in offences.items() if ids} == {}
    planted = ('a = d == "hungarian_1000"\nb = x in ("three_cushion", "pool")\n'
               'c = {"straight_rail": 1}\ne = d == "pool"\n')
    assert id_comparisons(planted) == ["hungarian_1000", "three_cushion", "straight_rail"]


@pytest.fixture(scope="module", autouse=True)
def variants():
    rules.register_discipline(PIN_GAME, base="hungarian_1000", gym_name="Pin500", distance=500)
    rules.register_discipline(SMALL_THREE_CUSHION, base="three_cushion", gym_name="ThreeCushionSmall",
                              table="hungarian")
    billiards_env.register_all()


def test_rows_of_the_variants_and_the_rules_built_from_them():
    pin_game, small = rules.make_rules(PIN_GAME), rules.make_rules(SMALL_THREE_CUSHION)
    pin_row, small_row = disciplines.get(PIN_GAME), disciplines.get(SMALL_THREE_CUSHION)
    assert int(pin_game.distance) == 500 and pin_game.is_hungarian and pin_game.pin and pin_row.pin
    assert pin_row.table == "hungarian" and int(pin_game.jumped_respot) == rules.codes.JumpedRespot.BASE_SPOTS
    assert int(small.distance) == 40 and int(small.cushions_required) == 3 and not small.is_hungarian
    assert small_row.table == "hungarian" and not small.pin and not small_row.pin
    assert disciplines.matching(small) == ("three_cushion", SMALL_THREE_CUSHION)
    assert disciplines.ids()[-2:] == (PIN_GAME, SMALL_THREE_CUSHION)
    assert rules.DISCIPLINES == disciplines.ids()[:7]  # the seven of docs/rules.md stay as they are
    # registering the same row again changes nothing (other tests of the process may have registered
    # rows of their own, so the count is compared, not assumed)
    count = len(disciplines.ids())
    again = rules.register_discipline(PIN_GAME, base="hungarian_1000", gym_name="Pin500", distance=500)
    assert again == disciplines.get(PIN_GAME) and len(disciplines.ids()) == count


@pytest.mark.parametrize("changes, words", [
    (dict(pin=True), "column pin must be False for the carom family"),
    (dict(table="snooker"), "column table must be one of match, hungarian"),
    (dict(family="pool"), "column family must be one of carom, hungarian"),
    (dict(distance=0), "column distance must be an integer >= 1"),
    (dict(colour="blue"), "unknown column.*colour.*valid: clause, family"),
])
def test_register_discipline_refuses_a_row_no_referee_can_play(changes, words):
    with pytest.raises(ValueError, match=words):
        rules.register_discipline("bad_variant", base="three_cushion", gym_name="BadVariant", **changes)
    assert "bad_variant" not in disciplines.ids()


def test_register_discipline_refuses_taken_names():
    with pytest.raises(ValueError, match="discipline 'three_cushion' is already registered"):
        rules.register_discipline("three_cushion", base="three_cushion", gym_name="ThreeCushion", distance=50)
    with pytest.raises(ValueError, match="gym_name 'Pin500' is already used by discipline 'pin_500'"):
        rules.register_discipline("other_pin_game", base="hungarian_1000", gym_name="Pin500")
    with pytest.raises(ValueError, match="unknown discipline 'snooker'; valid disciplines: three_cushion"):
        rules.register_discipline("snooker_500", base="snooker", gym_name="Snooker500")


def test_the_table_chooses_the_physics_table_and_the_pin():
    for discipline, pin in ((PIN_GAME, True), (SMALL_THREE_CUSHION, False)):
        params = billiards_env.default_params(discipline)
        table = params.physics.table
        assert table.kind == "hungarian" and (float(table.length), float(table.width)) == (2.10, 1.05)
        assert billiards_env.make_functional(discipline).config.pin is pin
        ruleset, phys = billiards_env.setup(discipline)
        assert phys.table.kind == "hungarian" and discipline in rules.disciplines.matching(ruleset)
    assert billiards_env.make_functional("hungarian_1000").config.pin is True
    assert billiards_env.make_functional("three_cushion").config.pin is False


def _inning(discipline):
    env = billiards_env.make_functional(discipline, "inning", layout=LAYOUT)
    run = runner(env)
    state = run.reset(jax.random.PRNGKey(0), env.default_params)
    assert np.allclose(np.asarray(state.game.positions), LAYOUT) and int(state.game.cue_ball) == 0
    return env, run, state


def test_H_3_3_and_H_4_8_pin_game_to_500_knocks_the_pin_in_the_physics_and_ends_at_500():
    """H-4.8, H-9.7: the cue ball knocking the pin is a foul whose points go to the opponent; with
    495 on his board they pass this variant's distance (H-3.3 with distance 500) and end the game."""
    env, run, state = _inning(PIN_GAME)
    state = replace(state, game=replace(state.game, scores=np.array([0, 495], np.int32)))
    after, result = run.step(state, STRAIGHT_AT_CENTRE, jax.random.PRNGKey(1), env.default_params)
    kinds = [event["kind"] for event in physics.event_list(result)]
    assert bool(result.pin_present) and kinds[:3] == ["cue_strike", "ball_pin", "pin_down"]
    assert bool(after.outcome.foul) and int(after.game.scores[1]) >= 500 > 495
    assert bool(after.game.game_over) and int(after.game.winner) == 1 and bool(after.terminated)
    check_state(after)


def test_O_2_three_cushion_on_the_small_table_plays_without_a_pin():
    """O-2 puts the carom disciplines on the match table; this variant's row names the 1:2 table, and
    the shot through the centre spot meets no pin there."""
    env, run, state = _inning(SMALL_THREE_CUSHION)
    after, result = run.step(state, STRAIGHT_AT_CENTRE, jax.random.PRNGKey(1), env.default_params)
    kinds = [event["kind"] for event in physics.event_list(result)]
    assert not bool(result.pin_present) and "ball_pin" not in kinds and "pin_down" not in kinds
    assert "ball_cushion" in kinds and int(np.sum(after.outcome.points)) == 0  # no object ball on the line
    # a few random shots from random layouts on the same compiled stages
    state = run.reset(jax.random.PRNGKey(2), replace(env.default_params, layout_given=np.asarray(False)))
    for i in range(3):
        state, _ = run.step(state, random_actions(jax.random.PRNGKey(10 + i)), jax.random.PRNGKey(20 + i),
                            env.default_params)
        check_state(state)


@pytest.mark.parametrize("discipline", [PIN_GAME, SMALL_THREE_CUSHION])
def test_gymnasium_and_pettingzoo_play_the_variant_by_its_gym_id(discipline):
    env_id = billiards_env.env_id(discipline)
    assert env_id == f"billiards_env/{disciplines.get(discipline).gym_name}-v0"
    assert billiards_env.discipline_of(env_id) == discipline
    env = gym.make(env_id, fused=False, render_mode="rgb_array")
    obs, _ = env.reset(seed=3)
    assert obs in env.observation_space
    _, reward, terminated, _, info = env.step(env.action_space.sample())
    assert terminated and info["events"][0]["kind"] == "cue_strike" and type(reward) is float
    assert env.unwrapped.params.physics.table.kind == "hungarian"
    image = env.render()
    assert image.ndim == 3 and image.shape[1:] == (640, 3) and image.dtype == np.uint8
    aec = BilliardsAECEnv(env_id, fused=False)
    assert aec.functional.discipline == discipline and aec.params.physics.table.kind == "hungarian"
    assert aec.functional.config.pin is disciplines.get(discipline).pin
