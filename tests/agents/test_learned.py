"""The learned agent: a tiny PPO run (the training command's model and environment) improves the
mean official reward of its deterministic policy on fixed layouts, the saved model and its sidecar
load back to the same actions, a model refuses another discipline and bad files, and it plays
legal shots from the referee's states with the environment's own observation.

The Hungarian game with ``zero_sum`` rewards: fouls (a jumped ball, no target ball hit) hand the
opponent points, so the untrained policy (one mid-speed shot with the cue raised 30 deg, whatever
the layout) loses points and a few thousand shots teach it to lose far fewer. Everything runs on
batches of ``BATCH`` environments, staged, so the compiled stages are shared with the
environment tests.
"""
from __future__ import annotations

import json
import shutil

import jax
import numpy as np
import pytest

import agents
import billiards_env
import rules
from agents.learned import LearnedAgent, model_paths
from billiards_env import actions, observation
from billiards_env.runner import Runner
from experiments import train
from tests.support.agents import assert_playable
from tests.support.env import BATCH

DISCIPLINE = "hungarian_1000"
TRAIN_STEPS = 4096
EVAL_STEPS = 8  # batched steps of BATCH shots each: 512 fixed layouts
EVAL_SEED = 1000
# The training command's settings, made tiny: 64 environments x 8 steps per update.
ARGS = ["--discipline", DISCIPLINE, "--zero-sum", "--timesteps", str(TRAIN_STEPS), "--n-envs", str(BATCH),
        "--lanes", str(BATCH), "--staged", "--batch-size", "128", "--epochs", "4", "--net", "32,32", "--lr", "1e-3",
        "--lr-schedule", "constant", "--seed", "0"]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def mean_reward(agent, args):
    """Mean official reward of the agent's deterministic actions over EVAL_STEPS batched steps of
    the environment from a fixed seed (the layouts do not depend on the actions)."""
    env = train.make_venv(train.parse_args(ARGS + ["--seed", str(EVAL_SEED)]))
    obs = env.reset()
    rewards = []
    for _ in range(EVAL_STEPS):
        obs, reward, dones, _ = env.step(agent.act(obs))
        assert dones.all()
        rewards.append(env.official_rewards)
    return float(np.mean(rewards))


@pytest.fixture(scope="module")
def trained():
    """(agent, mean reward before training, after training)."""
    args = train.parse_args(ARGS)
    venv = train.make_venv(args)
    model = train.make_model(args, venv)
    agent = LearnedAgent(model, DISCIPLINE, "ppo", dict(values=train.env_values(args)), dict(note="test"))
    before = mean_reward(agent, args)
    model.learn(TRAIN_STEPS)
    return agent, before, mean_reward(agent, args)


@pytest.fixture(scope="module")
def ruleset():
    return rules.make_rules(DISCIPLINE)


@pytest.fixture(scope="module")
def states(trained, ruleset):
    """BATCH random games in play, the last one the starting position (red in hand)."""
    agent = trained[0]
    drawn = agents.random_states(ruleset, jax.random.PRNGKey(3), agent.env_params.physics, BATCH)
    start = agents.starting_state(ruleset, agent.env_params.physics)
    return jax.tree_util.tree_map(lambda x, s: x.at[-1].set(s), drawn, start)


@pytest.fixture(scope="module")
def saved(trained, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "hungarian_ppo.zip"
    trained[0].save(path)
    return path


def test_a_tiny_training_run_improves_on_its_untrained_policy(trained):
    _, before, after = trained
    print(f"mean official reward per shot: untrained {before:.2f}, after {TRAIN_STEPS} steps {after:.2f}")
    assert before < -2.0  # the untrained shot fouls often (a foul hands the opponent points)
    assert after > before + 2.0 and after > 0.5 * before  # at least half the points lost are saved


def test_training_logs_only_to_its_own_tracker_and_leaves_no_log_folder(trained, tmp_path, monkeypatch):
    logger = trained[0].model.logger  # after learn: the library keeps a logger set on the model
    assert logger.dir is None and logger.output_formats == []
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "logs"))  # where the library's default would write
    args = train.parse_args(ARGS)
    train.make_model(args, train.make_venv(args)).learn(BATCH)
    assert not (tmp_path / "logs").exists()


