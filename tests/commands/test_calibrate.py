"""Calibration against tracked shots (experiments.calibrate): the parameter space, the parameter
search, one shot's evaluation, and the command end to end on a tiny setting. The measurements it
reports: tests/physics/test_tracking_measures.py. Data: erdo100/3cushiontool,
20221225_2_Match_Ersin_Cemal.pkl, Apache-2.0."""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
import pytest

import physics
from experiments import calibrate
from physics.tracking import SOURCE, TrackingConfig
from physics.tracking import fit as strikes
from physics.tracking.camera import sampled
from physics.tracking.objective import final_result
from physics.tracking.target import Target
from rules.point import scores_point
from tests.support.tracking import CUSHIONS_START, match_shots

# A parameter candidate's strike search (``calibrate.strike_searches``, "training"), tiny.
SEARCH = TrackingConfig(pop=8, rounds=1, restarts=1, polish=0, searches=1, chunk=64, first_horizon=4.0)


def test_params_with_sets_the_fitted_values():
    p = calibrate.params_with({"e_c": 0.91, "f_c": 0.29, "height": 0.040, "throw_scale": 2.0})
    base = physics.default_params(calibration=calibrate.START)  # a calibration starts from the reference values
    assert float(p.cushion.e_c) == 0.91 and float(p.cushion.f_c) == 0.29 and float(p.cushion.height) == 0.040
    assert float(p.ball.throw_a) == pytest.approx(2 * float(base.ball.throw_a))
    assert float(p.ball.throw_b) == pytest.approx(2 * float(base.ball.throw_b))
    assert float(p.ball.u_s) == float(base.ball.u_s)
    assert p.ball_ball == "frictional" and p.cushion_model == calibrate.CUSHION
    assert calibrate.params_with({"e_b": 0.9}, "frictional_bed").ball_ball == "frictional_bed"


def test_params_with_refuses_unknown_and_out_of_range_values():
    with pytest.raises(ValueError, match="unknown calibration parameter.*valid: e_c"):
        calibrate.params_with({"e_cushion": 0.9})
    with pytest.raises(ValueError, match="e_c must be in"):
        calibrate.params_with({"e_c": 1.2})
    with pytest.raises(ValueError, match="unknown ball_ball model 'sticky'"):
        calibrate.params_with({"e_c": 0.9}, "sticky")


def test_defaults_lie_inside_the_search_box():
    for name, value in calibrate.defaults().items():
        low, high = calibrate.SPACE[name]
        # Floors that are physical: u_r_step 0 is one rolling resistance at every speed, f_bed 0
        # is Han's cushion without the cloth's friction during the impact, give 0 an instant turn.
        if name in ("u_r_step", "f_bed", "give"):
            assert low == value == 0.0
            continue
        assert low < value < high, name


def test_stacked_params_have_a_batch_axis():
    sets = [calibrate.params_with({"e_c": e}) for e in (0.8, 0.9, 0.95)]
    both = calibrate.stacked(sets)
    np.testing.assert_allclose(both.cushion.e_c, [0.8, 0.9, 0.95])
    assert np.shape(both.ball.radius) == (3,)


def test_a_late_strike_reads_as_error_along_the_path():
    """The camera-sampled shot evaluated with its strike put 10 ms late: on the straight run before
    the cue ball's first contact the track is ahead of the simulation by the ball's travel in
    10 ms, along its path and not across it (``calibrate.evaluate``'s split)."""
    params = physics.default_params()
    strike = np.array([3.0, 70.0, 0.0, 0.0])
    lead, late = 0.01, 0.01
    shot = sampled(CUSHIONS_START, strike, params, lead=lead)
    target = Target.of(shot)
    fit = strikes.Fit(np.array([*strike, lead - shot.strike_time + late, 0.0]), 0.0, 0.0)
    row = calibrate.evaluate(shot, target, fit, params)
    along, across, moving, when = row["split"]
    result = final_result(target, np.array([*strike, 0.0, 0.0]), params)
    first = float(result.events.time[1])  # the first event after the strike: the path is straight until then
    run = moving & (when > 0.05) & (when < first - 0.05) & (target.ball[target.used] == shot.cue)
    assert run.sum() >= 3
    speed = np.linalg.norm(np.diff(shot.tracks[shot.cue].xy, axis=0), axis=1) / np.diff(shot.tracks[shot.cue].t)
    assert np.median(along[run]) == pytest.approx(late * np.median(speed[:5]), rel=0.15)
    assert np.max(np.abs(across[run])) < 0.05 * np.median(along[run])
    table = calibrate._split_by_time([row["split"]])
    assert table["n"][0] > 0 and table["along"][0] > 5 * table["across"][0]
    # The point calls are the referee's yes or no, the simulation's alike with the track's (the
    # same strike, only later), so the agreement of this one shot is whole.
    assert isinstance(row["sim_point"], (bool, np.bool_)) and isinstance(row["real_point"], (bool, np.bool_))
    late_result = final_result(target, fit.strike, params)
    assert row["sim_point"] == scores_point(late_result, target.start, target.cue)
    assert calibrate.summary([dict(row, rms=0.0, rms_early=0.0)])["agreement"] == 1.0


