"""Shots that used to wedge games: a ball through a cushion, balls left overlapping, a ball off
the table reported on it, a full log voiding the shot, float32 overlaps beyond the layout check
(docs/physics.md sections 1-2). Each uses the exact shot that showed the fault."""
from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import physics
import rules
from experiments import soak
from physics import Shot, thinning
from physics.detect import Layout
from physics.events import EventKind, Motion, Status
from physics.motion import Balls, layout_tolerance
from physics.simulate import _bodies, _resolve, layout_is_valid

PASS_THROUGH = (
    np.array([[1.5974798055039054, 1.3583406952222215], [0.11557758790168327, 0.14892091646261732],
              [2.6484729436386485, 0.7994940809110964]]),
    Shot(V0=10.0, phi=79.53016394094408, theta=89.9, a=-0.4695833460046435, b=0.2915255959513013),
)
PUSHED_TOGETHER = (
    np.array([[0.030108138434649195, 0.030108138434649195], [0.0916081384346492, 0.030108138434649195],
              [1.1565265281095143, 0.8075662327716349]]),
    Shot(V0=0.01419590779976998, phi=-116.05649751526298, a=-0.45125526105971053, b=-0.0652334607810214),
)


@pytest.fixture(scope="module")
def params():
    """The reference values (physics.CALIBRATIONS): the soak found the layouts and strikes below on them."""
    return physics.default_params(calibration="reference")


def _inside(result, params):
    reach, tol = float(params.cushion_reach), layout_tolerance(params.dtype)
    p = np.asarray(result.final_positions)
    L, W = float(params.table.length), float(params.table.width)
    return ((p[:, 0] >= reach - tol) & (p[:, 0] <= L - reach + tol)
            & (p[:, 1] >= reach - tol) & (p[:, 1] <= W - reach + tol))


def test_masse_along_a_cushion_stays_on_the_table(params):
    res = physics.simulate(*PASS_THROUGH, 0, params)
    assert int(res.status) == 0
    assert np.all(np.asarray(res.on_table)) and np.all(_inside(res, params))
    # It ends beside the left cushion (y = W - reach) after running along it, not 0.24 m beyond it
    # (pressed against it with the strike's former launch, 4.5 mm short of it since the squeeze).
    assert abs(float(res.final_positions[0, 1]) - (float(params.table.width) - float(params.cushion_reach))) < 1e-2


def test_ball_pushed_into_a_frozen_ball_does_not_enter_it(params):
    res = physics.simulate(*PUSHED_TOGETHER, 0, params)
    assert int(res.status) == 0
    p = np.asarray(res.final_positions)
    gap = np.linalg.norm(p[0] - p[1]) - 2 * float(params.ball.radius)
    assert gap >= -layout_tolerance(params.dtype)
    assert bool(layout_is_valid(res.final_positions, params))


def test_ball_landing_on_another_bounces_off_it(params):
    # Found by the soak: ball 0 jumps and comes down on ball 2; the impulse across the table
    # did not part them, and the contact repeated at the same instant until the safety net.
    pos = np.array([[0.030108138434649195, 0.38620188902249497], [0.03736466042175739, 0.325131496125031],
                    [1.2736672378491156, 1.1251386629301854]])
    shot = Shot(V0=4.752581359395484, phi=144.51723989721398, theta=47.52734810304138, a=-0.188632299089739,
                b=-0.11552698080692136)
    res = physics.simulate(pos, shot, 0, params)
    assert int(res.status) == 0 and int(res.num_events) < 64
    on = np.asarray(res.on_table)
    events = physics.event_list(res)
    # (Since the squeeze and the rail geometry it lands on ball 2 and stays on the table.)
    assert any(e["kind"] == "ball_ball" and e["balls"] == [0, 2] and e["motion"][0] == "airborne" for e in events)
    assert bool(layout_is_valid(np.asarray(res.final_positions)[on], params))


def test_ball_resting_on_another_in_a_corner_cluster_runs_to_rest(params):
    # Found by the soak: the jumping cue ball settles onto ball 2, pulled in by gravity alone,
    # and touched it again and again at one instant until the safety net cut the shot off.
    pos = np.array([[0.030108138434649195, 0.030108138434649195], [0.04704525534536211, 0.08922991167220393],
                    [0.10131545529681539, 0.06029903893684939]])
    shot = Shot(V0=2.7728012311178163, phi=98.86047640654738, theta=56.531167401385495, a=-0.5505012102670442,
                b=-0.1452034584988051)
    res = physics.simulate(pos, shot, 0, params)
    assert int(res.status) == 0 and int(res.dropped) == 0 and int(res.num_events) < 64
    on = np.asarray(res.on_table)
    assert bool(layout_is_valid(np.asarray(res.final_positions)[on], params))


