"""The leaderboard (``experiments.leaderboard``): the shipped agents found per discipline through
``agents.specs``, its arguments refused naming what is allowed, its page from known rows, and a
tiny run end to end (two disciplines, random and geometric, four layouts, two games a pair).

The tiny run plays as the evaluation tests do (tests/commands/test_experiments.py): batches
padded to ``BATCH`` rows, so that it shares their compiled programs.
"""
from __future__ import annotations

import json

import pytest

from agents import arena
from experiments import leaderboard

BATCH = 8
SMALL = ["--batch", str(BATCH), "--search-shots", str(BATCH), "--no-progress"]


def test_each_discipline_gets_the_agents_it_ships():
    players, missing = leaderboard.players_for("one_cushion", leaderboard.SHIPPED, 1.0, BATCH, BATCH)
    assert list(players) == ["random", "geometric", "rl", "search"]
    assert list(missing) == ["policy", "guided", "search:leave=value"]
    assert "disciplines with one: hungarian_1000, three_cushion" in missing["policy"]
    players, missing = leaderboard.players_for("hungarian_1000", leaderboard.SHIPPED, 1.0, BATCH, BATCH)
    assert list(players) == ["random", "geometric", "policy", "guided", "rl", "search"]
    assert list(missing) == ["search:leave=value"]
    assert leaderboard.game_distance("hungarian_1000", 10, 300) == 300
    assert leaderboard.game_distance("balkline_47_2", 10, 300) == 10


@pytest.mark.parametrize("extra, words", [
    (["--agents", "random", "geometric", "--field", "random", "search"],
     "--agents only (random, geometric), got search"),
    (["--agents", "random", "randomm"], "unknown agent 'randomm'"),
    (["--count", "1001"], "bench-v1 holds 1000 layouts of three_cushion: --count 1000 at most"),
    (["--count", "0"], "--count must be >= 1"),
    (["--games", "-1"], "--games must be >= 0"),
    (["--disciplines", "three_cushions"], "unknown discipline"),
    (["--openings", "bench-v1", "--games", "2001"], "--games 2000 at most"),
])
def test_bad_arguments_are_refused_before_any_work(extra, words, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(arena, "evaluate", lambda *a, **k: pytest.fail("an evaluation ran"))
    with pytest.raises(SystemExit):
        leaderboard.main(["--disciplines", "three_cushion", *extra, "--out", str(tmp_path / "board.md"), *SMALL])
    assert words in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def summary_row(agent, points, success):
    return dict(agent=agent, success_rate=success, success_low=0.0, success_high=1.0, points_per_inning=points,
                points_low=0.0, points_high=2 * points, shots_per_inning=1.5, seconds_per_decision=0.01)


def test_the_page_states_how_it_was_made_and_each_disciplines_tables():
    ratings = [dict(agent="geometric", rating=50.0, low=10.0, high=90.0, games=2, wins=2, draws=0),
               dict(agent="random", rating=-50.0, low=-90.0, high=-10.0, games=2, wins=0, draws=0)]
    standings = [dict(agent=a, games=2, finished=2, wins=w, draws=0, win_rate=w / 2, win_low=0.0, win_high=1.0,
                      points_for=w, points_against=2 - w, general_average=0.5, average_low=0.1, average_high=0.9,
                      best_run=1) for a, w in (("geometric", 2), ("random", 0))]
    one = [summary_row("geometric", 1.0, 0.5), summary_row("random", 0.0, 0.0)]
    parts = [dict(discipline="one_cushion", agents=one,
                  missing={"policy": "no model"}, field=["geometric", "random"], ratings=ratings, standings=standings,
                  distance=3, seconds=12.0),
             dict(discipline="hungarian_1000", agents=[summary_row("random", 0.0, 0.1), summary_row("rl", 0.0, 0.1)],
                  missing={}, field=[], ratings=[], standings=[], distance=30, seconds=3.0)]
    settings = dict(command="python -m experiments.leaderboard --count 4", date="2030-01-02", seconds=90.0,
                    machine=dict(platform="Linux", cpus=2, jax="0.0", devices=["cpu:0"]), noise=1.0,
                    noise_name="standard", count=4, max_shots=20, games=2, max_game_shots=50, openings="start", seed=0)
    text = leaderboard.markdown(parts, settings)
    assert "`python -m experiments.leaderboard --count 4` on 2030-01-02, on Linux (2 CPUs" in text
    assert "the match table tracked, the hungarian table reference" in text and "Execution noise 1 (standard)" in text
    assert "| one_cushion | geometric (1.00) | geometric (50.0) | geometric (50) |" in text
    assert "| hungarian_1000 | random, rl (0.00) | random, rl (10.0) | - |" in text
    assert text.index("## one_cushion") < text.index("## hungarian_1000")
    assert "| geometric | 50.0 [0.0, 100.0] | 1.00 [0.00, 2.00] | 1.50 | 0.01 |" in text
    assert "Not shipped for one_cushion (the reasons are in leaderboard.json): policy." in text
    assert "Games among geometric, random: 2 a pair to 3 points" in text
    assert "| 1 | geometric | +50 | [+10, +90] |" in text
    assert text.count("| rank | agent | rating |") == 1  # no games in the Hungarian section


@pytest.mark.slow
def test_a_tiny_leaderboard_writes_both_disciplines_and_their_ratings(tmp_path):
    out = tmp_path / "docs" / "leaderboard.md"
    result = leaderboard.main(["--disciplines", "one_cushion", "three_cushion", "--agents", "random", "geometric",
                               "--count", "4", "--max-shots", "3", "--games", "2", "--distance", "2",
                               "--max-game-shots", "8", "--out", str(out), *SMALL])
    text = out.read_text()
    assert "## one_cushion" in text and "## three_cushion" in text
    assert text.count("| rank | agent | rating | 95 % interval |") == 2
    assert "python -m experiments.leaderboard --disciplines one_cushion three_cushion" in text
    assert "the first 4 bench-v1 layouts" in text
    saved = json.loads((out.parent / "leaderboard.json").read_text())
    assert [p["discipline"] for p in saved["disciplines"]] == ["one_cushion", "three_cushion"]
    for part in saved["disciplines"]:
        assert sorted(r["agent"] for r in part["agents"]) == ["geometric", "random"]
        assert all(r["innings"] == 4 and r["layouts"] == "bench-v1" for r in part["agents"])
        assert sorted(r["agent"] for r in part["ratings"]) == ["geometric", "random"]
        assert sum(r["games"] for r in part["standings"]) == 2 * 2
    assert saved["settings"]["count"] == 4 and result["settings"]["machine"]["cpus"] >= 1