def test_save_and_load_give_the_same_actions_and_shots(trained, saved, ruleset, states):
    agent = trained[0]
    for path in (saved, str(saved)[:-4]):  # with or without ".zip"
        loaded = LearnedAgent.load(path)
        assert (loaded.discipline, loaded.algorithm, loaded.env, loaded.info) == (
            agent.discipline, agent.algorithm, agent.env, agent.info)
        obs = np.random.default_rng(0).uniform(0.0, 1.0, (BATCH, observation.OBS_SIZE)).astype(np.float32)
        np.testing.assert_array_equal(loaded.act(obs), agent.act(obs))
        np.testing.assert_allclose(loaded.act(obs[0]), agent.act(obs)[0], rtol=0, atol=1e-6)  # one vs a batch
        keys = jax.random.split(jax.random.PRNGKey(0), BATCH)
        a, b = (x.plan_batch(ruleset, states, x.env_params.physics, keys) for x in (agent, loaded))
        for f in ("V0", "phi", "theta", "a", "b"):
            np.testing.assert_array_equal(np.asarray(getattr(a, f)), np.asarray(getattr(b, f)))
    sidecar = json.loads(open(model_paths(saved)[1]).read())
    assert sidecar["discipline"] == DISCIPLINE and sidecar["algorithm"] == "ppo"
    assert sidecar["env"]["values"]["zero_sum"] is True


def test_a_model_refuses_another_discipline(saved, states, tmp_path):
    loaded = LearnedAgent.load(saved)
    keys = jax.random.split(jax.random.PRNGKey(0), BATCH)
    with pytest.raises(ValueError, match="trained on hungarian_1000, not on the rules of three_cushion"):
        loaded.plan_batch(rules.make_rules("three_cushion"), states, loaded.env_params.physics, keys)
    # a sidecar that says three-cushion: the same model is refused for the Hungarian game
    zip_path, json_path = model_paths(saved)
    other = tmp_path / "other.zip"
    shutil.copy(zip_path, other)
    meta = json.loads(open(json_path).read())
    meta["discipline"] = "three_cushion"
    with open(model_paths(other)[1], "w") as f:
        json.dump(meta, f)
    with pytest.raises(ValueError, match="trained on three_cushion, not on the rules of hungarian_1000"):
        LearnedAgent.load(other).plan_batch(rules.make_rules(DISCIPLINE), states, loaded.env_params.physics, keys)


def test_a_model_records_its_action_form_and_refuses_an_env_of_another(saved, tmp_path):
    """The sidecar records the action form beside the strike mapping's version; a strike-form model
    is refused by a contact-form environment, and a sidecar from before the forms reads as strike."""
    zip_path, json_path = model_paths(saved)
    meta = json.loads(open(json_path).read())
    assert meta["action"] == actions.ACTION_VERSION and meta["action_form"] == "strike"
    loaded = LearnedAgent.load(saved)
    assert loaded.action_form == "strike"
    loaded.check_env(billiards_env.make_functional(DISCIPLINE))
    with pytest.raises(ValueError, match="gives 'strike'-form actions \\(9 components\\); the environment takes the "
                                         "'contact' form. Make the environment with action='strike'"):
        loaded.check_env(billiards_env.make_functional(DISCIPLINE, action="contact"))
    cases = {
        "before the forms": ({k: v for k, v in meta.items() if not k.startswith("action_form")}, None),
        "unknown form": (dict(meta, action_form="aim"), "unknown action form 'aim'; this build plays strike, contact"),
        "old contact": (dict(meta, action_form="contact", action_form_version=0),
                        "trained on 'contact' actions of version 0; this build plays version 1"),
        "contact on 9": (dict(meta, action_form="contact", action_form_version=actions.CONTACT_VERSION),
                         "and \\(10,\\) \\(the flat \"shot\" mode, 'contact' actions\\)"),
    }
    for name, (sidecar, message) in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.zip"
        shutil.copy(zip_path, path)
        with open(model_paths(path)[1], "w") as f:
            json.dump(sidecar, f)
        if message is None:
            assert LearnedAgent.load(path).action_form == "strike"
        else:
            with pytest.raises(ValueError, match=message):
                LearnedAgent.load(path)


