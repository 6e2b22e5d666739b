"""``simulate_batch`` on layouts of one and two balls gives what ``simulate`` gives shot by shot,
on one call and on blocks played by threads (``physics.cores``), with and without the pin.

One ball without the pin has no quartic to solve (no pair, no pin): the pool's packed root search
(``detect._solve_packed``) once gathered from its empty list of quartics and failed inside JAX. A
study of one ball round the cushions (diamond systems) plays such batches. The lanes are kept to
two, so that four shots make two lanes' worth of rows and ``threads=2`` plays them as two blocks.
"""
import jax
import numpy as np
import pytest

import physics
from physics import Shot

LANES = 2
# Shots round the cushions: long and short, with side, follow and draw, one raised.
V0 = np.array([3.0, 1.2, 4.5, 2.2])
PHI = np.array([35.0, 200.0, -60.0, 120.0])
SIDE = np.array([0.3, 0.0, -0.4, 0.2])
TOP = np.array([0.0, 0.3, -0.2, 0.1])
THETA = np.array([0.0, 0.0, 0.0, 12.0])


def _shots(rows=slice(None)):
    return Shot(V0=V0[rows], phi=PHI[rows], theta=THETA[rows], a=SIDE[rows], b=TOP[rows])


def _layouts(params, n):
    """Four layouts of n balls, clear of each other, the pin's spot (the centre) and the cushions."""
    L, W = float(params.table.length), float(params.table.width)
    spots = np.array([[0.25, 0.3], [0.7, 0.75], [0.15, 0.8], [0.8, 0.2]]) * [L, W]
    return np.stack([np.roll(spots, -k, axis=0)[:n] for k in range(4)])


def _same(batch, k, one):
    """Row k of a batch's result is a single shot's result: every count, kind, flag and index
    exactly, every time and position to 1e-9 (the pool and a single shot are two compiled
    programs that may round a last bit apart, as tests/physics/test_invariants.py allows)."""
    for (path, a), b in zip(jax.tree_util.tree_leaves_with_path(batch), jax.tree_util.tree_leaves(one)):
        a, b = np.asarray(a)[k], np.asarray(b)
        where = f"row {k}: result{jax.tree_util.keystr(path)}"
        assert a.shape == b.shape and a.dtype == b.dtype, f"{where}: {a.shape} {a.dtype} against {b.shape} {b.dtype}"
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-9, err_msg=where)
        else:
            assert np.array_equal(a, b), f"{where} differs from simulate's: {a} against {b}"


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("threads", [1, 2])
def test_one_and_two_ball_batches_equal_single_shots(params, n, threads):
    pos = _layouts(params, n)
    res = physics.simulate_batch(pos, _shots(), 0, params, lanes=LANES, threads=threads)
    assert np.all(np.asarray(res.status) == 0)
    assert res.final_positions.shape == (4, n, 2)
    assert res.events.positions.shape[-2:] == (n, 2)
    for k in range(4):
        one = physics.simulate(pos[k], _shots(k), 0, params)
        assert int(one.status) == 0
        _same(res, k, one)
    kinds = np.asarray(res.events.kind)
    assert np.any(kinds == physics.EventKind.BALL_CUSHION)
    if n == 2:
        assert np.any(kinds == physics.EventKind.BALL_BALL)


@pytest.mark.parametrize("threads", [1, 2])
def test_one_ball_batch_with_the_pin_equals_single_shots(threads):
    params = physics.default_params("hungarian")
    pin = np.asarray(params.table.centre)
    # The first shot goes straight at the pin and fells it.
    pos = _layouts(params, 1)
    pos[0, 0] = pin - [0.4, 0.0]
    phi = PHI.copy()
    phi[0] = 0.0
    shots = Shot(V0=V0, phi=phi, theta=THETA, a=SIDE, b=TOP)
    res = physics.simulate_batch(pos, shots, 0, params, pin=pin, lanes=LANES, threads=threads)
    for k in range(4):
        one = physics.simulate(pos[k], Shot(V0=V0[k], phi=phi[k], theta=THETA[k], a=SIDE[k], b=TOP[k]), 0, params,
                               pin=pin)
        _same(res, k, one)
    assert bool(res.pin_down[0]) and int(res.pin_knocked_by[0]) == 0


def test_a_batch_of_one_ball_and_batched_params_equal_single_shots(params):
    pos = _layouts(params, 1)
    one = physics.simulate(pos[0], _shots(0), 0, params)
    _same(physics.simulate_batch(pos[:1], _shots(slice(0, 1)), 0, params), 0, one)
    # A sweep of a parameter over the rows: a vmap of the shot's own loop.
    sweep = jax.tree_util.tree_map(lambda x: np.stack([np.asarray(x)] * 2), params)
    res = physics.simulate_batch(pos[:2], _shots(slice(0, 2)), 0, sweep, batched_params=True, threads=1)
    for k in range(2):
        _same(res, k, physics.simulate(pos[k], _shots(k), 0, params))


def test_one_ball_batch_under_jit(params):
    """Inside a caller's ``jit`` the batch is one program (no threads), the same results."""
    pos = _layouts(params, 1)
    res = jax.jit(lambda p, s: physics.simulate_batch(p, s, 0, params, lanes=LANES))(pos, _shots())
    for k in range(4):
        _same(res, k, physics.simulate(pos[k], _shots(k), 0, params))
