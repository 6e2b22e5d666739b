"""``experiments.rule_variants`` over whole games: run lengths from inning rows, the stronger
player's win probability (a draw half, C-8.4), the paired differences per game against a group's
first setting, ``--match``'s checks, and the same game keys in every setting.

The quick tests use hand-made rows and a stand-in for the rollout engine (no simulation); the end
to end run is in the slow tier.
"""
from __future__ import annotations

import csv
import math
import types

import pytest

from agents.stats import bounded_mean_ci, ratio_ci, wilson
from experiments import rule_variants as rv

SMALL = ["--batch", "8", "--search-shots", "8", "--no-progress"]


def game(g, winner_agent="a", finished=True, draw=False, length=5, high=(0, 0)):
    return dict(game=g, finished=finished, winner_agent=winner_agent, draw=draw, length_innings=length,
                high_run0=high[0], high_run1=high[1])


def inning(g, player, points):
    return dict(game=g, player=player, points=points)


# --- run lengths -------------------------------------------------------------------------------

GAMES = [dict(game=0), dict(game=1), dict(game=2)]
INNINGS = [inning(0, 0, 0), inning(0, 0, 4), inning(0, 1, 12), inning(0, 0, 1),
           inning(1, 0, 6), inning(1, 1, 0), inning(1, 1, 3),
           inning(2, 1, 2)]  # game 2: seat 0 never came to the table


def test_run_lengths_of_one_seat_from_known_innings():
    row = rv.run_lengths(GAMES, INNINGS, seats=(0,), thresholds=(3, 5, 13))
    assert row["runs"] == 4 and row["mean_run"] == pytest.approx(11 / 4)
    assert (row["runs_ge_3"], row["runs_ge_5"], row["runs_ge_13"]) == (0.5, 0.25, 0.0)
    assert row["high_run"] == 6
    assert row["game_high_run"] == pytest.approx((4 + 6 + 0) / 3)  # a game without a run counts 0
    # intervals over games (the clusters): points and innings per game, seat 0 only
    assert (row["mean_run_low"], row["mean_run_high"]) == pytest.approx(ratio_ci([5, 6, 0], [3, 1, 0])[1:])
    assert (row["runs_ge_3_low"], row["runs_ge_3_high"]) == pytest.approx(ratio_ci([1, 1, 0], [3, 1, 0])[1:])
    assert (row["runs_ge_13_low"], row["runs_ge_13_high"]) == wilson(0, 4)  # none: no spread to cluster
    assert (row["game_high_run_low"], row["game_high_run_high"]) == bounded_mean_ci([4, 6, 0], floor=0.0)[1:]


def test_run_lengths_of_both_seats_take_each_games_highest_run():
    row = rv.run_lengths(GAMES, INNINGS, thresholds=(3,))
    assert row["runs"] == 8 and row["mean_run"] == pytest.approx(28 / 8)
    assert row["runs_ge_3"] == pytest.approx(4 / 8) and row["high_run"] == 12
    assert row["game_high_run"] == pytest.approx((12 + 6 + 2) / 3)


def test_run_lengths_without_spread_or_without_games():
    zero = rv.run_lengths(GAMES[:1], [inning(0, 1, 0), inning(0, 1, 0)], seats=(1,), thresholds=(1,))
    assert zero["mean_run"] == 0.0 and zero["mean_run_low"] == 0.0 and zero["mean_run_high"] > 0.0
    assert zero["high_run"] == 0 and zero["runs_ge_1_high"] == wilson(0, 2)[1]
    none = rv.run_lengths([], [], thresholds=(3,))
    assert none["runs"] == 0 and all(math.isnan(none[k]) for k in ("mean_run", "runs_ge_3", "high_run"))


def test_share_ci_stays_inside_0_and_1():
    share, low, high = rv.share_ci([1, 0, 3], [1, 4, 3])
    assert share == pytest.approx(0.5) and 0.0 <= low < share < high <= 1.0
    assert rv.share_ci([2, 3], [2, 3]) == (1.0, *wilson(5, 5))
    assert all(math.isnan(x) for x in rv.share_ci([], []))


