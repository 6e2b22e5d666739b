"""The JAX PPO (``agents.jax_ppo``) and its planner (``agents.jax_policy``): training is deterministic
for a seed, a short run on a fixed straight-rail layout raises the rollouts' mean official reward
well above its start, a checkpoint (.npz and .json) loads back to the same actions and strikes,
refuses another observation, and the planner plays in the evaluation (``agents.arena``).

Every test shares one ``PPOConfig`` (64 environments, as the environment tests), so the update is
compiled once for the file.
"""
from __future__ import annotations

import csv
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import agents
import billiards_env
import rules
from agents.jax_policy import JaxPolicyAgent, checkpoint_paths, play_action
from agents.jax_ppo import PPO, PPOConfig, Transition, gae, log_prob
from billiards_env import observation
from agents import arena
from tests.support.env import BATCH

DISCIPLINE = "straight_rail"
# The cue ball (white) 0.6 m from the yellow, the red just beside it: a carom is often a direct
# shot, so a policy that learns the aim scores far more often than the untrained one.
LAYOUT = [[1.0, 0.71], [1.6, 0.71], [1.6, 0.80]]
ENV = dict(values=dict(layout=LAYOUT))
CONFIG = PPOConfig(n_envs=BATCH, n_steps=2, minibatch_size=BATCH, epochs=4, lr=3e-3, lr_schedule="constant")
UPDATES = 40


@pytest.fixture(scope="module")
def ppo():
    return PPO(billiards_env.make_functional(DISCIPLINE, layout=LAYOUT), CONFIG)


@pytest.fixture(scope="module")
def trained(ppo):
    """(TrainState after UPDATES updates, the rollouts' mean official reward of each update)."""
    state = ppo.init(0)
    rewards = []
    for _ in range(UPDATES):
        state, metrics = ppo.update(state)
        rewards.append(float(metrics["reward"]))
    return state, np.array(rewards)


@pytest.fixture(scope="module")
def saved(ppo, trained, tmp_path_factory):
    agent = ppo.agent(trained[0], ENV, dict(note="test"))
    return agent, agent.save(tmp_path_factory.mktemp("policy") / "straight_rail_ppo_jax.npz")[0]


@pytest.mark.slow  # trains: PPO's compiled update (the environment step inside) is the largest program
def test_training_is_deterministic_for_a_seed(ppo):
    def three_updates(seed):
        state = ppo.init(seed)
        for _ in range(3):
            state, _ = ppo.update(state)
        return jax.device_get(state.net)

    a, b, c = (jax.tree_util.tree_leaves(three_updates(seed)) for seed in (0, 0, 1))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert any(not np.array_equal(x, z) for x, z in zip(a, c))


@pytest.mark.slow  # trains: PPO's compiled update (the environment step inside) is the largest program
def test_a_short_run_raises_the_mean_reward_on_a_fixed_layout(trained):
    _, rewards = trained
    first, last = rewards[:10].mean(), rewards[-10:].mean()
    print(f"rollout mean official reward: first 10 updates {first:.3f}, last 10 {last:.3f}")
    # The first updates shoot almost at random (the untrained Gaussian has std 1); the last ones
    # have learned the aim: clearly more official reward, by an absolute and a relative margin
    # (the random start already plays a level cue nine times in ten: about 0.13 here).
    assert last > first + 0.05 and last > 1.3 * first


def test_gae_of_one_step_episodes_is_reward_minus_value():
    traj_value = jnp.array([[0.5, 0.0], [0.25, 1.0]])
    z = jnp.zeros((2, 2))
    traj = Transition(z, z, z, traj_value, jnp.array([[1.0, 0.0], [2.0, 3.0]]), jnp.ones((2, 2), bool), z)
    adv, returns = gae(traj, jnp.array([9.0, 9.0]), 0.99, 0.95)  # every step ends its episode: no bootstrap
    np.testing.assert_allclose(adv, [[0.5, 0.0], [1.75, 2.0]])
    np.testing.assert_allclose(returns, [[1.0, 0.0], [2.0, 3.0]])
    # an episode that goes on: delta = r + gamma V' - V, then discounted by gamma lambda
    traj = traj._replace(done=jnp.array([[False, True], [True, True]]))
    adv, _ = gae(traj, jnp.zeros(2), 0.5, 0.5)
    np.testing.assert_allclose(adv[0, 0], 1.0 + 0.5 * 0.25 - 0.5 + 0.25 * 1.75)


