"""Shot files between the commands (agents.shotfile): experiments.view and experiments.shot_map read
them (``--from``), shot_map and experiments.reconstruct write them, one strike syntax everywhere;
the viewer's fans of noisy plays (``view --fan``) count their scoring plays as
``agents.robustness.play_trials`` does and draw one cue-ball path per play.

The quick tier simulates only in the batch of 64 shots that tests/agents/test_robustness.py
compiles (``view.FAN_BATCH``); the commands' end-to-end runs, which also replay paths, are slow.
"""
from __future__ import annotations

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
from billiards_env import render, setup
from experiments import reconstruct, shot_map, view
from physics.tracking import tracks
from physics.tracking.fit import Fit
from tests.commands.test_view import browse, embedded, needs_chromium, tables

BATCH = 64  # test_robustness's batch: its simulation and referee are compiled already
LAYOUT = [[0.7, 0.5], [0.71, 0.71], [2.13, 0.71]]


@pytest.fixture
def file(tmp_path):
    """A three-cushion shot file: two strikes, the yellow to shoot, club noise."""
    path = tmp_path / "in.json"
    shotfile.write(path, "three_cushion", LAYOUT, [shotfile.Strike(3.0, 80.0, 5.0, 0.0, 0.1, "first", "given"),
                                                   physics.Shot(2.0, 10.0, 0.0, 0.0, -0.2)],
                   cue_ball=1, noise="club")
    return path


def refused(main, argv, capsys) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2  # argparse's usage error
    return capsys.readouterr().err


# --- quick tier: arguments, files, paths --------------------------------------------------------

def test_view_refuses_what_contradicts_its_shot_file_before_simulating(file, tmp_path, capsys):
    out = ["--out", str(tmp_path / "page.html")]
    cases = [
        (["--from", str(file), "--layout", "0.7,0.5,0.71,0.71,2.13,0.71"], "argument --layout: not with --from"),
        (["--from", str(file), "--cue-ball", "0"], "argument --cue-ball: not with --from"),
        (["--from", str(file), "--discipline", "one_cushion"],
         "argument --discipline: one_cushion is not the shot file's three_cushion"),
        (["--from", str(tmp_path / "none.json")], "argument --from: " + str(tmp_path / "none.json") + ": cannot read"),
        ([], "argument --shot: give a strike (--shot) or a shot file of strikes (--from)"),
        (["--shot", "3,80"], "argument --shot: strike '3,80' has 2 fields, not 5"),
        (["--shot", "v0=3,phi=80", "--fan", "-1"], "argument --fan: must be a number of noisy plays >= 0, got -1"),
        (["--shot", "v0=3,phi=80", "--noise", "pro"], "argument --noise"),
    ]
    for argv, words in cases:
        assert words in refused(view.main, argv + out, capsys), argv
    (tmp_path / "bad.json").write_text(json.dumps({"format": "carom-billiards shot", "version": 9}))
    err = refused(view.main, ["--from", str(tmp_path / "bad.json")] + out, capsys)
    assert "argument --from: " in err and "version 9; this reader knows version 1" in err
    assert not (tmp_path / "page.html").exists()
    assert "v0=3,phi=80,b=0.1" in view.build_parser().format_help()


def test_shot_map_takes_a_shot_file_and_both_strike_syntaxes(file, tmp_path, capsys):
    parser = shot_map.build_parser()

    def parsed(argv):
        args = parser.parse_args(argv)
        shot_map.check_args(parser, args)
        return args

    args = parsed(["--from", str(file), "--at", "phi=80,v0=3", "--shot", "v0=3,phi=80,b=0.1"])
    assert args.discipline == "three_cushion" and args.shot_file == shotfile.read(file)
    assert args.at == [80.0, 3.0] and args.shot == physics.Shot(3.0, 80.0, 0.0, 0.0, 0.1)
    ruleset, params = setup("three_cushion")
    state = shot_map.layout_state(ruleset, params, args)
    np.testing.assert_allclose(np.asarray(state.positions), LAYOUT)
    assert int(state.cue_ball) == 1 and int(state.current_player) == 1  # the file's shooter
    plain = parsed(["--at", "80,3", "--shot", "3,80,0,0,0.1", "--from", "start"])
    assert plain.at == [80.0, 3.0] and plain.shot == args.shot and plain.shot_file is None
    assert plain.discipline == "three_cushion"
    for argv, words in [
        (["--at", "phi=80,v0=3,b=0.2"], "--at takes the aim and speed only (phi=...,v0=...)"),
        (["--at", "80"], "--at must be 2 comma-separated"),
        (["--shot", "v0=3"], "argument --shot: strike 'v0=3': a strike needs V0 and phi; phi missing"),
        (["--from", "randm"], "argument --from: randm: cannot read it"),
        (["--from", str(file), "--layout", "0.7,0.5,0.71,0.71,2.13,0.71"], "argument --layout: not with --from FILE"),
        (["--from", str(file), "--discipline", "hungarian_1000"], "hungarian_1000 is not the shot file's"),
    ]:
        assert words in refused(parsed, argv, capsys), argv