# --- wins and paired games ---------------------------------------------------------------------

def test_win_probability_counts_a_draw_half_and_leaves_unfinished_games_out():
    rows = [game(0, "a"), game(1, "a"), game(2, "draw", draw=True), game(3, "b"), game(4, "unfinished", False)]
    p = rv.win_probability(rows, "a")
    assert (p["finished"], p["wins"], p["draws"]) == (4, 2, 1)
    assert p["win_probability"] == pytest.approx(2.5 / 4)
    assert (p["win_low"], p["win_high"]) == pytest.approx(wilson(2.5, 4))
    assert rv.win_probability(rows, "b")["win_probability"] == pytest.approx(1.5 / 4)
    assert math.isnan(rv.win_probability(rows[4:], "a")["win_probability"])


def test_match_paired_compares_the_same_games_finished_in_both_settings():
    first = [game(0, "a", length=10, high=(3, 1)), game(1, "b", length=8, high=(2, 5)),
             game(2, "a", length=6, high=(4, 0)), game(3, "a", length=6)]
    second = [game(0, "draw", draw=True, length=12, high=(3, 2)), game(1, "a", length=9, high=(7, 5)),
              game(2, "b", length=7, high=(1, 2)), game(3, "unfinished", finished=False, length=40)]
    rows = [dict(g, group="G", setting="one") for g in first] + [dict(g, group="G", setting="two") for g in second]
    rows += [dict(g, group="other", setting="x") for g in first]
    (d,) = rv.match_paired(rows, "G", "a")
    assert (d["setting"], d["against"], d["games"]) == ("two", "one", 3)  # game 3 unfinished in "two"
    assert d["win_difference"] == pytest.approx((-0.5 + 1 - 1) / 3)
    assert d["length_difference"] == pytest.approx((2 + 1 + 1) / 3)
    assert d["high_run_difference"] == pytest.approx((0 + 2 - 2) / 3)
    assert d["win_low"] < d["win_difference"] < d["win_high"]