@pytest.mark.slow
def test_command_writes_the_report(tmp_path):
    tiny = ["--shots", "4", "--folds", "2", "--generations", "1", "--candidates", "2", "--subset", "2",
            "--pop", "16", "--rounds", "2", "--base-pop", "16", "--base-rounds", "2", "--base-restarts", "2",
            "--base-polish", "1", "--held-pop", "16",
            "--held-rounds", "2", "--chunk", "64", "--no-progress", "--out", str(tmp_path)]
    report = calibrate.main(tiny)
    saved = json.loads((tmp_path / "calibrate.json").read_text())
    assert [s["shots"] for s in saved["held_out"].values()] == [4, 4, 4]
    assert set(saved["fitted"]) == set(calibrate.SPACE)
    assert report["source"] == SOURCE
    assert set(saved["paired_rebounds"]) == {calibrate.BASELINE, calibrate.CALIBRATED}
    assert sum(b["n"] for b in saved["paired_rebounds"][calibrate.BASELINE]) > 0
    assert "paired with their tracks" in calibrate.markdown(report)
    assert sum(b["n"] for b in saved["turns"][calibrate.CALIBRATED]) > 0
    assert "past the contact line" in calibrate.markdown(report)
    assert set(saved["struck_slowdown"]) == {"real", calibrate.BASELINE, calibrate.CALIBRATED}
    assert "struck at rest" in calibrate.markdown(report)
    assert set(saved["error_split"]) == {calibrate.BASELINE, calibrate.CALIBRATED}
    assert sum(saved["error_split"][calibrate.CALIBRATED]["n"]) > 0
    assert "along the simulated path" in calibrate.markdown(report)
    for name in ("heldout.csv", "rebounds.csv", "hits.csv", "error_vs_time.png", "rebounds.png"):
        assert (tmp_path / name).stat().st_size > 100


@pytest.mark.slow
def test_command_held_search_full_reconstructs_held_out_shots_from_first_guesses(tmp_path, monkeypatch):
    """--held-search full: the held-out shots are found by the reconstruction's own search (its
    settings, shrunk here), from each shot's first guess; the baseline is the only control."""
    monkeypatch.setattr(calibrate, "DEFAULT", TrackingConfig(pop=16, rounds=3, restarts=2, polish=1))
    calls = []
    fit = strikes.fit
    monkeypatch.setattr(strikes, "fit", lambda targets, params, config, **kw: calls.append((config, kw))
                        or fit(targets, params, config, **kw))
    shots = list(match_shots().values())[:4]
    tiny = ["--shots", "4", "--folds", "2", "--generations", "1", "--candidates", "2", "--subset", "2",
            "--pop", "16", "--rounds", "2", "--base-pop", "16", "--base-rounds", "2", "--base-restarts", "2",
            "--base-polish", "1", "--held-search", "full", "--held-searches", "2", "--chunk", "64", "--no-progress",
            "--out", str(tmp_path)]
    report = calibrate.main(tiny)
    assert list(report["held_out"]) == [calibrate.BASELINE, calibrate.CALIBRATED]
    held = [kw for c, kw in calls if (c.restarts, c.pop, c.rounds, c.searches) == (2, 16, 3, 2)]
    assert len(held) == 2  # one search per fold, of two searches a shot
    guesses = {tuple(strikes.first_guess(s)) for s in shots}
    assert all(tuple(row) in guesses for kw in held for row in kw["init"])


