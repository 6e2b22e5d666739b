"""The action forms (``billiards_env.actions.FORMS``): the "contact" form's mapping checked directly
(known answers, the bank's mirror image, the ten buckets, every thickness meeting the chosen ball),
and the environments built with ``action="contact"`` through the public checker and the adapters.
The mapping is tested under ``jit``/``vmap`` on its own; the environments reuse the staged stages
and the batch shape (``BATCH``) the other environment tests compile: only ``begin`` is new."""
from __future__ import annotations

import functools

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import billiards_env
from billiards_env import actions, observation
from billiards_env.params import replace
from billiards_env.sb3 import BilliardsVecEnv
from billiards_env.testing import api_test
from physics.events import EventKind
from physics.pytree import replace as tree_replace
from tests.support.env import BATCH, fenv, runner, tree_equal

FUNCTIONAL_CHECKS = ["state", "transitions", "determinism", "finished_state", "nan_action", "batch"]
GYMNASIUM_CHECKS = ["spaces", "reset", "step", "finished_episode", "determinism", "bad_actions", "gymnasium_checker"]


def contact(discipline="three_cushion"):
    return fenv(discipline, action="contact")


@functools.lru_cache(maxsize=None)
def _mapped():
    """The mapping over a batch of (action, game), compiled once per params structure."""
    return jax.jit(jax.vmap(actions.contact_to_strike, in_axes=(0, 0, None)))


def _games(env, positions):
    """Game states (a batch) with these layouts, player 0 to shoot with his own ball (ball 0;
    the Hungarian red) and no choice offered: the mapping's inputs."""
    positions = np.asarray(positions, np.float64)
    game = env.init_batch(jax.random.split(jax.random.PRNGKey(0), len(positions))).game
    n = len(positions)
    cue = jnp.full(n, 2 if env.config.pin else 0, jnp.int32)
    return tree_replace(game, positions=jnp.asarray(positions, game.positions.dtype), cue_ball=cue,
                        current_player=jnp.zeros(n, jnp.int32),
                        ball_in_hand=jnp.zeros(n, bool), may_respot=jnp.zeros(n, bool),
                        may_choose_side=jnp.zeros(n, bool), base_spot_ball=jnp.full(n, -1, jnp.int32))


def _action(target, thickness, n=1):
    a = np.zeros((n, 10), np.float32)
    a[:, 0], a[:, 1] = target, thickness
    return a


def _phi(strike_action):
    return np.radians(180.0 * np.asarray(strike_action)[..., 0])


def _cross(u, v):
    return u[0] * v[1] - u[1] * v[0]


def _wrapped(angle):
    return (np.asarray(angle) + np.pi) % (2 * np.pi) - np.pi


LAYOUT = np.array([[0.7, 0.5], [2.1, 0.9], [1.5, 1.1]])  # the cue ball (0), then the yellow, the red


def test_thickness_aims_full_ball_and_grazing_either_side():
    env = contact()
    params = env.default_params
    R = float(params.physics.ball.radius)
    games = _games(env, [LAYOUT] * 6)
    # bucket 5 (centre 0.1): directly at the second object ball (the red); bucket 0: the first (the yellow)
    acts = np.concatenate([_action(0.1, t) for t in (0.0, 1.0, -1.0)] + [_action(-0.9, t) for t in (0.0, 1.0, -1.0)])
    strikes = np.asarray(_mapped()(acts, games, params))
    for row, (ball, t) in enumerate([(2, 0.0), (2, 1.0), (2, -1.0), (1, 0.0), (1, 1.0), (1, -1.0)]):
        delta = LAYOUT[ball] - LAYOUT[0]
        want = np.arctan2(delta[1], delta[0]) + t * np.arcsin(2 * R / np.linalg.norm(delta))
        assert abs(_wrapped(_phi(strikes[row]) - want)) < 1e-9, (row, ball, t)
    # the other components are the strike form's, copied
    a = np.linspace(-0.9, 0.9, 10, dtype=np.float32)[None]
    assert np.array_equal(np.asarray(_mapped()(a, _games(env, [LAYOUT]), params))[0, 1:],
                          a[0, 2:].astype(np.float64))


