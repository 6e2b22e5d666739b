"""The evaluation commands end to end on tiny settings, the interval estimates, the agent specs and
the rollout engine behind them (``agents.stats``, ``agents.specs``, ``agents.arena``), and the first
step every command takes (``experiments.common.begin``: the compilation cache).

Every run shares one compiled simulation and one compiled set of geometric lines: batches padded
to ``BATCH`` rows, planning calls of ``BATCH`` states, and a search of one candidate per state
(``BATCH`` simulated shots per planning call, as many as a played batch).
"""
from __future__ import annotations

import ast
import csv
import importlib
import json
import math
import os
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import physics
import physics.cache
from agents import GeometricAgent, RandomAgent, SearchAgent, arena
from agents.specs import AgentSpecError, make_agent, parse_agent_spec, parse_config
from agents.stats import bounded_mean_ci, mean_ci, ratio_ci, wilson
from billiards_env import setup
from experiments import evaluate, gallery, rule_variants

BATCH = 8
SEARCH = "search:candidates=1,trials=1,refine_parents=0,seeds=1,screen=0"  # small; no screen (exact in the gallery)
SMALL = ["--batch", str(BATCH), "--search-shots", str(BATCH), "--no-progress"]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def inside(value, low, high, tol=1e-12):
    value, low, high = float(value), float(low), float(high)
    return low - tol <= value <= high + tol


# --- interval estimates ------------------------------------------------------------------------

def test_wilson_interval_known_values():
    low, high = wilson(5, 10)  # p = 0.5, n = 10: centre 0.5, the textbook interval
    assert math.isclose(low, 0.2366, abs_tol=1e-4) and math.isclose(high, 0.7634, abs_tol=1e-4)
    low, high = wilson(0, 20)
    assert low == 0.0 and math.isclose(high, 3.8416 / 23.8416, rel_tol=1e-9)  # z^2 / (n + z^2)
    assert wilson(20, 20)[1] == 1.0 and wilson(20, 20)[0] < 1.0
    assert wilson(0, 0) == (0.0, 1.0)
    for k, n in ((1, 3), (7, 50), (49, 50)):
        low, high = wilson(k, n)
        assert 0.0 <= low < k / n < high <= 1.0


def test_mean_and_ratio_intervals():
    m, low, high = mean_ci([1.0, 2.0, 3.0])
    assert m == 2.0 and math.isclose(high - m, 1.96 / math.sqrt(3), rel_tol=1e-12) and math.isclose(m - low, high - m)
    m, low, high = mean_ci([4.0])
    assert m == 4.0 and math.isnan(low) and math.isnan(high)
    assert all(math.isnan(v) for v in mean_ci([]))
    r, low, high = ratio_ci([2, 4, 6], [1, 2, 3])  # every game exactly 2 points per inning
    assert r == 2.0 and math.isclose(low, 2.0) and math.isclose(high, 2.0)
    r, low, high = ratio_ci([1, 5, 3], [2, 2, 2])
    assert math.isclose(r, 1.5) and low < r < high


def test_bounded_intervals_stay_in_the_possible_range_at_0_of_n_and_n_of_n():
    """Points per inning cannot be negative: 0 scoring innings of 40 is not [0, 0] but reaches the
    Wilson bound of a scoring inning (one point each), and skewed data do not cross 0."""
    m, low, high = bounded_mean_ci([0] * 40, floor=0.0, unit=1.0)
    assert m == 0.0 and low == 0.0 and math.isclose(high, wilson(0, 40)[1]) and 0.08 < high < 0.09
    m, low, high = bounded_mean_ci([10] * 40, floor=0.0, unit=10.0)  # N of N, Hungarian units
    assert m == 10.0 and math.isclose(m - low, high - m) and math.isclose(high - m, 10 * wilson(0, 40)[1])
    skewed = [0] * 38 + [1, 9]  # the normal approximation's low end is below 0 here
    assert mean_ci(skewed)[1] < 0.0
    m, low, high = bounded_mean_ci(skewed, floor=0.0)
    assert low >= 0.0 and low < m < high
    assert bounded_mean_ci(skewed, floor=0.0) == (m, low, high)  # seeded: the same interval again
    m, low, high = bounded_mean_ci([1, 1, 1, 2], floor=1.0)  # shots per inning: at least one
    assert low >= 1.0 and high <= 2.0
    r, low, high = ratio_ci([0, 0, 9], [3, 3, 3])  # the general average: not below 0 either
    assert low == 0.0 and high > r