def test_ball_ball_contact_keeps_a_ball_off_the_table(params):
    R = float(params.ball.radius)
    r = jnp.array([[-0.0615, 0.39], [1.0, 0.7], [1.0 + 2 * R, 0.7]])
    v = jnp.array([[0.0, 0.0], [0.5, 0.0], [0.0, 0.0]])
    b = Balls(r, v, jnp.zeros((3, 3)), jnp.zeros(3), jnp.zeros(3),
              jnp.array([Motion.OFF_TABLE, Motion.SLIDING, Motion.STATIONARY], jnp.int8))
    layout = Layout(3, False)
    pair_1_2 = 2  # pairs (0, 1), (0, 2), (1, 2)
    out, _, kind, ball, other, _ = _resolve(b, None, _bodies(b, None, jnp.asarray(pair_1_2), layout), params)
    assert int(kind) == EventKind.BALL_BALL and (int(ball), int(other)) == (1, 2)
    assert int(out.motion[0]) == Motion.OFF_TABLE
    assert int(out.motion[2]) == Motion.SLIDING


def test_a_shot_longer_than_the_log_runs_to_rest_and_is_not_void():
    small, big = physics.default_params(capacity=4), physics.default_params()
    pos = np.array([[0.7, 0.5], [0.7, 0.9], [2.1, 0.7]])  # it overflowed a log of 4 before
    a, b = (physics.simulate(pos, Shot(V0=4.0, phi=10.0), 0, p) for p in (small, big))
    assert int(b.status) == 0 and int(b.dropped) == 0
    assert int(a.dropped) > 0 and int(a.num_events) <= 4
    np.testing.assert_allclose(np.asarray(a.final_positions), np.asarray(b.final_positions), rtol=0, atol=1e-12)
    assert float(a.final_time) == float(b.final_time)
    # Only the first ball contact and cushion contacts before it are needed here.
    assert int(a.status) in (0, Status.OVERFLOW)


@pytest.mark.parametrize("discipline,family", [
    ("three_cushion", "ordinary"), ("three_cushion", "raised"), ("three_cushion", "frozen"),
    pytest.param("hungarian_1000", "pin", marks=pytest.mark.slow),  # its own simulation and referee programs
])
def test_thinned_log_gives_the_referee_the_same_outcome(discipline, family):
    n = 64  # the batch other tests compile the pool for
    ruleset = rules.make_rules(discipline)
    table = "hungarian" if discipline.startswith("hungarian") else "match"
    # the default log holds every event of these shots (the reference); a log of 24 thins them
    small, big = physics.default_params(table, capacity=24), physics.default_params(table)
    pos, shot, pin = soak.family_inputs(family, np.random.default_rng(11), n, big)
    states = jax.vmap(lambda p: rules.game_from_layout(ruleset, p, big))(jnp.asarray(pos))
    a, b = (physics.simulate_batch(pos, shot, states.cue_ball, p, pin=pin) for p in (small, big))
    assert np.all(np.asarray(b.dropped) == 0) and not np.any(np.asarray(b.overflow))
    (_, out_a), (_, out_b) = (rules.referee_batch(ruleset, states, r, big) for r in (a, b))
    thinned = np.asarray(a.dropped) > 0
    assert thinned.sum() > 0
    kept = ~np.asarray(a.overflow)
    for x, y in zip(jax.tree_util.tree_leaves(out_a), jax.tree_util.tree_leaves(out_b)):
        np.testing.assert_array_equal(np.asarray(x)[kept], np.asarray(y)[kept])
    assert kept.mean() >= 0.95