def test_the_ten_buckets_and_the_banks_mirror_image():
    env = contact()
    phys = env.default_params.physics
    L, W, reach = float(phys.table.length), float(phys.table.width), float(phys.cushion_reach)
    centres = np.linspace(-0.9, 0.9, 10)
    games = _games(env, [LAYOUT] * 10)
    targets = np.asarray(jax.vmap(actions.contact_target, in_axes=(0, 0, None))(
        _action(centres, 0.0, 10), games, env.default_params))
    strikes = np.asarray(_mapped()(_action(centres, 0.0, 10), games, env.default_params))
    assert actions.TARGETS[0] == (0, "direct") and actions.TARGETS[9] == (1, "left")
    for k, (slot, route) in enumerate(actions.TARGETS):
        ball = LAYOUT[1 + slot]  # carom, cue ball 0: the other player's ball (1), then the red (2)
        x, y = ball
        want = {"direct": (x, y), "bottom": (2 * reach - x, y), "top": (2 * (L - reach) - x, y),
                "right": (x, 2 * reach - y), "left": (x, 2 * (W - reach) - y)}[route]
        assert np.allclose(targets[k], want, atol=1e-12), (k, route)
        # geometrically: the aim line meets the reflection line, and from there the reflected ray
        # (angle in = angle out) passes through the ball's centre
        phi = _phi(strikes[k])
        u = np.array([np.cos(phi), np.sin(phi)])
        if route == "direct":
            assert abs(_cross(u, ball - LAYOUT[0])) < 1e-9
            continue
        axis, line = {"bottom": (0, reach), "top": (0, L - reach), "right": (1, reach), "left": (1, W - reach)}[route]
        s = (line - LAYOUT[0][axis]) / u[axis]
        assert s > 0
        hit = LAYOUT[0] + s * u
        out = u.copy()
        out[axis] = -out[axis]
        assert abs(_cross(out, ball - hit)) < 1e-9 and np.dot(out, ball - hit) > 0, (k, route)
    # edges: -1 is bucket 0, 1 is bucket 9, and each bucket starts at -1 + k / 5
    edges = np.array([-1.0, 1.0, -0.8 + 1e-6, -0.8 - 1e-6, 0.0, -1e-6], np.float32)
    got = np.asarray(jax.vmap(actions.contact_target, in_axes=(0, 0, None))(
        _action(edges, 0.0, 6), _games(env, [LAYOUT] * 6), env.default_params))
    assert np.allclose(got, [targets[0], targets[9], targets[1], targets[0], targets[5], targets[4]])


def test_the_hungarian_targets_are_the_white_then_the_yellow():
    env = contact("hungarian_1000")
    game = _games(env, [LAYOUT])
    cue = int(game.cue_ball[0])
    order = np.asarray(observation.ball_order(cue))
    assert cue == 2 and list(order) == [2, 0, 1]  # the red is the cue ball (H-3.1)
    got = np.asarray(jax.vmap(actions.contact_target, in_axes=(0, 0, None))(
        _action(np.array([-0.9, 0.1]), 0.0, 2), _games(env, [LAYOUT] * 2), env.default_params))
    assert np.allclose(got, [LAYOUT[0], LAYOUT[1]])


def _clear_layouts(rng, phys, n, slots):
    """n layouts (cue ball 0) where nothing lies between the cue ball and the chosen object ball:
    no ball near the way, and every ball a ball's width clear of the cushions (a grazing hit's
    cue ball stays on the cloth)."""
    R, reach = float(phys.ball.radius), float(phys.cushion_reach)
    L, W = float(phys.table.length), float(phys.table.width)
    edge = reach + 2 * R + 0.01
    out = []
    while len(out) < n:
        pos = np.column_stack([rng.uniform(edge, L - edge, 3), rng.uniform(edge, W - edge, 3)])
        d = np.linalg.norm(pos[:, None] - pos[None], axis=-1) + np.eye(3) * 9
        if d.min() < 2 * R + 0.01:
            continue
        target, other = pos[1 + slots[len(out)]], pos[2 - slots[len(out)]]
        seg = target - pos[0]
        s = np.clip(np.dot(other - pos[0], seg) / np.dot(seg, seg), 0.0, 1.0)
        if np.linalg.norm(pos[0] + s * seg - other) > 4 * R + 0.01:  # the swept band and a ball's width
            out.append(pos)
    return np.array(out)


