"""The environments' behaviour: actions and their ranges, the choices, observations, rewards against
an independent referee call, episode modes, bad input, determinism (fused against staged)."""
from __future__ import annotations

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import billiards_env
import physics
import rules
from agents import ExecutionNoise, Planner, SearchAgent
from agents.base import index_tree
from billiards_env import actions, functional, modes, observation
from billiards_env.params import replace
from billiards_env.runner import Runner
from billiards_env.testing import api_test
from tests.support.rules import REFEREE
from tests.support.env import BATCH, autoreset_step, fenv, random_actions, runner, tree_equal

KEY = jax.random.PRNGKey(11)


# -- actions ---------------------------------------------------------------------------------------


def test_action_ranges_are_the_documented_ones():
    p = billiards_env.default_params("three_cushion")
    low = actions.to_shot(jnp.full(9, -1.0), p)
    high = actions.to_shot(jnp.full(9, 1.0), p)
    assert float(low.phi) == -180 and float(high.phi) == 180
    assert float(low.V0) == 0.5 and float(high.V0) == 8.0
    assert float(low.theta) == 0 and float(high.theta) == 80  # up to a near-vertical cue (jump, massé)
    mid = actions.to_shot(jnp.asarray([0.5, 0, 0.9, 0, 0, 0, 0, 0, 0]), p)
    assert float(mid.phi) == 90 and abs(float(mid.V0) - 4.25) < 1e-12 and abs(float(mid.theta) - 40) < 1e-9


def test_the_centre_of_the_action_box_is_a_plain_level_shot():
    # issue: the all-zeros action was a 30 deg raised cue (a jump); now a level cue at medium speed
    # through the centre of the ball, and the cue stays level up to RAISED_FROM
    p = billiards_env.default_params("three_cushion")
    centre = actions.to_shot(jnp.zeros(9), p)
    assert (float(centre.theta), float(centre.a), float(centre.b)) == (0.0, 0.0, 0.0)
    assert abs(float(centre.V0) - 4.25) < 1e-12
    level = jax.vmap(actions.to_shot, in_axes=(0, None))(
        jnp.zeros((5, 9)).at[:, 2].set(jnp.asarray([-1.0, -0.5, 0.0, 0.5, actions.RAISED_FROM])), p)
    assert np.all(np.asarray(level.theta) == 0.0)
    # from_shot inverts it: a level shot is the centre of the component, a raised one above 0.8
    for theta in (0.0, 12.0, 80.0):
        x = actions.from_shot(physics.Shot(V0=3.0, phi=20.0, theta=theta, a=0.1, b=-0.2), p)
        assert abs(float(actions.to_shot(x, p).theta) - theta) < 1e-4
        assert (float(x[2]) == 0.0) if theta == 0 else float(x[2]) > actions.RAISED_FROM


@pytest.mark.parametrize("discipline", rules.DISCIPLINES)
def test_random_actions_play_a_raised_cue_at_most_one_time_in_ten(discipline):
    p = billiards_env.default_params(discipline)
    x = jax.random.uniform(jax.random.fold_in(KEY, len(discipline)), (20000, 9), minval=-1, maxval=1)
    theta = np.asarray(jax.vmap(actions.to_shot, in_axes=(0, None))(x, p).theta)
    assert 0.08 < np.mean(theta > 0) <= 0.10 + 0.006  # a tenth of the component's range, +-3 sigma


@pytest.mark.parametrize("u, v, a, b", [(1, 0, 0.5, 0), (0, -1, 0, -0.5), (1, 1, 0.5 / 2**0.5, 0.5 / 2**0.5),
                                        (0.5, 0, 0.25, 0), (0, 0, 0, 0), (-1, 0.5, -0.4472135955, 0.2236067977)])
def test_tip_square_maps_onto_the_disc(u, v, a, b):
    got = actions.tip_offsets(jnp.asarray(float(u)), jnp.asarray(float(v)), 0.5)
    np.testing.assert_allclose([float(got[0]), float(got[1])], [a, b], atol=1e-9)