@pytest.mark.parametrize("family", ["ordinary", "raised"])
def test_a_log_thinned_of_motion_changes_replays_the_same_paths(family):
    # A thinned log loses motion-state changes on the cloth first; the replay goes through them
    # itself (physics.replay.evolve_through), so the paths between the kept events are the full
    # log's. Take-offs and landings, which it could not go through, are kept longer.
    n = 64  # the batch and log sizes of the thinned-log test above: the same programs
    small, big = physics.default_params(capacity=24), physics.default_params()
    pos, shot, pin = soak.family_inputs(family, np.random.default_rng(11), n, big)
    a, b = (physics.simulate_batch(pos, shot, 0, p, pin=pin) for p in (small, big))
    changes = np.asarray(thinning.CLOTH_CHANGES)
    compared = 0
    for k in range(n):
        ra, rb = (jax.tree_util.tree_map(lambda x, k=k: x[k], r) for r in (a, b))
        kinds = [np.asarray(r.events.kind)[: int(r.num_events)] for r in (ra, rb)]
        kept, full = (list(x[~np.isin(x, changes)]) for x in kinds)
        if int(ra.dropped) == 0 or kept != full:
            continue  # nothing dropped, or more than motion changes on the cloth
        t = np.linspace(0.0, float(rb.final_time) + 0.5, 64)
        np.testing.assert_allclose(np.asarray(physics.positions_at(ra, t, big)),
                                   np.asarray(physics.positions_at(rb, t, big)), rtol=0, atol=1e-9)
        compared += 1
    assert compared >= 3, compared  # 3 or more of these 64 shots in each family
    # The batch replay, which follows motion changes only where a log of the batch was thinned,
    # reads the same as the replay of each shot, on the thinned batch and on the full one.
    t = np.broadcast_to(np.linspace(0.0, 3.0, 64), (n, 64))
    for r in (a, b):
        batch = np.asarray(physics.positions_at_batch(r, t, big))
        for k in list(range(4)) + list(np.nonzero(np.asarray(r.dropped))[0][:4]):
            one = jax.tree_util.tree_map(lambda x, k=k: x[k], r)
            np.testing.assert_allclose(batch[k], np.asarray(physics.positions_at(one, t[k], big)), rtol=0, atol=1e-12)
    # A result made by hand, without the dropped count, is read as a full log.
    first = jax.tree_util.tree_map(lambda x: x[0], b)
    hand = dataclasses.replace(first, dropped=None, dropped_span=None)
    np.testing.assert_array_equal(np.asarray(physics.positions_at(hand, t[0], big)),
                                  np.asarray(physics.positions_at(first, t[0], big)))
    with pytest.raises(ValueError, match=r"times of shape \(batch, N\) with the same batch"):
        physics.positions_at_batch(b, t[:8], big)


def test_thinning_drops_motion_changes_on_the_cloth_before_landings():
    # A landing is dropped with the contacts the referee cannot need, after the motion changes
    # on the cloth: the replay goes through those, not through a landing (no heights logged).
    kinds = [EventKind.CUE_STRIKE, EventKind.SLIDING_TO_ROLLING, EventKind.BALL_LANDING,
             EventKind.ROLLING_TO_STATIONARY, EventKind.BALL_AIRBORNE]
    log = physics.EventLog.empty(8, 3, jnp.float64)
    log = dataclasses.replace(log, kind=log.kind.at[: len(kinds)].set(jnp.asarray(kinds, jnp.int8)),
                              time=log.time.at[: len(kinds)].set(jnp.arange(len(kinds), dtype=jnp.float64)),
                              balls=log.balls.at[: len(kinds), 0].set(0))
    classes = np.asarray(thinning.priorities(log, jnp.asarray(len(kinds)), 3))[: len(kinds)]
    assert list(classes) == [thinning.NEEDED, thinning.TRANSITION, thinning.CONTACT, thinning.TRANSITION,
                             thinning.CONTACT]


def test_layout_tolerance_follows_the_dtype():
    assert layout_tolerance(jnp.float64) == 1e-7
    p32 = physics.default_params(dtype="float32")
    R = float(p32.ball.radius)
    # Two balls 0.26 um inside each other: rounding in float32, an overlap in float64.
    pos = np.array([[1.0, 0.7], [1.0 + 2 * R - 2.6e-7, 0.7], [2.0, 0.7]])
    assert bool(layout_is_valid(jnp.asarray(pos, jnp.float32), p32))
    assert not bool(layout_is_valid(jnp.asarray(pos), physics.default_params()))


@pytest.mark.parametrize("e_c", [0.0, 0.1])
def test_a_dead_cushion_stops_the_ball_without_filling_the_log(e_c):
    # Topspin drove a ball stopped by a dead cushion back into it at one instant, over and over,
    # until the log overflowed. Plain nested lists are a valid layout too.
    params = physics.default_params(e_c=e_c)
    res = physics.simulate([[1.5, 0.71], [0.5, 0.3], [0.5, 1.1]], Shot(V0=1.5, phi=0.0), 0, params)
    assert int(res.status) == 0 and int(res.num_events) < 20
    assert float(res.final_positions[0, 0]) <= float(params.table.length - params.cushion_reach) + 1e-9