def test_evaluate_reports_intervals_inside_the_range_for_0_of_n_innings():
    from agents.arena import Player, inning_summary

    rows = [dict(points=0, net_points=0, shots=1, capped=False) for _ in range(40)]
    shots = [dict(success=False, foul=False, reason="empty") for _ in range(40)]
    row = inning_summary(Player("random", RandomAgent(), 8), rows, shots)
    assert row["points_low"] == 0.0 and 0.0 < row["points_high"] <= row["success_high"]
    assert row["shots_low"] == 1.0 and row["success_low"] == 0.0
    rows = [dict(points=2, net_points=2, shots=3, capped=False) for _ in range(40)]  # N of N
    shots = [dict(success=True, foul=False, reason="scored") for _ in range(80)] + [
        dict(success=False, foul=False, reason="empty") for _ in range(40)]
    row = inning_summary(Player("random", RandomAgent(), 8), rows, shots)
    assert 0.0 < row["points_low"] < 2.0 < row["points_high"] and row["shots_low"] >= 1.0


def test_paired_differences_are_taken_inning_by_inning_against_the_first_agent():
    from agents.arena import paired_differences

    base = [3, 0, 5, 1, 2, 0]
    other = [4, 0, 7, 1, 1, 2]  # +1, 0, +2, 0, -1, +2: mean 2/3, sample std sqrt(1.4667)
    rows = [dict(agent="a", inning=i, points=p, net_points=p) for i, p in enumerate(base)]
    rows += [dict(agent="b", inning=i, points=p, net_points=p - 10 * (i == 0)) for i, p in enumerate(other)]
    (row,) = paired_differences(rows)
    half = 1.96 * np.sqrt(np.var(np.subtract(other, base), ddof=1) / 6)
    assert (row["agent"], row["against"], row["innings"], row["more"], row["fewer"]) == ("b", "a", 6, 3, 1)
    assert np.isclose(row["points_difference"], 4 / 6)
    assert np.isclose(row["points_low"], 4 / 6 - half) and np.isclose(row["points_high"], 4 / 6 + half)
    assert np.isclose(row["net_difference"], (4 - 10) / 6)
    shuffled = rows[6:][::-1] + rows[:6]
    assert paired_differences(shuffled)[0]["against"] == "b"  # the first agent seen is the reference
    # an agent's rows pair by their inning, whatever their order
    assert np.isclose(paired_differences(rows[:6] + rows[6:][::-1])[0]["points_difference"], 4 / 6)
    assert paired_differences(rows[:6]) == []  # one agent: nothing to pair
    with pytest.raises(ValueError, match="same innings"):
        paired_differences(rows[:6] + rows[7:])


def test_the_evaluation_environment_takes_every_playable_shot_as_an_action():
    # the environment's default speeds stop at 8 m/s and its tip disc at 0.5 R, and the geometric
    # agent plans faster shots: the evaluation's actions span what a cue plays, so the planned
    # shot is the one played (to float32 precision); the rules, physics, noise and cap are evaluate's
    import jax.numpy as jnp

    import physics
    from billiards_env import actions, default_params

    ruleset, params = setup("one_cushion", distance=7)
    env, env_params = arena.environment(ruleset, params, "inning", 0.5, 3)
    assert (env.discipline, env.mode, env.policy) == ("one_cushion", "inning", None)
    assert int(env_params.rules.distance) == 7 and int(env_params.max_steps) == 3
    assert float(env_params.noise) == 0.5 and env_params.physics is params
    shot = physics.Shot(V0=jnp.asarray(9.5), phi=jnp.asarray(-170.0), theta=jnp.asarray(70.0),
                        a=jnp.asarray(0.3), b=jnp.asarray(-0.45))
    back = actions.to_shot(actions.from_shot(shot, env_params), env_params)
    for f, tol in (("V0", 1e-5), ("phi", 1e-4), ("theta", 1e-4), ("a", 1e-6), ("b", 1e-6)):
        assert abs(float(getattr(back, f)) - float(getattr(shot, f))) < tol, f
    plain = default_params("one_cushion")
    assert float(actions.to_shot(actions.from_shot(shot, plain), plain).V0) == 8.0  # the default ranges clip