def test_every_action_strikes_inside_the_miscue_disc():
    p = billiards_env.default_params("three_cushion")
    corners = jnp.asarray([[1, 1], [-1, 1], [1, -1], [-1, -1.0]])
    x = jax.random.uniform(KEY, (4096, 9), minval=-1, maxval=1).at[:4, 3:5].set(corners)
    shots = jax.vmap(actions.to_shot, in_axes=(0, None))(x, p)
    assert float(jnp.max(jnp.hypot(shots.a, shots.b))) <= 0.5 + 1e-12


def test_noise_has_the_pool_standard_deviations_and_is_on_by_default():
    p = billiards_env.default_params("three_cushion")
    shot = actions.to_shot(jnp.zeros(9).at[2].set(0.9), p)  # a raised cue (40 deg): its noise is not folded
    keys = jax.random.split(KEY, 20000)
    exact = jax.vmap(actions.add_noise, in_axes=(None, 0, None))(shot, keys[:4], replace(p, noise=jnp.asarray(0.0)))
    assert np.all(np.asarray(exact.V0) == float(shot.V0))
    assert float(p.noise) == 1.0
    noisy = jax.vmap(actions.add_noise, in_axes=(None, 0, None))(shot, keys, p)
    R = float(p.physics.ball.radius)
    for field, std in (("phi", 0.125), ("V0", 0.075), ("theta", 0.1), ("a", 0.0005 / R), ("b", 0.0005 / R)):
        values = np.asarray(getattr(noisy, field)) - float(getattr(shot, field))
        assert abs(values.std() / std - 1) < 0.05, field


def test_environment_and_agents_play_the_same_noisy_shots():
    # A level cue aimed at the wrap: the elevation's noise is folded (never exactly level), the
    # aim wrapped, and the environment's step and the agents' ExecutionNoise draw the same shots.
    p = replace(billiards_env.default_params("three_cushion"), noise=jnp.asarray(2.0))
    shot = physics.Shot(V0=jnp.asarray(3.0), phi=jnp.asarray(179.9), theta=jnp.asarray(0.0),
                        a=jnp.asarray(0.2), b=jnp.asarray(-0.1))
    keys = jax.random.split(KEY, 64)
    env = jax.vmap(actions.add_noise, in_axes=(None, 0, None))(shot, keys, p)
    agent = jax.vmap(lambda k: ExecutionNoise(2.0).apply(shot, k, p.physics))(keys)
    for field in ("V0", "phi", "theta", "a", "b"):
        np.testing.assert_array_equal(np.asarray(getattr(env, field)), np.asarray(getattr(agent, field)), field)
        assert np.all(np.asarray(getattr(env, field)) != float(getattr(shot, field))), field
    theta, phi = np.asarray(env.theta), np.asarray(env.phi)
    assert np.all(theta > 0) and theta.max() < 1.0
    assert np.all((phi > -180) & (phi <= 180)) and np.any(phi < 0)
    np.testing.assert_allclose(np.asarray(p.noise_std), 2 * np.asarray(ExecutionNoise().std(p.physics)))


@pytest.mark.parametrize("bad, words", [
    (np.full(9, np.nan), "finite"), (np.full(9, np.inf), "finite"), (np.full(9, 1.5), "[-1.0, 1.0]"),
    (np.zeros(8), "shape (9,)"), ("aim", "numbers"),
])
def test_bad_actions_raise_naming_the_range(bad, words):
    env = gym.make("billiards_env/ThreeCushion-v0", fused=False)
    env.reset(seed=0)
    with pytest.raises(ValueError) as err:
        env.step(bad)
    assert words in str(err.value)
    with pytest.raises(ValueError, match=r"\(4, 9\)"):
        actions.check_action(np.zeros((3, 9)), batch=4)