def test_log_prob_is_the_gaussians():
    x, mean, log_std = jnp.array([0.3, -2.0]), jnp.array([0.0, -1.0]), jnp.array([0.0, np.log(2.0)])
    expected = sum(-0.5 * ((xi - m) / s) ** 2 - np.log(s) - 0.5 * np.log(2 * np.pi)
                   for xi, m, s in zip([0.3, -2.0], [0.0, -1.0], [1.0, 2.0]))
    np.testing.assert_allclose(float(log_prob(x, mean, log_std)), expected, rtol=1e-6)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError, match="minibatch_size must divide"):
        PPOConfig(n_envs=64, n_steps=2, minibatch_size=100)
    with pytest.raises(ValueError, match="env_step must be one of pool, vmap"):
        PPOConfig(env_step="loop")
    with pytest.raises(ValueError, match="n_envs must be a positive integer"):
        PPOConfig(n_envs=0)


@pytest.mark.slow  # trains: PPO's compiled update (the environment step inside) is the largest program
def test_a_checkpoint_loads_back_to_the_same_actions_and_strikes(trained, saved):
    state, _ = trained
    agent, path = saved
    obs = np.random.default_rng(0).uniform(0.0, 1.0, (BATCH, observation.OBS_SIZE)).astype(np.float32)
    in_memory = np.asarray(play_action(jax.device_get(state.net), jnp.asarray(obs)))
    ruleset = rules.make_rules(DISCIPLINE)
    states = agents.random_states(ruleset, jax.random.PRNGKey(3), agent.env_params.physics, BATCH)
    keys = jax.random.split(jax.random.PRNGKey(0), BATCH)
    planned = agent.plan_batch(ruleset, states, agent.env_params.physics, keys)
    for p in (path, str(path)[:-4]):  # with or without ".npz"
        loaded = JaxPolicyAgent.load(p)
        assert (loaded.discipline, loaded.env, loaded.info) == (DISCIPLINE, agent.env, {"note": "test"})
        np.testing.assert_array_equal(loaded.act(obs), in_memory)
        again = loaded.plan_batch(ruleset, states, loaded.env_params.physics, keys)
        for f in ("V0", "phi", "theta", "a", "b"):
            np.testing.assert_array_equal(np.asarray(getattr(again, f)), np.asarray(getattr(planned, f)))
    assert np.ptp(in_memory[:, 0]) > 0  # the trained aim depends on the observation
    sidecar = json.loads(open(checkpoint_paths(path)[1]).read())
    assert sidecar["network"] == dict(hidden=[64, 64], activation="tanh", action_squashing="clip",
                                      log_std="state-independent")
    assert sidecar["mode"] == "shot" and sidecar["observation"] == observation.layout()


@pytest.mark.slow  # trains: PPO's compiled update (the environment step inside) is the largest program
def test_a_checkpoint_of_another_observation_or_network_is_refused(saved, tmp_path):
    _, path = saved
    npz, sidecar = checkpoint_paths(path)
    meta = json.loads(open(sidecar).read())
    other = tmp_path / "other.npz"
    other.write_bytes(open(npz, "rb").read())

    def write(changed):
        with open(checkpoint_paths(other)[1], "w") as f:
            json.dump(changed, f)

    write({**meta, "observation": {"version": 99, "groups": [["balls", 6]]}})
    with pytest.raises(ValueError, match="trained on observation version 99 with groups balls 6; this build"):
        JaxPolicyAgent.load(other)
    write({**meta, "network": {**meta["network"], "hidden": [32, 32]}})
    with pytest.raises(ValueError, match=r"pi/0/w must have shape \(38, 32\)"):
        JaxPolicyAgent.load(other)
    write({**meta, "network": {**meta["network"], "action_squashing": "tanh"}})
    with pytest.raises(ValueError, match="action_squashing 'clip'"):
        JaxPolicyAgent.load(other)
    write({k: v for k, v in meta.items() if k != "discipline"})
    with pytest.raises(ValueError, match="sidecar lacks a discipline"):
        JaxPolicyAgent.load(other)
    with pytest.raises(ValueError, match="no JAX policy arrays at"):
        JaxPolicyAgent.load(tmp_path / "missing.npz")