# --- agent specs -------------------------------------------------------------------------------

def test_agent_specs_build_the_planners():
    assert isinstance(make_agent("random"), RandomAgent)
    assert make_agent("random:v_max=5").v_max == 5.0
    assert isinstance(make_agent("geometric"), GeometricAgent)
    exact, noisy = make_agent("search", 0.0), make_agent("search", 1.0)
    assert isinstance(exact, SearchAgent) and exact.config == SearchAgent().config
    assert noisy.config == SearchAgent.for_noise(1.0).config
    custom = make_agent("search:candidates=512,trials=4", 0.5)
    assert (custom.config.candidates, custom.config.trials, custom.config.noise) == (512, 4, 0.5)
    assert make_agent("search:refine_trials=none,random_fraction=0.5", 1.0).config.refine_trials is None
    assert parse_agent_spec(" learned:/some/where/model.zip ").options == "/some/where/model.zip"
    assert parse_config("", SearchAgent().config) == SearchAgent().config


@pytest.mark.parametrize("spec, words", [
    ("foo", ["unknown agent 'foo'", "random, geometric, search, learned"]),
    ("", ["empty agent spec", "search:OPTION=VALUE"]),
    ("search:bogus=1", ["unknown search option 'bogus'", "candidates", "trials"]),
    ("search:candidates=abc", ["candidates needs an integer"]),
    ("search:candidates", ["not NAME=VALUE", "candidates"]),
    ("geometric:x=1", ["takes no options"]),
    ("learned:", ["learned:PATH"]),
    ("random:speed=3", ["unknown random option 'speed'", "v_min, v_max, max_offset"]),
])
def test_bad_agent_specs_say_what_is_allowed(spec, words):
    with pytest.raises(AgentSpecError) as info:
        parse_agent_spec(spec)
    for w in words:
        assert w in str(info.value)


def test_bad_option_values_and_a_missing_learned_module(monkeypatch):
    with pytest.raises(AgentSpecError, match="v_min < v_max"):
        make_agent("random:v_min=5,v_max=1")
    with pytest.raises(AgentSpecError, match="trials=1"):
        make_agent("search:trials=4", 0.0)  # without noise every trial is the same shot
    with pytest.raises(AgentSpecError, match="learned agent|agents/learned.py"):
        make_agent("learned:/no/such/model.zip")  # a clear error, with or without agents.learned
    monkeypatch.setitem(sys.modules, "agents.learned", None)  # the module is absent
    with pytest.raises(AgentSpecError, match="agents/learned.py"):
        make_agent("learned:model.zip")


def test_commands_refuse_bad_specs_with_the_list(capsys):
    with pytest.raises(SystemExit):
        evaluate.main(["--agents", "randomm", "--out", "unused"])
    assert "random, geometric, search, learned" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        rule_variants.main(["--agents", "search:nope=1", "--out", "unused"])
    assert "unknown search option 'nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        evaluate.main(["--rule", "scoring_mode=2", "--out", "unused"])  # not a three-cushion option
    assert "scoring_mode" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        evaluate.main(["--calibration", "lab", "--out", "unused"])
    err = capsys.readouterr().err
    assert "'lab'" in err and "reference" in err and "tracked" in err


def test_the_evaluation_plays_on_the_calibration_asked_for():
    """setup gives the match table's own set by default and the named one when asked (the
    evaluation's --calibration)."""
    _, default = setup("three_cushion")
    _, reference = setup("three_cushion", "reference")
    _, hungarian = setup("hungarian_1000")
    assert float(default.cushion.e_c) == 0.862 and float(reference.cushion.e_c) == 0.85
    assert float(hungarian.cushion.e_c) == 0.85 and hungarian.table.kind == "hungarian"


# --- planning calls and their timing ------------------------------------------------------------

def test_a_planning_call_counts_every_shot_the_search_simulates_per_state():
    """The exact screen is counted: 4,096 screened strikes a state leave room for one state in a
    call of 8,192 simulated shots, where round 1 alone (32 shots) would allow a whole batch."""
    quick = make_agent("search:candidates=16,trials=2,refine_parents=0,seeds=8", 1.0)
    assert quick.config.screen == 4096 and quick.config.budget == 4096 + 32
    assert arena.plan_chunk(quick, 128, 8192) == 1
    assert arena.plan_chunk(quick, 128, 3 * quick.config.budget) == 3
    unscreened = make_agent("search:candidates=16,trials=2,refine_parents=0,seeds=8,screen=0", 1.0)
    assert arena.plan_chunk(unscreened, 128, 8192) == 128  # 32 shots a state: the whole batch
    assert arena.plan_chunk(make_agent("search", 1.0), 128, 8192) == 1  # its budget is the call's
    assert arena.plan_chunk(GeometricAgent(), 128) == arena.GEOMETRIC_CHUNK
    assert arena.plan_chunk(RandomAgent(), 128) == 128


