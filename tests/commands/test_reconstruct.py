"""The reconstruction command (experiments.reconstruct): its picture and CSV, its --help, and the
settings it refuses. The strike search itself: tests/physics/test_tracking_fit.py."""
from __future__ import annotations

import csv

import pytest

from experiments import reconstruct as rc

CHUNK = 64  # the batch of the other real-shot tests: one compiled simulation


@pytest.mark.slow
def test_command_writes_a_picture_and_a_csv(tmp_path):
    rows = rc.main(["--shot", "545712", "--out", str(tmp_path), "--pop", "64", "--rounds", "3", "--polish", "1",
                    "--chunk", str(CHUNK)])
    assert (tmp_path / "shot_545712.png").stat().st_size > 10_000
    with open(tmp_path / "reconstruct.csv") as f:
        saved = list(csv.DictReader(f))
    assert [int(r["shot_id"]) for r in saved] == [545712]
    assert float(saved[0]["rms"]) == pytest.approx(rows[0]["rms"]) and rows[0]["rms"] < 1.0


def test_command_refuses_a_polish_as_long_as_the_search(capsys):
    with pytest.raises(SystemExit):
        rc.main(["--rounds", "3", "--polish", "3"])
    assert "polish in [0, rounds), got rounds=3, polish=3" in capsys.readouterr().err


def test_command_refuses_no_search(capsys):
    with pytest.raises(SystemExit):
        rc.main(["--searches", "0"])
    assert "searches must be at least 1, got 0" in capsys.readouterr().err


def test_command_refuses_a_horizon_that_is_not_positive(capsys):
    with pytest.raises(SystemExit):
        rc.main(["--horizon", "-1"])
    assert "--horizon must be a positive number of seconds, got -1.0" in capsys.readouterr().err


def test_help_is_the_command_s_contract(capsys):
    """--help prints the module docstring whole: what the command does and writes, and where the
    figures are (docs/physics.md), in at most 60 lines."""
    with pytest.raises(SystemExit):
        rc.main(["--help"])
    out = capsys.readouterr().out
    assert rc.__doc__.strip() in out
    assert len(rc.__doc__.strip().splitlines()) <= 60
    assert "docs/physics.md section 6" in rc.__doc__ and "reconstruct.csv" in rc.__doc__
