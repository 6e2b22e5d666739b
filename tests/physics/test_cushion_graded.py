"""The graded ball-cushion model (physics/collide/cushion_graded.py, docs/physics.md section 2):
Han's impulse with restitution by normal speed and friction by incidence. The invariants every
cushion model keeps are checked in tests/physics/test_collision_models.py; here are this model's own
answers. Batches of the shared BATCH rows reuse those tests' compiled shapes."""
from __future__ import annotations

import numpy as np
import pytest

import physics
from physics.collide import cushion_graded as graded
from tests.support.cushion import BATCH, cushion_run, random_shots, with_cushion

PARAMS = physics.default_params(cushion="graded")


def test_with_flat_slopes_it_is_han2005_bit_for_bit():
    v, w, n = random_shots(21, BATCH)
    ours = cushion_run("graded", v, w, n, PARAMS)
    han = cushion_run("han2005", v, w, n, physics.default_params())
    assert all(np.array_equal(a, b) for a, b in zip(ours, han))


def test_restitution_and_friction_at_known_impacts():
    p = with_cushion(PARAMS, e_c=0.9, f_c=0.2, e_c_slope=0.05, f_c_slope=0.2)
    e = np.asarray(graded.restitution(np.array([0.0, 1.0, 3.0, 4.0, 30.0]), p))
    np.testing.assert_allclose(e, [0.95, 0.9, 0.8, 0.75, 0.75])  # held above V_MAX = 4 m/s
    f = np.asarray(graded.friction(np.array([0.0, np.sqrt(0.5), 1.0]), p))
    np.testing.assert_allclose(f, [0.2 - 0.2 * np.sqrt(0.5), 0.2, 0.2 + 0.2 * (1 - np.sqrt(0.5))])
    steep = with_cushion(p, f_c_slope=1.0)
    assert float(graded.friction(np.array(0.0), steep)) == 0.0  # never negative
    assert float(graded.restitution(np.array(3.0), with_cushion(p, e_c_slope=-1.0))) == 1.0  # never above 1
    assert float(graded.restitution(np.array(3.0), with_cushion(p, e_c_slope=0.5))) == 0.0  # nor below 0


def test_a_fast_ball_keeps_less_of_its_normal_speed():
    """Head-on without spin or friction: the normal-speed ratio falls with speed by the slope."""
    speeds = np.linspace(0.5, 4.0, BATCH)
    v = np.stack([np.zeros(BATCH), speeds], -1)
    w, n = np.zeros((BATCH, 3)), np.tile([0.0, 1.0], (BATCH, 1))
    flat = with_cushion(PARAMS, f_c=0.0)
    sloped = with_cushion(flat, e_c_slope=0.05)
    ratio_flat = -cushion_run("graded", v, w, n, flat)[0][:, 1] / speeds
    ratio = -cushion_run("graded", v, w, n, sloped)[0][:, 1] / speeds
    assert np.ptp(ratio_flat) < 1e-12  # no slope: the ratio does not depend on speed
    assert np.all(np.diff(ratio) < 0)
    at_ref = np.argmin(np.abs(speeds - graded.V_REF))
    assert ratio[at_ref] == pytest.approx(ratio_flat[at_ref], abs=0.05 * abs(speeds[at_ref] - 1.0) + 1e-12)
