"""The shot viewer page (experiments.view): what it embeds, its input checks, and (slow tier) the
page drawn by a headless Chromium, with every on-table ball's colour at its simulated position.

Shots of one discipline are simulated in one padded batch (``view.PAD`` rows, the batch of
test_experiments), so all carom disciplines share one compiled simulation.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import jax
import numpy as np
import pytest

import physics
import rules
from billiards_env import render
from experiments import view

NORMAL = physics.Shot(3.0, 80.0, 5.0, 0.0, 0.1)  # from the starting position: the cue ball meets a ball
OFF_TABLE = physics.Shot(7.0, 27.61, 30.0, -0.19, -0.22)  # raised cue, high speed: the white flies off
PIN_SHOT = NORMAL  # from the Hungarian start the red knocks the pin down at once
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
WINDOW = (1600, 1000)
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here (Debian: apt-get install chromium)")


@pytest.fixture(scope="module")
def entries():
    """Per discipline, its ViewShots (simulated on first use)."""
    cache = {}

    def get(discipline):
        if discipline not in cache:
            shots = [NORMAL, OFF_TABLE] if discipline == "three_cushion" else [NORMAL]
            cache[discipline] = view.shot_entries(discipline, shots)
        return cache[discipline]

    return get


def embedded(path) -> list:
    text = open(path, encoding="utf-8").read()
    return json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', text, re.S).group(1))


# --- quick tier --------------------------------------------------------------------------------

@pytest.mark.slow  # simulates (the module's shots), as do the browser tests: the quick tier's budget
def test_page_is_self_contained_and_embeds_samples_and_events(entries, tmp_path):
    shots = entries("three_cushion")
    path = view.write_view(tmp_path / "sub" / "view.html", shots, title="two <shots>")
    text = open(path, encoding="utf-8").read()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", text, re.I)
    assert "http" not in text.lower() and "<script src" not in text
    assert "two &lt;shots&gt;" in text
    data = embedded(path)
    assert [d["label"] for d in data] == [s.label for s in shots]
    for d, s in zip(data, shots):
        events = physics.event_list(s.result)
        assert [e[0] for e in d["events"]] == [e["t"] for e in events]
        assert [e[1].split()[0] for e in d["events"]] == [e["kind"] for e in events]
        times = np.asarray(d["times"])
        assert np.all(np.diff(times) > 0) and times[0] == 0.0 and times[-1] == float(s.result.final_time)
        assert np.max(np.diff(times)) <= view.SAMPLE_STEP + 1e-12
        positions = np.asarray(d["positions"])
        assert positions.shape == (len(times), 3, 2)
        # every event time is a sample, and the samples there are the replayed positions
        at = np.searchsorted(times, [e["t"] for e in events])
        assert np.array_equal(times[at], [e["t"] for e in events])
        expected = np.asarray(physics.positions_at(s.result, times[at], s.params))
        np.testing.assert_allclose(positions[at], expected, atol=6e-6)
        assert d["call"] == s.call and s.call
    assert data[0]["off"] == [None, None, None]
    left = [e for e in physics.event_list(shots[1].result) if e["kind"] == "off_table"]
    assert left and data[1]["off"][0] == left[0]["t"] and data[1]["off"][1:] == [None, None]
    assert "off_table white" in " ".join(e[1] for e in data[1]["events"])


@pytest.mark.slow
def test_command_writes_the_page_and_opens_it_only_when_asked(entries, tmp_path, capsys, monkeypatch):
    entries("three_cushion")  # compiled once for the module
    opened = []
    monkeypatch.setattr(view.webbrowser, "open", opened.append)
    out = tmp_path / "view" / "view.html"
    layout = "0.7,0.5,0.71,0.71,2.13,0.71"
    argv = ["--shot", "3,80,5,0,0.1", "--shot", "2,10,0,0,-0.2", "--layout", layout, "--cue-ball", "1",
            "--out", str(out)]
    assert view.main(argv) == str(out)
    assert capsys.readouterr().out.strip() == str(out) and opened == []
    data = embedded(out)
    assert [d["label"] for d in data] == [view.describe(NORMAL), view.describe(physics.Shot(2.0, 10.0, 0.0, 0.0, -0.2))]
    assert np.allclose(data[0]["positions"][0], [[0.7, 0.5], [0.71, 0.71], [2.13, 0.71]])
    assert data[0]["events"][0][1] == "cue_strike yellow"  # the yellow is player 1's ball (C-3.4)
    view.main(argv + ["--open"])
    assert opened == [f"file://{out}"]
    assert "V0,phi,theta,a,b" in view.build_parser().format_help()


def test_markings_follow_the_discipline_zones():
    params = physics.default_params()
    counts = {d: len(view.markings(d, params)["zones"]) for d in ("three_cushion", "straight_rail", "balkline_47_2")}
    assert counts == {"three_cushion": 0, "straight_rail": 4, "balkline_47_2": 9 + 8}  # C-11.1; C-12.2
    corners = view.markings("straight_rail", params)["zones"]
    assert all(len(p) == 3 for p in corners)  # right triangles in the corners (C-11.1)
    assert [0.0, 0.0] in corners[0]
    lines = view.markings("balkline_47_2", params)["zones"]
    xs = sorted({round(x, 5) for poly in lines[:9] for x, _ in poly})
    L = float(params.table.length)
    assert xs == [0.0, 0.47, round(L - 0.47, 5), L]  # C-12.2: lines 47 cm from the cushions
    hungarian = physics.default_params("hungarian")
    assert len(view.markings("hungarian_1000", hungarian)["spots"]) == 9  # H-1.4


def test_clip_polygon_cuts_the_table():
    square = np.array([[-1.0, 0.0, -0.5], [1.0, 0.0, 1.0], [0.0, -1.0, -0.25], [0.0, 1.0, 0.75]])
    poly = view.clip_polygon(square, 2.0, 1.0)
    assert sorted(map(tuple, poly)) == [(0.5, 0.25), (0.5, 0.75), (1.0, 0.25), (1.0, 0.75)]
    assert view.clip_polygon([[0.0, 0.0, -1.0]], 2.0, 1.0) == []  # a padding zone holds nothing


@pytest.mark.slow  # the Hungarian table's simulation: kept out of the quick tier's compile budget
def test_pin_falls_in_the_hungarian_entry(entries):
    (shot,) = entries("hungarian_1000")
    assert shot.pin is not None and np.allclose(shot.pin, physics.default_params("hungarian").table.centre)
    d = view.shot_data(shot)
    assert d["pin"]["fall"] == render.pin_fall_time(shot.result) < 0.05
    down = [e for e in physics.event_list(shot.result) if e["kind"] == "pin_down"][0]
    velocity = down["velocities"][down["balls"][0]]
    assert np.isclose(d["pin"]["angle"], np.arctan2(velocity[1], velocity[0]))
    assert 0 < d["pin"]["angle"] < np.pi  # struck towards the LEFT cushion (aim 80 deg)


@pytest.mark.slow
def test_bad_pages_are_refused(entries, tmp_path):
    shots = entries("three_cushion")
    with pytest.raises(TypeError, match="title"):
        view.write_view(tmp_path / "a.html", shots, title=3)
    with pytest.raises(ValueError, match="width"):
        view.write_view(tmp_path / "a.html", shots, width=10)
    batched = jax.tree_util.tree_map(lambda x: np.asarray(x)[None], shots[0].result)
    with pytest.raises(ValueError, match="one shot"):
        view.write_view(tmp_path / "a.html", [view.ViewShot("x", "three_cushion", shots[0].params, batched)])


def test_bad_input_is_refused_before_anything_is_simulated(tmp_path, capsys):
    with pytest.raises(ValueError, match="shots must be a non-empty list"):
        view.write_view(tmp_path / "a.html", [])
    with pytest.raises(TypeError, match="ViewShot"):
        view.write_view(tmp_path / "a.html", ["not a shot"])
    with pytest.raises(ValueError, match="unknown discipline"):
        view.shot_entry("snooker", NORMAL)
    with pytest.raises(ValueError, match="cue_ball"):
        view.shot_entry("hungarian_1000", NORMAL, cue_ball=1)
    with pytest.raises(ValueError, match="layout"):
        view.shot_entry("three_cushion", NORMAL, layout=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="V0"):
        view.shot_entry("three_cushion", physics.Shot(-1.0, 0.0, 0.0, 0.0, 0.0))
    for argv, name in ((["--shot", "3,80,5"], "--shot"), (["--shot", "3,80,5,0,0", "--layout", "1,2"], "--layout"),
                       (["--shot", "-3,80,5,0,0"], "--shot"), (["--discipline", "pool", "--shot", "3,0,0,0,0"],
                                                               "--discipline"),
                       (["--shot", "3,0,0,0,0", "--cue-ball", "2"], "--cue-ball")):
        with pytest.raises(SystemExit):
            view.main(argv + ["--out", str(tmp_path / "x.html")])
        assert f"argument {name}" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_from_follows_a_report_to_the_shot_file_it_names(tmp_path, capsys):
    from agents import shotfile

    written = shotfile.write(tmp_path / "run" / "shots.json", "three_cushion", [[0.7, 0.5], [0.71, 0.71], [2.13, 0.71]],
                             [shotfile.Strike(3.0, 80.0, label="#1 search", source="search")], noise="club")
    report = tmp_path / "run" / "report.json"
    report.write_text(json.dumps({"format": "carom-billiards shot report", "shot_file": "shots.json"}))
    assert view.read_source(report) == written == view.read_source(tmp_path / "run" / "shots.json")
    report.write_text(json.dumps({"format": "carom-billiards shot report", "shot_file": "gone.json"}))
    with pytest.raises(ValueError, match=r"report.json names the shot file 'gone.json': .*gone.json: cannot read"):
        view.read_source(report)
    report.write_text(json.dumps({"shot_file": 3}))
    with pytest.raises(ValueError, match="a report's shot_file must name a shot file, got 3"):
        view.read_source(report)
    report.write_text(json.dumps({"format": "something else"}))  # no shot_file: read as a shot file, and refused
    with pytest.raises(ValueError, match="not a shot file: its format is 'something else'"):
        view.read_source(report)
    with pytest.raises(SystemExit):
        view.main(["--from", str(report), "--out", str(tmp_path / "x.html")])
    assert "argument --from: " in capsys.readouterr().err and not (tmp_path / "x.html").exists()


# --- browser tier ------------------------------------------------------------------------------

def browse(path, t: float, folder, mode: str = "side"):
    """(screenshot (H, W, 3) uint8, console lines) of the page opened at ``#t=`` (shots side by
    side or overlaid), headless."""
    from PIL import Image

    shot_png = os.path.join(folder, f"page_{t:g}_{mode}.png")
    run = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         f"--user-data-dir={os.path.join(folder, 'profile')}", "--force-device-scale-factor=1",
         f"--window-size={WINDOW[0]},{WINDOW[1]}", "--enable-logging=stderr", "--v=0",
         f"--screenshot={shot_png}", f"file://{os.path.abspath(path)}#t={t!r}&mode={mode}"],
        capture_output=True, text=True, timeout=90)
    assert os.path.exists(shot_png), run.stderr[-2000:]
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
    return np.asarray(Image.open(shot_png).convert("RGB")), console


def tables(img) -> list:
    """(top, left) of each table canvas in the screenshot, left to right: the bounding boxes of
    the rail colour's connected regions (a rail is a closed ring)."""
    from scipy import ndimage

    labels, n = ndimage.label(np.all(img == render.RAIL, axis=-1))
    boxes = [b for b in ndimage.find_objects(labels) if (b[1].stop - b[1].start) > 100]
    return sorted((b[0].start, b[1].start) for b in boxes)