def test_inside_jit_a_nan_action_is_read_as_zero():
    env = fenv("three_cushion")
    run = runner(env)
    s = run.reset(KEY, env.default_params)
    nan, _ = run.step(s, np.full(9, np.nan, np.float32), KEY, env.default_params)
    zero, _ = run.step(s, np.zeros(9, np.float32), KEY, env.default_params)
    assert tree_equal(nan, zero)


# -- names and options -------------------------------------------------------------------------------


def test_unknown_names_raise_with_the_valid_ones():
    with pytest.raises(ValueError, match="three_cushion"):
        billiards_env.make_functional("snooker")
    with pytest.raises(ValueError, match="ThreeCushion-v0"):
        billiards_env.discipline_of("billiards_env/Snooker-v0")
    with pytest.raises(ValueError, match="valid modes: shot, inning, game"):
        billiards_env.make_functional("three_cushion", mode="match")
    with pytest.raises(ValueError, match="valid: random, two_player"):
        billiards_env.make_functional("three_cushion", mode="game", opponent="expert")
    with pytest.raises(ValueError, match="valid:.*noise"):
        billiards_env.make_functional("three_cushion", colour=1)
    with pytest.raises(ValueError, match="valid:.*distance"):
        billiards_env.make_functional("three_cushion", rule_options={"pin_radius": 0.01})
    with pytest.raises(ValueError, match="valid:.*e_c"):
        billiards_env.make_functional("three_cushion", physics_options={"bounce": 1})
    with pytest.raises(ValueError, match="lag"):
        billiards_env.make_functional("three_cushion", rule_options={"lag": True})
    with pytest.raises(ValueError, match="obs_format"):
        gym.make("billiards_env/OneCushion-v0", obs_format="image")
    assert set(billiards_env.ENV_IDS) <= set(gym.registry)


def test_stepping_a_finished_gymnasium_episode_raises():
    env = gym.make("billiards_env/ThreeCushion-v0", fused=False)
    with pytest.raises(gym.error.ResetNeeded):
        env.unwrapped.step(np.zeros(9, np.float32))
    env.reset(seed=0)
    _, _, terminated, _, _ = env.step(np.zeros(9, np.float32))
    assert terminated
    with pytest.raises(gym.error.ResetNeeded, match="reset"):
        env.unwrapped.step(np.zeros(9, np.float32))


def test_the_host_copy_of_a_state_is_what_device_get_gives_and_follows_a_new_state():
    from billiards_env.gym_env import host

    env = gym.make("billiards_env/ThreeCushion-v0", fused=False).unwrapped
    env.reset(seed=0)
    env.step(np.zeros(9, np.float32))
    state = env.state
    want, got = jax.device_get(state), host(state)
    assert jax.tree_util.tree_structure(want) == jax.tree_util.tree_structure(got)
    for w, g in zip(jax.tree_util.tree_leaves(want), jax.tree_util.tree_leaves(got)):
        assert isinstance(g, np.ndarray) and g.dtype == np.asarray(w).dtype and np.array_equal(g, w)
    # the next step's checks read the host copy of the State the environment holds now
    assert bool(env._on_host().terminated)
    env._state = env._runner.reset(jax.random.PRNGKey(1), env.params)
    assert not bool(env._on_host().terminated)
    env.step(np.zeros(9, np.float32))  # a state put in place is stepped, not refused as finished


# -- observations, choices, rewards ------------------------------------------------------------------


