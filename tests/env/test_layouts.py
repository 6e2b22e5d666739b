"""The stored benchmark layouts (``billiards_env.layouts``, made by ``experiments.bench_layouts``):
the manifest's checksums are the files', every layout is legal on its discipline's table (checked
here with NumPy from the positions, no simulation), loading is deterministic and refuses an
altered or missing file, the games built from them are those of ``agents.states``, and
``experiments.evaluate --layouts bench-v1`` starts its innings from them in order."""
from __future__ import annotations

import fnmatch
import hashlib
import json
import shutil
import tomllib
from pathlib import Path

import jax
import numpy as np
import pytest

import rules
from agents import arena
from agents.states import state_from_layout
from billiards_env import layouts, setup
from experiments import bench_layouts, evaluate

ROOT = Path(__file__).resolve().parents[2]
SET = "bench-v1"
COUNT = 1000
MARGIN = 0.004  # m: every ball this far clear of the others, the cushions and the pin (frozen: 0.1 mm)
BATCH = 8  # the evaluation tests' batch (tests/commands/test_experiments.py): shared compiled shapes
PAIRS = (np.array([0, 0, 1]), np.array([1, 2, 2]))


def set_folder() -> Path:
    return layouts.ROOT / SET


# --- the files ---------------------------------------------------------------------------------

def test_the_manifest_lists_every_discipline_with_its_count_seed_command_and_checksum():
    manifest = json.loads((set_folder() / "manifest.json").read_text())
    assert manifest["set"] == SET and manifest["command"] == f"python -m experiments.bench_layouts --set {SET}"
    assert manifest["seed"] == bench_layouts.SETS[SET]["seed"] and manifest["count"] == COUNT
    assert set(manifest["files"]) == {f"{d}.npz" for d in rules.DISCIPLINES}
    assert {p.name for p in set_folder().iterdir()} == set(manifest["files"]) | {"manifest.json"}
    for file, entry in manifest["files"].items():
        assert hashlib.sha256((set_folder() / file).read_bytes()).hexdigest() == entry["sha256"], file
        assert (entry["count"], entry["seed"], entry["stream"]) == (
            COUNT, manifest["seed"], rules.DISCIPLINES.index(entry["discipline"]))
    assert layouts.manifest(SET) == manifest


@pytest.mark.parametrize("discipline", rules.DISCIPLINES)
def test_every_layout_is_legal_on_its_table(discipline):
    ruleset, params = setup(discipline)
    found = layouts.load(SET, discipline)
    p = found.positions
    assert p.shape == (COUNT, 3, 2) and p.dtype == np.float64
    R, reach = float(params.ball.radius), float(params.cushion_reach)
    size = np.array([float(params.table.length), float(params.table.width)])
    np.testing.assert_array_equal(found.table, size)
    assert np.all(p >= reach + MARGIN) and np.all(p <= size - reach - MARGIN)  # inside the cushions, not frozen
    gaps = np.linalg.norm(p[:, PAIRS[0]] - p[:, PAIRS[1]], axis=-1) - 2 * R
    assert gaps.min() >= MARGIN  # no two balls overlapping or frozen together
    if rules.disciplines.get(discipline).pin:  # the pin stands on the centre spot, its area clear (H-2.1)
        np.testing.assert_array_equal(found.pin, np.asarray(params.table.centre))
        to_pin = np.linalg.norm(p - found.pin, axis=-1) - R - float(ruleset.pin_radius)
        assert to_pin.min() >= MARGIN
    else:
        assert found.pin is None
    assert np.all(found.player == 0) and np.all(found.cue_ball == int(rules.cue_ball_of(ruleset, 0)))
    np.testing.assert_allclose(p * layouts.SCALE, np.rint(p * layouts.SCALE), atol=1e-6)  # whole tenths of a mm
    assert len(np.unique(p.reshape(COUNT, -1), axis=0)) == COUNT
    assert bench_layouts.faults(found) == []