def pixel(img, corner, canvas, xy):
    col, row = canvas.to_pixels(np.asarray(xy, float))
    return img[corner[0] + int(np.floor(row)), corner[1] + int(np.floor(col))]


def check_balls(img, shots, t, overlaid: bool = False):
    """Every on-table ball of every shot has its colour at its simulated position at time t (on
    its own table side by side, or all on one)."""
    corners = tables(img)
    assert len(corners) == (1 if overlaid else len(shots))
    for corner, s in zip(corners * len(shots) if overlaid else sorted(corners, key=lambda c: c[1]), shots):
        canvas = render.Canvas(float(s.params.table.length), float(s.params.table.width), view.WIDTH)
        at = np.asarray(physics.positions_at(s.result, [t], s.params))[0]
        off = view.off_table_times(s.result)
        colours = render.ball_colours(rules.make_rules(s.discipline).is_hungarian)
        for b, xy in enumerate(at):
            if off[b] is None or t < off[b]:
                got = pixel(img, corner, canvas, xy)
                assert np.abs(got.astype(int) - colours[b]).max() <= 8, (s.discipline, t, b, got, colours[b])
    return corners


@pytest.mark.slow
@needs_chromium
@pytest.mark.parametrize("discipline", rules.DISCIPLINES)
def test_browser_draws_every_ball_where_simulated(entries, discipline, tmp_path):
    shots = entries(discipline)
    path = view.write_view(tmp_path / "view.html", shots, title=discipline)
    t = 0.5
    img, console = browse(path, t, tmp_path)
    assert console == []  # the page writes nothing to the console: no error, no warning
    corners = check_balls(img, shots, t)
    s = shots[0]
    canvas = render.Canvas(float(s.params.table.length), float(s.params.table.width), view.WIDTH)
    row = rules.disciplines.get(discipline)
    if row.zones == "balkline":  # a balkline line crosses the cloth (C-12.2)
        here = pixel(img, corners[0], canvas, (row.line_distance, 0.25 * float(s.params.table.width)))
        assert tuple(here) != render.CLOTH
    if discipline == "three_cushion":  # the white has left the table at 0.25 s (off_table event)
        off = view.off_table_times(shots[1].result)[0]
        assert off < t
        before, _ = browse(path, off - 0.05, tmp_path)
        check_balls(before, shots, off - 0.05)
        where = np.asarray(physics.positions_at(shots[1].result, [off], s.params))[0, 0]
        assert tuple(pixel(img, corners[1], canvas, where)) != render.WHITE
        overlaid, console = browse(path, t, tmp_path, "overlay")  # both shots on one table
        assert console == []
        check_balls(overlaid, shots, t, overlaid=True)
    if discipline == "hungarian_1000":  # the pin stands, then lies along the table after its fall
        pin = view.shot_data(s)["pin"]
        fall, along = pin["fall"], 0.7 * float(s.params.pin.total_height)
        lying = s.pin + along * np.array([np.cos(pin["angle"]), np.sin(pin["angle"])])
        before, _ = browse(path, fall / 2, tmp_path)
        check_balls(before, shots, fall / 2)
        assert tuple(pixel(before, corners[0], canvas, s.pin)) == render.PIN
        assert tuple(pixel(before, corners[0], canvas, lying)) != render.PIN
        assert tuple(pixel(img, corners[0], canvas, lying)) == render.PIN


@pytest.mark.slow
@needs_chromium
def test_browser_console_errors_are_caught(entries, tmp_path):
    path = view.write_view(tmp_path / "view.html", entries("three_cushion")[:1])
    text = open(path, encoding="utf-8").read().replace("</body>", "<script>noSuchFunction();</script></body>")
    open(path, "w", encoding="utf-8").write(text)
    _, console = browse(path, 0.0, tmp_path)
    assert len(console) == 1 and "noSuchFunction" in console[0]
