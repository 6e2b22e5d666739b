"""Aiming geometry against answers known without the simulator: mirror images, the tangent line
and the 30-degree rule, the ghost ball, the spin a sliding ball picks up, the line tables."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import physics
from aiming import geometry


@pytest.fixture(scope="module")
def params():
    return physics.default_params()


def test_mirror_images_reflect_across_the_cushion_lines(params):
    lo, size = (np.asarray(x) for x in geometry.rail_box(params))
    hi = lo + size
    p = np.array([0.7, 0.4])
    img = lambda cell: np.asarray(geometry.image(jnp.asarray(p), jnp.asarray(cell), lo, size))  # noqa: E731
    np.testing.assert_allclose(img([0, 0]), p)
    np.testing.assert_allclose(img([1, 0]), [2 * hi[0] - p[0], p[1]])  # across the TOP cushion line
    np.testing.assert_allclose(img([-1, 0]), [2 * lo[0] - p[0], p[1]])  # across the BOTTOM one
    np.testing.assert_allclose(img([0, 1]), [p[0], 2 * hi[1] - p[1]])  # LEFT
    np.testing.assert_allclose(img([0, -1]), [p[0], 2 * lo[1] - p[1]])  # RIGHT
    np.testing.assert_allclose(img([2, 0]), p + [2 * size[0], 0])  # two reflections: a translation
    np.testing.assert_allclose(img([-1, 1]), [2 * lo[0] - p[0], 2 * hi[1] - p[1]])
    assert float(lo[0]) == pytest.approx(float(params.cushion_reach))


def test_a_one_cushion_line_meets_the_cushion_at_equal_angles(params):
    lo, size = (np.asarray(x) for x in geometry.rail_box(params))
    C, T = np.array([0.6, 0.5]), np.array([1.9, 0.9])
    target = np.asarray(geometry.image(jnp.asarray(T), jnp.asarray([0, 1]), lo, size))
    d = target - C
    y_line = lo[1] + size[1]
    hit = C + d * (y_line - C[1]) / d[1]
    incoming = hit - C
    outgoing = T - hit
    # angle of incidence equals angle of reflection on the LEFT cushion line (normal along y)
    assert np.degrees(np.arctan2(incoming[0], incoming[1])) == pytest.approx(
        np.degrees(np.arctan2(outgoing[0], -outgoing[1])), abs=1e-9)


@pytest.mark.parametrize("cut", [5.0, 20.0, 30.0, 45.0, 60.0, 80.0])
def test_the_cue_ball_leaves_on_the_tangent_line_or_by_the_30_degree_rule(cut):
    c = np.radians(cut)
    arrive = jnp.asarray([1.0, 0.0])
    centres = jnp.asarray([np.cos(c), -np.sin(c)])  # line of centres, the cut angle off the aim
    stun = np.asarray(geometry.departure(arrive, centres, jnp.asarray(0.0)))
    assert np.dot(stun, np.asarray(centres)) == pytest.approx(0.0, abs=1e-12)  # the tangent line
    assert np.linalg.norm(stun) == pytest.approx(5 / 7 * np.sin(c))
    rolling = np.asarray(geometry.departure(arrive, centres, jnp.asarray(1.0)))
    deflection = np.degrees(np.arctan2(rolling[1], rolling[0]))
    # TP A-4 (Alciatore): a rolling cue ball turns by atan(sin c cos c / (sin^2 c + 2/5))
    expected = np.degrees(np.arctan(np.sin(c) * np.cos(c) / (np.sin(c) ** 2 + 0.4)))
    assert deflection == pytest.approx(expected, abs=1e-9)


def test_largest_rolling_deflection_is_near_a_half_ball_hit():
    cuts = np.radians(np.linspace(1, 89, 881))
    arrive = jnp.asarray([1.0, 0.0])
    centres = jnp.stack([jnp.cos(cuts), -jnp.sin(cuts)], -1)
    dep = np.asarray(geometry.departure(arrive, centres, jnp.ones(cuts.shape)))
    deflection = np.degrees(np.arctan2(dep[:, 1], dep[:, 0]))
    k = int(np.argmax(deflection))
    assert deflection[k] == pytest.approx(33.7, abs=0.1)  # TP A-4: about 34 degrees
    assert np.degrees(cuts[k]) == pytest.approx(28.1, abs=0.2)  # near the half-ball hit (30)


def test_a_sliding_ball_picks_up_its_roll_after_12_v2_over_49_ug(params):
    u_s, g = float(params.ball.u_s), float(params.g)
    v = 2.0
    rolls_at = 12 * v**2 / (49 * u_s * g)
    s = lambda length: float(geometry._spin_at_contact(jnp.asarray(v), jnp.asarray(length), u_s, g))  # noqa: E731
    assert s(0.0) == pytest.approx(0.0)
    assert s(rolls_at * 1.001) == 1.0
    assert s(rolls_at * 0.999) == pytest.approx(1.0, abs=0.01)
    assert 0 < s(0.3 * rolls_at) < s(0.6 * rolls_at) < 1


def test_a_straight_line_ghost_ball_for_a_stun_carom(params):
    # White (cue) at the left, yellow to its right, red straight "below" the yellow: a stun
    # ball hitting the yellow on the side away from the red leaves at 90 degrees and reaches it.
    R = float(params.ball.radius)
    positions = jnp.asarray([[0.5, 0.70], [1.5, 0.70], [1.5 + 2 * R, 0.30]])
    table = geometry.line_table(0, False)
    found = jax.jit(lambda p: geometry.lines(table, p, 0, params, rolling=False))(positions)
    q = np.asarray(found.quality)
    first = np.asarray(found.first_ball)
    direct = (np.abs(table.cell1).sum(1) + np.abs(table.cell2).sum(1) == 0) & (first == 1)
    assert np.any(q[direct] > 0)
    k = np.flatnonzero(direct)[np.argmax(q[direct])]
    # The ghost ball touches the yellow and sees the red at right angles to the line of centres.
    aim = np.radians(float(found.phi[k]))
    C, O1, O2 = (np.asarray(p) for p in positions)
    d = np.array([np.cos(aim), np.sin(aim)])
    # where the aim line is 2R from the yellow's centre (first touch)
    off = d[0] * (O1 - C)[1] - d[1] * (O1 - C)[0]  # distance of the yellow from the aim line
    t = np.dot(O1 - C, d) - np.sqrt(4 * R * R - off**2)
    G = C + t * d
    assert np.linalg.norm(G - O1) == pytest.approx(2 * R, rel=1e-9)
    assert np.dot(O2 - G, O1 - G) == pytest.approx(0.0, abs=1e-9)


def test_line_tables_cover_the_cushion_counts():
    three = geometry.line_table(3, False)
    kinds = np.abs(three.cell1).sum(1) + np.abs(three.cell2).sum(1)
    assert set(kinds.tolist()) == {3, 4}
    # a cell with |i| + |j| = k for every way to split 3 cushions before and after the first ball
    for k1 in range(4):
        assert np.any((np.abs(three.cell1).sum(1) == k1) & (kinds == 3))
    assert len(geometry.cells(3)) == 12 and len(geometry.cells(0)) == 1
    hungarian = geometry.line_table(0, True)
    assert hungarian.pin.any() and not three.pin.any()
    assert np.all(np.abs(hungarian.cell1[hungarian.pin]).sum(1) <= 2)


def test_a_leg_is_checked_for_obstacles_in_the_cells_around_its_box():
    grid = geometry.cells_within(4)
    near = geometry.near_cells(np.array([[4, 0], [-1, 2], [0, 0]], np.int32), grid)
    cells = [{tuple(grid[k]) for k in row if k < len(grid)} for row in near]
    assert cells[0] == {(i, j) for i in range(-1, 5) for j in (-1, 0, 1)}  # (5, .) is off the grid
    assert cells[1] == {(i, j) for i in range(-2, 2) for j in range(-1, 4)}
    assert cells[2] == {(i, j) for i in (-1, 0, 1) for j in (-1, 0, 1)}
    assert np.all(near[2][len(cells[2]):] == len(grid))  # padded with "no cell"


@pytest.mark.parametrize("discipline", [pytest.param("three_cushion", marks=pytest.mark.slow), "hungarian_1000"])
def test_obstacles_near_a_leg_decide_as_every_cell_of_the_grid_does(discipline):
    """The lines found with each leg checked against the cells around it only (``near_cells``)
    are those found against every cell of the grid, on random layouts (and the pin)."""
    import dataclasses

    import rules
    from agents.arena import first_states, row_keys
    from billiards_env import setup

    ruleset, params = setup(discipline)
    table = geometry.line_table_for(ruleset)
    grid = geometry.cells_within(max(table.reach, 1))
    every = np.broadcast_to(np.arange(len(grid), dtype=np.int32), (table.n, len(grid)))
    full = dataclasses.replace(table, near1=every, near2=every)
    states = jax.tree_util.tree_map(jnp.asarray, first_states(ruleset, params, 64, "random", row_keys(5, 0, 64)))

    @jax.jit
    def lines(states):
        def one(table, s, check=True):
            pin = rules.pin.in_play(s) if ruleset.is_hungarian else None
            return geometry.lines(table, s.positions, s.cue_ball, params, pin, ruleset.pin_radius, check, False,
                                  s.pin_state == rules.PinState.STANDING)
        return jax.vmap(lambda s: (one(table, s), one(full, s), one(table, s, False)))(states)

    near, everywhere, unchecked = lines(states)
    assert table.near1.shape[1] < len(grid)
    found, open_lines = (int(np.sum(np.asarray(x.quality) > 0)) for x in (everywhere, unchecked))
    assert 64 * 4 < found < open_lines  # lines are found, and obstacles block some
    for a, b in zip(jax.tree_util.tree_leaves(near), jax.tree_util.tree_leaves(everywhere)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