@pytest.mark.slow  # trains: PPO's compiled update (the environment step inside) is the largest program
def test_the_planner_plays_in_the_evaluation_command(saved):
    _, path = saved
    result = arena.evaluate(DISCIPLINE, [f"learned:{path}"], innings=3, max_shots=1, noise=0.0, batch=BATCH,
                            progress=False)
    (row,) = result["summary"]
    assert row["agent"] == f"learned:{path}"
    assert len(result["shots"]) == 3 and {s["agent"] for s in result["shots"]} == {row["agent"]}


@pytest.mark.slow
def test_the_training_command_writes_the_sb3_paths_files(tmp_path, capsys):
    from experiments import compare_backends, train

    out = tmp_path / "run"
    summary = train.main(["--backend", "jax", "--discipline", DISCIPLINE, "--timesteps", "256", "--n-envs",
                          str(BATCH), "--n-steps", "2", "--batch-size", str(BATCH), "--epochs", "4", "--lr", "3e-3",
                          "--lr-schedule", "constant", "--eval-every", "128", "--eval-layouts", "32",
                          "--final-layouts", "32", "--out", str(out)])
    assert summary["backend"] == "jax" and summary["timesteps"] == 256
    (run,) = compare_backends.main([str(out), "--out", str(tmp_path / "backends.png")])
    assert run["timesteps"].tolist() == [0, 128, 256] and run["label"].startswith("PPO (jax)")
    assert (tmp_path / "backends.png").is_file()
    for key in ("final", "periodic_evaluation", "timings", "settings", "env", "files", "machine"):
        assert key in summary
    assert summary["final"]["layouts"] == 32 and summary["timings"]["wall_shots_per_s"] > 0
    assert summary["timings"]["compiled_shots_per_s"] > 0 and summary["timings"]["first_update_s"] > 0
    for name in ("curve.png", "summary.json", f"{DISCIPLINE}_ppo_jax.npz", f"{DISCIPLINE}_ppo_jax.json"):
        assert (out / name).is_file(), name
    agent = JaxPolicyAgent.load(out / f"{DISCIPLINE}_ppo_jax")
    assert agent.info["selected_timesteps"] == summary["selected_timesteps"]
    # the curve's first line (before any rollout) has no training reward yet, said so, not "nan"
    first = (out / "curve.csv").read_text().splitlines()[1]
    assert "nan" not in first.lower()
    # the random player's level on the periodic layouts, a column of every row (played once per run)
    with open(out / "curve.csv", newline="") as f:
        random_levels = {float(row["random_mean_reward"]) for row in csv.DictReader(f)}
    assert random_levels == {summary["periodic_evaluation"]["random"]["mean_reward"]}
    assert "training reward - (no rollout yet)" in capsys.readouterr().out


@pytest.mark.slow  # trains: PPO's compiled update (the environment step inside) is the largest program
def test_the_planner_traces_so_it_can_be_a_built_in_opponent(saved):
    agent, _ = saved
    ruleset = rules.make_rules(DISCIPLINE)
    phys = agent.env_params.physics
    state = agents.random_state(ruleset, jax.random.PRNGKey(5), phys)
    key = jax.random.PRNGKey(0)
    shot = agent.plan(ruleset, state, phys, key)
    policy = agent.as_policy()  # what make_functional(..., "game", opponent) calls inside its jitted step
    traced = jax.jit(lambda s: policy(key, jnp.zeros(observation.OBS_SIZE), agent.env_params, s))(state)
    np.testing.assert_allclose(np.asarray(traced), np.asarray(billiards_env.actions.from_shot(shot, agent.env_params)),
                               rtol=0, atol=1e-6)
    assert float(shot.V0) > 0.5  # a real strike, not the null shot
