"""The round robin (``experiments.tournament``): its arguments refused before any work, its tables
from known games, the shots of a player with a noise of its own (``agents.arena.step_seats``), the
openings from a stored layout set (``agents.arena.opening_states``), and tiny round robins end to
end: one-cushion with a plug-in agent and a club player, three-cushion from the bench-v1 openings
under a rule variant.

The games run as the evaluation tests' do (tests/commands/test_experiments.py): batches padded to
``BATCH`` rows, planning calls of ``BATCH`` states, so that they share its compiled programs.
"""
from __future__ import annotations

import csv
import json

import jax.numpy as jnp
import numpy as np
import pytest

from agents import NOISE_PROFILES, arena
from agents.base import index_tree
from agents.plugin_example import NearestBall
from billiards_env import layouts, setup
from experiments import tournament

BATCH = 8
SMALL = ["--batch", str(BATCH), "--search-shots", str(BATCH), "--no-progress"]
EXAMPLE = "plugin:agents.plugin_example.NearestBall"


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# --- arguments ---------------------------------------------------------------------------------

@pytest.mark.parametrize("agents, words", [
    (["random"], "at least two --agents"),
    (["random", "geometric", " random"], "random given more than once"),
    (["random", "randomm"], "unknown agent 'randomm'"),
    (["random", "geometric@clubb"], "bad player noise"),
    (["random", "plugin:no_such_module.Agent"], "cannot be imported"),
])
def test_bad_agents_are_refused_before_any_game(agents, words, monkeypatch, capsys, tmp_path):
    def no_work(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(arena, "run_games", no_work)
    monkeypatch.setattr(arena, "make_player", no_work)
    with pytest.raises(SystemExit):
        tournament.main(["--agents", *agents, "--out", str(tmp_path), *SMALL])
    assert words in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("extra, words", [
    (["--games", "0"], "--games"), (["--distance", "0"], "distance"), (["--noise", "pro"], "profile"),
    (["--openings", "bench-v2"], "choose from 'start', 'bench-v1'"),
    (["--openings", "bench-v1", "--games", "2001"], "--games 2000 at most"),
    (["--variant", "two"], "NAME:OPTION=VALUE"),
    (["--variant", "two:cushions=2"], "valid: countdown_from, cushions_required, distance"),
    (["--variant", "a:cushions_required=2", "--variant", "b:cushions_required=1"], "give it once"),
])
def test_bad_settings_are_refused(extra, words, capsys, tmp_path):
    with pytest.raises(SystemExit):
        tournament.main(["--agents", "random", "geometric", *extra, "--out", str(tmp_path), *SMALL])
    assert words in capsys.readouterr().err


# --- the tables, from known games ----------------------------------------------------------------

def game(g, first, second, winner, scores, innings, finished=True):
    return dict(game=g, player0=first, player1=second, breaker=g % 2, finished=finished,
                winner=[first, second].index(winner) if finished else -1,
                winner_agent=winner if finished else "unfinished", draw=False, score0=scores[0], score1=scores[1],
                innings0=innings[0], innings1=innings[1], distance=3)


def test_high_runs_and_standings_from_known_games():
    games = [game(0, "a", "b", "a", (3, 1), (4, 4)), game(1, "a", "b", "b", (2, 3), (2, 3)),
             game(2, "a", "b", "b", (0, 1), (5, 5), finished=False)]
    innings = [dict(game=0, player=0, points=2), dict(game=0, player=0, points=1), dict(game=0, player=1, points=1),
               dict(game=1, player=1, points=3), dict(game=1, player=0, points=2)]
    records = tournament.game_records("one_cushion", 0, games, innings)
    assert list(records[0])[:len(tournament.GAME_COLUMNS)] == list(tournament.GAME_COLUMNS)
    assert [(r["high_run0"], r["high_run1"]) for r in records] == [(2, 1), (2, 3), (0, 0)]
    a = tournament.standing("a", records)
    assert (a["games"], a["finished"], a["wins"], a["win_rate"]) == (3, 2, 1, 0.5)
    assert (a["points_for"], a["points_against"], a["best_run"]) == (5, 5, 2)
    assert a["general_average"] == pytest.approx(5 / 11) and a["average_low"] <= 5 / 11 <= a["average_high"]
    b = tournament.standing("b", records)
    assert (b["wins"], b["points_for"], b["best_run"]) == (1, 5, 3)
    rated = tournament.rate_games(["a", "b"], records)
    assert [r["rating"] for r in rated] == pytest.approx([0.0, 0.0], abs=1e-9)  # one win each
    text = tournament.markdown([a, b], rated, dict(discipline="one_cushion", games=3, distance=3, max_game_shots=9,
                                                   noise=1.0, seed=0))
    assert "| a | 3 | 1 | 50.0 [" in text and "| 1 | a | +0 | [" in text


# --- the openings ------------------------------------------------------------------------------

def test_each_side_shoots_first_once_from_each_opening_and_every_pair_meets_the_same(monkeypatch):
    """Game g starts from bench-v1 layout g // 2 with player g % 2 to shoot: player 0 as the set
    draws it, player 1 with his ball (the yellow) where the set's cue ball lies. Every pair gets
    the same openings; the break (the default) passes none."""
    ruleset, params = setup("three_cushion")
    stored = layouts.load("bench-v1", "three_cushion")
    states = arena.opening_states(ruleset, params, stored, 4)
    assert list(states.current_player) == list(states.cue_ball) == [0, 1, 0, 1]
    for g in range(4):
        layout = stored.positions[g // 2]
        expected = layout if g % 2 == 0 else layout[[1, 0, 2]]
        assert np.array_equal(states.positions[g], expected), g
    assert list(states.innings[:, 0]) == [1, 0, 1, 0]
    with pytest.raises(ValueError, match="2000 games at most"):
        arena.opening_states(ruleset, params, stored, 2001)

    given = []

    def fake_run_games(players, ruleset, params, n, **kwargs):
        given.append(kwargs["openings"])
        return [game(g, players[0].label, players[1].label, players[0].label, (1, 0), (1, 1)) for g in range(n)], [], []

    monkeypatch.setattr(arena, "run_games", fake_run_games)
    players = [arena.Player(label, None, BATCH) for label in ("a", "b", "c")]
    tournament.round_robin("three_cushion", players, 4, openings="bench-v1", progress=False)
    assert len(given) == 3
    for opening in given:
        assert np.array_equal(opening.positions, states.positions)
        assert list(opening.current_player) == [0, 1, 0, 1]
    given.clear()
    tournament.round_robin("three_cushion", players[:2], 4, progress=False)
    assert given == [None]


# --- a player's own noise ------------------------------------------------------------------------

def test_each_row_is_stepped_with_its_shooters_noise(monkeypatch):
    """The rows of each noise are stepped apart with that noise in the params, then put back in
    order; without a noise of a player's own, one call with the environment's params."""
    calls = []

    def fake_step_rows(env, env_params, states, planned, keys, batch):
        calls.append((float(env_params.noise), list(states["row"])))
        n = len(states["row"])
        stepped = dict(row=states["row"], noise=np.full(n, float(env_params.noise)))
        return stepped, dict(row=jnp.asarray(states["row"]))

    monkeypatch.setattr(arena, "step_rows", fake_step_rows)
    _, env_params = arena.environment(*setup("one_cushion"), "game", 1.0, 10)
    states = dict(row=np.arange(5))
    planned, keys = np.zeros((5, 5)), np.zeros((5, 2), np.uint32)
    own = [arena.Player("a", None, 8, noise=0.0), arena.Player("b", None, 8)]
    stepped, results = arena.step_seats(own, np.array([0, 1, 1, 0, 1]), None, env_params, states, planned, keys)
    assert sorted(calls) == [(0.0, [0, 3]), (1.0, [1, 2, 4])]
    assert list(stepped["row"]) == list(np.asarray(results["row"])) == [0, 1, 2, 3, 4]
    assert list(stepped["noise"]) == [0.0, 1.0, 1.0, 0.0, 1.0]
    calls.clear()
    plain = [arena.Player("a", None, 8), arena.Player("b", None, 8)]
    arena.step_seats(plain, np.array([0, 1, 1, 0, 1]), None, env_params, states, planned, keys)
    assert calls == [(1.0, [0, 1, 2, 3, 4])]


@pytest.mark.slow
def test_an_exact_player_plays_its_shots_as_planned_beside_a_noisy_one():
    ruleset, params = setup("one_cushion", distance=2)
    env, env_params = arena.environment(ruleset, params, "game", 1.0, 8)
    keys = arena.row_keys(0, 3, 2)
    states = arena.to_host(env.init_from(arena.first_states(ruleset, params, 2, "start", keys, np.array([0, 1])),
                                         env_params))
    states = index_tree(states, np.array([0, 1, 1, 0, 0, 1]))  # the two breaks, again and again
    shot_keys = np.asarray(arena.shot_keys(arena.row_keys(0, 5, 6), 0))  # (6, 2, 2): each row's own
    seats = np.array([0, 1, 0, 1, 0, 1])
    exact = arena.Player("exact", NearestBall(), BATCH, noise=NOISE_PROFILES["exact"])
    noisy = arena.Player("noisy", NearestBall(), BATCH)
    planned, stepped, _ = arena.play_round([exact, noisy], seats, env, env_params, states, shot_keys, BATCH)
    played = np.stack([np.asarray(getattr(stepped.shot, f)) for f in arena.SHOT_FIELDS], axis=1)
    assert np.allclose(played[seats == 0], planned[seats == 0], atol=5e-4)  # the action's float32 precision
    assert not np.allclose(played[seats == 1, 1], planned[seats == 1, 1], atol=1e-3)  # aim: 0.125 deg noise
    for seat, noise in ((0, 0.0), (1, 1.0)):  # each row as if every row had its shooter's noise
        alone, _ = arena.step_rows(env, arena.with_noise(env_params, noise), states, planned, shot_keys[:, 1], BATCH)
        for f in arena.SHOT_FIELDS:
            assert np.array_equal(np.asarray(getattr(alone.shot, f))[seats == seat],
                                  np.asarray(getattr(stepped.shot, f))[seats == seat])
        assert np.array_equal(alone.game.positions[seats == seat], stepped.game.positions[seats == seat])


# --- end to end ----------------------------------------------------------------------------------

@pytest.mark.slow
def test_games_start_from_their_openings_and_the_break_stays_the_default(monkeypatch):
    """run_games plays from the opening states given (the first round's states are theirs), and
    without them exactly as with the starting position passed in (the default unchanged)."""
    hungarian = arena.opening_states(*setup("hungarian_1000"), layouts.load("bench-v1", "hungarian_1000"), 4)
    assert np.array_equal(hungarian.positions[1], hungarian.positions[0])  # both play the red: no swap (H-3.1)
    assert list(hungarian.cue_ball) == [0, 0, 0, 0] and list(hungarian.current_player) == [0, 1, 0, 1]
    ruleset, params = setup("one_cushion", distance=2)
    players = [arena.Player("near", NearestBall(), BATCH), arena.Player("near2", NearestBall(), BATCH)]
    openings = arena.opening_states(ruleset, params, layouts.load("bench-v1", "one_cushion"), 4)
    first_round = []
    play_round = arena.play_round

    def spy(players, seats, env, env_params, states, keys, batch):
        if not first_round:
            first_round.append(np.array(states.game.positions))
        return play_round(players, seats, env, env_params, states, keys, batch)

    monkeypatch.setattr(arena, "play_round", spy)
    games, _, _ = arena.run_games(players, ruleset, params, 4, max_shots=4, batch=BATCH, progress=False,
                                  openings=openings)
    assert np.array_equal(first_round[0], openings.positions)
    assert [g["breaker"] for g in games] == [0, 1, 0, 1]
    keys = arena.row_keys(0, 3, 4)
    start = arena.first_states(ruleset, params, 4, "start", keys, np.arange(4) % 2)
    default = arena.run_games(players, ruleset, params, 4, max_shots=4, batch=BATCH, progress=False)
    given = arena.run_games(players, ruleset, params, 4, max_shots=4, batch=BATCH, progress=False, openings=start)
    assert default == given


@pytest.mark.slow
def test_a_round_robin_from_the_bench_openings_under_a_variant(tmp_path):
    out = tmp_path / "rr"
    tournament.main(["--discipline", "three_cushion", "--agents", "random", EXAMPLE, "--games", "4", "--distance", "1",
                     "--max-game-shots", "6", "--openings", "bench-v1", "--variant", "two:cushions_required=2",
                     "--out", str(out), *SMALL])
    games = read_csv(out / "games.csv")
    assert [g["breaker"] for g in games] == ["0", "1", "0", "1"]
    settings = json.loads((out / "summary.json").read_text())["settings"]
    assert settings["openings"] == "bench-v1"
    assert settings["variant"] == {"name": "two", "options": {"cushions_required": 2}}
    text = (out / "results.md").read_text()
    assert "Openings: the bench-v1 layouts" in text and "the variant two (cushions_required=2) in every game" in text

@pytest.mark.slow
def test_a_tiny_round_robin_writes_its_games_tables_and_ratings(tmp_path, capsys):
    out = tmp_path / "rr"
    agents = ["random", EXAMPLE, "geometric@club"]
    result = tournament.main(["--discipline", "one_cushion", "--agents", *agents, "--games", "2", "--distance", "2",
                              "--max-game-shots", "8", "--out", str(out), *SMALL])
    for name in ("games.csv", "summary.json", "results.md", "ratings.png"):
        assert (out / name).stat().st_size > 0, name
    games = read_csv(out / "games.csv")
    assert list(games[0])[:len(tournament.GAME_COLUMNS)] == list(tournament.GAME_COLUMNS)
    assert len(games) == 3 * 2  # three pairs, two games each
    pairs = [(g["player0"], g["player1"]) for g in games]
    assert pairs == [(agents[0], agents[1])] * 2 + [(agents[0], agents[2])] * 2 + [(agents[1], agents[2])] * 2
    assert [g["breaker"] for g in games] == ["0", "1"] * 3
    for g in games:
        assert g["discipline"] == "one_cushion"
        assert 0 <= int(g["high_run0"]) <= int(g["score0"])
        assert 0 <= int(g["high_run1"]) <= int(g["score1"])
        if g["finished"] == "True":
            assert max(int(g["score0"]), int(g["score1"])) == 2
            assert g["winner_agent"] in (g["player0"], g["player1"], "draw")
        else:
            assert g["winner_agent"] == "unfinished" and int(g["shots"]) == 8
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["distance"] == 2 and summary["settings"]["noise"] == 1.0
    rated = {r["agent"]: r for r in summary["ratings"]}
    assert set(rated) == set(agents)
    for agent, r in rated.items():  # the ratings count the games of games.csv
        assert r["wins"] == sum(g["winner_agent"] == agent for g in games)
        assert r["games"] == sum(g["finished"] == "True" and agent in (g["player0"], g["player1"]) for g in games)
        assert r["low"] <= r["rating"] <= r["high"]
    assert [r["rating"] for r in summary["ratings"]] == sorted((r["rating"] for r in summary["ratings"]), reverse=True)
    noise = {r["agent"]: r["noise"] for r in summary["agents"]}
    assert noise == {"random": 1.0, EXAMPLE: 1.0, "geometric@club": NOISE_PROFILES["club"]}
    assert [r["agent"] for r in summary["agents"]] == [r["agent"] for r in summary["ratings"]]
    for r in summary["agents"]:
        assert r["games"] == 4 and r["wins"] == rated[r["agent"]]["wins"]
    printed = capsys.readouterr().out
    assert (out / "results.md").read_text() in printed and "| geometric@club | 4 |" in printed
    assert result["games"][0]["player0"] == "random"