def test_reconstruct_writes_the_played_strike_as_a_shot_file(tmp_path):
    shot = next(s for s in tracks.load(tracks.DATA) if s.shot_id == 545712)
    fit = Fit(np.array([3.1, 42.5, -0.25, 0.1, 0.012, 4.0]), rms=0.05, rms_early=0.03)  # V0 phi a b dt theta
    written = reconstruct.write_shot_file(str(tmp_path / "s.json"), shot, fit, 0.04, None, ["--shot", "545712"], 7)
    back = shotfile.read(tmp_path / "s.json")
    assert back == written and back.discipline == "three_cushion"
    np.testing.assert_array_equal(back.positions, shot.start)
    assert back.cue_ball == shot.cue and back.player == shot.cue
    (strike,) = back.strikes
    assert (strike.V0, strike.phi, strike.theta, strike.a, strike.b, strike.source) == (3.1, 42.5, 4.0, -0.25, 0.1,
                                                                                          "played")
    assert back.provenance == dict(command="python -m experiments.reconstruct --shot 545712", seed=7,
                                   tracked_shot=545712)
    report = back.extra["reconstruction"]
    assert report["dt"] == 0.012 and report["rms"] == 0.05 and report["tracked_balls"] == ["1", "2", "3"]
    # a cue ball tracked third becomes the second ball (the white or the yellow shoots, C-3.4)
    third = dataclasses.replace(shot, tracks=(shot.tracks[0], shot.tracks[2], shot.tracks[1])) if shot.cue == 1 \
        else dataclasses.replace(shot, tracks=(shot.tracks[2], shot.tracks[1], shot.tracks[0]))
    assert third.cue == 2
    moved = reconstruct.write_shot_file(str(tmp_path / "t.json"), third, fit, 0.04, "reference")
    assert moved.cue_ball == 1 and moved.extra["reconstruction"]["tracked_balls"] == ["1", "3", "2"]
    np.testing.assert_array_equal(moved.positions[1], third.start[2])
    assert "'reference' parameters" in moved.notes


def test_thin_path_keeps_every_point_within_its_tolerance():
    t = np.linspace(0.0, np.pi, 400)
    arc = np.stack([1.0 + 0.5 * np.cos(t), 0.7 + 0.5 * np.sin(t)], 1)
    line = np.stack([np.linspace(0.5, 2.0, 300), np.full(300, 0.7)], 1)
    back = line[::-1][1:]  # straight back along the same line: the turn must stay
    path = np.concatenate([arc, line, back, np.repeat(back[-1:], 50, 0)])  # then at rest
    thin = view.thin_path(path, 1e-3)
    assert 10 < len(thin) < 80 and np.array_equal(thin[0], path[0]) and np.array_equal(thin[-1], path[-1])
    assert any(np.allclose(p, [2.0, 0.7]) for p in thin)  # the turning point
    segments = list(zip(thin[:-1], thin[1:]))

    def distance(p):
        best = np.inf
        for a, b in segments:
            ab = b - a
            u = np.clip((p - a) @ ab / (ab @ ab), 0, 1) if ab @ ab > 0 else 0.0
            best = min(best, np.linalg.norm(p - (a + u * ab)))
        return best

    assert max(distance(p) for p in path) <= 1e-3
    assert len(view.thin_path(line, 1e-6)) == 2 and len(view.thin_path(line[:2])) == 2


@pytest.fixture(scope="module")
def table():
    ruleset, params = setup("three_cushion")
    return ruleset, params, agents.random_state(ruleset, jax.random.PRNGKey(3), params)


