"""experiments.curves: several training runs' learning curves in one picture and one table, read
from the files experiments.train writes (curve.csv's columns, summary.json's keys)."""
from __future__ import annotations

import csv
import json

import pytest

from experiments import curves


def fake_run(folder, discipline, rewards, final):
    """A run folder as experiments.train leaves it: curve.csv (its header, docs/training.md) and
    summary.json (the keys read)."""
    folder.mkdir()
    header = ["timesteps", "seconds", "train_reward", "layouts", "successes", "success_rate", "ci_low", "ci_high",
              "mean_reward", "reward_ci_low", "reward_ci_high", "foul_rate", "random_success_rate",
              "random_mean_reward"]
    with open(folder / "curve.csv", "w", newline="") as f:
        w = csv.DictWriter(f, header)
        w.writeheader()
        for i, r in enumerate(rewards):
            w.writerow(dict(timesteps=1000 * i, seconds=60.0 * i, train_reward="" if i == 0 else r, layouts=100,
                            successes=0, success_rate=r, ci_low=r, ci_high=r, mean_reward=r, reward_ci_low=r,
                            reward_ci_high=r, foul_rate=0.0, random_success_rate=0.0, random_mean_reward=0.0))
    summary = dict(discipline=discipline, algorithm="dqn", action_form="lines", timesteps=1000 * (len(rewards) - 1),
                   timings=dict(train_s=60.0 * len(rewards)),
                   final=dict(trained=dict(mean_reward=final), random=dict(mean_reward=0.01)))
    (folder / "summary.json").write_text(json.dumps(summary))
    return str(folder)


def test_the_curves_of_both_families_are_drawn_and_tabled(tmp_path, capsys):
    a = fake_run(tmp_path / "a", "three_cushion", [0.1, 0.2, 0.3], 0.28)
    b = fake_run(tmp_path / "b", "hungarian_1000", [2.0, 15.0], 19.5)
    out = tmp_path / "curves.png"
    runs = curves.main([a, b, "--out", str(out)])
    assert out.stat().st_size > 10_000 and [curves.family(r) for r in runs] == ["carom", "hungarian"]
    printed = capsys.readouterr().out.splitlines()
    assert printed[2] == "| three_cushion (DQN, lines) | 2,000 | 3.0 | 0.300 | 0.280 | 0.010 |"
    assert printed[3].startswith("| hungarian_1000 (DQN, lines) | 1,000 | 2.0 | 15.000 | 19.500 |")


def test_a_folder_that_is_not_a_finished_run_is_refused(tmp_path):
    with pytest.raises(SystemExit):
        curves.main([str(tmp_path), "--out", str(tmp_path / "x.png")])
    with pytest.raises(ValueError, match="not a finished experiments.train run"):
        curves.read_run(str(tmp_path))


def test_a_runs_name_says_the_backend_the_plays_and_the_mode_where_they_differ(tmp_path):
    """Runs of one discipline and form stay apart in the legend: SB3 is named, and the DQN's plays
    a position and its mode when they are not 1 and "shot", and the leave's rating with a discount."""
    run = curves.read_run(fake_run(tmp_path / "a", "three_cushion", [0.1, 0.2], 0.2))
    assert curves.label(run) == "three_cushion (DQN, lines)"
    run["summary"].update(settings=dict(plays=16, mode="inning"))
    assert curves.label(run) == "three_cushion (DQN, lines, 16 plays, inning)"
    run["summary"]["settings"].update(gamma=1.0, leave="greedy")
    assert curves.label(run) == "three_cushion (DQN, lines, 16 plays, inning, leave greedy)"
    run["summary"]["settings"].update(gamma=0.0)
    run["summary"]["settings"].update(mode="shot", init_from_policy=True)
    assert curves.label(run) == "three_cushion (DQN, lines, 16 plays, from the success model)"
    run["summary"].update(algorithm="sac", backend="sb3", action_form="contact", settings=dict(plays=1, mode="shot"))
    assert curves.label(run) == "three_cushion (SAC SB3, contact)"