def test_every_thickness_below_one_meets_the_chosen_ball():
    """From random layouts with nothing in the way, simulated exactly (noise 0): the cue ball's
    first ball contact is the ball the target component names, whatever the thickness in (-1, 1).
    A level cue at the ball's centre (no squirt or swerve), fast enough to get there."""
    env = contact()
    params = replace(env.default_params, noise=jnp.asarray(0.0))
    rng = np.random.default_rng(5)
    slots = rng.integers(0, 2, BATCH)
    layouts = _clear_layouts(rng, params.physics, BATCH, slots)
    thickness = rng.uniform(-1, 1, BATCH)
    thickness[:4] = [0.999, -0.999, 0.99, -0.99]
    acts = np.zeros((BATCH, 10), np.float32)
    acts[:, 0] = -0.9 + slots + rng.uniform(-0.09, 0.09, BATCH)  # the direct buckets 0 and 5
    acts[:, 1] = np.clip(thickness, -0.999, 0.999)
    acts[:, 2] = rng.uniform(0.0, 1.0, BATCH)  # speed: 4.25 m/s and more
    acts[:, 3] = rng.uniform(-1.0, 0.7, BATCH)  # a level cue
    states = env.init_from(_games(env, layouts), params)
    keys = jax.random.split(jax.random.PRNGKey(3), BATCH)
    _, result = runner(env, BATCH).step_rows(states, acts, keys, params)
    kind, balls = np.asarray(result.events.kind), np.asarray(result.events.balls)
    for i in range(BATCH):
        first = np.nonzero(kind[i] == EventKind.BALL_BALL)[0]
        assert first.size, f"row {i}: no ball contact (thickness {acts[i, 1]})"
        assert sorted(balls[i, first[0]]) == [0, 1 + slots[i]], (
            f"row {i}: the cue ball met {balls[i, first[0]].tolist()} first, not ball {1 + slots[i]} "
            f"(thickness {acts[i, 1]})")
        assert not np.any(kind[i, :first[0]] == EventKind.BALL_CUSHION), f"row {i}: a cushion first"


def test_a_contact_step_is_the_strike_step_of_its_mapped_action_and_jit_agrees():
    """The contact env's staged step plays exactly the strike the mapping gives (the strike env's
    step of that action), and the mapping compiled equals the mapping run op by op."""
    env, strike_env = contact(), fenv("three_cushion")
    params = env.default_params
    key = jax.random.PRNGKey(11)
    state = runner(env).reset(key, params)
    act = np.asarray(jax.random.uniform(jax.random.PRNGKey(12), (10,), jnp.float32, -1.0, 1.0))
    eager = actions.contact_to_strike(actions.sanitize(act, "contact"), state.game, params)
    compiled = jax.jit(actions.contact_to_strike)(act, state.game, params)
    assert np.allclose(np.asarray(eager), np.asarray(compiled), rtol=0, atol=1e-12)
    played = runner(env).step(state, act, key, params)[0]
    # the choices are offered in no start here: the game the mapping read is the one played from
    assert not bool(state.game.ball_in_hand | state.game.may_choose_side)
    as_strike = runner(strike_env).step(state, np.asarray(eager), key, params)[0]
    assert np.allclose(np.asarray(played.shot.phi), np.asarray(as_strike.shot.phi), rtol=0, atol=1e-9)
    assert tree_equal(played.outcome, as_strike.outcome)