def test_observation_puts_the_shooters_ball_first_and_splits_into_the_dict():
    env = gym.make("billiards_env/ThreeCushion-v0", fused=False)
    layout = np.array([[0.5, 0.4], [1.5, 1.0], [2.2, 0.6]])
    for player in (0, 1):
        obs, _ = env.reset(seed=0, options={"layout": layout, "player": player})
        parts = observation.to_dict(obs)
        cue, other = layout[player], layout[1 - player]
        expected = (np.stack([cue, other, layout[2]]) / [2.84, 1.42]).reshape(-1)
        np.testing.assert_allclose(parts["balls"], expected, rtol=1e-6)
        assert parts["turn"][0] == player and parts["score"][3] == 0.01  # one inning begun
    dict_env = gym.make("billiards_env/ThreeCushion-v0", fused=False, obs_format="dict")
    obs, _ = dict_env.reset(seed=0, options={"layout": layout})
    assert obs in dict_env.observation_space and set(obs) == {g[0] for g in observation.GROUPS}
    with pytest.raises(ValueError, match="layout is not legal"):
        env.reset(options={"layout": [[0.5, 0.4], [0.51, 0.4], [2.2, 0.6]]})


def test_hungarian_ball_in_hand_is_announced_and_placed():
    env = fenv("hungarian_1000", "game", "two_player")
    p = env.default_params
    state = runner(env).reset(KEY, p)  # H-2: the red in hand on the cross axis
    obs = observation.to_dict(np.asarray(state.observation))
    assert obs["choices"][0] == 1 and obs["pin"][2] == 1
    action = jnp.zeros(9).at[5].set(0.5)  # three quarters of the way to the LEFT cushion
    turn = functional.begin(env.config, state, action, KEY, p)
    reach = float(p.physics.cushion_reach)
    W, L = float(p.physics.table.width), float(p.physics.table.length)
    np.testing.assert_allclose(np.asarray(turn.game.positions[0]), [L / 2, reach + 0.75 * (W - 2 * reach)])


def test_frozen_balls_offer_the_respot_and_the_action_takes_it():
    R = 0.03075
    layout = np.array([[1.0, 0.7], [1.0 + 2 * R, 0.7], [2.2, 0.6]])  # white frozen to yellow
    p = billiards_env.default_params("three_cushion", layout=layout)
    env = fenv("three_cushion")
    state = runner(env).reset(KEY, p)
    obs = observation.to_dict(np.asarray(state.observation))
    assert obs["choices"][3] == 1 and obs["frozen"][1] == 1  # C-13.3 a offered, yellow frozen
    declined = functional.begin(env.config, state, jnp.zeros(9).at[7].set(-1.0), KEY, p)
    taken = functional.begin(env.config, state, jnp.zeros(9).at[7].set(1.0), KEY, p)
    np.testing.assert_allclose(np.asarray(declined.game.positions), layout)
    spots = np.asarray(rules.respot.three_cushion_spots(p.physics.table, 0))
    np.testing.assert_allclose(np.asarray(taken.game.positions[:2]), spots[:2])  # C-13.4 b: both frozen balls


@pytest.mark.parametrize("discipline", ["three_cushion", "hungarian_1000"])
def test_rewards_are_the_referees_points_of_an_independent_call(discipline):
    """The step's rewards against physics.simulate and the referee called directly on the shot."""
    env = fenv(discipline)
    run = runner(env, BATCH)
    begin = functional.make_ops(env.config, batched=False, staged=True).begin
    for zero_sum in (False, True):
        p = replace(env.default_params, zero_sum=jnp.asarray(zero_sum))
        states = run.reset(KEY, p)
        acts = random_actions(jax.random.PRNGKey(5), BATCH)
        _, stepped = run.step(states, acts, jax.random.PRNGKey(6), p)
        rewards = np.asarray(stepped.rewards)
        for i in range(3):
            turn = begin(index_tree(states, i), acts[i], KEY, p)  # choices + strike
            game = turn.game
            pin = np.asarray(game.pin_position) if discipline == "hungarian_1000" else None
            result = physics.simulate(np.asarray(game.positions), turn.shot, int(game.cue_ball), p.physics, pin=pin)
            _, outcome = REFEREE(p.rules, game, result, p.physics)
            points = np.asarray(outcome.points, np.float32)
            expected = points - points[::-1] if zero_sum else points
            np.testing.assert_array_equal(rewards[i], expected)
        if not zero_sum:
            assert np.array_equal(rewards, np.asarray(stepped.outcome.points, np.float32))


