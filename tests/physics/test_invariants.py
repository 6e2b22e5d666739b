"""Invariants on generated shots (docs/physics.md section 8): energy, overlap, bounds, time order;
and the simulator's own guarantees: jit == no jit, vmap == single, frozen and simultaneous
contacts, capacity overflow, bad input."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import physics
from physics import EventKind, Shot, Status
from physics.collide import BALL_BALL_MODELS, CUSHION_MODELS
from physics.pytree import replace
from tests.support.physics import check_invariants, energy, random_layout, random_shot  # noqa: F401

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_invariants_on_random_shots(params, seed):
    rng = np.random.default_rng(seed)
    pos = random_layout(rng, params)
    res = physics.simulate(pos, random_shot(rng), int(rng.integers(3)), params)
    check_invariants(res, params)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), cut=st.floats(-80, 80))
def test_invariants_with_frozen_balls_at_the_start(params, seed, cut):
    """Cue ball touching an object ball, shot in any direction: never hangs or overlaps."""
    rng = np.random.default_rng(seed)
    R = float(params.ball.radius)
    cue = np.array([1.0, 0.7])
    obj = cue + 2 * R * np.array([np.cos(np.radians(cut)), np.sin(np.radians(cut))])
    pos = np.stack([cue, obj, [2.2, 0.3]])
    res = physics.simulate(pos, random_shot(rng), 0, params)
    check_invariants(res, params)


def test_three_frozen_balls_in_a_line_pass_the_hit_through(params):
    R = float(params.ball.radius)
    pos = np.array([[1.0, 0.71], [1.0 + 2 * R, 0.71], [1.0 + 4 * R, 0.71]])
    res = physics.simulate(pos, Shot(V0=2.0, phi=0.0), 0, params)
    check_invariants(res, params)
    events = physics.event_list(res)
    contacts = [e["balls"] for e in events if e["kind"] == "ball_ball"]
    assert contacts[:2] == [[0, 1], [1, 2]]
    # The end ball takes the shot on: after the second contact it has most of the cue ball's speed.
    v0 = float(res.events.velocities[0, 0, 0])
    second = [e for e in events if e["kind"] == "ball_ball"][1]
    assert second["t"] < 1e-12
    assert second["velocities"][2][0] > 0.85 * v0
    assert abs(second["velocities"][1][0]) < 0.1 * v0


def test_ball_frozen_to_a_cushion_shot_along_it_makes_no_contact(params):
    reach = float(params.cushion_reach)
    pos = np.array([[1.0, reach], [2.0, 1.0], [2.5, 1.2]])
    res = physics.simulate(pos, Shot(V0=1.0, phi=0.0), 0, params)
    check_invariants(res, params)
    assert not any(e["kind"] == "ball_cushion" and e["t"] == 0.0 for e in physics.event_list(res))


def test_simultaneous_contacts_two_object_balls_at_once(params):
    R = float(params.ball.radius)
    cue = np.array([1.0, 0.71])
    pos = np.stack([cue, cue + 2 * R * np.array([np.cos(0.6), np.sin(0.6)]),
                    cue + 2 * R * np.array([np.cos(0.6), -np.sin(0.6)])])
    res = physics.simulate(pos, Shot(V0=2.0, phi=0.0), 0, params)
    check_invariants(res, params)
    events = physics.event_list(res)
    assert events[1]["kind"] == events[2]["kind"] == "ball_ball"
    assert events[1]["t"] < 1e-12 and events[2]["t"] < 1e-12
    after = np.asarray(events[2]["velocities"])
    assert after[1, 1] > 0 > after[2, 1]  # each object ball leaves on its own line of centres


def test_ball_into_a_corner_hits_both_cushions(params):
    reach = float(params.cushion_reach)
    pos = np.array([[reach + 0.3, reach + 0.3], [2.0, 1.0], [2.5, 1.2]])
    res = physics.simulate(pos, Shot(V0=1.0, phi=-135.0), 0, params)
    check_invariants(res, params)
    hits = [e for e in physics.event_list(res) if e["kind"] == "ball_cushion"]
    assert {hits[0]["cushion"], hits[1]["cushion"]} == {"bottom", "right"}
    assert hits[1]["t"] - hits[0]["t"] < 1e-6


def test_capacity_overflow_is_flagged_never_silent():
    params = physics.default_params(capacity=4)
    pos = np.array([[0.7, 0.5], [0.7, 0.9], [2.1, 0.7]])
    res = physics.simulate(pos, Shot(V0=4.0, phi=10.0), 0, params)
    assert bool(res.overflow)
    assert int(res.status) & Status.OVERFLOW
    assert int(res.num_events) == 4


@pytest.mark.slow  # unjitted, every op runs on its own (seconds per event)
def test_jit_and_no_jit_agree(params):
    # Unjitted, every op runs on its own (seconds per event): a short shot with a ball-ball and a
    # ball-cushion contact, side and draw.
    pos, shot = np.array([[1.0, 0.40], [1.0, 0.20], [2.3, 1.0]]), Shot(V0=0.4, phi=-90.0, a=0.2, b=-0.3)
    jitted = physics.simulate(pos, shot, 0, params)
    kinds = np.asarray(jitted.events.kind)
    assert EventKind.BALL_BALL in kinds and EventKind.BALL_CUSHION in kinds
    with jax.disable_jit():
        eager = physics.simulate(pos, shot, 0, params)
    n = int(jitted.num_events)
    assert int(eager.num_events) == n
    assert np.array_equal(np.asarray(eager.events.kind), np.asarray(jitted.events.kind))
    assert np.allclose(eager.events.time[:n], jitted.events.time[:n], rtol=1e-9, atol=1e-12)
    assert np.allclose(eager.final_positions, jitted.final_positions, rtol=1e-9, atol=1e-12)


def test_vmap_agrees_with_single_shots(params):
    rng = np.random.default_rng(11)
    B = 256  # twice the default lanes, so lanes take new shots; the search tests compile this pool too
    pos = np.stack([random_layout(rng, params) for _ in range(B)])
    shots = [random_shot(rng) for _ in range(B)]
    batch = Shot(*(np.array([getattr(s, f) for s in shots]) for f in ("V0", "phi", "theta", "a", "b")))
    cue = rng.integers(3, size=B)
    res = jax.device_get(physics.simulate_batch(pos, batch, cue, params))
    for k in range(B):
        one = physics.simulate(pos[k], shots[k], int(cue[k]), params)
        n = int(one.num_events)
        assert int(res.num_events[k]) == n
        assert np.array_equal(np.asarray(res.events.kind[k]), np.asarray(one.events.kind))
        # The pool and a single shot are two compiled programs that round a last bit apart, and a
        # long shot carries that on from event to event: over these 256 shots up to 5e-10 s and
        # 9e-11 m, at the golden shots' tolerance (1e-9) with room.
        np.testing.assert_allclose(res.events.time[k, :n], one.events.time[:n], rtol=0, atol=1e-9)
        np.testing.assert_allclose(res.final_positions[k], one.final_positions, rtol=0, atol=1e-9)


def test_same_inputs_same_results(params):
    pos = np.array([[0.7, 0.5], [0.7, 0.9], [2.1, 0.7]])
    a = physics.simulate(pos, Shot(V0=3.0, phi=33.0, a=0.3), 0, params)
    b = physics.simulate(pos, Shot(V0=3.0, phi=33.0, a=0.3), 0, params)
    assert all(np.array_equal(x, y) for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)))


def test_float32_runs_and_stays_float32():
    params = physics.default_params(dtype="float32")
    pos = np.array([[0.7, 0.5], [0.7, 0.9], [2.1, 0.7]], np.float32)
    res = physics.simulate(pos, Shot(V0=3.0, phi=33.0), 0, params)
    assert res.final_positions.dtype == jnp.float32 and res.events.time.dtype == jnp.float32
    assert int(res.status) == 0 and not bool(res.overflow)


# Bad input: clear errors outside jit, status flags inside.

@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(V0=float("nan"), phi=0.0), "V0 must be finite"),
        (dict(V0=-1.0, phi=0.0), "V0 must be in"),
        (dict(V0=1.0, phi=0.0, theta=95.0), "theta must be in"),
    ],
)
def test_bad_shots_raise_with_the_allowed_range(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Shot(**kwargs)


def test_overlapping_layout_is_flagged_and_nothing_moves(params):
    pos = np.array([[0.7, 0.5], [0.72, 0.5], [2.1, 0.7]])
    res = physics.simulate(pos, Shot(V0=3.0, phi=0.0), 0, params)
    assert int(res.status) & Status.INVALID_LAYOUT
    assert np.allclose(res.final_positions, pos)


def test_bad_arguments_raise(params):
    with pytest.raises(ValueError, match="shape"):
        physics.simulate(np.zeros((3, 3)), Shot(1.0, 0.0), 0, params)
    with pytest.raises(ValueError, match="cue_ball"):
        physics.simulate(np.zeros((3, 2)), Shot(1.0, 0.0), 5, params)
    with pytest.raises(ValueError, match="valid: frictional, frictionless"):
        physics.default_params(ball_ball="sticky")
    with pytest.raises(ValueError, match="valid tables"):
        physics.default_params(table="snooker")
    with pytest.raises(ValueError, match="e_c must be in"):
        physics.default_params(e_c=1.5)


# Every registered collision model (physics.collide.registry), the others at their defaults.
EVERY_MODEL = [("cushion", name) for name in CUSHION_MODELS] + [("ball_ball", name) for name in BALL_BALL_MODELS]


@pytest.mark.parametrize("option, model", EVERY_MODEL)
@settings(max_examples=8, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_invariants_with_every_registered_model(option, model, seed):
    params = physics.default_params(**{option: model})
    rng = np.random.default_rng(seed)
    pos, shot = random_layout(rng, params), random_shot(rng)
    if option == "ball_ball":  # aimed at ball 1, so that the model is used
        shot = replace(shot, phi=float(np.degrees(np.arctan2(*(pos[1] - pos[0])[::-1]))))
    res = physics.simulate(pos, shot, 0, params)
    check_invariants(res, params)
    kinds = [e["kind"] for e in physics.event_list(res)]
    if option == "ball_ball":
        assert "ball_ball" in kinds
    else:
        assert "ball_cushion" in kinds or int(res.num_events) < 6