def test_missing_or_malformed_files_are_refused(saved, tmp_path):
    zip_path, json_path = model_paths(saved)
    with pytest.raises(ValueError, match="no learned-agent model"):
        LearnedAgent.load(tmp_path / "absent.zip")
    lonely = tmp_path / "lonely.zip"
    shutil.copy(zip_path, lonely)
    with pytest.raises(ValueError, match="no learned-agent sidecar"):
        LearnedAgent.load(lonely)
    cases = {
        "not json": ("{discipline", "malformed learned-agent sidecar"),
        "other json": (json.dumps({"discipline": DISCIPLINE}), "not a learned-agent sidecar"),
        "no env": (json.dumps({k: v for k, v in json.loads(open(json_path).read()).items() if k != "env"}),
                   "lacks env"),
        "bad algorithm": (open(json_path).read().replace('"ppo"', '"dqn"'), "unknown algorithm 'dqn'"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / f"{name.replace(' ', '_')}.zip"
        shutil.copy(zip_path, path)
        with open(model_paths(path)[1], "w") as f:
            f.write(text)
        with pytest.raises(ValueError, match=message):
            LearnedAgent.load(path)
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip file")
    shutil.copy(json_path, model_paths(broken)[1])
    with pytest.raises(ValueError, match="cannot load the PPO model"):
        LearnedAgent.load(broken)


def test_it_plays_legal_shots_from_the_referees_states(trained, ruleset, states):
    agent = trained[0]
    phys, env = agent.env_params.physics, agent.env_params
    shots = agent.plan_batch(ruleset, states, phys, jax.random.split(jax.random.PRNGKey(1), BATCH))
    assert_playable(shots, phys)
    V0, phi, theta = (np.asarray(getattr(shots, f)) for f in ("V0", "phi", "theta"))
    tip = np.hypot(np.asarray(shots.a), np.asarray(shots.b))
    assert np.all((float(env.v_min) <= V0) & (V0 <= float(env.v_max)))
    assert np.all((-180.0 <= phi) & (phi <= 180.0))
    assert np.all((0.0 <= theta) & (theta <= float(env.theta_max)))
    assert np.all(tip <= float(env.offset_max) + 1e-12)
    results, _, outcomes, _ = agents.execute(ruleset, states, shots, phys, lanes=BATCH)
    assert np.all(np.asarray(results.status) == 0)
    assert not np.any(np.asarray(outcomes.reason) == rules.Reason.INVALID_SHOT)
    first = jax.tree_util.tree_map(lambda x: x[0], states)
    assert agent.plan(ruleset, first, phys, jax.random.PRNGKey(0)).V0.shape == ()


def test_its_observation_is_the_environments(trained):
    """From the states an environment starts its episodes with, the agent builds the environment's
    own observation, and its shot is the environment's mapping of its action."""
    agent = trained[0]
    fenv = train.make_venv(train.parse_args(ARGS)).functional
    start = Runner(fenv, BATCH, fused=False, lanes=BATCH).reset(jax.random.PRNGKey(5), fenv.default_params)
    obs = np.asarray(agent.observe_batch(fenv.default_params.rules, start.game, fenv.default_params.physics))
    np.testing.assert_array_equal(obs, np.asarray(start.observation))
    shots = agent.plan_batch(fenv.default_params.rules, start.game, fenv.default_params.physics, None)
    expected = jax.vmap(lambda a: actions.to_shot(a, fenv.default_params))(agent.act(obs))
    np.testing.assert_allclose(np.asarray(shots.phi), np.asarray(expected.phi), rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.asarray(shots.V0), np.asarray(expected.V0), rtol=0, atol=1e-12)


def test_act_checks_the_observation_shape(trained):
    agent = trained[0]
    assert agent.act(np.zeros(observation.OBS_SIZE)).shape == (actions.N_ACTIONS,)
    with pytest.raises(ValueError, match="observations must have shape"):
        agent.act(np.zeros((2, 5)))


def test_the_training_command_has_help():
    with pytest.raises(SystemExit) as exit_:
        train.parse_args(["--help"])
    assert exit_.value.code == 0


def test_carom_hint_grows_with_the_cushions_before_the_carom():
    env_params = billiards_env.default_params("three_cushion")  # three cushions required (C-13.2)
    hint = train.carom_progress(np.array([0, 1, 1, 1, 1, 1]), np.array([3, 0, 1, 2, 3, 5]), env_params)
    np.testing.assert_allclose(hint, [0.0, 0.25, 0.5, 0.75, 1.0, 1.0])


def test_opt_in_shaping_adds_the_hint_and_keeps_the_official_reward_apart():
    # The training aid is added on top of the official points (kept in ``official_rewards``): a
    # scoring three-cushion shot earns the whole hint, a shot without a carom none of it.
    args = train.parse_args(["--discipline", "three_cushion", "--n-envs", str(BATCH), "--lanes", str(BATCH),
                             "--staged", "--shaping", "carom", "--shaping-weight", "0.5", "--seed", "3"])
    venv = train.make_venv(args)
    venv.reset()
    rng = np.random.default_rng(0)
    differences = []
    for _ in range(3):
        _, reward, _, _ = venv.step(rng.uniform(-1, 1, (BATCH, actions.N_ACTIONS)).astype(np.float32))
        official = venv.official_rewards
        difference = reward - official
        assert np.all(difference[official > 0] == 0.5)
        differences.append(difference)
    allowed = 0.5 * np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    differences = np.concatenate(differences)
    assert np.any(differences > 0)  # some caroms among the random shots: the hint was added
    assert np.all(np.min(np.abs(differences[:, None] - allowed[None]), axis=1) < 1e-6)