def test_the_contact_env_passes_the_checker_and_its_adapters_take_the_form():
    env = contact()
    assert env.num_actions == 10 and env.action_form == "contact" and "action='contact'" in repr(env)
    assert api_test(env, seed=7, steps=2, batch=BATCH) == FUNCTIONAL_CHECKS
    gym_env = gym.make("billiards_env/ThreeCushion-v0", fused=False, action="contact")
    assert gym_env.action_space.shape == (10,) and actions.form_of(gym_env) == "contact"
    assert api_test(gym_env, seed=3) == GYMNASIUM_CHECKS
    gym_env.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(10,\) \(components target, thickness, speed"):
        gym_env.step(np.zeros(9, np.float32))
    with pytest.raises(ValueError, match="finite"):
        gym_env.step(np.full(10, np.nan, np.float32))
    with pytest.raises(ValueError, match=r"must be in \[-1.0, 1.0\]"):
        gym_env.step(np.full(10, 1.5, np.float32))
    vec = gym.make_vec("billiards_env/ThreeCushion-v0", num_envs=BATCH, fused=False, lanes=BATCH, action="contact")
    assert vec.single_action_space.shape == (10,) and vec.action_space.shape == (BATCH, 10)
    vec.reset(seed=1)
    with pytest.raises(ValueError, match=rf"shape \({BATCH}, 10\)"):
        vec.step(np.zeros((BATCH, 9), np.float32))
    vec.step(vec.action_space.sample())
    sb3 = BilliardsVecEnv("three_cushion", num_envs=BATCH, fused=False, lanes=BATCH, action="contact")
    assert sb3.action_space.shape == (10,) and actions.form_of(sb3) == "contact"
    sb3.reset()
    with pytest.raises(ValueError, match=rf"shape \({BATCH}, 10\)"):
        sb3.step_async(np.zeros((BATCH, 9), np.float32))
    from billiards_env.pettingzoo_env import BilliardsAECEnv

    aec = BilliardsAECEnv(action="contact", fused=False)
    assert aec.action_space("player_0").shape == (10,)
    with pytest.raises(ValueError, match=r"shape \(10,\)"):
        actions.check_action(np.zeros(9), form="contact")
    # inside jit a NaN plays as 0 and out of range is clipped
    assert np.array_equal(np.asarray(actions.sanitize(jnp.array([np.nan, 2.0] + [-3.0] * 8), "contact")),
                          np.array([0.0, 1.0] + [-1.0] * 8, np.float32))
    with pytest.raises(ValueError, match=r"action must have shape \(10,\)"):
        actions.sanitize(jnp.zeros(9), "contact")


def test_gymnax_takes_the_form():
    pytest.importorskip("gymnax")
    env, _ = billiards_env.make_gymnax("three_cushion", action="contact")
    assert env.num_actions == 10 and env.action_space().shape == (10,) and env.action_form == "contact"


@pytest.mark.parametrize("make", [
    lambda: billiards_env.make_functional("three_cushion", action="aim"),
    lambda: gym.make("billiards_env/ThreeCushion-v0", action="aim"),
    lambda: BilliardsVecEnv("three_cushion", num_envs=2, action="aim"),
])
def test_an_unknown_form_names_the_valid_ones(make):
    with pytest.raises(ValueError, match="unknown action form 'aim'; valid: strike, contact"):
        make()


def test_the_referee_and_the_other_stages_are_shared_across_forms():
    from billiards_env import functional

    strike, contact_env = fenv("three_cushion"), contact()
    for name in ("judge", "end", "merge", "opponent_to_play", "opponent_begin"):
        assert functional._stage_config(strike.config, name) == functional._stage_config(contact_env.config, name)
    assert functional._stage_config(strike.config, "begin") != functional._stage_config(contact_env.config, "begin")
    # the built-in opponent plays strike-form actions: a "game" env of the contact form still works
    game_env = billiards_env.make_functional("three_cushion", "game", action="contact")
    assert game_env.config.action == "contact" and game_env.policy is not None
