"""The soak command's checker: a few real shots per family pass, and planted faults are caught."""
from __future__ import annotations

import jax
import numpy as np
import pytest

import physics
from experiments import soak
from physics.events import EventKind


SHOTS = 64  # the batch the physics and environment tests compile for (tests/test_env_support.BATCH)


# The families played on the default physics share the compiled pool of the other tests; the
# other cushion model, the other ball-ball model and float32 each compile their own, so they run in
# the slow tier.
OWN_PROGRAM = ("mathavan", "bed", "float32", "pin")  # pin: the time budget (tests/physics/test_pin_air.py)


@pytest.mark.parametrize("family", [f if f not in OWN_PROGRAM else pytest.param(f, marks=pytest.mark.slow)
                                    for f in soak.FAMILIES])
def test_a_few_shots_of_every_family_pass(family):
    row = soak.soak_family(family, shots=SHOTS, seed=5, batch=SHOTS)
    assert row["shots"] == SHOTS
    assert row["failures"] == 0, (family, row["examples"])


def _planted(params):
    pos = np.array([[[0.5, 0.5], [1.5, 0.7], [2.0, 1.0]]] * SHOTS)
    zero = np.zeros(SHOTS)
    res = physics.simulate_batch(pos, physics.Shot(V0=np.full(SHOTS, 1e-3), phi=zero, theta=zero, a=zero, b=zero), 0,
                                 params)
    fp = np.asarray(res.final_positions).copy()
    fp[0, 1] = np.nan  # a NaN
    fp[1, 1] = fp[1, 0] + [2 * float(params.ball.radius) - 1e-4, 0.0]  # an overlap
    fp[2, 2] = [-0.2, 0.7]  # off the table, yet reported on it with no OFF_TABLE event
    return jax.tree_util.tree_map(np.asarray, res), fp


def test_planted_faults_are_counted(params):
    res, fp = _planted(params)
    bad = physics.ShotResult(**{**vars(res), "final_positions": fp})
    fails = soak.check_results(bad, params)
    planted = lambda *rows: [k in rows for k in range(SHOTS)]  # noqa: E731
    assert fails["nan"].tolist() == planted(0)
    assert fails["overlap"].tolist() == planted(1)
    assert fails["left_on_table"].tolist() == planted(2)
    assert fails["next_layout"].tolist() == planted(1, 2)
    assert not np.any(fails["status"])
    kinds = np.asarray(bad.events.kind)
    assert not np.any(kinds == EventKind.OFF_TABLE)


def test_the_command_counts_stuck_games_as_failures(monkeypatch, tmp_path, capsys):
    # The games part goes through experiments.soak_games.run (tested in tests/commands/test_soak_games.py);
    # here a planted stuck game must turn the closing line and the exit code into a failure.
    from experiments import soak_games

    def fake_run(discipline, games, dtype, seed):
        return dict(games=games, shots=3 * games, finished=0, stuck=int(discipline == "hungarian_1000"))

    monkeypatch.setattr(soak_games, "run", fake_run)
    args = ["--shots", "0", "--games", "4", "--out", str(tmp_path)]
    assert soak.main(args + ["--disciplines", "three_cushion"]) == 0
    assert "soak: 0 shots, 4 games, 0 failures" in capsys.readouterr().out
    assert soak.main(args + ["--disciplines", "three_cushion", "hungarian_1000"]) == 1
    assert "soak: 0 shots, 8 games, 1 failures" in capsys.readouterr().out
    with pytest.raises(ValueError, match="unknown disciplines"):
        soak.main(args + ["--disciplines", "snooker"])
