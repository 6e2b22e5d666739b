"""The planners' interface: valid shots in every discipline, determinism, the batched form, the
random player's ranges, the execution-noise model and the search's settings."""
from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import agents
import billiards_env
import physics
import rules
from agents import ExecutionNoise, GeometricAgent, RandomAgent, SearchAgent, SearchConfig
from agents.base import index_tree
from tests.support.agents import SMALL, SMALL_NOISY, assert_playable, layouts, setup


def _states(discipline):
    """A random game in play and the discipline's starting position (Hungarian: red in hand)."""
    ruleset, params = setup(discipline)
    drawn = index_tree(layouts(discipline, 1, 3), 0)
    return ruleset, params, agents.stack_states([drawn, agents.starting_state(ruleset, params)])


@pytest.mark.parametrize("discipline", [d if d == "three_cushion" else pytest.param(d, marks=pytest.mark.slow)
                                        for d in rules.DISCIPLINES])  # slow: the quick tier's time budget
def test_every_agent_plays_a_valid_shot_in_every_discipline(discipline):
    ruleset, params, states = _states(discipline)
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    for agent in (RandomAgent(), GeometricAgent(), SearchAgent(SMALL)):
        for i in range(2):
            shot = agent.plan(ruleset, index_tree(states, i), params, keys[i])
            assert np.shape(shot.V0) == ()
            assert_playable(shot, params)


def test_the_geometric_agent_drives_the_target_ball_into_the_pin_where_it_stands():
    # Red (the cue ball), white and the pin on one line: a full ball along it is the pin line,
    # worth 50 (rule H-9.3); the pin is read from the state, here moved off its spot (H-8.4).
    ruleset, params = setup("hungarian_1000")
    base = agents.random_state(ruleset, jax.random.PRNGKey(0), params)
    for angle in (0.0, 30.0, -135.0):
        u = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
        pin = np.array([1.0, 0.5])
        white = pin - 0.30 * u
        red = pin - 0.75 * u
        yellow = np.array([0.2, 0.15]) if angle != -135.0 else np.array([1.9, 0.9])
        state = dataclasses.replace(base, positions=jnp.asarray([red, white, yellow]),
                                    pin_position=jnp.asarray(pin))
        shot = GeometricAgent().plan(ruleset, state, params, jax.random.PRNGKey(0))
        assert abs(float(shot.phi) - angle) < 0.5
        assert float(shot.b) < 0  # draw: the cue ball must not follow into the pin (H-4.8)


def test_same_key_same_shot_and_the_batch_matches_single_plans():
    ruleset, params = setup("three_cushion")
    states = layouts("three_cushion", 12, 11)  # the layouts of tests/agents/test_search.py
    keys = jax.random.split(jax.random.PRNGKey(1), 12)
    for agent in (RandomAgent(), GeometricAgent()):
        batch = agent.plan_batch(ruleset, states, params, keys)
        for i in range(3):
            one = agent.plan(ruleset, index_tree(states, i), params, keys[i])
            for f in ("V0", "phi", "theta", "a", "b"):  # a batch may round the last bit differently
                np.testing.assert_allclose(np.asarray(getattr(one, f)), np.asarray(getattr(batch, f))[i],
                                           rtol=1e-12, atol=1e-12)
    state = index_tree(states, 0)
    search = SearchAgent(SMALL)
    first = search.plan(ruleset, state, params, keys[0])
    again = search.plan(ruleset, state, params, keys[0])
    other = search.plan(ruleset, state, params, keys[1])
    for f in ("V0", "phi", "theta", "a", "b"):
        np.testing.assert_array_equal(np.asarray(getattr(first, f)), np.asarray(getattr(again, f)))
    assert any(float(getattr(first, f)) != float(getattr(other, f)) for f in ("V0", "phi", "a", "b"))
    assert_playable(first, params)


def test_random_agent_draws_from_its_documented_ranges():
    ruleset, params = setup("three_cushion")
    one = layouts("three_cushion", 1, 3)
    states = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (512,) + x.shape[1:]), one)
    keys = jax.random.split(jax.random.PRNGKey(2), 512)
    shots = RandomAgent().plan_batch(ruleset, states, params, keys)
    V0, phi, theta, a, b = (np.asarray(getattr(shots, f)) for f in ("V0", "phi", "theta", "a", "b"))
    assert V0.min() >= 0.5 and V0.max() <= 8.0 and V0.max() - V0.min() > 7.0
    assert phi.min() >= -180 and phi.max() <= 180 and np.ptp(phi) > 340
    raised = theta > 0
    assert 0.05 < raised.mean() < 0.15 and theta.max() <= 80.0  # a level cue nine times in ten
    r = np.hypot(a, b)
    assert r.max() <= 0.5 + 1e-12
    # uniform on the disc: a quarter of the points within half the radius
    assert abs(np.mean(r < 0.25) - 0.25) < 0.06
    with pytest.raises(ValueError):
        RandomAgent(max_offset=0.7)
    with pytest.raises(ValueError):
        RandomAgent(v_min=3.0, v_max=2.0)