def test_loading_is_deterministic():
    a, b = layouts.load(SET, "three_cushion"), layouts.load(SET, "three_cushion")
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    with np.load(set_folder() / "three_cushion.npz") as raw:
        assert raw["positions"].dtype == np.int32
        np.testing.assert_array_equal(a.positions, raw["positions"] / 10_000)


def test_an_altered_or_missing_file_is_refused(tmp_path):
    shutil.copytree(set_folder(), tmp_path / SET)
    path = tmp_path / SET / "three_cushion.npz"
    data = bytearray(path.read_bytes())
    data[1000] ^= 1  # one bit of a layout's coordinate
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="altered.*sha256"):
        layouts.load(SET, "three_cushion", root=tmp_path)
    assert layouts.load(SET, "one_cushion", root=tmp_path).positions.shape == (COUNT, 3, 2)
    (tmp_path / SET / "one_cushion.npz").unlink()
    with pytest.raises(FileNotFoundError, match="one_cushion.npz"):
        layouts.load(SET, "one_cushion", root=tmp_path)
    (tmp_path / SET / "manifest.json").unlink()
    with pytest.raises(FileNotFoundError, match="manifest"):
        layouts.load(SET, "straight_rail", root=tmp_path)


def test_unknown_sets_and_disciplines_say_what_is_allowed():
    with pytest.raises(ValueError, match="unknown layout set 'bench-v9'; valid sets: random, bench-v1"):
        layouts.load("bench-v9", "three_cushion")
    with pytest.raises(ValueError, match="drawn at run time"):
        layouts.load("random", "three_cushion")
    with pytest.raises(ValueError, match="no layouts of 'pin_500'.*three_cushion, one_cushion"):
        layouts.load(SET, "pin_500")


def test_the_fault_check_finds_planted_faults():
    found = layouts.load(SET, "hungarian_1000")  # a 2.1 x 1.05 m table, the pin at (1.05, 0.525)
    R = 0.03075
    p, cue = found.positions.copy(), found.cue_ball.copy()
    p[5] = [[0.5, 0.5], [0.5 + 2 * R + 0.001, 0.5], [1.5, 0.8]]  # two balls 1 mm apart
    p[9] = [[0.02, 0.5], [0.5, 0.8], [1.6, 0.3]]  # a ball inside the cushion
    p[11] = [[1.05 + R + 0.012, 0.525], [0.4, 0.3], [1.6, 0.8]]  # a ball 2 mm from the pin
    cue[3] = 1  # the yellow, not the red
    lines = bench_layouts.faults(found._replace(positions=p, cue_ball=cue))
    assert lines == [f"hungarian_1000: 1 of {COUNT} layouts with {what}" for what in (
        "a ball off the table or near a cushion, the first #9", "two balls near each other, the first #5",
        "a cue ball other than the rules', the first #3", "a ball near the pin, the first #11")]


def test_the_package_data_ships_every_file_of_the_sets():
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    for path in (ROOT / "billiards_env" / "layout_sets").rglob("*"):
        if path.is_file():
            name = str(path.relative_to(ROOT / "billiards_env"))
            assert any(fnmatch.fnmatch(name, g) for g in globs["billiards_env"]), name


def test_the_command_refuses_to_rewrite_a_stored_set(capsys):
    with pytest.raises(SystemExit):
        bench_layouts.main(["--set", SET])
    assert "never changes" in capsys.readouterr().err


@pytest.mark.slow
def test_the_command_redraws_the_stored_bytes(tmp_path):
    """The same seed draws the same layouts: if this fails after a JAX upgrade, its random numbers
    changed; the stored files remain the set (never regenerate a stored set)."""
    written = bench_layouts.main(["--set", SET, "--disciplines", "three_cushion", "hungarian_1000",
                                  "--out", str(tmp_path)])
    stored = layouts.manifest(SET)["files"]
    for file, entry in written["files"].items():
        assert entry["sha256"] == stored[file]["sha256"], file


# --- the games built from them -----------------------------------------------------------------

