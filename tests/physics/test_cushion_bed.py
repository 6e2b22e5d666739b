"""The cloth's friction during an impact of the Han cushions (``f_bed``;
physics/collide/cushion_han2005.py, docs/physics.md section 2). The invariants every cushion model
keeps are checked in tests/physics/test_collision_models.py (the graded model runs there with f_bed > 0);
here are the extension's own answers. Batches of the shared BATCH rows reuse those tests'
compiled shapes."""
from __future__ import annotations

import numpy as np
import pytest

import physics
from physics.collide.contact import frictional_impulse
from tests.support.cushion import BATCH, cushion_run, random_shots, with_cushion

PARAMS = physics.default_params(calibration="tracked")
R = float(PARAMS.ball.radius)
M = float(PARAMS.ball.mass)
INERTIA = 0.4 * M * R * R


def rolling_into(angles):
    """BATCH balls rolling at 1 m/s into the cushion at +x, at the given incidences (rad)."""
    v = np.stack([np.cos(angles), np.sin(angles)], -1)
    w = np.stack([-np.sin(angles) / R, np.cos(angles) / R, np.zeros_like(angles)], -1)  # v = R w x z
    return v, w, np.tile([1.0, 0.0], (len(angles), 1))


def roll_out(v, w):
    """The velocity a ball ends up rolling at once the cloth has taken its slip: its angular
    momentum about the bottom point over that of a rolling ball, (5 v + 2 R w x z) / 7."""
    return (5.0 * v + 2.0 * R * np.stack([w[:, 1], -w[:, 0]], -1)) / 7.0


def bottom_slip(v, w):
    """Velocity of the ball's bottom point, v + w x (-R z), across the table."""
    return v - R * np.stack([w[:, 1], -w[:, 0]], -1)


def han_impulse(v, w, n, params):
    """Han's single impulse at the nose (on the ball), computed here from the shared kernel."""
    s = float(params.cushion.height) / R - 1.0
    c = np.sqrt(1.0 - s * s)
    N = np.concatenate([c * n, np.full((len(n), 1), s)], -1)
    u = np.concatenate([v, np.zeros((len(v), 1))], -1) + np.cross(w, R * N)
    k_t = 1.0 / M + R * R / INERTIA
    return np.asarray(frictional_impulse(u, N, 1.0 / M, k_t, float(params.cushion.e_c), float(params.cushion.f_c)))


def test_f_bed_zero_is_han_s_single_impulse():
    v, w, n = random_shots(31, BATCH)
    v1, w1 = cushion_run("han2005", v, w, n, with_cushion(PARAMS, f_bed=0.0))
    P = han_impulse(v, w, n, PARAMS)
    s = float(PARAMS.cushion.height) / R - 1.0
    r = R * np.concatenate([np.sqrt(1 - s * s) * n, np.full((BATCH, 1), s)], -1)
    np.testing.assert_allclose(v1, v + P[:, :2] / M, atol=1e-12)
    np.testing.assert_allclose(w1, w + np.cross(r, P) / INERTIA, atol=1e-9)


def test_the_cloth_takes_its_bounded_share_against_the_bottom_point_slip():
    """Known answer: where it does not stop the slip, the bed's friction is f_bed times the bed's
    normal impulse (the downward part of Han's), against the slip left by the nose's impulse."""
    angles = np.linspace(-1.2, 1.2, BATCH)
    v, w, n = rolling_into(angles)
    f_bed = 0.1
    v0, w0 = cushion_run("han2005", v, w, n, with_cushion(PARAMS, f_bed=0.0))
    v1, w1 = cushion_run("han2005", v, w, n, with_cushion(PARAMS, f_bed=f_bed))
    pressed = np.maximum(-han_impulse(v, w, n, PARAMS)[:, 2], 0.0)
    assert np.all(pressed > 0)
    slip = bottom_slip(v0, w0)
    size = np.linalg.norm(slip, axis=-1)
    k_t = 1.0 / M + R * R / INERTIA
    assert np.all(f_bed * pressed < size / k_t)  # sliding throughout: the bound acts
    F = -f_bed * pressed[:, None] * slip / size[:, None]
    np.testing.assert_allclose(v1, v0 + F / M, atol=1e-12)
    np.testing.assert_allclose(bottom_slip(v1, w1), slip + k_t * F, atol=1e-9)


@pytest.mark.parametrize("f_bed", [0.2, 50.0])
def test_a_rolling_ball_leaves_slower_nearer_rolling_and_rolls_out_alike(f_bed):
    """The bed's friction acts at the bottom point, so the angular momentum about it, and the
    speed the ball ends up rolling at, are Han's; the ball leaves slower with less slip, and a
    friction that stops the slip sends it off rolling."""
    v, w, n = rolling_into(np.linspace(0.0, 1.2, BATCH))
    v0, w0 = cushion_run("han2005", v, w, n, with_cushion(PARAMS, f_bed=0.0))
    v1, w1 = cushion_run("han2005", v, w, n, with_cushion(PARAMS, f_bed=f_bed))
    np.testing.assert_allclose(roll_out(v1, w1), roll_out(v0, w0), atol=1e-12)
    assert np.all(np.linalg.norm(v1, axis=-1) < np.linalg.norm(v0, axis=-1))
    slip0, slip1 = (np.linalg.norm(bottom_slip(a, b), axis=-1) for a, b in ((v0, w0), (v1, w1)))
    assert np.all(slip1 < slip0)
    if f_bed > 10:
        np.testing.assert_allclose(slip1, 0.0, atol=1e-12)


def test_graded_cushion_has_the_bed_friction_too():
    v, w, n = rolling_into(np.linspace(0.0, 1.2, BATCH))
    graded = physics.default_params(calibration="tracked", cushion="graded", f_bed=0.2)
    han = physics.default_params(calibration="tracked", f_bed=0.2)
    assert all(np.array_equal(a, b) for a, b in zip(cushion_run("graded", v, w, n, graded),
                                                    cushion_run("han2005", v, w, n, han)))


def test_a_negative_bed_friction_is_refused():
    with pytest.raises(ValueError, match="f_bed"):
        physics.default_params(f_bed=-0.1)