def test_seconds_per_decision_are_per_state_planned_not_per_padded_row():
    class Counting:
        """A planner that records the rows of each call (padded to the chunk)."""

        def __init__(self):
            self.calls = []

        def plan_batch(self, ruleset, states, params, keys):
            self.calls.append(len(states["row"]))
            return physics.Shot(*(np.zeros(len(states["row"])) for _ in range(5)))

    agent = Counting()
    player = arena.Player("counting", agent, chunk=8)
    ruleset = types.SimpleNamespace(family="carom", cushions_required=3)
    shots = player.decide(ruleset, dict(row=np.arange(3.0)), None, np.zeros((3, 2), np.uint32))
    assert shots.shape == (3, 5) and agent.calls == [8, 8]  # the compiling call, then the timed one
    timing = player.timing()
    assert player.decisions == 3 and timing["decisions"] == 3
    assert timing["seconds_per_decision"] == player.plan_seconds / 3
    since = player.counters()
    player.decide(ruleset, dict(row=np.arange(10.0)), None, np.zeros((10, 2), np.uint32))
    assert agent.calls == [8, 8, 8, 8] and player.timing(since)["decisions"] == 10


# --- every command's first step: the compilation cache -------------------------------------------

def commands() -> list[str]:
    """The modules of experiments/ with a ``main``."""
    root = Path(__file__).resolve().parents[2] / "experiments"
    return sorted(f"experiments.{p.stem}" for p in root.glob("*.py")
                  if any(isinstance(node, ast.FunctionDef) and node.name == "main"
                         for node in ast.parse(p.read_text(encoding="utf-8")).body))


class CacheTurnedOn(Exception):
    pass


def test_every_command_turns_the_compilation_cache_on_before_anything_else(monkeypatch):
    def turned_on():
        raise CacheTurnedOn

    monkeypatch.setattr(physics, "use_compilation_cache", turned_on)
    found = commands()
    assert {"experiments.evaluate", "experiments.train", "experiments.view", "experiments.demo"} <= set(found)
    for name in found:
        main = importlib.import_module(name).main
        with pytest.raises(CacheTurnedOn):  # before --help: the first thing main does
            main(["--help"])


def test_the_compilation_cache_goes_where_CAROM_JAX_CACHE_says(monkeypatch, tmp_path):
    settings = {}
    monkeypatch.setattr(physics.cache.jax.config, "update", lambda name, value: settings.__setitem__(name, value))
    monkeypatch.setenv("CAROM_JAX_CACHE", str(tmp_path))
    assert physics.use_compilation_cache() == str(tmp_path)
    assert settings["jax_compilation_cache_dir"] == str(tmp_path)
    assert settings["jax_persistent_cache_min_compile_time_secs"] == 0.0
    settings.clear()
    monkeypatch.setenv("CAROM_JAX_CACHE", "off")
    assert physics.use_compilation_cache() is None and settings == {}
    monkeypatch.delenv("CAROM_JAX_CACHE")
    assert physics.use_compilation_cache() == os.path.expanduser("~/.cache/carom-billiards/jax")


# --- the commands ------------------------------------------------------------------------------

def test_shot_stats_count_the_shots_a_field_or_anchor_limit_decided():
    # C-11.2, C-12.3: a carom made over a field's or an anchor's limit does not count.
    reasons = ["scored", "field_limit", "empty", "anchor_limit", "scored", "too_few_cushions", "scored", "empty"]
    rows = [dict(success=r == "scored", foul=r != "scored", reason=r) for r in reasons]
    stats = arena.shot_stats(rows)
    assert (stats["shots"], stats["successes"], stats["fouls"], stats["limit_calls"]) == (8, 3, 5, 2)
    assert stats["limit_rate"] == 0.25 and stats["limit_low"] < 0.25 < stats["limit_high"]
    assert arena.shot_stats(rows[:1])["limit_calls"] == 0