def test_a_fan_counts_its_scoring_plays_as_play_trials_does(table):
    ruleset, params, state = table
    shots = [physics.Shot(7.0, -120.0), physics.Shot(4.0, -100.0, 0.0, 0.2, 0.0)]  # the first scores when exact
    key = jax.random.PRNGKey(11)
    fans = view.fan_entries("three_cushion", shots, 40, 4.9, key, state=state, labels=["a", "b"])
    direct = rb.play_trials(ruleset, state, physics.Shot(*(np.array([float(getattr(s, f)) for s in shots])
                                                          for f in rb.FIELDS)),
                            params, key, noise=ExecutionNoise(4.9), trials=40, batch=BATCH)
    assert [f.label for f in fans] == ["a", "b"] and [len(f.scored) for f in fans] == [40, 40]
    assert [int(f.scored.sum()) for f in fans] == list(direct.scored)
    assert 0 < direct.scored[0] < 40  # some plays score and some miss
    assert all(np.asarray(f.results.final_time).shape == (40,) for f in fans)
    assert fans[0].cue_ball == int(state.cue_ball) and fans[0].noise == 4.9
    legend = view.fan_legend(fans[0])
    k = int(direct.scored[0])
    assert legend.startswith(f"40 noisy plays (noise x4.9): {k} score (green), {40 - k} miss (grey)")
    with pytest.raises(ValueError, match="plays must be a positive number"):
        view.fan_entries("three_cushion", shots, 0, 1.0, key, state=state)
    with pytest.raises(ValueError, match="noise must be a finite scale"):
        view.fan_entries("three_cushion", shots, 4, -1.0, key, state=state)


def test_search_eval_writes_the_strikes_it_chose_as_shot_files(tmp_path):
    from experiments import search_eval

    ruleset, params = setup("three_cushion")
    layouts = [LAYOUT, [[1.0, 0.4], [0.5, 1.0], [2.0, 0.3]], [[2.5, 1.2], [0.3, 0.3], [1.4, 0.7]]]
    states = agents.stack_states([agents.state_from_layout(ruleset, np.asarray(p), params) for p in layouts])
    saved = {}
    for agent, phi in (("geometric", 10.0), ("search", 20.0)):
        shots = physics.Shot(np.array([3.0, 4.0, 5.0]), np.array([phi, phi + 1, phi + 2]), np.zeros(3), np.zeros(3),
                             np.array([0.1, 0.0, -0.1]))
        search_eval.keep_shots(saved, 2, "three_cushion", "random layouts", states, shots, agent, 1.0, [1, 0, 1])
    paths = search_eval.save_shots(str(tmp_path / "shots"), saved, ["--save-shots", "2"], 7)
    assert paths == [str(tmp_path / "shots" / f"three_cushion_random_00{i}.json") for i in (0, 1)]  # the first two
    second = shotfile.read(paths[1])
    np.testing.assert_allclose(second.positions, layouts[1])
    assert [(s.source, s.V0, s.phi, s.b) for s in second.strikes] == [("geometric", 4.0, 11.0, 0.0),
                                                                       ("search", 4.0, 21.0, 0.0)]
    assert second.strikes[0].label == "geometric at noise 1: 0 point(s) when played in the evaluation"
    assert second.noise == 1.0 and second.provenance["layout"] == 1 and second.provenance["seed"] == 7


# --- slow tier: the commands end to end ---------------------------------------------------------


@pytest.mark.slow
def test_search_eval_save_shots_end_to_end(tmp_path):
    from experiments import search_eval

    search_eval.main(["--agents", "geometric", "--layouts", "3", "--start", "1", "--hungarian-layouts", "0",
                      "--innings", "0", "--noise", "0", "--save-shots", "2", "--out", str(tmp_path)])
    files = sorted(p.name for p in (tmp_path / "shots").iterdir())
    assert files == ["three_cushion_random_000.json", "three_cushion_random_001.json", "three_cushion_start_000.json"]
    rows = [r for r in json.loads((tmp_path / "summary.json").read_text())["three_cushion"]]
    assert sum(r["shots"] for r in rows) == 4  # the evaluation itself as before
    start = shotfile.read(tmp_path / "shots" / "three_cushion_start_000.json")
    assert [s.source for s in start.strikes] == ["geometric"] and "break" in start.notes