# -- modes -------------------------------------------------------------------------------------------


def test_inning_mode_ends_when_the_turn_passes():
    env = fenv("straight_rail", "inning")
    run = runner(env, BATCH)
    _, stepped = run.step(run.reset(KEY, env.default_params), random_actions(KEY, BATCH), KEY, env.default_params)
    passed = np.asarray(stepped.outcome.turn_passes | stepped.game.game_over)
    assert np.array_equal(np.asarray(stepped.terminated), passed) and passed.any()


def test_game_mode_against_the_random_opponent_gives_the_turn_back():
    env = fenv("three_cushion", "game")
    p = replace(env.default_params, max_steps=jnp.asarray(3, jnp.int32))
    run = runner(env, BATCH)
    states = run.reset(KEY, p)
    assert np.all(np.asarray(states.current_player) == 0)  # the learner breaks
    for i in range(3):
        _, states = run.step(states, random_actions(jax.random.PRNGKey(i), BATCH), jax.random.PRNGKey(9 + i), p)
        live = ~np.asarray(states.done)
        assert np.all(np.asarray(states.current_player)[live] == 0)
        passed = np.asarray(states.outcome.turn_passes)
        assert np.all(np.asarray(states.opponent_shots)[passed & live] >= 1)
        assert np.all(np.asarray(states.opponent_shots)[~passed] == 0)
    assert np.all(np.asarray(states.truncated | states.terminated))  # max_steps = 3


class _AtTheNearestBall(Planner):
    """A planner that reads the game state: the cue ball at the centre of the other ball nearest
    to it, at 2 m/s."""

    def plan_batch(self, rules, states, params, keys):
        rows = jnp.arange(states.positions.shape[0])
        d = states.positions - states.positions[rows, states.cue_ball][:, None]
        dist = jnp.where(jnp.arange(3)[None] == states.cue_ball[:, None], jnp.inf, jnp.linalg.norm(d, axis=-1))
        aim = d[rows, jnp.argmin(dist, -1)]
        phi = jnp.degrees(jnp.arctan2(aim[:, 1], aim[:, 0]))
        zero = jnp.zeros_like(phi)
        return physics.Shot(V0=zero + 2.0, phi=phi, theta=zero, a=zero, b=zero)


def _play_against(planner, steps: int):
    """Steps of a three-cushion game against ``planner.as_policy()`` in which the learner
    crawls (no carom): the opponent shoots until he misses, every shot but his last scoring."""
    policy = planner.as_policy()
    assert policy == planner.as_policy()  # equal wrappers: one compiled step
    env = billiards_env.make_functional("three_cushion", "game", policy)
    p = env.default_params
    run = runner(env)
    state = run.reset(KEY, p)
    crawl = np.zeros(9, np.float32)
    crawl[1] = -1.0  # the slowest strike, straight up the table
    made = 0
    for i in range(steps):
        state, _ = run.step(state, crawl, jax.random.PRNGKey(30 + i), p)
        shots = int(state.opponent_shots)
        assert not bool(state.done) and int(state.current_player) == 0
        assert int(np.asarray(state.outcome.points)[0]) == 0 and shots >= 1
        assert float(state.rewards[1]) == shots - 1
        made += shots - 1
    assert np.asarray(state.game.scores).tolist() == [0, made]
    return state, p, policy


