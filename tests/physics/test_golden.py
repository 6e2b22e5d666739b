"""Golden shots (``tests/support/golden_shots.py``): every family's stored event logs are what the simulator
gives today: the same events in the same order, times and states to 1e-9 (float64) or 1e-5
(float32), the same final layout. A failure here means the physics changed."""
from __future__ import annotations

import numpy as np
import pytest

from tests.support import golden_shots as golden


@pytest.fixture(scope="module")
def stored():
    with np.load(golden.PATH) as data:
        return {key: data[key] for key in data.files}


def _compare(stored, family, now):
    tol = 1e-5 if family == "float32" else 1e-9
    n = stored[f"{family}/num_events"]
    np.testing.assert_array_equal(now["num_events"], n)
    np.testing.assert_array_equal(now["status"], stored[f"{family}/status"])
    np.testing.assert_array_equal(now["on_table"], stored[f"{family}/on_table"])
    np.testing.assert_array_equal(now["pin_down"], stored[f"{family}/pin_down"])
    for k in range(len(n)):
        used = slice(0, int(n[k]))
        for field in ("kind", "balls", "cushion", "motion"):
            np.testing.assert_array_equal(now[field][k, used], stored[f"{family}/{field}"][k, used],
                                          err_msg=f"{family} shot {k}: {field}")
        for field in ("time", "positions", "velocities", "spins"):
            np.testing.assert_allclose(now[field][k, used], stored[f"{family}/{field}"][k, used], rtol=0, atol=tol,
                                       err_msg=f"{family} shot {k}: {field}")
    np.testing.assert_allclose(now["final_positions"], stored[f"{family}/final_positions"], rtol=0, atol=tol)
    np.testing.assert_allclose(now["final_time"], stored[f"{family}/final_time"], rtol=0, atol=tol)


@pytest.mark.parametrize("family", golden.FAMILIES)
def test_golden_shots_are_unchanged(stored, family):
    now = golden.record(golden.simulate_family(family))
    _compare(stored, family, now)


def test_the_comparison_catches_a_moved_shot(stored):
    # A golden log nudged by 1e-6 m somewhere, or with one event kind changed, is not accepted.
    family = "ordinary"
    now = {name.split("/")[1]: value.copy() for name, value in stored.items() if name.startswith(family + "/")}
    _compare(stored, family, now)
    moved = {k: v.copy() for k, v in now.items()}
    moved["positions"][0, 1, 0, 0] += 1e-6
    with pytest.raises(AssertionError):
        _compare(stored, family, moved)
    changed = {k: v.copy() for k, v in now.items()}
    changed["kind"][0, 1] += 1
    with pytest.raises(AssertionError):
        _compare(stored, family, changed)


def test_every_family_reaches_what_it_is_for(stored):
    # The families really are what they say: hops in the raised-cue family, the pin touched in
    # the pin family, contacts at time 0 in the frozen family.
    from physics import EventKind

    kinds = lambda family: stored[f"{family}/kind"]  # noqa: E731
    assert np.any(kinds("raised_cue") == EventKind.BALL_LANDING)
    assert np.any(kinds("pin") == EventKind.BALL_PIN)
    frozen_t0 = (stored["frozen/time"] == 0) & np.isin(kinds("frozen"), [EventKind.BALL_BALL, EventKind.BALL_CUSHION])
    assert np.any(frozen_t0)
    for family in golden.FAMILIES:
        assert np.all(stored[f"{family}/num_events"] >= 2)