# Float32 soak, seed 21: a cue ball frozen to an end cushion, a ball about 6 cm away, a firm draw
# shot. The ball is then pressed along the cushion, and each return of the pressed contact was
# logged as a new contact (its speed matched the release speed only to float32's rounding of the
# micrometre bounce), until the log overflowed and the shot was void.
PRESSED_FLOAT32 = [
    ([[2.809891700744629, 1.3898918628692627], [2.748521327972412, 1.385901689529419],
      [1.222666621208191, 0.14134915173053741]],
     {'V0': 5.6153717041015625, 'phi': 176.73922729492188, 'theta': 0.0,
      'a': 0.1475416123867035, 'b': -0.3975561261177063}),
    ([[0.030108138918876648, 1.3898918628692627], [0.03382673114538193, 1.3285043239593506],
      [1.977965235710144, 0.30933070182800293]],
     {'V0': 3.787287950515747, 'phi': -85.8847885131836, 'theta': 0.0,
      'a': -0.12923166155815125, 'b': -0.46540355682373047}),
    ([[2.809891700744629, 0.3089553415775299], [2.748551845550537, 0.3045205771923065],
      [1.310550570487976, 0.8944602012634277]],
     {'V0': 5.734460830688477, 'phi': -161.98655700683594, 'theta': 0.0,
      'a': -0.09046397358179092, 'b': -0.4456746578216553}),
]


@pytest.mark.parametrize("layout,shot", PRESSED_FLOAT32)
def test_a_float32_ball_pressed_along_a_cushion_does_not_fill_the_log(layout, shot):
    params = soak.family_params("float32", "float32")
    result = physics.simulate(np.asarray(layout, np.float32), Shot(**{k: np.float32(v) for k, v in shot.items()}),
                              0, params)
    assert int(result.status) == Status.OK and int(result.dropped) == 0
    assert int(result.num_events) < 100


# Soak reproducers (frozen family, after the raised-cue strike): a cue ball frozen in a corner,
# struck down with draw, stays on the cloth and its spin rattles it between the two cushions a
# hundred times before it touches the second object ball (it never does). Every one of those
# contacts used to count as needed, so the log overflowed and the shot was void.
CORNER_RATTLES = [
    ([[0.030108138434649195, 0.030108138434649195], [0.05692899455922469, 0.08545153620479719],
      [0.32672489920238884, 0.8248890391574313]],
     dict(V0=2.193353257390643, phi=64.37554061487063, theta=46.28665483238842, a=-0.11199275902047184,
          b=-0.5557012893344941)),
    ([[0.030108138434649195, 1.3898918615653508], [0.059968734910960296, 1.3361276097052261],
      [0.12053410199244392, 1.3254464903685115]],
     dict(V0=3.592695557905813, phi=-61.70907486655898, theta=4.099472773025563, a=0.10264077289044991,
          b=-0.5357309784479338)),
    ([[2.8098918615653505, 1.3898918615653508], [2.7808841680401764, 1.335662683843855],
      [2.46261821234563, 0.807134620674062]],
     dict(V0=2.448208669849586, phi=-117.80979918190094, theta=54.482419952158345, a=0.14301081265692206,
          b=-0.40118772529583463)),
]


def test_a_cue_ball_rattling_in_a_corner_keeps_its_first_cushions_and_the_shot_counts(params):
    # the three shots repeated over the batch that the thinned-log test compiles for
    rows = np.arange(64) % len(CORNER_RATTLES)
    pos = np.asarray([layout for layout, _ in CORNER_RATTLES])[rows]
    shot = Shot(*(np.asarray([s[f] for _, s in CORNER_RATTLES])[rows] for f in ("V0", "phi", "theta", "a", "b")))
    big = physics.default_params(calibration="reference", capacity=512)
    small, full = (physics.simulate_batch(pos, shot, 0, p) for p in (params, big))
    assert np.all(np.asarray(small.status) == Status.OK) and np.all(np.asarray(full.dropped) == 0)
    assert np.all(np.asarray(small.dropped) > 0)
    def cue_cushions(res, k):
        n = int(res.num_events[k])
        kind, balls = np.asarray(res.events.kind[k, :n]), np.asarray(res.events.balls[k, :n])
        return int(np.sum((kind == EventKind.BALL_CUSHION) & (balls[:, 0] == 0)))

    for k in range(len(CORNER_RATTLES)):
        # three-cushion's count (C-13.2) is read from the first ones, kept; the rest were dropped
        assert thinning.CUE_CUSHIONS_KEPT <= cue_cushions(small, k) < cue_cushions(full, k)
    start = jax.jit(jax.vmap(rules.game_from_layout, in_axes=(None, 0, None)))
    for discipline in ("three_cushion", "one_cushion"):
        ruleset = rules.make_rules(discipline)
        states = start(ruleset, jnp.asarray(pos), big)
        # one program, both games
        (_, a), (_, b) = (rules.referee_batch(ruleset, states, r, big) for r in (small, full))
        for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
            np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_a_discipline_cannot_require_more_cushions_than_the_log_keeps():
    with pytest.raises(ValueError, match="cushions_required must be at most"):
        rules.disciplines.register_discipline("nine_cushion", base="three_cushion", gym_name="NineCushion",
                                              cushions_required=thinning.CUE_CUSHIONS_KEPT + 1)