@pytest.mark.slow
def test_evaluate_innings_and_games(tmp_path):
    out = tmp_path / "evaluate"
    agents = ["random", "geometric", SEARCH]
    evaluate.main(["--discipline", "three_cushion", "--agents", *agents, "--innings", "6", "--max-shots", "3",
                   "--games", "2", "--distance", "2", "--max-game-shots", "10", "--out", str(out), *SMALL])
    for name in ("summary.csv", "innings.csv", "shots.csv", "paired.csv", "games.csv", "games_summary.csv",
                 "summary.json", "evaluate.png", "games.png"):
        assert (out / name).stat().st_size > 0, name
    summary = read_csv(out / "summary.csv")
    paired = read_csv(out / "paired.csv")
    assert [(r["agent"], r["against"]) for r in paired] == [(a, "random") for a in agents[1:]]
    for r, s in zip(paired, summary[1:]):  # the mean difference is the difference of the means
        assert np.isclose(float(r["points_difference"]),
                          float(s["points_per_inning"]) - float(summary[0]["points_per_inning"]))
    assert [r["agent"] for r in summary] == agents
    for r in summary:
        assert int(r["innings"]) == 6
        for rate, low, high in (("success_rate", "success_low", "success_high"),
                                ("foul_rate", "foul_low", "foul_high"), ("limit_rate", "limit_low", "limit_high")):
            assert 0.0 <= float(r[low]) <= float(r[rate]) <= float(r[high]) <= 1.0
        assert int(r["limit_calls"]) == 0  # three-cushion has no restricted fields
        assert inside(r["points_per_inning"], r["points_low"], r["points_high"]) or r["points_low"] == "nan"
        assert 1.0 <= float(r["shots_per_inning"]) <= 3.0
        assert float(r["seconds_per_decision"]) > 0
    innings = [r for r in read_csv(out / "innings.csv") if r["part"] == "inning"]
    shots = read_csv(out / "shots.csv")
    for agent in agents:
        mine = [r for r in innings if r["agent"] == agent]
        assert len(mine) == 6
        played = [r for r in shots if r["part"] == "inning" and r["agent"] == agent]
        assert sum(int(r["shots"]) for r in mine) == len(played)
        assert sum(int(r["points"]) for r in mine) == sum(int(r["points"]) for r in played)
        for r in mine:  # an inning ends when the turn passes, or is capped
            assert r["ended"] in ("turn_passed", "game_over", "capped")
            assert (r["ended"] == "capped") == (int(r["shots"]) == 3 and r["capped"] == "True")
    games = read_csv(out / "games.csv")
    assert len(games) == 2 * len(agents)
    for g in games:
        if g["finished"] == "True":
            assert max(int(g["score0"]), int(g["score1"])) >= 2 and g["winner_agent"] != "unfinished"
        else:
            assert int(g["shots"]) == 10
        assert int(g["length_innings"]) == max(int(g["innings0"]), int(g["innings1"]))
    assert len(read_csv(out / "games_summary.csv")) == len(agents)
    settings = json.loads((out / "summary.json").read_text())["settings"]
    assert settings["distance"] == 2 and settings["noise"] == 1.0


@pytest.mark.slow
def test_evaluate_is_deterministic_and_plays_two_agents():
    common = dict(innings=5, max_shots=2, noise=1.0, batch=BATCH, progress=False)
    a = arena.evaluate("three_cushion", ["random"], seed=3, **common)
    b = arena.evaluate("three_cushion", ["random"], seed=3, **common)
    c = arena.evaluate("three_cushion", ["random"], seed=4, **common)
    assert a["shots"] == b["shots"] and a["innings"] == b["innings"]
    assert a["shots"] != c["shots"]
    duel = arena.evaluate("three_cushion", ["random"], opponent="geometric", innings=0, games=2, distance=1,
                          max_game_shots=6, noise=1.0, batch=BATCH, progress=False)
    rows = duel["games_summary"]
    assert [r["agent"] for r in rows] == ["random", "geometric"]
    assert all(g["player0"] == "random" and g["player1"] == "geometric" for g in duel["games"])
    shooters = {(r["shooter"], r["agent"]) for r in duel["shots"]}
    assert shooters <= {(0, "random"), (1, "geometric")}