def test_a_planner_is_the_built_in_opponent_and_plans_from_the_game_state():
    planner = _AtTheNearestBall()
    state, p, policy = _play_against(planner, 2)
    # the policy's action is the strike planned from the state it is given, not the observation
    act = modes.act(policy, KEY, jnp.zeros_like(state.observation), p, state.game)
    cue = np.asarray(state.game.positions)[int(state.game.cue_ball)]
    others = [b for b in range(3) if b != int(state.game.cue_ball)]
    near = min(others, key=lambda b: np.linalg.norm(np.asarray(state.game.positions)[b] - cue))
    aim = np.asarray(state.game.positions)[near] - cue
    assert abs(float(act[0]) * 180.0 - np.degrees(np.arctan2(aim[1], aim[0]))) < 1e-3
    np.testing.assert_allclose(float(act[1]), 2 * (2.0 - 0.5) / 7.5 - 1, atol=1e-6)


@pytest.mark.slow
def test_the_search_agent_is_the_built_in_opponent_of_a_game():
    # a tiny budget; slow for its compilation (the search's line tables and simulation inside
    # the opponent's stage)
    _play_against(SearchAgent(candidates=32, seeds=8, refine_parents=0, lanes=32), 2)


@pytest.mark.slow  # the fused game step (the opponent's loop around the physics) is the largest compile
def test_fused_and_staged_steps_agree_and_trace_under_vmap():
    env = fenv("three_cushion", "game")
    p = env.default_params
    state = runner(env).reset(KEY, p)
    staged, fused = state, state
    step = jax.jit(env.step)
    for i in range(2):
        a, k = random_actions(jax.random.PRNGKey(i)), jax.random.PRNGKey(20 + i)
        staged = runner(env).step(staged, a, k, p)[0]
        fused = step(fused, a, k, p)
        assert tree_equal(staged, fused)
    states = jax.vmap(env.init, in_axes=(0, None))(jax.random.split(KEY, 3), p)
    shapes = jax.eval_shape(jax.vmap(env.step, in_axes=(0, 0, 0, None)), states, jnp.zeros((3, 9)),
                            jax.random.split(KEY, 3), p)
    assert shapes.observation.shape == (3, observation.OBS_SIZE) and shapes.rewards.dtype == jnp.float32


def test_gymnasium_episodes_repeat_with_the_seed():
    """An inning mode's episodes through the public checker: the same seed and actions, the same
    episode (and the rest of the adapter's contract)."""
    env = gym.make("billiards_env/Hungarian1000-v0", fused=False, mode="inning")
    checks = api_test(env, seed=4, steps=3)
    assert {"reset", "step", "determinism", "bad_actions"} <= set(checks)


def test_from_shot_inverts_to_shot_inside_the_ranges():
    p = billiards_env.default_params("three_cushion")
    x = jax.random.uniform(KEY, (512, 9), minval=-1, maxval=1).at[:, 5:].set(0.0)
    x = x.at[:4, 3:5].set(jnp.asarray([[1, 1], [-1, 0.3], [0, 0], [0.2, -1.0]]))
    shots = jax.vmap(actions.to_shot, in_axes=(0, None))(x, p)
    back = jax.vmap(actions.from_shot, in_axes=(0, None))(shots, p)
    assert back.dtype == jnp.float32
    # every elevation component up to RAISED_FROM asks for a level cue, which comes back as 0
    expected = x.at[:, 2].set(jnp.where(x[:, 2] > actions.RAISED_FROM, x[:, 2], 0.0))
    np.testing.assert_allclose(np.asarray(back), np.asarray(expected), atol=2e-6)