@pytest.mark.slow
def test_a_shot_map_file_replays_in_the_viewer_with_its_fan(tmp_path, capsys):
    maps = tmp_path / "map"
    shot_map.main(["--aims", "16", "--speeds", "4", "--trials", "2", "--offsets", "3", "--shot-trials", "16",
                   "--batch", str(BATCH), "--seed", "3", "--noise", "club", "--out", str(maps), "--no-progress"])
    written = shotfile.read(maps / "shot.json")
    report = json.loads((maps / "shot.json").read_text())
    assert written.strikes[0].source == "map" and written.noise == agents.NOISE_PROFILES["club"]
    assert written.provenance["seed"] == 3 and "experiments.shot_map" in written.provenance["command"]
    assert 0 <= report["shot"]["success"] <= 1 and report["shot"]["shot"]["V0"] == written.strikes[0].V0
    ruleset, params, state = written.game()
    np.testing.assert_allclose(np.asarray(state.positions),  # the layout --seed 3 draws
                               np.asarray(agents.random_state(ruleset, jax.random.PRNGKey(3), params).positions))
    page, saved = tmp_path / "view.html", tmp_path / "again.json"
    capsys.readouterr()
    view.main(["--from", str(maps / "shot.json"), "--shot", "v0=3,phi=80", "--fan", "8", "--seed", "5",
               "--out", str(page), "--save", str(saved)])
    assert capsys.readouterr().out.strip() == str(page)
    data = embedded(page)
    assert [d["label"] for d in data] == [written.strikes[0].label, view.describe(physics.Shot(3.0, 80.0))]
    np.testing.assert_allclose(data[0]["positions"][0], written.positions, atol=1e-5)
    text = page.read_text()
    fans = json.loads(re.search(r'id="fandata">(.*?)</script>', text, re.S).group(1))
    shots = [s.shot for s in written.strikes] + [physics.Shot(3.0, 80.0)]
    direct = rb.play_trials(ruleset, state, physics.Shot(*(np.array([float(getattr(s, f)) for s in shots])
                                                          for f in rb.FIELDS)),
                            params, jax.random.fold_in(jax.random.PRNGKey(5), 1), noise=ExecutionNoise(written.noise),
                            trials=8, batch=BATCH)
    assert [f["label"] for f in fans] == [d["label"] for d in data]
    for fan, k in zip(fans, direct.scored):
        assert fan["plays"] == 8 and len(fan["paths"]) == 8 and len(fan["hits"]) == 8
        assert fan["scored"] == sum(fan["hits"]) == k
        assert f"{k} score (green), {8 - k} miss (grey)" in fan["legend"] and fan["legend"] in text
        cue = np.asarray(written.positions[written.cue_ball])
        for path in fan["paths"]:  # each play's cue-ball path starts at the cue ball and moves off it
            assert np.allclose(path[0], cue, atol=1e-4) and len(path) >= 2
            assert np.max(np.linalg.norm(np.asarray(path) - cue, axis=1)) > 0.05
    assert len({json.dumps(p) for p in fans[0]["paths"]}) == 8  # every noisy play differs
    again = shotfile.read(saved)
    assert again.layout == written.layout and again.strikes[:1] == written.strikes[:1]
    assert again.strikes[1] == shotfile.Strike(3.0, 80.0, source="given") and again.noise == written.noise


@pytest.mark.slow
def test_view_seed_draws_shot_maps_layout(tmp_path):
    page = tmp_path / "seed.html"
    view.main(["--seed", "3", "--cue-ball", "1", "--shot", "3,80,0,0,0", "--out", str(page)])
    ruleset, params = setup("three_cushion")
    expected = np.asarray(agents.random_state(ruleset, jax.random.PRNGKey(3), params).positions)
    data = embedded(page)
    np.testing.assert_allclose(data[0]["positions"][0], expected, atol=1e-5)
    assert data[0]["events"][0][1] == "cue_strike yellow"


@pytest.mark.slow
@needs_chromium
def test_browser_draws_the_fans_without_errors(table, tmp_path):
    ruleset, params, state = table
    shots = [physics.Shot(7.0, -120.0)]
    entries = view.shot_entries("three_cushion", shots, state=state)
    fans = view.fan_entries("three_cushion", shots, BATCH, 2.1, jax.random.PRNGKey(2), state=state)
    hits = int(fans[0].scored.sum())
    assert 0 < hits < BATCH  # both colours are drawn
    path = view.write_view(tmp_path / "fan.html", entries, width=320, fans=fans)
    img, console = browse(path, 0.0, tmp_path)
    assert console == []
    corners = tables(img)
    assert len(corners) == 2  # the replay's table and the fan's
    canvas = render.Canvas(float(params.table.length), float(params.table.width), 320)
    top, left = max(corners)
    h, w = canvas.shape[:2]
    picture = img[top:top + h, left:left + w].astype(int)
    for colour, count in ((view.SCORES, hits), (view.MISSES, BATCH - hits)):
        near = np.abs(picture - np.asarray(colour)).max(-1) <= 40
        assert (near.sum() > 20) == (count > 0), (colour, count, near.sum())
