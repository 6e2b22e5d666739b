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
# Shots round the cushions: long and short, with side, follow and draw, one raised; the first is
# aimed at the second ball of a two-ball layout (_layouts).
V0 = np.array([3.0, 1.2, 4.5, 2.2, 2.6, 3.5, 1.8, 4.0])
PHI = np.array([26.0, 200.0, -60.0, 120.0, 75.0, -150.0, 10.0, 250.0])
SIDE = np.array([0.3, 0.0, -0.4, 0.2, -0.1, 0.4, 0.0, -0.3])
TOP = np.array([0.0, 0.3, -0.2, 0.1, 0.4, -0.4, 0.0, 0.2])
THETA = np.array([0.0, 0.0, 0.0, 12.0, 0.0, 5.0, 0.0, 0.0])


def _shots(rows=slice(None), phi=PHI):
    return Shot(V0=V0[rows], phi=phi[rows], theta=THETA[rows], a=SIDE[rows], b=TOP[rows])


def _layouts(params, n, rows=8):
    """Layouts of n balls, clear of each other, the pin's spot (the centre) and the cushions."""
    L, W = float(params.table.length), float(params.table.width)
    spots = np.array([[0.25, 0.3], [0.7, 0.75], [0.15, 0.8], [0.8, 0.2]]) * [L, W]
    return np.stack([np.roll(spots, -k, axis=0)[:n] for k in range(rows)])


def _rows(threads):
    """Four rows on one call (padded to no more), eight on two threads: two blocks of four, so
    both play the one compiled pool of four rows on two lanes (``physics.cores.block_size``)."""
    return 4 if threads == 1 else 8


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
    rows = _rows(threads)
    pos = _layouts(params, n, rows)
    res = physics.simulate_batch(pos, _shots(slice(rows)), 0, params, lanes=LANES, threads=threads)
    assert res.final_positions.shape == (rows, n, 2)
    assert res.events.positions.shape[-2:] == (n, 2)
    assert np.all(np.asarray(res.status) == 0)
    for k in range(rows):
        _same(res, k, physics.simulate(pos[k], _shots(k), 0, params))
    kinds = np.asarray(res.events.kind)
    assert np.sum(kinds == physics.EventKind.BALL_CUSHION) > 4 * rows
    assert np.any(kinds == physics.EventKind.BALL_BALL) == (n == 2)
    if threads > 1:  # each block is what one call on its rows gives, bit for bit
        for part in (slice(0, 4), slice(4, 8)):
            alone = physics.simulate_batch(pos[part], _shots(part), 0, params, lanes=LANES, threads=1)
            for (path, x), y in zip(jax.tree_util.tree_leaves_with_path(alone), jax.tree_util.tree_leaves(res)):
                assert np.array_equal(np.asarray(x), np.asarray(y)[part], equal_nan=True), (
                    f"rows {part}: result{jax.tree_util.keystr(path)} differs between two threads and one")


@pytest.mark.parametrize("threads", [1, 2])
def test_one_ball_batch_with_the_pin_equals_single_shots(threads):
    params = physics.default_params("hungarian")
    pin = np.asarray(params.table.centre)
    rows = _rows(threads)
    # The first shot goes straight at the pin and fells it.
    pos = _layouts(params, 1, rows)
    pos[0, 0] = pin - [0.4, 0.0]
    phi = PHI.copy()
    phi[0] = 0.0
    res = physics.simulate_batch(pos, _shots(slice(rows), phi), 0, params, pin=pin, lanes=LANES, threads=threads)
    for k in range(rows):
        _same(res, k, physics.simulate(pos[k], _shots(k, phi), 0, params, pin=pin))
    assert bool(res.pin_down[0]) and int(res.pin_knocked_by[0]) == 0
    assert np.any(np.asarray(res.events.kind[0]) == physics.EventKind.BALL_PIN)


@pytest.mark.slow  # three programs of their own: a batch of one, a parameter sweep, and the pool inside a jit
def test_one_ball_batch_of_one_with_batched_params_and_under_jit(params):
    pos = _layouts(params, 1)
    one = physics.simulate(pos[0], _shots(0), 0, params)
    _same(physics.simulate_batch(pos[:1], _shots(slice(1)), 0, params), 0, one)
    # A sweep of a parameter over the rows: a vmap of the shot's own loop.
    sweep = jax.tree_util.tree_map(lambda x: np.stack([np.asarray(x)] * 2), params)
    res = physics.simulate_batch(pos[:2], _shots(slice(2)), 0, sweep, batched_params=True, threads=1)
    for k in range(2):
        _same(res, k, physics.simulate(pos[k], _shots(k), 0, params))
    # Inside a caller's jit the batch is one program (no threads).
    res = jax.jit(lambda p, s: physics.simulate_batch(p, s, 0, params, lanes=LANES))(pos[:4], _shots(slice(4)))
    for k in range(4):
        _same(res, k, physics.simulate(pos[k], _shots(k), 0, params))


@pytest.mark.parametrize("lanes", [0, -2])
def test_lanes_below_one_are_refused(params, lanes):
    pos = _layouts(params, 1, 2)
    with pytest.raises(ValueError, match=rf"lanes must be an int >= 1 \(shots played side by side\), got {lanes}"):
        physics.simulate_batch(pos, _shots(slice(2)), 0, params, lanes=lanes)