@pytest.mark.parametrize("follow", [False, True])
def test_fit_params_follow_starts_from_the_best_candidates_strikes(monkeypatch, follow):
    """With ``follow``, a generation's strike searches start from the strikes fitted under the
    previous generation's best candidate; without it, always from the warm strikes given."""
    inits = []

    def fake_fit(targets, lanes, config, *, init, **kw):  # candidate c's strikes: its start + 1 + c; 1 fits best
        inits.append(init.copy())
        per = len(targets) // 4
        return [strikes.Fit(row + 1 + k // per, 0.1 if k // per == 1 else 0.2, 0.0) for k, row in enumerate(init)]

    monkeypatch.setattr(strikes, "fit", fake_fit)
    train, warm = [None] * 3, np.zeros((3, 6))
    calibrate.fit_params(train, warm, np.random.default_rng(0), SEARCH, generations=2, candidates=4, subset=3,
                         follow=follow)
    assert np.all(inits[0] == 0) and np.all(warm == 0)  # the caller's warm strikes are left alone
    assert np.all(inits[1] == (2 if follow else 0))


def test_fit_params_holds_what_it_is_told_to(monkeypatch):
    """Held parameters keep their start values in every candidate and in the result; the others move."""
    seen = []

    def fake_fit(targets, lanes, config, *, init, **kw):  # the candidates' f_bed, and a score that prefers a high e_c
        seen.append(np.asarray(lanes.cushion.f_bed))
        return [strikes.Fit(row, 1.0 - float(e), 0.0) for row, e in zip(init, np.asarray(lanes.cushion.e_c))]

    monkeypatch.setattr(strikes, "fit", fake_fit)
    values = calibrate.fit_params([None] * 3, np.zeros((3, 6)), np.random.default_rng(0), SEARCH, generations=3,
                                  candidates=6, subset=3, start={"f_bed": 0.3, "e_c": 0.8}, hold=("f_bed",))
    assert set(values) == set(calibrate.SPACE)
    assert values["f_bed"] == pytest.approx(0.3) and all(np.allclose(f, 0.3) for f in seen)
    assert values["e_c"] > 0.8


def test_command_refuses_an_unknown_held_parameter(capsys):
    with pytest.raises(SystemExit):
        calibrate.main(["--hold", "f_bed,spin", "--no-progress"])
    assert "--hold: unknown parameter(s) spin" in capsys.readouterr().err


def test_command_refuses_a_strike_spread_that_is_not_positive(capsys):
    with pytest.raises(SystemExit):
        calibrate.main(["--strike-spread", "0", "--no-progress"])
    assert "--strike-spread must be positive, got 0.0" in capsys.readouterr().err


def test_command_refuses_no_held_search(capsys):
    with pytest.raises(SystemExit):
        calibrate.main(["--held-searches", "0", "--no-progress"])
    assert "--held-searches must be at least 1, got 0" in capsys.readouterr().err


def test_parse_values_checks_names_and_box():
    assert calibrate.parse_values("e_c=0.91, f_c=0.29") == {"e_c": 0.91, "f_c": 0.29}
    assert calibrate.parse_values("") == {}
    with pytest.raises(ValueError, match="unknown parameter 'ec'; valid: e_c"):
        calibrate.parse_values("ec=0.9")
    with pytest.raises(ValueError, match=r"u_r must be in \[0.002, 0.012\], got 0.1"):
        calibrate.parse_values("u_r=0.1")
    with pytest.raises(ValueError, match="e_b must be a number, got 'high'"):
        calibrate.parse_values("e_b=high")


def test_fitted_set_is_valid_and_built_on_the_reference_values():
    p = calibrate.fitted_params()
    assert float(p.cushion.f_c) == 0.2805 and float(p.ball.u_r) == 0.004268 and float(p.ball.u_r_step) == 0.001173
    assert p.cushion_model == "graded" and float(p.cushion.f_c_slope) == 0.02258
    reference = physics.default_params(calibration="reference")
    assert float(reference.cushion.f_c) == 0.15 and float(p.ball.e_table) == float(reference.ball.e_table)
    for name, value in calibrate.FITTED.items():
        low, high = calibrate.SPACE[name]
        assert low <= value <= high, name


def test_the_match_tables_default_is_the_fitted_set_without_the_slopes():
    """The "tracked" calibration (the match table's default) is ``FITTED`` on the han2005 cushion:
    the same values, the throw fit scaled, the graded slopes dropped; the Hungarian table keeps the
    reference values."""
    fitted, default = calibrate.fitted_params(), physics.default_params()
    assert default.cushion_model == "han2005"
    for name in ("e_c", "f_c", "height"):  # rounded to three figures
        assert float(getattr(default.cushion, name)) == pytest.approx(float(getattr(fitted.cushion, name)), abs=6e-4)
    for name in ("u_s", "u_r", "u_r_step", "u_sp_proportionality", "e_b"):
        assert float(getattr(default.ball, name)) == pytest.approx(float(getattr(fitted.ball, name)), rel=3e-3), name
    for name in ("throw_a", "throw_b"):
        assert float(getattr(default.ball, name)) == pytest.approx(float(getattr(fitted.ball, name)), rel=1e-3), name
    hungarian, reference = physics.default_params("hungarian"), physics.default_params(calibration="reference")
    assert float(hungarian.cushion.e_c) == float(reference.cushion.e_c) == 0.85
    assert float(physics.default_params(calibration="reference", e_c=0.8).cushion.e_c) == 0.8  # overrides on top
    with pytest.raises(ValueError, match="unknown calibration 'lab'; valid: reference, tracked"):
        physics.default_params(calibration="lab")


def test_the_documented_calibrations_are_the_code_s():
    """docs/physics.md section 6's table of the two sets lists what ``physics.CALIBRATIONS`` gives."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "physics.md").read_text(encoding="utf-8")
    rows = re.findall(r"^  \| `(\w+)`(?:, `(\w+)`)? \| ([\d.e, -]+) \| ([\d.e, -]+?)(?: \(.*\))? \|$", text, re.M)
    sets = {name: physics.default_params(calibration=name) for name in ("reference", "tracked")}
    seen = set()
    for first, second, reference, tracked in rows:
        for k, name in enumerate(filter(None, (first, second))):
            for calibration, cell in (("reference", reference), ("tracked", tracked)):
                p = sets[calibration]
                value = getattr(p.ball, name, None)
                value = getattr(p.cushion, name) if value is None else value
                assert float(cell.split(",")[k]) == pytest.approx(float(value), rel=1e-3), (name, calibration)
            seen.add(name)
    assert seen == set(physics.CALIBRATIONS["tracked"])


def _args(**settings) -> argparse.Namespace:
    """The strike-search arguments of ``calibrate.main`` at their defaults, some replaced."""
    defaults = dict(base_pop=384, base_rounds=20, base_restarts=4, base_polish=3, pop=96, rounds=6, held_pop=256,
                    held_rounds=10, held_search="refit", held_searches=2, chunk=256)
    return argparse.Namespace(**{**defaults, **settings})


def test_strike_searches_name_the_arguments_of_one_that_cannot_run():
    """The run's three strike searches from its arguments: the baseline's own, each parameter
    candidate's short one (4 s scored from its first round), and the held-out refit (2 s); a search
    that cannot run is refused naming its arguments."""
    searches = calibrate.strike_searches(_args())
    training, held = searches["training"], searches["held-out"]
    assert (training.pop, training.rounds, training.restarts, training.first_horizon) == (96, 6, 1, 4.0)
    assert (held.pop, held.rounds, held.restarts, held.searches, held.first_horizon) == (256, 10, 1, 2, 2.0)
    assert (searches["baseline"].pop, searches["baseline"].searches) == (384, 1)
    assert calibrate.strike_searches(_args(held_search="full"))["held-out"] == TrackingConfig()  # reconstruct's own
    with pytest.raises(ValueError, match=r"--pop, --rounds: pop must be a multiple of restarts.*got pop=4"):
        calibrate.strike_searches(_args(pop=4))


def test_command_refuses_a_training_search_that_cannot_run(capsys):
    with pytest.raises(SystemExit):
        calibrate.main(["--pop", "4", "--no-progress"])
    assert "--pop, --rounds: pop must be a multiple of restarts" in capsys.readouterr().err
