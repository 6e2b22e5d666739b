"""Counting options of the commands at 0 or below: what is documented as "0: none" does nothing
(``train --eval-every 0``: no periodic evaluation, where its schedule once looped for ever), and
what a run divides by, or steps a loop by, is refused before any work with a message naming the
option and what it allows.
"""
from __future__ import annotations

import signal
import types

import pytest

from experiments import (bench_env, bench_physics, bench_ppo, calibrate, demo, leave_value, pin_map, reconstruct,
                         rule_variants, success_model, train)


class FakeEvaluation:
    """What the tracker needs of ``train.Evaluation``: a row per run (no simulation)."""

    def __init__(self):
        self.runs = 0

    def run(self, planner):
        self.runs += 1
        return dict(layouts=4, successes=1, success_rate=0.25, ci_low=0.0, ci_high=0.7, mean_reward=0.25,
                    reward_ci_low=0.0, reward_ci_high=0.5, foul_rate=0.0)


@pytest.fixture
def deadline():
    """A SIGALRM after 10 s: a loop that never ends fails the test instead of hanging it."""
    def stop(signum, frame):
        raise TimeoutError("no end within 10 s: an endless loop")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def tracker(tmp_path, eval_every):
    args = types.SimpleNamespace(eval_every=eval_every, timesteps=10_000, out=str(tmp_path), max_minutes=None,
                                 keep="best")
    return train.Tracker(args, FakeEvaluation(), 0.0)


def test_train_eval_every_0_evaluates_only_at_the_end(tmp_path, deadline):
    t = tracker(tmp_path, 0)
    assert not any(t.due(step) for step in (0, 1, 4096, 10_000))  # nothing periodic
    t.evaluate(8192, planner=None, snapshot=lambda: "weights")  # the end of training: returns
    # the random player's level once (at the start), then the policy
    assert t.evaluation.runs == 2 and [r["timesteps"] for r in t.rows] == [8192]
    assert t.selected(8192) == (8192, "weights")
    t.bar.close()


def test_train_eval_every_schedules_the_next_evaluation_as_before(tmp_path, deadline):
    t = tracker(tmp_path, 1000)
    assert t.due(0)
    t.evaluate(0, None, lambda: None)
    assert not t.due(999) and t.due(1000)
    t.evaluate(2500, None, lambda: None)  # late: the next is the first multiple past it
    assert t.next_eval == 3000 and not t.due(2999) and t.due(3000)
    t.bar.close()


def test_train_takes_eval_every_0_and_refuses_what_divides_by_zero(capsys):
    assert train.parse_args(["--eval-every", "0", "--out", "unused"]).eval_every == 0
    for flag, value, allowed in (("--eval-every", "-1", "at least 0 (0: no periodic evaluation)"),
                                 ("--n-envs", "0", "at least 1"), ("--n-steps", "0", "at least 1"),
                                 ("--timesteps", "0", "at least 1"), ("--eval-layouts", "0", "at least 1"),
                                 ("--final-layouts", "-5", "at least 1"), ("--lanes", "0", "at least 1"),
                                 ("--batch-size", "0", "at least 1"), ("--threads", "0", "at least 1")):
        with pytest.raises(SystemExit):
            train.parse_args([flag, value, "--out", "unused"])
        assert f"{flag} must be {allowed}, got {value}" in capsys.readouterr().err


@pytest.mark.parametrize("main, argv, message", [
    (bench_env.main, ["--steps", "0"], "--steps must be at least 1, got 0"),
    (bench_env.main, ["--envs", "1", "0"], "--envs must be at least 1, got 1 0"),
    (bench_env.main, ["--ppo-envs", "0"], "--ppo-envs must be at least 1, got 0"),
    (bench_env.main, ["--lanes", "0"], "--lanes must be at least 1, got 0"),
    (bench_env.main, ["--ppo-steps", "-1"], "--ppo-steps must be at least 0 (0: skip), got -1"),
    (bench_physics.main, ["--repeats", "0"], "--repeats must be at least 1, got 0"),
    (bench_physics.main, ["--sizes", "64", "0"], "--sizes must be at least 1, got 64 0"),
    (bench_physics.main, ["--pin-batch", "0"], "--pin-batch must be at least 1, got 0"),
    (bench_physics.main, ["--profile", "-1"], "--profile and --precision-shots must be at least 0"),
    (bench_ppo.main, ["--updates", "0"], "--updates must be at least 1, got 0"),
    (success_model.main, ["evaluate", "--layouts", "0"], "--layouts and --trials must be at least 1, got 0 and 1"),
    (success_model.main, ["generate", "--trials", "0"], "--layouts and --trials must be at least 1, got 4096 and 0"),
    (success_model.main, ["evaluate", "--search", "-8"], "--search must be at least 0 (0: no search), got -8"),
    (reconstruct.main, ["--chunk", "0"], "--chunk must be at least 1, got 0"),
    (calibrate.main, ["--chunk", "0"], "--chunk must be at least 1, got 0"),
    (calibrate.main, ["--subset", "0"], "--subset must be at least 1, got 0"),
    (calibrate.main, ["--candidates", "0"], "--candidates must be at least 1, got 0"),
    (calibrate.main, ["--generations", "0"], "--generations must be at least 1, got 0"),
    (leave_value.main, ["--states", "0"], "--states, --iterations and --candidates must be at least 1, got 0, 12"),
    (pin_map.main, ["--speeds", "1"], "--speeds and --offsets must be at least 2 (a sweep's two ends), got 1 and 41"),
    (demo.main, ["--max-shots", "0"], "--innings, --top and --max-shots must be at least 1"),
    (rule_variants.main, ["--max-shots", "0"], "--innings, --max-shots and --max-game-shots must be >= 1"),
])
def test_commands_refuse_counts_that_divide_by_zero(main, argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as exit_:
        main(argv + ["--out", str(tmp_path / "out")])
    assert exit_.value.code == 2  # argparse's usage error, before any work
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_every_command_takes_a_registered_variant_and_names_the_valid_ids_for_an_unknown_one(capsys, monkeypatch):
    """``--discipline`` reads the discipline table when the arguments are read: a variant that a
    module registers (``MODULE:ID``) is taken, an unknown id is refused with the valid ones."""
    import sys

    import rules
    from experiments import shot_map, train

    # the variant lives in a copy of the table for this test only (other tests count the rows)
    monkeypatch.setattr(rules.disciplines, "TABLE", dict(rules.disciplines.TABLE))
    monkeypatch.delitem(sys.modules, "tests.support.variants", raising=False)

    args = train.parse_args(["--discipline", "tests.support.variants:two_cushion_test"])
    assert args.discipline == "two_cushion_test"
    assert train.parse_args(["--discipline", "two_cushion_test"]).discipline == "two_cushion_test"  # registered now
    for parse in (train.parse_args, shot_map.build_parser().parse_args):
        with pytest.raises(SystemExit):
            parse(["--discipline", "four_cushion"])
        assert "valid disciplines: three_cushion" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.parse_args(["--discipline", "no_such_module_here:two_cushion_test"])
    assert "cannot import 'no_such_module_here'" in capsys.readouterr().err
