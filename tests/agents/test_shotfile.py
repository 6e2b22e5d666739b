"""Shot files (agents.shotfile): a written file reads back as written, every malformed file is
refused with what is wrong and where, both strike syntaxes, and the example of docs/shotfile.md
reads. No simulation: the checks are the layout and strike checks the commands run first."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import physics
from agents import NOISE_PROFILES, shotfile
from agents.shotfile import ShotFileError, Strike

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = [[0.7, 0.5], [0.71, 0.71], [2.13, 0.71]]  # white, yellow, red (m)
HUNGARIAN = [[0.3, 0.3], [0.5, 0.3], [0.7, 0.4]]  # red, white, yellow, clear of the pin on the centre spot


def good(**changes) -> dict:
    """A valid file's JSON object, with ``changes`` (a value None removes the key)."""
    data = dict(format=shotfile.FORMAT, version=1, discipline="three_cushion", layout=LAYOUT, cue_ball=0, player=0,
                strikes=[dict(V0=3.0, phi=80.0, theta=5.0, a=0.0, b=0.1, label="follow", source="given")])
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None}


def saved(tmp_path, data, name="shot.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_a_written_file_reads_back_as_written(tmp_path):
    strikes = [Strike(3.0, 80.0, 5.0, 0.0, 0.1, label="follow", source="search"),
               physics.Shot(2.5, -30.25, 0.0, -0.2, 0.0)]
    path = tmp_path / "sub" / "shot.json"
    written = shotfile.write(path, "three_cushion", np.array(LAYOUT), strikes, cue_ball=1, noise="club",
                             notes="two strikes [\n 1,\n 2\n]", provenance=dict(command="python -m x --seed 3", seed=3),
                             extra=dict(report=dict(success=np.float64(0.5), counts=np.arange(3))))
    back = shotfile.read(path)
    assert back == written
    assert back.discipline == "three_cushion" and back.layout == tuple(map(tuple, LAYOUT))
    assert (back.cue_ball, back.player) == (1, 1)  # the yellow is player 1's ball (C-3.4)
    assert back.strikes[0] == strikes[0]
    assert back.strikes[1] == Strike(2.5, -30.25, 0.0, -0.2, 0.0)  # no label, no source
    assert [float(s.phi) for s in back.shots] == [80.0, -30.25]
    assert back.noise == "club" and back.noise_scale == NOISE_PROFILES["club"]
    assert back.provenance == dict(command="python -m x --seed 3", seed=3)
    assert back.extra == dict(report=dict(success=0.5, counts=[0, 1, 2]))
    assert back.notes == "two strikes [\n 1,\n 2\n]"  # kept as written, though it looks like a list
    assert '"layout": [\n  [0.7, 0.5],\n  [0.71, 0.71],' in path.read_text()  # a centre a line
    data = json.loads(path.read_text())
    assert list(data)[:2] == ["format", "version"] and data["format"] == "carom-billiards shot"
    assert data["strikes"][1] == dict(V0=2.5, phi=-30.25, theta=0.0, a=-0.2, b=0.0)
    np.testing.assert_array_equal(back.positions, LAYOUT)


def test_the_shooter_defaults_to_player_0_and_follows_the_cue_ball(tmp_path):
    plain = shotfile.write(tmp_path / "a.json", "three_cushion", LAYOUT, [physics.Shot(3.0, 0.0)])
    assert (plain.cue_ball, plain.player, plain.noise, plain.notes, plain.provenance) == (0, 0, None, None, None)
    assert "noise" not in json.loads((tmp_path / "a.json").read_text())
    yellow = shotfile.from_dict(good(cue_ball=1, player=None))
    assert yellow.player == 1
    second = shotfile.from_dict(good(discipline="hungarian_1000", layout=HUNGARIAN, cue_ball=None, player=1))
    assert (second.cue_ball, second.player) == (0, 1)  # both players strike the red (H-3.1)
    ruleset, params, state = second.game()
    assert int(state.current_player) == 1 and int(state.cue_ball) == 0
    np.testing.assert_allclose(np.asarray(state.positions), HUNGARIAN)


@pytest.mark.parametrize("changes, words", [
    (dict(format="something else"), "not a shot file: its format is 'something else'"),
    (dict(format=None), "not a shot file: its format is None"),
    (dict(version=2), "shot file version 2; this reader knows version 1 (the file is newer than this code)"),
    (dict(version="1"), "shot file version '1'"),
    (dict(strikes=None), "missing strikes"),
    (dict(discipline="snooker"), "discipline: unknown discipline 'snooker'; valid disciplines: three_cushion, "),
    (dict(layout=[[-0.1, 0.5], [0.71, 0.71], [2.13, 0.71]]), "layout: layout is not legal: balls must lie inside"),
    (dict(layout=[[0.7, 0.5], [0.72, 0.51], [2.13, 0.71]]), "must not overlap each other"),
    (dict(layout=[[0.7, 0.5], [0.71, 0.71]]), "layout: layout must be three [x, y] ball centres"),
    (dict(layout=[[0.7, "0.5"], [0.71, 0.71], [2.13, 0.71]]), "layout: a layout coordinate must be a number"),
    (dict(discipline="hungarian_1000", layout=[[0.3, 0.3], [0.5, 0.3], [1.05, 0.55]]), "or the pin on the centre"),
    (dict(cue_ball=2), "cue_ball: cue_ball must be a shooter's ball in this discipline, one of [0, 1], got 2"),
    (dict(cue_ball=True), "cue_ball must be an integer"),
    (dict(discipline="hungarian_1000", layout=HUNGARIAN, cue_ball=1, player=None), "one of [0], got 1"),
    (dict(cue_ball=0, player=1), "player 1 strikes ball 1 in this discipline, not cue_ball 0"),
    (dict(player=2), "player must be 0 or 1, got 2"),
    (dict(strikes=[]), "strikes must be a non-empty list"),
    (dict(strikes=[dict(V0=float("nan"), phi=0.0)]), "strikes[0]: shot parameter V0 must be finite, got nan"),
    (dict(strikes=[dict(V0=3.0, phi=0.0), dict(V0=11.0, phi=0.0)]), "strikes[1]: cue speed V0 must be in [0, 10]"),
    (dict(strikes=[dict(V0=3.0, phi=0.0, theta=90.0)]), "cue elevation theta must be in [0, 90)"),
    (dict(strikes=[dict(V0=3.0, phi=0.0, a=0.5, b=0.5)]), "beyond is a miscue"),
    (dict(strikes=[dict(V0=3.0)]), "strikes[0]: a strike needs V0 and phi; phi missing"),
    (dict(strikes=[dict(V0=3.0, phi=0.0, spin=1.0)]), "unknown key(s) spin; valid: V0, phi, theta, a, b, label"),
    (dict(strikes=[dict(V0="3", phi=0.0)]), "strikes[0]: V0 must be a number, got '3'"),
    (dict(strikes=[dict(V0=3.0, phi=0.0, label=4)]), "label must be a string"),
    (dict(strikes=[[3.0, 0.0, 0.0, 0.0, 0.0]]), "strikes[0]: must be an object"),
    (dict(noise="pro"), "noise: unknown noise profile 'pro'; valid: exact, standard"),
    (dict(noise=-1.0), "noise must be a finite scale >= 0"),
    (dict(noise=True), "noise must be a scale >= 0 or a profile name"),
    (dict(notes=3), "notes: notes must be a string"),
    (dict(provenance="a command"), "provenance must be an object"),
    (dict(provenance=dict(seed="x")), "provenance.seed must be an integer"),
])
def test_a_malformed_file_is_refused_naming_the_file_and_what_is_wrong(tmp_path, changes, words):
    path = saved(tmp_path, good(**changes))
    with pytest.raises(ShotFileError) as err:
        shotfile.read(path)
    assert str(err.value).startswith(f"{path}: ") and words in str(err.value), str(err.value)


@pytest.mark.parametrize("text, words", [
    ("{not json", "not JSON (Expecting property name enclosed in double quotes at line 1 column 2)"),
    ("", "not JSON (Expecting value at line 1 column 1)"),
    ("[1, 2]", "a shot file is a JSON object, got list"),
])
def test_a_file_that_is_not_a_json_object_is_refused(tmp_path, text, words):
    path = saved(tmp_path, text)
    with pytest.raises(ShotFileError, match=re.escape(f"{path}: {words}")):
        shotfile.read(path)


def test_a_missing_or_binary_file_is_refused(tmp_path):
    with pytest.raises(ShotFileError, match="nothing.json: cannot read it: No such file"):
        shotfile.read(tmp_path / "nothing.json")
    (tmp_path / "b.json").write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(ShotFileError, match="not JSON"):
        shotfile.read(tmp_path / "b.json")


@pytest.mark.parametrize("kwargs, words", [
    (dict(layout=[[0.0, 0.0], [0.71, 0.71], [2.13, 0.71]]), "layout is not legal"),
    (dict(strikes=[]), "strikes must be a non-empty list"),
    (dict(strikes=[physics.Shot(12.0, 0.0)]), "strikes[0]: cue speed V0 must be in [0, 10]"),
    (dict(cue_ball=2), "cue_ball must be a shooter's ball"),
    (dict(extra=dict(layout=1)), "extra keys layout are the format's own"),
    (dict(extra=dict(report=float("nan"))), "cannot write a shot file: Out of range float values"),
    (dict(discipline="pool"), "unknown discipline 'pool'"),
])
def test_nothing_is_written_when_a_check_fails(tmp_path, kwargs, words):
    args = {**dict(discipline="three_cushion", layout=LAYOUT, strikes=[physics.Shot(3.0, 80.0)]), **kwargs}
    with pytest.raises(ShotFileError, match=re.escape(words)):
        shotfile.write(tmp_path / "x.json", args.pop("discipline"), args.pop("layout"), args.pop("strikes"), **args)
    assert not (tmp_path / "x.json").exists()


def test_both_strike_syntaxes_give_the_same_strike():
    full = physics.Shot(3.0, 80.0, 5.0, -0.1, 0.2)
    for text in ("3,80,5,-0.1,0.2", " 3 , 80, 5,-0.1, 0.2 ", "v0=3,phi=80,theta=5,a=-0.1,b=0.2",
                 "b=0.2,a=-0.1,theta=5,PHI=80,V0=3"):
        assert shotfile.parse_strike(text) == full, text
    assert shotfile.parse_strike("v0=2.5,phi=-30") == physics.Shot(2.5, -30.0, 0.0, 0.0, 0.0)  # theta, a, b: 0
    assert shotfile.parse_strike("phi=10,v0=1,b=-0.3") == physics.Shot(1.0, 10.0, 0.0, 0.0, -0.3)


@pytest.mark.parametrize("text, words", [
    ("3,80", "strike '3,80' has 2 fields, not 5; a strike is V0,PHI,THETA,A,B"),
    ("3,80,5,0,0,1", "has 6 fields, not 5"),
    ("v0=3", "strike 'v0=3': a strike needs V0 and phi; phi missing"),
    ("phi=3,b=0.1", "V0 missing"),
    ("v0=3,phi=1,spin=2", "names an unknown field 'spin' (valid: V0, phi, theta, a, b); a strike is"),
    ("v0=3,phi=1,V0=2", "gives V0 twice"),
    ("v0=3,80", "mixes named and positional fields"),
    ("3,eighty,0,0,0", "holds something that is not a number"),
    ("v0=3,phi=", "holds something that is not a number"),
    ("nan,80,0,0,0", "strike 'nan,80,0,0,0': shot parameter V0 must be finite, got nan"),
    ("v0=3,phi=inf", "shot parameter phi must be finite"),
    ("-1,80,0,0,0", "cue speed V0 must be in [0, inf) m/s, got -1.0"),
    ("v0=3,phi=0,theta=95", "cue elevation theta must be in [0, 90) degrees, got 95.0"),
])
def test_a_malformed_strike_is_refused_with_both_syntaxes_named(text, words):
    with pytest.raises(ShotFileError, match=re.escape(words)):
        shotfile.parse_strike(text)


def test_a_strike_beyond_the_cue_is_refused_when_the_table_is_given():
    params = physics.default_params()
    assert shotfile.parse_strike("v0=12,phi=0") == physics.Shot(12.0, 0.0)  # the cue's range needs its params
    with pytest.raises(ShotFileError, match=re.escape("cue speed V0 must be in [0, 10] m/s")):
        shotfile.parse_strike("v0=12,phi=0", params)
    with pytest.raises(ShotFileError, match="miscue"):
        shotfile.parse_strike("3,0,0,0.5,0.5", params)
    with pytest.raises(TypeError, match="as text"):
        shotfile.parse_strike(3.0)


def test_the_example_of_the_documentation_reads():
    text = (ROOT / "docs" / "shotfile.md").read_text(encoding="utf-8")
    example = json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))
    shot_file = shotfile.from_dict(example, "docs/shotfile.md")
    assert shot_file.noise == "club" and shot_file.strikes[0].source == "given"
    assert set(shotfile.KEYS) == set(example)  # the example shows every key of the format


def test_provenance_names_the_command_line():
    made = shotfile.provenance("experiments.view", ["--shot", "v0=3,phi=80", "--title", "a b"], seed=3)
    assert made == dict(command="python -m experiments.view --shot v0=3,phi=80 --title 'a b'", seed=3)