def test_from_shot_with_the_game_keeps_the_layout_it_was_planned_from_c_2_1_c_h_6_4_h_7_3():
    # the choices of an action at 0 put the shooter's ball on the left spot (C-2.1 c), the red in
    # hand in the middle of the cross axis (H-6.4) and a jumped ball on the top base spot (H-7.3),
    # moving the balls away from where a planner saw them; with the game they stay as they lie
    shot = physics.Shot(V0=3.0, phi=20.0, theta=0.0, a=0.1, b=-0.2)

    def moved(discipline, game):
        p = billiards_env.default_params(discipline)
        out = []
        for action in (actions.from_shot(shot, p, game), actions.from_shot(shot, p)):
            np.testing.assert_array_equal(np.asarray(action[:5]), np.asarray(actions.from_shot(shot, p)[:5]))
            played = actions.apply_choices(p.rules, game, action, p.physics)
            out.append(float(np.abs(np.asarray(played.positions) - np.asarray(game.positions)).max()))
        return out

    carom = billiards_env.default_params("three_cushion")
    start = rules.init_game(carom.rules, KEY, carom.physics, breaker=1)  # his ball on the right spot
    assert moved("three_cushion", start)[0] == 0.0 and moved("three_cushion", start)[1] > 0.1
    left = rules.choose_start_side(carom.rules, start, 1, carom.physics)
    assert moved("three_cushion", left) == [0.0, 0.0]
    hungarian = billiards_env.default_params("hungarian_1000")
    phys = hungarian.physics
    game = rules.init_game(hungarian.rules, KEY, phys, breaker=0)  # the red in hand on the right spot
    kept, zeros = moved("hungarian_1000", game)
    assert kept < 1e-7 and zeros > 0.03  # the float32 place component: within 0.1 micrometre
    # white jumped onto the bottom base spot, the top one free: he may move it (H-7.3)
    spotted = replace(game, base_spot_ball=jnp.asarray(1, jnp.int32), ball_in_hand=jnp.asarray(False),
                            positions=game.positions.at[2].set(game.positions[2] + jnp.asarray([0.3, 0.0])))
    assert np.allclose(np.asarray(spotted.positions[1]), np.asarray(phys.table.base_spots[0]))
    kept, zeros = moved("hungarian_1000", spotted)
    assert kept == 0.0 and zeros > 0.1


def test_an_episode_starts_from_a_given_game_state_and_steps_with_a_key_per_row():
    # start_from builds the State init builds around the game it draws; step_rows is the batch
    # step with the keys given per environment (those Runner.step splits from its one key)
    from billiards_env.runner import _split

    env = fenv("three_cushion")
    run = runner(env, BATCH)
    params = env.default_params
    states = run.reset(jax.random.PRNGKey(21), params)
    assert tree_equal(env.init_from(states.game, params), states)
    assert tree_equal(env.init_from(index_tree(states.game, 3), params), index_tree(states, 3))
    acts = random_actions(jax.random.PRNGKey(22), BATCH)
    key = jax.random.PRNGKey(23)
    _, stepped = run.step(states, acts, key, params)
    by_row, result = run.step_rows(states, acts, _split(BATCH)(key)[0], params)
    assert tree_equal(by_row, stepped) and np.shape(result.num_events) == (BATCH,)
    other, _ = run.step_rows(states, acts, _split(BATCH)(jax.random.PRNGKey(24))[0], params)
    assert not np.array_equal(np.asarray(other.shot.phi), np.asarray(stepped.shot.phi))  # the keys draw the noise


@pytest.mark.slow  # a fused batch step of its own: one more large compile
def test_the_fused_step_with_a_key_per_row_plays_as_the_staged_one():
    env = fenv("three_cushion")
    params = env.default_params
    staged, fused = runner(env, BATCH), Runner(env, BATCH, fused=True, lanes=BATCH)
    states = staged.reset(jax.random.PRNGKey(31), params)
    acts = random_actions(jax.random.PRNGKey(32), BATCH)
    keys = jax.random.split(jax.random.PRNGKey(33), BATCH)
    a, result_a = staged.step_rows(states, acts, keys, params)
    b, result_b = fused.step_rows(states, acts, keys, params)
    # The same shots and calls; one compiled program against several may round a last bit apart.
    for x, y in zip(jax.tree_util.tree_leaves((a, result_a)), jax.tree_util.tree_leaves((b, result_b))):
        x, y = np.asarray(x), np.asarray(y)
        if np.issubdtype(x.dtype, np.floating):
            np.testing.assert_allclose(x, y, rtol=0, atol=1e-12)
        else:
            np.testing.assert_array_equal(x, y)
    assert np.all(np.asarray(a.step_count) == 1)


