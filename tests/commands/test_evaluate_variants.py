"""``experiments.evaluate --variant`` and ``--save-shots``: the variants' rows labelled and paired
inning by inning against the rules as written (``agents.arena.paired_by``), bad variants refused
naming what is allowed, and end to end a three-cushion evaluation on the bench-v1 layouts whose
two-cushion variant changes the results, with its shot files read back.

The end-to-end run plays as the evaluation tests do (tests/commands/test_experiments.py): batches
padded to ``BATCH`` rows, so that it shares their compiled programs.
"""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from agents import arena, shotfile
from billiards_env import layouts
from experiments import evaluate

BATCH = 8
SMALL = ["--batch", str(BATCH), "--search-shots", str(BATCH), "--no-progress"]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def inning(agent, variant, i, points):
    return dict(agent=agent, variant=variant, inning=i, points=points, net_points=points)


def test_variants_are_paired_inning_by_inning_against_the_rules_as_written():
    rows = [inning("a", "as written", i, p) for i, p in enumerate((1, 0, 2))]
    rows += [inning("a", "two", i, p) for i, p in enumerate((2, 0, 2))]
    rows += [inning("b", "as written", i, 0) for i in range(3)] + [inning("b", "two", i, 1) for i in range(3)]
    paired = arena.paired_by(rows, "variant")
    assert [(r["agent"], r["variant"], r["against"]) for r in paired] == [("a", "two", "as written"),
                                                                          ("b", "two", "as written")]
    assert paired[0]["points_difference"] == pytest.approx(1 / 3) and (paired[0]["more"], paired[0]["fewer"]) == (1, 0)
    assert paired[1]["points_difference"] == 1.0 and paired[1]["innings"] == 3
    with pytest.raises(ValueError, match="did not play the same innings"):
        arena.paired_by(rows[:-1], "variant")


def test_each_variant_is_evaluated_with_the_same_players_and_labelled(monkeypatch):
    calls = []

    def fake_evaluate(discipline, specs, *, rule_options, players, **kwargs):
        calls.append((rule_options, id(players), kwargs["seed"]))
        points = rule_options.get("cushions_required", 3)
        innings = [dict(agent=s, inning=i, points=points, net_points=points) for s in specs for i in range(2)]
        return dict(summary=[dict(agent=s) for s in specs], innings=innings, shots=[], paired=[], games=[],
                    games_summary=[], game_innings=[], settings=dict(rule_options=rule_options))

    monkeypatch.setattr(arena, "evaluate", fake_evaluate)
    result = evaluate.evaluate_variants("three_cushion", ["random", "geometric"],
                                        [("two", dict(cushions_required=2)), ("far", dict(distance=9))],
                                        rule_options=dict(distance=5), seed=3)
    assert [c[0] for c in calls] == [dict(distance=5), dict(distance=5, cushions_required=2), dict(distance=9)]
    assert len({c[1] for c in calls}) == 1 and {c[2] for c in calls} == {3}
    assert [(r["variant"], r["agent"]) for r in result["summary"]] == [
        (v, a) for v in ("as written", "two", "far") for a in ("random", "geometric")]
    assert [(r["agent"], r["variant"], r["points_difference"]) for r in result["paired_variants"]] == [
        ("random", "two", -1.0), ("random", "far", 0.0), ("geometric", "two", -1.0), ("geometric", "far", 0.0)]
    assert result["settings"]["variants"][0] == dict(name="two", options=dict(cushions_required=2))


@pytest.mark.parametrize("extra, words", [
    (["--variant", "two"], "a variant is NAME:OPTION=VALUE"),
    (["--variant", "two:cushions=2"], "valid: countdown_from, cushions_required, distance"),
    (["--variant", "as written:cushions_required=2"], "differ from each other and from 'as written'"),
    (["--variant", "a:cushions_required=2", "--variant", "a:cushions_required=1"], "got ['a', 'a']"),
    (["--save-shots", "7"], "0 to --innings (6)"),
])
def test_bad_variants_and_shot_counts_are_refused(extra, words, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(arena, "evaluate", lambda *a, **k: pytest.fail("an evaluation ran"))
    with pytest.raises(SystemExit):
        evaluate.main(["--agents", "random", "--innings", "6", *extra, "--out", str(tmp_path), *SMALL])
    assert words in capsys.readouterr().err


@pytest.mark.slow
def test_a_two_cushion_variant_changes_the_results_and_the_shot_files_hold_every_agents_strike(tmp_path):
    out = tmp_path / "evaluate"
    agents = ["random", "geometric"]
    evaluate.main(["--discipline", "three_cushion", "--agents", *agents, "--innings", "6", "--max-shots", "3",
                   "--layouts", "bench-v1", "--variant", "two:cushions_required=2", "--save-shots", "2",
                   "--out", str(out), *SMALL])
    summary = read_csv(out / "summary.csv")
    assert [(r["variant"], r["agent"]) for r in summary] == [(v, a) for v in ("as written", "two") for a in agents]
    paired = read_csv(out / "paired_variants.csv")
    assert [(r["agent"], r["variant"], r["against"]) for r in paired] == [(a, "two", "as written") for a in agents]
    shots = read_csv(out / "shots.csv")
    mine = {v: [(r["row"], r["shot"], r["reason"], r["points"]) for r in shots if r["variant"] == v
                and r["agent"] == "geometric"] for v in ("as written", "two")}
    assert mine["as written"] != mine["two"]  # the referee counts two cushions as enough
    innings = [r for r in read_csv(out / "innings.csv") if r["agent"] == "geometric"]
    points = {v: np.array([int(r["points"]) for r in innings if r["variant"] == v]) for v in ("as written", "two")}
    assert float(paired[1]["points_difference"]) == pytest.approx(np.mean(points["two"] - points["as written"]))
    assert [r["variant"] for r in read_csv(out / "paired.csv")] == ["as written", "two"]
    assert json.loads((out / "summary.json").read_text())["settings"]["variants"] == [
        dict(name="two", options=dict(cushions_required=2))]
    stored = layouts.load("bench-v1", "three_cushion")
    for g in range(2):
        f = shotfile.read(out / "shots" / f"layout_{g:04d}.json")
        assert f.discipline == "three_cushion" and f.noise == "standard" and (f.cue_ball, f.player) == (0, 0)
        assert np.allclose(f.positions, stored.positions[g])
        assert [s.label for s in f.strikes] == agents and {s.source for s in f.strikes} == {"planned"}
        for s in f.strikes:
            (first,) = [r for r in shots if r["variant"] == "as written" and r["agent"] == s.label
                        and r["row"] == str(g) and r["shot"] == "0"]
            assert s.V0 == pytest.approx(float(first["V0"])) and s.phi == pytest.approx(float(first["phi"]))
        assert set(f.extra["evaluation"]["points"]) == set(agents)
    assert not (out / "shots" / "layout_0002.json").exists()