@pytest.mark.slow
def test_rule_variants_quick(tmp_path):
    out = tmp_path / "variants"
    result = rule_variants.main(["--quick", "--groups", "straight_rail", "--agents", "random", "geometric",
                                 "--innings", "3", "--games", "2", "--max-game-shots", "8", "--out", str(out),
                                 *SMALL])
    for name in ("variants.csv", "games.csv", "innings.csv", "summary.json", "rule_variants.png"):
        assert (out / name).stat().st_size > 0, name
    rows = read_csv(out / "variants.csv")
    assert [(r["setting"], r["agent"]) for r in rows] == [
        ("fields", "random"), ("fields", "geometric"), ("no fields", "random"), ("no fields", "geometric")]
    for r in rows:
        assert r["distance"] == "3" and r["full_distance"] == "300"
        assert 0.0 <= float(r["success_low"]) <= float(r["success_rate"]) <= float(r["success_high"]) <= 1.0
    assert "REDUCED" in result["settings"]["note"]
    # Hungarian mode 1 with the pure-carom limit is the default game in two groups: played once.
    plan = [rule_variants.setting_key(d, o, 100) for _, d, o in rule_variants.GROUPS["hungarian_scoring"][1]]
    plan += [rule_variants.setting_key(d, o, 100) for _, d, o in rule_variants.GROUPS["hungarian_pure_carom"][1]]
    assert len(set(plan)) == 4


@pytest.mark.slow
def test_rule_variants_compares_named_variants_inning_by_inning(tmp_path):
    """``--variant NAME:OPTION=VALUE``: the Hungarian carom worth 20 (H-9.2 as a rule option) against
    the rules as written, the same layouts and noise draws: the geometric agent plays the same
    shots, so no inning makes fewer points and the paired difference is the innings' own."""
    out = tmp_path / "variants"
    result = rule_variants.main(["--discipline", "hungarian_1000", "--variant", "double:carom_points=20",
                                 "--agents", "geometric", "--innings", "8", "--max-shots", "4", "--games", "0",
                                 "--out", str(out), *SMALL])
    innings = read_csv(out / "innings.csv")
    base = {r["inning"]: int(r["points"]) for r in innings if r["setting"] == "as written"}
    double = {r["inning"]: int(r["points"]) for r in innings if r["setting"] == "double"}
    assert base.keys() == double.keys() and len(base) == 8
    diffs = [double[i] - base[i] for i in base]
    assert min(diffs) >= 0
    (paired,) = read_csv(out / "paired.csv")
    assert paired["setting"] == "double" and paired["against"] == "as written" and paired["agent"] == "geometric"
    assert float(paired["points_difference"]) == pytest.approx(np.mean(diffs))
    assert result["settings"]["options"]["variants"][1] == ["double", "hungarian_1000", {"carom_points": 20}]
    with pytest.raises(SystemExit):
        rule_variants.main(["--discipline", "three_cushion", "--variant", "two:cushions=2", "--out", str(out)])


@pytest.mark.slow
def test_gallery(tmp_path):
    out = tmp_path / "gallery"
    index = gallery.main(["--agent", SEARCH, "--layouts", "3", "--top", "1", "--gif-seconds", "0.5",
                          "--out", str(out), *SMALL])
    assert [e["rank"] for e in index] == [1, 2]
    assert index[-1]["where"] == "starting position"
    saved = json.loads((out / "index.json").read_text())
    assert len(saved["shots"]) == 2
    for e in saved["shots"]:
        for f in e["files"]:
            assert (out / f).stat().st_size > 0
        assert any(f.endswith(".gif") for f in e["files"])
        assert e["call"] and set(e["layout"]) == {"white", "yellow", "red"}
        assert set(e["shot"]) == {"V0", "phi", "theta", "a", "b"}
    assert "referee:" in (out / "index.md").read_text()
    page = json.loads(re.search(r'id="data">(.*?)</script>', (out / "view.html").read_text(), re.S).group(1))
    assert [d["label"] for d in page] == [f"#{e['rank']} {e['where']}" for e in saved["shots"]]
    assert [d["call"] for d in page] == [e["call"] for e in saved["shots"]]
    shots = read_csv(out / "shots.csv")
    assert len(shots) == 4
    points = sorted((int(r["points"]) for r in shots), reverse=True)
    assert index[0]["points"] == points[0]  # the best shot comes first
    assert np.all(np.isfinite([float(r["cue_path_m"]) for r in shots]))