@pytest.mark.slow  # the step compiled over stacked params: one large program, shared with the gymnax loop
def test_step_autoreset_keeps_the_finished_step_and_starts_a_new_episode_under_a_parameter_sweep():
    """The functional autoreset step (as gymnax and the vector env): the finished step's rewards,
    outcome and observation beside a new episode; vmapped over a sweep of stacked EnvParams."""
    env = fenv("three_cushion")  # "shot" mode: every step ends its episode
    base = env.default_params
    sweep = [billiards_env.replace(base, noise=jnp.asarray(x, base.noise.dtype)) for x in (0.0, 1.0, 2.0, 4.0)]
    params = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), *sweep)
    keys = jax.random.split(jax.random.PRNGKey(5), 4)
    states = jax.jit(jax.vmap(env.init))(keys, params)
    acts = jnp.tile(jnp.asarray([0.2, 0.1, -1, 0, 0, 0, 0, 0, 0], jnp.float32), (4, 1))
    following, stepped = autoreset_step("three_cushion")(states, acts, keys, params)  # the gymnax test's program
    assert np.all(np.asarray(stepped.terminated)) and not np.any(np.asarray(following.done))
    assert np.all(np.asarray(following.step_count) == 0) and np.all(np.asarray(stepped.step_count) == 1)
    mine = np.asarray(billiards_env.shooter_reward(states, stepped))
    acting = np.asarray(states.current_player)
    assert np.array_equal(mine, np.asarray(stepped.rewards)[np.arange(4), acting])
    assert np.array_equal(mine, np.asarray(stepped.outcome.points)[np.arange(4), acting].astype(np.float32))
    played = np.asarray(stepped.shot.phi)  # the noise of the sweep: none, then more and more
    assert played[0] == pytest.approx(float(billiards_env.actions.to_shot(acts[0], base).phi), abs=1e-9)
    assert played[1] != played[0]


def test_training_evaluation_and_the_environments_share_one_default():
    # Issue 16 item 8: the standard execution noise and random legal layouts, everywhere.
    from billiards_env.params import DEFAULT_NOISE, DEFAULT_START_PROBABILITY
    from experiments import evaluate, train

    assert (DEFAULT_NOISE, DEFAULT_START_PROBABILITY) == (1.0, 0.0)
    for discipline in ("three_cushion", "hungarian_1000"):
        p = billiards_env.default_params(discipline)
        assert (float(p.noise), float(p.start_probability)) == (DEFAULT_NOISE, DEFAULT_START_PROBABILITY)
    trained = train.parse_args([])
    assert (trained.noise, trained.start_probability) == (DEFAULT_NOISE, DEFAULT_START_PROBABILITY)
    evaluated = evaluate.build_parser().parse_args([])
    assert (evaluated.noise, evaluated.start) == (DEFAULT_NOISE, "random")


def test_the_spec_names_the_environments_own_step_limit():
    # Issue 16 item 3: max_episode_steps is the environment's max_steps, and no TimeLimit cuts
    # an episode short of a larger max_steps the user asked for.
    import gymnasium as gym

    import billiards_env.registration  # noqa: F401  (registers the ids)

    default = gym.make("billiards_env/ThreeCushion-v0", mode="inning")
    longer = gym.make("billiards_env/ThreeCushion-v0", mode="inning", max_steps=500)
    assert default.spec.max_episode_steps == 200 and longer.spec.max_episode_steps == 500
    for env in (default, longer):
        chain, wrapped = [], env
        while isinstance(wrapped, gym.Wrapper):
            chain.append(type(wrapped).__name__)
            wrapped = wrapped.env
        assert "TimeLimit" not in chain, chain
    assert gym.make("billiards_env/ThreeCushion-v0", max_episode_steps=50).spec.max_episode_steps == 50
