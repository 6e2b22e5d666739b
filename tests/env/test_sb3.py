"""Stable-Baselines3 through the JAX-batched VecEnv adapter: PPO collects and trains on every
discipline (tiny networks, many environments per batch), SAC runs; and the PettingZoo API test.
Whether a policy improves is tested in ``tests/agents/test_learned.py``."""
from __future__ import annotations

import jax
import numpy as np
import pytest
import torch
from stable_baselines3 import PPO, SAC

from billiards_env.sb3 import BilliardsVecEnv
from tests.support.env import BATCH, ENV_IDS

N_STEPS = 8  # per environment and rollout: two rollouts of BATCH x N_STEPS shots


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_ppo_collects_official_rewards_and_updates_its_policy(env_id):
    venv = BilliardsVecEnv(env_id, num_envs=BATCH, fused=False, lanes=BATCH, seed=0)
    model = PPO("MlpPolicy", venv, n_steps=N_STEPS, batch_size=256, n_epochs=2, seed=0, device="cpu",
                policy_kwargs=dict(net_arch=[16, 16]))
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(2 * BATCH * N_STEPS)
    assert model.num_timesteps == 2 * BATCH * N_STEPS
    after = list(model.policy.parameters())
    assert all(bool(torch.isfinite(p).all()) for p in after)
    assert any(not torch.equal(b, a) for b, a in zip(before, after))
    # The rollout's rewards are the referee's points: whole numbers, not all zero over 512 random
    # shots (random shots foul and score), and exactly the adapter's official rewards last step.
    rewards = model.rollout_buffer.rewards
    assert np.all(np.isfinite(rewards)) and np.array_equal(rewards, np.round(rewards))
    assert np.any(rewards != 0)
    np.testing.assert_array_equal(rewards[-1], venv.official_rewards)


def test_sac_runs_and_episode_ends_follow_sb3():
    venv = BilliardsVecEnv("three_cushion", num_envs=BATCH, fused=False, lanes=BATCH, seed=1)
    obs = venv.reset()
    assert obs.shape == (BATCH, venv.observation_space.shape[0]) and obs.dtype == np.float32
    obs, rewards, dones, infos = venv.step(np.zeros((BATCH, 9), np.float32))
    assert dones.all() and "terminal_observation" in infos[0] and rewards.dtype == np.float32
    model = SAC("MlpPolicy", venv, learning_starts=2 * BATCH, batch_size=64, gradient_steps=1, seed=0,
                device="cpu", policy_kwargs=dict(net_arch=[16, 16]))
    model.learn(4 * BATCH)
    assert model.num_timesteps >= 4 * BATCH


def test_pettingzoo_two_player_game():
    from pettingzoo.test import api_test

    from billiards_env.pettingzoo_env import BilliardsAECEnv

    env = BilliardsAECEnv("three_cushion", fused=False, max_steps=12)
    api_test(env, num_cycles=12, verbose_progress=False)
    env.reset(seed=2)
    shooters = []
    for agent in env.agent_iter(max_iter=12):
        _, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        shooters.append((agent, env.infos[agent].get("reason")))
        env.step(env.action_space(agent).sample())
    # a player keeps the turn only when he scored
    for (a, _), (b, reason) in zip(shooters, shooters[1:]):
        if a == b:
            assert reason in ("scored", "invalid_shot")


def test_a_planner_plays_in_pettingzoo_from_the_public_game_and_scores_count_the_pending_run():
    """The library's planners read the public ``game``; ``info["scores"]`` is the board, the
    Hungarian run still pending included (H-9.9), like ``points``."""
    from agents import GeometricAgent
    from billiards_env.actions import from_shot
    from billiards_env.pettingzoo_env import BilliardsAECEnv

    env = BilliardsAECEnv("hungarian_1000", fused=False, max_steps=6)
    env.reset(seed=0)
    assert env.infos["player_0"]["scores"] == [0, 0]
    planner, params = GeometricAgent(), env.params
    runs = []
    for i, agent in enumerate(env.agent_iter(max_iter=6)):
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        shot = planner.plan(params.rules, env.game, params.physics, jax.random.PRNGKey(i))
        env.step(np.asarray(from_shot(shot, params)))
        game = env.game
        board = np.asarray(game.scores).copy()
        board[int(game.current_player)] += int(game.run)
        assert env.infos[agent]["scores"] == board.tolist()
        runs.append(int(game.run))
    assert max(runs) > 0, runs  # a run was pending at least once: the check above saw it