@pytest.mark.slow
def test_demo_lists_its_agents_and_writes_its_table(tmp_path):
    from experiments import demo

    specs = demo.agent_specs(learned=True)
    assert specs[:2] == ["random", "geometric"] and specs[-1] == "search"
    assert demo.agent_specs(learned=False) == ["random", "geometric", "policy", "guided:shots=8192", "search"]
    assert demo.label(dict(agent="guided:shots=8192")) == "guided"
    for spec in specs:
        parse_agent_spec(spec)  # every spec the demo uses is valid
    row = dict(agent=specs[-1], points_per_inning=2.5, points_low=1.5, points_high=3.5, success_rate=0.7,
               success_low=0.6, success_high=0.8, foul_rate=0.3, foul_low=0.2, foul_high=0.4,
               shots_per_inning=3.3, seconds_per_decision=0.5)
    lines = demo.table([row, dict(row, agent="rl")])
    assert len(lines) == 4 and lines[0].count("|") == len(demo.COLUMNS) + 1
    assert "2.50 [1.50, 3.50]" in lines[2] and "70.0% [60.0%, 80.0%]" in lines[2]
    assert lines[3].startswith("| learned (RL: DQN, lines) |")
    index = [dict(rank=1, where="starting position", call="1 (points)", cue_ball_contacts=["red", "yellow"],
                  files=["shot_01.png"])]
    demo.write_report(tmp_path, dict(summary=[row]), index, dict(innings=4, noise=1.0, max_shots=10), 3.0)
    text = (tmp_path / "README.md").read_text()
    assert "| search |" in text and "gallery/shot_01.png" in text and "red -> yellow" in text
    assert "(gallery/view.html)" in text


@pytest.mark.slow
def test_off_table_prints_its_table_and_refuses_no_shots(capsys):
    from experiments import off_table

    rows = off_table.main(["--shots", "8", "--elevations", "10", "30", "--speeds", "7"])
    assert [(theta, speed) for theta, speed, _, _ in rows] == [(10.0, 7.0), (30.0, 7.0)]
    assert rows[0][2] == 0 and all(0 <= left <= 8 and filled == 0 for _, _, left, filled in rows)
    assert "log filled" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        off_table.main(["--shots", "0"])


def test_the_physics_benchmark_names_a_device_it_cannot_use(monkeypatch, capsys):
    from experiments import bench_physics

    def no_backend(*_):
        raise RuntimeError("Unknown backend: 'cuda' requested")

    monkeypatch.setattr(bench_physics.jax.config, "update", lambda *a: None)  # leave this process's backend alone
    monkeypatch.setattr(bench_physics.jax, "devices", no_backend)
    with pytest.raises(SystemExit):
        bench_physics.main(["--device", "gpu"])
    assert "--device gpu: not available here (Unknown backend" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench_physics.main(["--device", "tpu"])
    assert "invalid choice: 'tpu'" in capsys.readouterr().err


def test_the_physics_benchmark_times_enough_calls_and_sets_the_balls_once(params, monkeypatch, capsys):
    from experiments import bench_physics

    with pytest.raises(SystemExit):
        bench_physics.main(["--capacity", "1"])
    assert "--capacity: params.capacity must be at least 2 events, got 1" in capsys.readouterr().err

    assert [bench_physics.timed_calls(b, 3) for b in (1, 64, 512, 8192)] == [512, 8, 3, 3]
    assert bench_physics.timed_calls(1, 1000) == 1000
    calls = []
    set_balls = bench_physics.starting_position
    monkeypatch.setattr(bench_physics, "starting_position", lambda p: calls.append(p) or set_balls(p))
    monkeypatch.setattr(bench_physics, "_STARTS", {})
    row = bench_physics.time_batch(params, 64, 1)  # 64: the batch other tests compile the pool for
    assert len(calls) == 1  # nine calls of 64 shots, the balls set once
    positions, _ = bench_physics.batch_inputs(params, bench_physics.physics.Shot(np.zeros(2), np.zeros(2)))
    assert len(calls) == 1 and positions.shape == (2, 3, 2)
    assert np.array_equal(positions[1], set_balls(params))
    assert 0 < row["seconds_per_call"] <= row["median_seconds_per_call"]
    assert row["shots_per_s"] == 64 / row["seconds_per_call"]
