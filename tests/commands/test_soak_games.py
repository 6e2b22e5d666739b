"""The game soak (experiments.soak_games): a few random games per discipline get stuck nowhere,
and a planted stuck game is seen."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import rules
from billiards_env.params import replace
from billiards_env.runner import Runner
from experiments import soak_games

GAMES = 64  # the batch the environment tests compile their stages for (tests/test_env_support.BATCH)
SHOTS = 10


@pytest.mark.parametrize("discipline", rules.DISCIPLINES)
def test_random_games_never_get_stuck(discipline):
    counts = soak_games.run(discipline, GAMES, max_shots=SHOTS, distance=1, batch=GAMES)
    assert counts["games"] == GAMES and counts["stuck"] == 0
    assert GAMES <= counts["shots"] <= GAMES * SHOTS
    assert 0 <= counts["finished"] <= GAMES and counts["distance"] == 1
    assert counts["void_shots"] <= counts["shots"] and counts["repairs"] >= 0


@pytest.mark.slow  # the lines form in "game" mode compiles its own environment
@pytest.mark.parametrize("discipline", ["three_cushion", "hungarian_1000"])
def test_random_candidates_of_the_lines_form_never_get_a_game_stuck(discipline):
    """Every index, masked ones included, plays a shot from every position the game reaches."""
    counts = soak_games.run(discipline, GAMES, max_shots=SHOTS, distance=1, batch=GAMES, action="lines")
    assert counts["games"] == GAMES and counts["stuck"] == 0 and counts["action"] == "lines"
    assert GAMES <= counts["shots"] <= GAMES * SHOTS
    actions = soak_games.random_actions(jax.random.PRNGKey(0), "lines", 4096)
    assert actions.min() == 0 and actions.max() == 131  # the whole range, masked candidates included


def test_a_planted_stuck_game_is_seen():
    env, params = soak_games.make_env("three_cushion", "float64", SHOTS, 1)
    states = Runner(env, GAMES, fused=False, lanes=GAMES, autoreset=False).reset(jax.random.PRNGKey(0), params)
    knot = jnp.asarray([[0.5, 0.4], [1.5, 1.0], [1.51, 1.0]], states.game.positions.dtype)
    game = replace(states.game, positions=states.game.positions.at[0].set(knot))
    tally, _ = soak_games.play_batch(env, params, replace(states, game=game), jax.random.PRNGKey(1), 2)
    assert tally.stuck.tolist() == [True] + [False] * (GAMES - 1)
    assert tally.refused[0] and not tally.nan[0]


def test_the_tally_sees_unchanged_shots_and_nans():
    tally = soak_games.Tally(3)
    live = np.array([True, True, False])
    no = np.zeros(3, bool)
    same = np.array([True, False, True])
    for _ in range(soak_games.STUCK_AFTER - 1):
        tally.add(live, same, no, no, no)
    assert not tally.stuck.any()  # one short of the limit
    tally.add(live, same, no, np.array([False, True, True]), no)
    assert tally.stuck.tolist() == [True, True, False]  # game 2 played no shot
    assert tally.unchanged.tolist() == [True, False, False] and tally.nan.tolist() == [False, True, False]
    assert tally.shots.tolist() == [soak_games.STUCK_AFTER] * 2 + [0]


@pytest.mark.parametrize("name, value", [("discipline", "snooker"), ("games", 0), ("dtype", "float16"),
                                         ("max_shots", 2.5), ("distance", 0), ("seed", -1), ("batch", 0),
                                         ("action", "flick")])
def test_bad_arguments_name_the_argument(name, value):
    arguments = dict(discipline="three_cushion", games=1, dtype="float64", seed=0, max_shots=1, distance=None,
                     batch=1, action="strike")
    arguments[name] = value
    with pytest.raises(ValueError, match=name):
        soak_games.run(**arguments)


def test_main_prints_the_counts_and_a_closing_line(capsys):
    counts = soak_games.main(["--discipline", "three_cushion", "--games", str(GAMES), "--max-shots", "3",
                              "--distance", "1"])
    printed = capsys.readouterr().out.strip().splitlines()
    assert f"games: {GAMES}" in printed[0] and GAMES <= counts["shots"] <= 3 * GAMES
    head = f"three_cushion float64, strike actions, distance 1: {GAMES} games, {counts['shots']} shots"
    assert printed[-1].startswith(head)
    assert printed[-1].endswith("no game stuck")
