"""The shot report (experiments.shot_report): which strikes are one shot, what --tracked takes,
the strikes reported as they are (the played one), the arguments refused before any simulation;
and (slow tier) the command end to end: options chosen on some noise draws and valued on
others, its three files, the page, ``view --from report.json``, the same report from the same seed.

The quick tier simulates nothing: paths are built from event lists, layouts from shot files.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import re

import jax
import numpy as np
import pytest

import agents
import physics
from agents import ExecutionNoise, shotfile
from agents import robustness as rb
from billiards_env import setup
from experiments import reconstruct, shot_report, view
from physics.tracking import tracks
from physics.tracking.fit import Fit
from tests.commands.test_view import browse, embedded, needs_chromium

NAMES = ("white", "yellow", "red")
LAYOUT = [[0.7, 0.5], [0.71, 0.71], [2.13, 0.71]]


def events(*contacts) -> list:
    """An event list (``physics.event_list``'s keys that paths read) of the white's contacts:
    a ball name, or a cushion name; "yellow-red" a contact without the white."""
    out = [dict(kind="cue_strike", balls=[0])]
    for c in contacts:
        if c in NAMES:
            out.append(dict(kind="ball_ball", balls=[0, NAMES.index(c)]))
        elif "-" in c:
            out.append(dict(kind="ball_ball", balls=[NAMES.index(b) for b in c.split("-")]))
        else:
            out.append(dict(kind="ball_cushion", balls=[0], cushion=c))
        out.append(dict(kind="sliding_to_rolling", balls=[0]))
    return out


def test_a_path_is_the_cue_balls_contacts_until_the_carom():
    path = shot_report.path_of(events("right", "yellow", "yellow-red", "top", "left", "red", "bottom", "yellow"),
                               LAYOUT, 0, NAMES)
    assert path.route == ("right", "yellow", "top", "left", "red")  # the carom ends it; others' contacts left out
    assert path.carom
    pin = [dict(kind="ball_pin", balls=[0]), dict(kind="off_table", balls=[0], cushion="top")]
    missed = shot_report.path_of(events("red") + pin, LAYOUT, 0, NAMES)
    assert missed.route == ("red", "pin", "off table") and not missed.carom


def test_dedup_merges_strikes_with_the_same_path():
    ends = np.asarray(LAYOUT)
    a = shot_report.Path(("right", "yellow", "top", "left", "red"), ends)
    b = shot_report.Path(a.route, ends + 0.2)  # the same contacts, the balls ending elsewhere
    c = shot_report.Path(("yellow", "left", "bottom", "right", "red"), ends)
    assert shot_report.same_path(a, b) and not shot_report.same_path(a, c)
    kept, group = shot_report.distinct([a, b, c], [1, 0, 2], 2)
    assert kept == [1, 2] and group == [1, 1, 2]  # b, the better, stands for a too
    kept, group = shot_report.distinct([a, b, c], [1, 0, 2], 2, within=0.1)  # ends count: a and b differ
    assert kept == [1, 0] and group == [0, 1, -1]
    assert shot_report.distinct([a, b, c], [0, 1, 2], 5) == ([0, 2], [0, 0, 2])
    # a strike that misses as aimed after the same contacts, short of the last ball, is the same shot
    a, c = (dataclasses.replace(p, carom=True) for p in (a, c))
    near = shot_report.Path(("right", "yellow", "top", "left", "bottom", "right"), ends)
    assert shot_report.same_path(near, a) and shot_report.same_path(a, near) and not shot_report.same_path(near, c)
    other = shot_report.Path(("right", "yellow", "bottom"), ends)  # off after the first ball: another shot
    assert not shot_report.same_path(other, a)
    direct = shot_report.Path(("yellow", "red"), ends, carom=True)  # a first ball alone is not a shared route
    assert not shot_report.same_path(shot_report.Path(("yellow", "left"), ends), direct)
    assert shot_report.distinct([near, a, c, other], [0, 1, 2, 3], 3) == ([0, 2, 3], [0, 0, 2, 3])


def test_candidates_rank_by_success_then_points():
    points = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0]])
    trials = rb.Trials(np.array([1, 2, 0, 2]), points, 0 * points)
    assert list(shot_report.ranked(trials)) == [1, 3, 0, 2]


def test_tracked_takes_a_shot_id_a_file_and_an_id_or_a_shot_file():
    T = shot_report.Tracked
    assert shot_report.tracked_arg("545712") == T(shot_id=545712)
    assert shot_report.tracked_arg("my/shots.json:545712") == T(data="my/shots.json", shot_id=545712)
    assert shot_report.tracked_arg("results/shot_545712.json") == T(file="results/shot_545712.json")
    with pytest.raises(argparse.ArgumentTypeError, match=r"\[FILE:\]SHOT_ID"):
        shot_report.tracked_arg("shot_545712")
    assert "[FILE:]SHOT_ID" in shot_report.build_parser().format_help()


@pytest.fixture(scope="module")
def played_file(tmp_path_factory):
    """A reconstructed match shot's file (experiments.reconstruct's writer, a made-up fit)."""
    shot = next(s for s in tracks.load(tracks.DATA) if s.shot_id == 545712)
    fit = Fit(np.array([3.1, 42.5, -0.25, 0.1, 0.012, 4.0]), rms=0.05, rms_early=0.03)  # V0 phi a b dt theta
    path = tmp_path_factory.mktemp("tracked") / "shot_545712.json"
    reconstruct.write_shot_file(str(path), shot, fit, 0.04, None, ["--shot", "545712"])
    return path


def test_the_played_strike_stands_among_the_options(played_file, tmp_path, monkeypatch):
    args = shot_report.build_parser().parse_args(["--tracked", str(played_file), "--out", str(tmp_path)])
    shot_report.check_args(shot_report.build_parser(), args)
    where = shot_report.layout_of(args)
    assert where.discipline == "three_cushion" and where.about["shot_id"] == 545712
    np.testing.assert_allclose(np.asarray(where.state.positions), shotfile.read(played_file).positions)
    given = list(where.given) + [shotfile.Strike(2.0, 10.0, label="a try", source="given")]
    beside = shot_report.as_they_are(physics.Shot(3.0, 80.0), given)
    assert [c.role for c in beside] == ["geometric", "played", "given"]
    assert beside[1].label == "played: match shot 545712, as reconstructed (RMS 5.0 cm)"
    assert beside[1].shot == physics.Shot(3.1, 42.5, 4.0, -0.25, 0.1) and beside[2].label == "a try"
    # SHOT_ID alone: reconstructed from the tracks and kept as OUT/shot_<id>.json (the fit made up here)
    fits = []
    monkeypatch.setattr("physics.tracking.fit.reconstruct",
                        lambda shot, params: fits.append(shot.shot_id) or (Fit(np.array([3.0, 40.0, 0, 0, 0, 0]),
                                                                                0.02, 0.01), 0.01))
    path = shot_report.tracked_file(shot_report.Tracked(shot_id=545712), str(tmp_path / "out"))
    assert fits == [545712] and path == str(tmp_path / "out" / "shot_545712.json")
    (strike,) = shotfile.read(path).strikes
    assert strike.source == "played" and (strike.V0, strike.phi) == (3.0, 40.0)


def refused(argv, capsys) -> str:
    with pytest.raises(SystemExit) as exit_:
        shot_report.main(argv)
    assert exit_.value.code == 2  # argparse's usage error
    return capsys.readouterr().err


def test_bad_input_is_refused_before_anything_is_simulated(played_file, tmp_path, capsys):
    out = ["--out", str(tmp_path / "report")]
    plain = tmp_path / "plain.json"
    shotfile.write(plain, "three_cushion", LAYOUT, [physics.Shot(3.0, 80.0)])
    cases = [
        (["--top", "0"], "argument --top: must be a whole number >= 1, got 0"),
        (["--plays", "-5"], "argument --plays: must be a whole number >= 1"),
        (["--keys", "0", "--favourites", "0"], "the candidates need one search key or one favourite"),
        (["--noise", "pro"], "argument --noise: noise must be a finite scale >= 0 or a profile name (exact, standard"),
        (["--tracked", "123"], f"argument --tracked: no shot 123 in {tracks.DATA}; its 90 shot ids: 545599, 545600"),
        (["--tracked", str(tmp_path / "none.json") + ":5"], "argument --tracked: cannot read tracked shots from"),
        (["--tracked", str(plain)], "holds no played strike (source \"played\")"),
        (["--tracked", str(played_file), "--discipline", "hungarian_1000"],
         "argument --discipline: hungarian_1000 is not the layout's three_cushion"),
        (["--tracked", "545712", "--from", str(plain)], "argument --tracked: not with --from"),
        (["--from", str(tmp_path / "none.json")], "argument --from: "),
        (["--map-cells", "1,5"], "a map needs at least 2 aims and 2 speeds"),
    ]
    for argv, words in cases:
        assert words in refused(argv + out, capsys), argv
    assert not (tmp_path / "report").exists()


# --- slow tier: the command end to end -------------------------------------------------------------

TINY = ["--keys", "2", "--favourites", "2", "--top", "2", "--select-plays", "16", "--plays", "24", "--margin-steps",
        "2", "--map-trials", "1", "--map-cells", "3,3", "--fan", "4", "--batch", "64"]


def fans(page) -> list:
    text = open(page, encoding="utf-8").read()
    return json.loads(re.search(r'id="fandata">(.*?)</script>', text, re.S).group(1))


def without_run(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in ("timings", "seconds", "machine")}


@pytest.fixture(scope="module")
def seed3(tmp_path_factory):
    """(folder, report) of the tiny report on the layout of seed 3 under club noise."""
    out = tmp_path_factory.mktemp("seed3") / "report"
    return out, shot_report.main(["--seed", "3", "--noise", "club", "--out", str(out)] + TINY)


@pytest.mark.slow
def test_the_report_chooses_on_some_draws_and_values_on_others(seed3, tmp_path):
    out, report = seed3
    assert json.loads((out / "report.json").read_text()) == json.loads(json.dumps(report))
    options = report["options"]
    best = [o for o in options if o["role"] == "best"]
    assert [o["label"][:3] for o in best] == ["#1 ", "#2 "] and options[-1]["role"] == "geometric"
    assert len({tuple(o["as_aimed"]["route"]) for o in best}) == 2  # distinct paths
    for o in options:
        assert o["plays"] >= 24 and o["low"] <= o["success"] <= o["high"]
        assert set(o["margins"]) == set(rb.MARGIN_FIELDS) and o["map"]["trials"] == 1
    assert all(o["selection"]["plays"] == 16 for o in best)
    # the success reported is that of fresh draws, not of the draws that chose
    ruleset, params = setup("three_cushion")
    state = agents.random_state(ruleset, jax.random.PRNGKey(3), params)
    strikes = rb.stack_shots(physics.Shot(**o["strike"]) for o in options)
    chose = jax.random.fold_in(jax.random.PRNGKey(3), 3)
    club = ExecutionNoise(agents.NOISE_PROFILES["club"])
    fresh = rb.play_trials(ruleset, state, strikes, params, rb.held_out_key(chose), noise=club, trials=24, batch=64)
    assert [o["success"] for o in options] == list(fresh.success)
    chosen_on = rb.play_trials(ruleset, state, rb.take(strikes, range(len(best))), params, chose, noise=club,
                               trials=16, batch=64)
    assert [o["selection"]["success"] for o in best] == list(chosen_on.success)
    # the shot file it names, the page, and the viewer following the report
    shots = shotfile.read(out / report["shot_file"])
    assert [s.source for s in shots.strikes] == [o["source"] for o in options] and shots.noise == club.scale
    assert [physics.Shot(**o["strike"]) for o in options] == [s.shot for s in shots.strikes]
    text = (out / "report.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I)
    assert text.count('src="data:image/png;base64,') == len(options) and "held out" in text
    assert [d["label"] for d in embedded(out / "report.html")] == [s.label for s in shots.strikes]
    page = view.main(["--from", str(out / "report.json"), "--fan", "4", "--seed", "3", "--out",
                      str(tmp_path / "view.html")])
    assert [d["label"] for d in embedded(page)] == [s.label for s in shots.strikes]
    assert [f["hits"] for f in fans(page)] == [f["hits"] for f in fans(out / "report.html")]  # view's fans, redrawn
    again = shot_report.main(["--seed", "3", "--noise", "club", "--out", str(tmp_path / "again")] + TINY)
    assert without_run(again) == without_run(report)  # seeded: the same report


@pytest.mark.slow
@needs_chromium
def test_the_report_page_opens_without_errors(seed3, tmp_path):
    img, console = browse(seed3[0] / "report.html", 0.0, tmp_path)
    assert console == []  # no error, no warning
    dark = np.abs(img.astype(int) - (68, 1, 84)).max(-1) <= 12  # viridis' 0: the maps' cells that never score
    assert dark.sum() > 500  # the maps are drawn at the top


@pytest.mark.slow
def test_a_tracked_report_puts_the_played_strike_among_the_options(played_file, tmp_path):
    report = shot_report.main(["--tracked", str(played_file), "--noise", "master", "--out", str(tmp_path / "r")]
                              + TINY)
    (played,) = [o for o in report["options"] if o["role"] == "played"]
    assert played["label"].startswith("played") and played["source"] == "played" and played["plays"] == 24
    assert played["strike"] == dict(V0=3.1, phi=42.5, theta=4.0, a=-0.25, b=0.1)
    assert played["low"] <= played["success"] <= played["high"]
    assert any(line.startswith("The strike played scores") for line in report["summary"])
    assert report["layout"]["shot_id"] == 545712 and report["settings"]["noise"] == agents.NOISE_PROFILES["master"]