def test_the_random_agent_is_the_environments_random_player():
    # the same draw for the same key: the built-in random opponent's action, through the action's
    # mapping with the environments' default ranges, is the RandomAgent's strike
    from billiards_env import actions

    ruleset, params = setup("three_cushion")
    env_params = billiards_env.default_params("three_cushion")
    keys = jax.random.split(jax.random.PRNGKey(8), 64)
    states = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (64,) + x.shape[1:]), layouts("three_cushion", 1, 3))
    mine = RandomAgent().plan_batch(ruleset, states, params, keys)
    builtin = jax.vmap(lambda k: actions.to_shot(actions.random_action(k), env_params))(keys)
    for f in ("V0", "phi", "theta", "a", "b"):
        np.testing.assert_allclose(np.asarray(getattr(mine, f)), np.asarray(getattr(builtin, f)), atol=1e-12)


def test_execution_noise_has_the_tournament_standard_deviations():
    params = physics.default_params()
    std = np.asarray(ExecutionNoise().std(params))
    R = float(params.ball.radius)
    np.testing.assert_allclose(std, [0.075, 0.125, 0.1, 0.0005 / R, 0.0005 / R])
    np.testing.assert_allclose(np.asarray(ExecutionNoise(2.0).std(params)), 2 * std)
    n = 4000
    shot = physics.Shot(V0=jnp.full(n, 3.0), phi=jnp.full(n, 10.0), theta=jnp.full(n, 5.0),
                        a=jnp.full(n, 0.1), b=jnp.full(n, -0.2))
    noisy = ExecutionNoise().apply(shot, jax.random.PRNGKey(0), params)
    for f, s in zip(("V0", "phi", "theta", "a", "b"), std):
        d = np.asarray(getattr(noisy, f)) - np.asarray(getattr(shot, f))
        assert abs(d.mean()) < 4 * s / np.sqrt(n)
        assert abs(d.std() / s - 1) < 0.06


def test_noisy_shots_stay_playable_at_the_edges_of_the_ranges():
    params = physics.default_params()
    n = 2000
    edge = physics.Shot(V0=jnp.full(n, 10.0), phi=jnp.full(n, 180.0), theta=jnp.zeros(n),
                        a=jnp.full(n, 0.6 * np.cos(0.3)), b=jnp.full(n, 0.6 * np.sin(0.3)))
    noisy = ExecutionNoise(5.0).apply(edge, jax.random.PRNGKey(3), params)
    assert_playable(noisy, params)
    assert np.all(np.asarray(noisy.phi) > -180) and np.all(np.asarray(noisy.phi) <= 180)


def test_search_settings_are_checked_and_budgets_counted():
    assert SMALL.budget == 128 + 4 * 32
    assert SMALL_NOISY.budget == 16 * 4 + 2 * 8 * 4
    assert "simulated shots" in SMALL.describe()
    assert SearchAgent.for_noise().config.trials > 1 and SearchAgent.for_noise().config.noise == 1.0
    assert SearchAgent(SMALL, candidates=64).config.candidates == 64
    for bad in (dict(candidates=0), dict(trials=0), dict(random_fraction=1.5), dict(noise=-1.0),
                dict(refine_parents=2000), dict(refine_children=0), dict(refine_trials=0),
                dict(trials=4), dict(noise=1.0, refine_trials=0)):
        with pytest.raises(ValueError):
            SearchConfig(**bad)
    with pytest.raises(ValueError):
        SearchAgent.for_noise(0.0)


def test_a_batch_of_noisy_searches_is_deterministic_and_keeps_each_state_to_its_own_key():
    # Two states searched together under noise (2 x 16 candidates x 4 noisy plays, then
    # 2 x 2 x 8 x 4: 128 shots a round, the same compiled simulation as the other tests).
    ruleset, params = setup("three_cushion")
    states = layouts("three_cushion", 2, 7)
    keys = jax.random.split(jax.random.PRNGKey(8), 2)
    search = SearchAgent(SMALL_NOISY)
    shots = search.plan_batch(ruleset, states, params, keys)
    again = search.plan_batch(ruleset, states, params, keys)
    swapped = search.plan_batch(ruleset, jax.tree_util.tree_map(lambda x: x[::-1], states), params, keys[::-1])
    for f in ("V0", "phi", "theta", "a", "b"):
        np.testing.assert_array_equal(np.asarray(getattr(shots, f)), np.asarray(getattr(again, f)))
        # swapping the states and their keys swaps the shots exactly
        np.testing.assert_array_equal(np.asarray(getattr(shots, f)), np.asarray(getattr(swapped, f))[::-1])
    assert_playable(shots, params)
    assert float(shots.phi[0]) != float(shots.phi[1])