@pytest.mark.parametrize("discipline", ["three_cushion", "hungarian_1000"])
def test_states_are_the_random_states_construction_of_the_stored_layouts(discipline):
    ruleset, params = setup(discipline)
    found = layouts.load(SET, discipline)
    games = layouts.states(SET, discipline, ruleset, params, BATCH, offset=3)
    np.testing.assert_array_equal(np.asarray(games.positions), found.positions[3:3 + BATCH])
    np.testing.assert_array_equal(np.asarray(games.cue_ball), found.cue_ball[3:3 + BATCH])
    assert not np.asarray(games.frozen_balls).any() and not np.asarray(games.frozen_cushions).any()
    one = state_from_layout(ruleset, found.positions[4], params, found.player[4])
    for got, want in zip(jax.tree_util.tree_leaves(games), jax.tree_util.tree_leaves(one)):
        np.testing.assert_array_equal(np.asarray(got)[1], np.asarray(want))


def test_states_refuse_more_layouts_than_the_set_holds_and_other_rules():
    ruleset, params = setup("three_cushion")
    with pytest.raises(ValueError, match="holds 1000 layouts of three_cushion"):
        layouts.states(SET, "three_cushion", ruleset, params, COUNT + 1)
    with pytest.raises(ValueError, match="holds 1000"):
        layouts.states(SET, "three_cushion", ruleset, params, BATCH, offset=COUNT - 2)
    with pytest.raises(ValueError, match="carom family"):
        layouts.states(SET, "three_cushion", *setup("hungarian_1000"), BATCH)
    with pytest.raises(ValueError, match="table"):
        layouts.states(SET, "hungarian_1000", *setup("hungarian_1000", physics_options=dict(table="match")), BATCH)


def test_the_arena_starts_innings_from_the_stored_layouts_in_order():
    ruleset, params = setup("straight_rail")
    found = layouts.load(SET, "straight_rail")
    keys = arena.row_keys(0, 0, BATCH)
    games = arena.first_states(ruleset, params, BATCH, "random", keys, layouts=found)
    np.testing.assert_array_equal(games.positions, found.positions[:BATCH])
    with pytest.raises(ValueError, match="start must be 'random'"):
        arena.first_states(ruleset, params, BATCH, "start", keys, layouts=found)


# --- experiments.evaluate --layouts ------------------------------------------------------------

def test_evaluate_offers_the_stored_sets_and_refuses_what_they_cannot_give(capsys):
    assert "bench-v1" in evaluate.build_parser().format_help()
    assert evaluate.build_parser().parse_args([]).layouts == "random"  # today's behaviour by default
    with pytest.raises(SystemExit):
        evaluate.main(["--layouts", SET, "--innings", str(COUNT + 1), "--out", "unused"])
    assert "holds 1000 layouts of three_cushion" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        evaluate.main(["--layouts", SET, "--from", "start", "--out", "unused"])
    assert "--from start" in capsys.readouterr().err


@pytest.mark.slow
def test_evaluate_plays_its_innings_from_the_stored_layouts(tmp_path, monkeypatch):
    seen = []
    decide = arena.Player.decide

    def spy(self, ruleset, states, params, keys):
        seen.append(np.array(states.positions))
        return decide(self, ruleset, states, params, keys)

    monkeypatch.setattr(arena.Player, "decide", spy)
    out = tmp_path / "evaluate"
    result = evaluate.main(["--discipline", "three_cushion", "--agents", "random", "--innings", "3",
                            "--max-shots", "1", "--layouts", SET, "--batch", str(BATCH), "--search-shots",
                            str(BATCH), "--no-progress", "--out", str(out)])
    np.testing.assert_array_equal(seen[0], layouts.load(SET, "three_cushion").positions[:3])  # the first shots
    assert len(result["innings"]) == 3 and result["summary"][0]["layouts"] == SET
    assert json.loads((out / "summary.json").read_text())["settings"]["layouts"] == SET