# --- the option --------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["--match", "search:nope=1", "geometric"], "--match: unknown search option 'nope'"),
    (["--match", "geometric", "curling"], "--match: "),
    (["--match", "geometric", "geometric"], "--match needs two different players, got 'geometric' twice"),
    (["--match", "geometric", "random", "--games", "0"], "--match-games (default --games) must be >= 1, got 0"),
    (["--match-games", "3"], "--match-games needs --match STRONG WEAK"),
    (["--run-thresholds", "0", "5"], "--run-thresholds must be >= 1 point"),
])
def test_match_option_refuses_bad_arguments_before_any_work(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        rv.main(argv + ["--out", str(tmp_path / "out")])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_every_setting_plays_the_match_with_the_same_game_keys(monkeypatch):
    """A stand-in rollout engine records each match's call: the same seed, stream and number of
    games under every setting, the strong player in seat 0."""
    calls = []

    def player(spec, noise, batch, search_shots, discipline):
        return types.SimpleNamespace(label=spec, noise=None, agent=None, timing=lambda: {})

    def evaluate(discipline, specs, **kwargs):
        return dict(summary=[], games_summary=[], games=[], game_innings=[], innings=[])

    def run_games(players, ruleset, params, n, *, seed, stream, **kwargs):
        calls.append((int(ruleset.distance), seed, stream, n, [p.label for p in players]))
        games = [dict(game=g, finished=True, winner_agent=players[g % 2].label, draw=False, length_innings=2,
                      score0=3 * (g % 2 == 0), score1=3 * (g % 2), innings0=2, innings1=2) for g in range(n)]
        innings = [dict(game=g, player=g % 2, points=3) for g in range(n)]
        shots = [dict(agent=players[g % 2].label, success=True, foul=False, reason="carom") for g in range(n)]
        shots += [dict(agent=players[0].label, success=False, foul=False, reason="field_limit")]
        return games, innings, shots

    monkeypatch.setattr(rv.arena, "make_player", player)
    monkeypatch.setattr(rv.arena, "evaluate", evaluate)
    monkeypatch.setattr(rv.arena, "run_games", run_games)
    out = rv.run(["restricted_fields"], [], match=("geometric", "random"), match_games=4, carom_distance=7, seed=5,
                 progress=False)
    assert calls == [(7, 5, rv.MATCH_STREAM, 4, ["geometric", "random"])] * 3
    seats = list(zip(rv.ROLES, ("geometric", "random")))
    assert [(r["setting"], r["role"], r["agent"]) for r in out["matches"]] == [
        (s, role, agent) for s in ("straight rail", "47/2", "71/2") for role, agent in seats]
    assert {r["win_probability"] for r in out["matches"]} == {0.5}
    assert [(r["shots"], r["limit_calls"]) for r in out["matches"][:2]] == [(3, 1), (2, 0)]  # each player's own
    assert [d["setting"] for d in out["match_paired"]] == ["47/2", "71/2"]
    assert all(d["games"] == 4 and d["win_difference"] == 0.0 for d in out["match_paired"])
    assert out["settings"]["match"] == ["geometric", "random"] and out["settings"]["match_games"] == 4


def test_restricted_fields_group_plays_three_disciplines_as_written():
    settings = rv.GROUPS["restricted_fields"][1]
    assert [(label, discipline, options) for label, discipline, options in settings] == [
        ("straight rail", "straight_rail", {}), ("47/2", "balkline_47_2", {}), ("71/2", "balkline_71_2", {})]
    # straight rail as written is the straight_rail group's "fields": one setting, played once
    fields = next(s for s in rv.GROUPS["straight_rail"][1] if s[0] == "fields")
    assert rv.setting_key(*settings[0][1:], 10) == rv.setting_key(*fields[1:], 10)


# --- end to end --------------------------------------------------------------------------------

def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_rule_variants_match_end_to_end(tmp_path):
    """A match of geometric against random in straight rail with and without the fields: the same
    game keys, and no field limit reached in games to 3 points, so both settings play the same games."""
    out = tmp_path / "match"
    result = rv.main(["--quick", "--groups", "straight_rail", "--agents", "geometric", "--innings", "2",
                      "--games", "2", "--match", "geometric", "random", "--match-games", "4", "--max-game-shots", "40",
                      "--run-thresholds", "1", "2", "--out", str(out), *SMALL])
    for name in ("matches.csv", "match_paired.csv", "match_games.csv", "match_innings.csv", "rule_variants.png"):
        assert (out / name).stat().st_size > 0, name
    rows = read_csv(out / "matches.csv")
    assert [(r["setting"], r["role"], r["agent"]) for r in rows] == [
        (s, role, agent) for s in ("fields", "no fields") for role, agent in zip(rv.ROLES, ("geometric", "random"))]
    games = read_csv(out / "match_games.csv")
    by = {s: [(g["breaker"], g["score0"], g["score1"], g["innings0"], g["innings1"]) for g in games
              if g["setting"] == s] for s in ("fields", "no fields")}
    assert by["fields"] == by["no fields"] and [b[0] for b in by["fields"]] == ["0", "1", "0", "1"]
    (paired,) = read_csv(out / "match_paired.csv")
    assert paired["games"] == str(sum(g["finished"] == "True" for g in games if g["setting"] == "fields"))
    assert float(paired["length_difference"]) == 0.0
    variants = read_csv(out / "variants.csv")
    assert {"mean_run", "runs_ge_1", "runs_ge_2_high", "high_run", "game_high_run"} <= set(variants[0])
    for r in rows:
        assert 0.0 <= float(r["win_low"]) <= float(r["win_probability"]) <= float(r["win_high"]) <= 1.0
    assert result["settings"]["run_thresholds"] == [1, 2]