@pytest.mark.slow  # the quick tier's time budget
def test_the_position_term_can_be_switched_on():
    # The next-shot term changes which candidate wins: on the same layouts and keys, some plan
    # differs from the plan without it (were the weight ignored, every plan would be the same).
    ruleset, params = setup("three_cushion")
    states = layouts("three_cushion", 2, 3)
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    plain = SearchAgent(SMALL).plan_batch(ruleset, states, params, keys)
    placed = SearchAgent(SMALL, position_weight=0.5).plan_batch(ruleset, states, params, keys)
    assert_playable(placed, params)
    differs = [not np.array_equal(np.asarray(getattr(plain, f)), np.asarray(getattr(placed, f)))
               for f in ("V0", "phi", "theta", "a", "b")]
    assert any(differs)


def test_a_planner_drives_the_environment_with_the_shot_it_planned():
    # Planner.env_actions: the strikes as actions of the functional environment; stepping with
    # them plays the planned shot (to the float32 precision of an action), no choice offered: 0.
    from billiards_env.actions import from_shot
    from tests.support.env import BATCH, fenv, runner

    env = fenv("three_cushion")
    run = runner(env, BATCH)
    params = billiards_env.replace(env.default_params, noise=jnp.asarray(0.0))  # exact strokes
    states = run.reset(jax.random.PRNGKey(5), params)
    keys = jax.random.split(jax.random.PRNGKey(6), BATCH)
    agent = RandomAgent()
    planned = agent.plan_batch(params.rules, states.game, params.physics, keys)
    acts = agent.env_actions(states, params, keys)
    assert acts.shape == (BATCH, 9) and acts.dtype == jnp.float32
    assert np.all(np.abs(np.asarray(acts)) <= 1.0) and np.all(np.asarray(acts)[:, 5:] == 0)
    _, stepped = run.step(states, np.asarray(acts), jax.random.PRNGKey(7), params)  # before any reset
    # (a raised cue spans 80 deg over a tenth of its component: a float32 unit there is 3e-5 deg)
    for f, tol in (("V0", 1e-5), ("phi", 1e-4), ("theta", 1e-4), ("a", 1e-6), ("b", 1e-6)):
        np.testing.assert_allclose(np.asarray(getattr(stepped.shot, f)), np.asarray(getattr(planned, f)), atol=tol)
    # beyond the action's ranges: clipped into them (10 m/s -> v_max, the tip back onto its disc)
    far = from_shot(physics.Shot(V0=10.0, phi=-190.0, theta=80.0, a=0.55, b=0.0), params)
    np.testing.assert_allclose(np.asarray(far[:5]), [170.0 / 180.0, 1.0, 1.0, 1.0, 0.0], atol=1e-6)


def test_execute_plays_shots_as_the_environment_step_does():
    # agents.execute runs the environment's own stages: with the step's noise keys it plays the
    # same noisy strikes, and the referee gives the same verdicts and layouts.
    from billiards_env import actions
    from billiards_env.params import replace
    from billiards_env.runner import _split
    from tests.support.env import BATCH, fenv, random_actions, runner

    env = fenv("three_cushion")
    params = replace(env.default_params, noise=jnp.asarray(1.0), start_probability=jnp.asarray(0.0))
    run = runner(env, BATCH)
    states = run.reset(jax.random.PRNGKey(11), params)
    acts = random_actions(jax.random.PRNGKey(12), BATCH)
    key = jax.random.PRNGKey(13)
    _, stepped = run.step(states, acts, key, params)
    noise_keys = jax.vmap(lambda k: jax.random.fold_in(k, 0))(_split(BATCH)(key)[0])
    asked = jax.vmap(lambda a: actions.to_shot(actions.sanitize(a), params))(acts)
    _, nxt, out, played = agents.execute(params.rules, states.game, asked, params.physics, key=noise_keys,
                                         noise=ExecutionNoise(1.0), lanes=BATCH)
    for f in ("V0", "phi", "theta", "a", "b"):
        np.testing.assert_array_equal(np.asarray(getattr(played, f)), np.asarray(getattr(stepped.shot, f)), f)
    assert np.all(np.asarray(played.phi) != np.asarray(asked.phi))
    np.testing.assert_array_equal(np.asarray(out.points), np.asarray(stepped.outcome.points))
    np.testing.assert_array_equal(np.asarray(out.reason), np.asarray(stepped.outcome.reason))
    np.testing.assert_allclose(np.asarray(nxt.positions), np.asarray(stepped.game.positions), rtol=0, atol=1e-12)
