"""Policies of the "contact" action form (``billiards_env.actions``): a contact-form policy plans
the shot the contact environment plays for its action from the same state, the checkpoint records
the form and sizes the network by it, and ``experiments.train --action contact`` trains, saves and
reloads a contact-form model on both backends (``--action`` defaults to strike).

The planner test reuses the staged environment stages of tests/env/test_action_forms.py (the
cached contact environment, ``BATCH`` rows); the training runs are in the slow tier.
"""
from __future__ import annotations

import json

import jax
import numpy as np
import pytest

import agents
import billiards_env
import rules
from agents.jax_policy import JaxPolicyAgent, checkpoint_paths, init_network
from billiards_env import actions
from billiards_env.params import replace
from experiments import train
from tests.support.env import BATCH, fenv, runner

DISCIPLINE = "three_cushion"


def contact_policy(seed: int = 0) -> JaxPolicyAgent:
    """An untrained contact-form policy whose actions spread out (a random output layer)."""
    net = init_network(jax.random.PRNGKey(seed), (16,), 0.0, actions.size("contact"))
    out = net["pi"][-1]
    out["w"] = 3.0 * jax.random.normal(jax.random.PRNGKey(seed + 1), out["w"].shape, np.float32)
    return JaxPolicyAgent(net, DISCIPLINE, dict(action="contact"))


def test_a_contact_policy_plans_the_shot_the_contact_env_plays():
    """From the same states, the planner's shot is the one the contact environment plays for the
    policy's action (noise 0), the starting position (the side choice offered) included."""
    agent = contact_policy()
    assert agent.action_form == "contact" and agent.sidecar()["n_actions"] == 10
    env = fenv(DISCIPLINE, action="contact")
    params = replace(env.default_params, noise=0.0)
    ruleset, phys = params.rules, params.physics
    drawn = agents.random_states(ruleset, jax.random.PRNGKey(4), phys, BATCH)
    start = agents.starting_state(ruleset, phys)
    games = jax.tree_util.tree_map(lambda x, s: x.at[-1].set(s), drawn, start)
    assert bool(games.may_choose_side[-1])
    keys = jax.random.split(jax.random.PRNGKey(0), BATCH)
    planned = agent.plan_batch(ruleset, games, phys, keys)
    # the environment, given the policy's action with the choices that keep each layout
    policy_actions = agent.act(agent.observe_batch(ruleset, games, phys))
    assert policy_actions.shape == (BATCH, 10) and np.ptp(policy_actions[:, 1]) > 0.1  # aims that differ
    kept = jax.vmap(lambda g: actions.kept_choices(g, params))(games)
    env_actions = np.concatenate([policy_actions[:, :6], np.asarray(kept, np.float32)], axis=1)
    states = env.init_from(games, params)
    played = runner(env, BATCH).step_rows(states, env_actions, keys, params)[0].shot
    for f in ("V0", "phi", "theta", "a", "b"):
        np.testing.assert_allclose(np.asarray(getattr(planned, f)), np.asarray(getattr(played, f)), rtol=0,
                                   atol=1e-9, err_msg=f)


def test_a_contact_checkpoint_records_its_form_and_loads_back(tmp_path):
    agent = contact_policy()
    npz, sidecar_path = agent.save(tmp_path / "contact.npz")
    sidecar = json.loads(open(sidecar_path).read())
    assert sidecar["action_form"] == "contact" and sidecar["n_actions"] == 10
    assert sidecar["action_form_version"] == actions.CONTACT_VERSION
    loaded = JaxPolicyAgent.load(npz)
    assert loaded.action_form == "contact" and "action='contact'" in repr(loaded)
    obs = np.random.default_rng(0).uniform(0.0, 1.0, (4, 38)).astype(np.float32)
    np.testing.assert_array_equal(loaded.act(obs), agent.act(obs))
    loaded.check_env(fenv(DISCIPLINE, action="contact"))
    with pytest.raises(ValueError, match="gives 'contact'-form actions \\(10 components\\); the environment takes"):
        loaded.check_env(fenv(DISCIPLINE))
    # a network of the other form's size is refused
    with pytest.raises(ValueError, match="the network gives 10 action components; the 'strike' form has 9"):
        JaxPolicyAgent(agent.net, DISCIPLINE)
    with open(sidecar_path, "w") as f:
        json.dump({**sidecar, "action_form": "strike"}, f)
    with pytest.raises(ValueError, match=r"log_std must have shape \(9,\)"):
        JaxPolicyAgent.load(npz)


def test_the_training_command_defaults_to_the_strike_form():
    assert train.parse_args([]).action == "strike"
    assert train.parse_args(["--action", "contact"]).action == "contact"
    with pytest.raises(SystemExit):
        train.parse_args(["--action", "aim"])


def _check_contact_run(summary, out, name, load):
    assert summary["action_form"] == "contact" and summary["env"]["action"] == "contact"
    sidecar = json.loads(open(summary["files"]["sidecar"]).read())
    assert sidecar["action_form"] == "contact" and sidecar["n_actions"] == 10
    agent = load(out / name)
    assert agent.action_form == "contact"
    agent.check_env(billiards_env.make_functional(summary["discipline"], action="contact"))
    with pytest.raises(ValueError, match="gives 'contact'-form actions"):
        agent.check_env(billiards_env.make_functional(summary["discipline"]))
    ruleset = rules.make_rules(summary["discipline"])
    phys = agent.env_params.physics
    states = agents.random_states(ruleset, jax.random.PRNGKey(2), phys, 4)
    shots = agent.plan_batch(ruleset, states, phys, jax.random.split(jax.random.PRNGKey(0), 4))
    assert np.all(np.isfinite(np.asarray(shots.phi))) and np.all(np.asarray(shots.V0) > 0)


@pytest.mark.slow  # trains: the contact environment's PPO update is compiled for this run
def test_the_jax_backend_trains_a_contact_form_policy(tmp_path):
    out = tmp_path / "jax"
    summary = train.main(["--backend", "jax", "--action", "contact", "--discipline", "straight_rail",
                          "--timesteps", "256", "--n-envs", str(BATCH), "--n-steps", "2", "--batch-size", str(BATCH),
                          "--epochs", "2", "--lr-schedule", "constant", "--eval-every", "0", "--eval-layouts", "32",
                          "--final-layouts", "32", "--out", str(out)])
    _check_contact_run(summary, out, "straight_rail_ppo_jax", JaxPolicyAgent.load)
    assert checkpoint_paths(summary["files"]["model"])[0].endswith(".npz")


@pytest.mark.slow  # trains: Stable-Baselines3 on the staged contact environment
@pytest.mark.usefixtures("one_torch_thread")
def test_the_sb3_backend_trains_a_contact_form_policy(tmp_path):
    from agents.learned import LearnedAgent

    out = tmp_path / "sb3"
    summary = train.main(["--backend", "sb3", "--action", "contact", "--discipline", "hungarian_1000", "--zero-sum",
                          "--timesteps", str(2 * BATCH), "--n-envs", str(BATCH), "--lanes", str(BATCH), "--staged",
                          "--n-steps", "2", "--batch-size", str(BATCH), "--epochs", "1", "--net", "32,32",
                          "--eval-every", "0", "--eval-layouts", "32", "--final-layouts", "32", "--out", str(out)])
    _check_contact_run(summary, out, "hungarian_1000_ppo", LearnedAgent.load)
    assert LearnedAgent.load(out / "hungarian_1000_ppo").model.action_space.shape == (10,)
