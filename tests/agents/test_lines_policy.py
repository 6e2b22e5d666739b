"""The "lines" form's learners: the categorical policy's candidate scorer, its masking,
log-probabilities, entropy and checkpoint, the ``rl`` agent spec, the Q-learner's exploration,
choices and settings, and (slow) PPO and Q-learning updates and play on the form."""
from __future__ import annotations

import dataclasses
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents.jax_policy import (MASKED, from_arrays, init_network, is_categorical, logits, play_action, to_arrays,
                               value)
from agents.jax_ppo import categorical_entropy, categorical_log_prob
from agents.specs import AgentSpecError, load_rl, make_agent, parse_agent_spec
from billiards_env import lines, observation

N_OBS = observation.size("lines")


def _obs(key, mask):
    """Observations (len(mask), N_OBS) with random features and the given masks (rows of COUNT)."""
    mask = np.asarray(mask, np.float32)
    x = np.array(jax.random.uniform(key, (mask.shape[0], N_OBS), jnp.float32, -1.0, 1.0))
    x[:, -lines.COUNT:] = mask
    return jnp.asarray(x)


def test_lines_network_scores_every_candidate_with_one_scorer():
    net = init_network(jax.random.PRNGKey(0), (8,), form="lines")
    assert is_categorical(net) and net["pi"][0]["w"].shape == (lines.FEATURES, 8)
    obs = _obs(jax.random.PRNGKey(1), np.ones((2, lines.COUNT)))
    feats, _ = lines.split(obs)
    # swapping two candidates' features swaps their logits: the same weights score every candidate
    swapped = np.asarray(obs).copy()
    a, b = 3 * lines.FEATURES + observation.OBS_SIZE, 7 * lines.FEATURES + observation.OBS_SIZE
    swapped[:, a:a + lines.FEATURES], swapped[:, b:b + lines.FEATURES] = \
        np.asarray(obs)[:, b:b + lines.FEATURES], np.asarray(obs)[:, a:a + lines.FEATURES]
    lg, lg2 = np.asarray(logits(net, obs)), np.asarray(logits(net, jnp.asarray(swapped)))
    assert feats.shape == (2, lines.COUNT, lines.FEATURES)
    np.testing.assert_allclose(lg2[:, 3], lg[:, 7], rtol=1e-6)
    np.testing.assert_allclose(lg2[:, 7], lg[:, 3], rtol=1e-6)


def test_masked_candidates_get_no_probability_and_are_never_played():
    net = init_network(jax.random.PRNGKey(2), (8,), form="lines")
    mask = np.zeros((3, lines.COUNT))
    mask[0, [5, 40]] = 1.0
    mask[1, :] = 1.0  # row 2: nothing valid, every candidate scored
    lg = np.asarray(logits(net, _obs(jax.random.PRNGKey(3), mask)))
    assert np.all(lg[0, mask[0] == 0] == MASKED) and np.all(lg[0, [5, 40]] > MASKED)
    assert np.all(lg[1:] > MASKED)
    played = np.asarray(play_action(net, _obs(jax.random.PRNGKey(3), mask)))
    assert played[0] in (5, 40) and played.dtype == np.int32
    assert played[1] == np.argmax(lg[1]) and played[2] == np.argmax(lg[2])


def test_categorical_log_prob_and_entropy_match_the_softmax():
    lg = jnp.asarray([[0.0, 1.0, 2.0, MASKED], [3.0, -1.0, 0.5, 0.0]], jnp.float32)
    p = np.exp(np.asarray(lg, np.float64) - np.asarray(lg, np.float64).max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    idx = jnp.asarray([2, 0])
    np.testing.assert_allclose(np.asarray(categorical_log_prob(idx, lg)), np.log(p[[0, 1], [2, 0]]), rtol=1e-5)
    ent = -np.sum(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0), -1).mean()
    np.testing.assert_allclose(float(categorical_entropy(lg)), ent, rtol=1e-5)


def test_lines_checkpoint_arrays_round_trip_and_refuse_wrong_shapes():
    net = init_network(jax.random.PRNGKey(4), (16, 8), form="lines")
    arrays = to_arrays(net)
    assert "log_std" not in arrays
    back = from_arrays(arrays, (16, 8), lines.COUNT, "lines")
    for part in ("pi", "vf"):
        for layer, other in zip(net[part], back[part]):
            np.testing.assert_array_equal(np.asarray(layer["w"]), np.asarray(other["w"]))
    with pytest.raises(ValueError, match="log_std must have shape"):
        from_arrays(arrays, (16, 8), 9, "strike")  # a Gaussian policy's arrays are other shapes


def test_rl_agent_spec_takes_no_options_and_names_the_shipped_disciplines(tmp_path, monkeypatch):
    import rules
    from agents import specs

    assert parse_agent_spec("rl").kind == "rl"
    with pytest.raises(AgentSpecError, match="takes no options"):
        parse_agent_spec("rl:hidden=3")
    with pytest.raises(AgentSpecError, match="needs the discipline"):
        make_agent("rl")
    # every discipline ships one; a models folder that lacks one is named in the refusal
    assert all(os.path.isfile(specs.rl_path(d) + ".npz") for d in rules.DISCIPLINES)
    for name in ("three_cushion_rl.npz", "one_cushion_rl.npz"):
        (tmp_path / name).write_bytes(b"")
    monkeypatch.setattr(specs, "MODELS_DIR", str(tmp_path))
    with pytest.raises(AgentSpecError, match="no shipped RL policy for balkline_71_2; shipped for: one_cushion, "
                                             "three_cushion$"):
        load_rl("balkline_71_2")


@pytest.mark.slow
def test_ppo_on_lines_trains_and_its_planner_plays_the_candidates_it_scores(tmp_path):
    """Two PPO updates on the "lines" form run with finite losses; the trained planner's strikes
    are the candidates its deterministic policy picks from each state's observation; the
    checkpoint reads back to the same strikes."""
    from agents.jax_policy import JaxPolicyAgent
    from agents.jax_ppo import PPO, PPOConfig
    from billiards_env import make_functional

    env = make_functional("three_cushion", action="lines")
    ppo = PPO(env, PPOConfig(n_envs=8, n_steps=2, minibatch_size=8, epochs=1, hidden=(8,), total_updates=2))
    state, metrics = ppo.run(ppo.init(seed=0), 2)
    assert all(np.all(np.isfinite(np.asarray(v))) for v in metrics.values())
    assert np.all(np.asarray(metrics["entropy"]) > 0)
    agent = ppo.agent(state)
    params = env.default_params
    states = env.init_batch(jax.random.split(jax.random.PRNGKey(7), 8))
    shots = agent.plan_batch(params.rules, states.game, params.physics, jax.random.split(jax.random.PRNGKey(0), 8))
    pick = np.asarray(play_action(agent.net, states.observation))
    np.testing.assert_allclose(np.asarray(shots.phi), np.asarray(states.candidates.phi)[np.arange(8), pick])
    np.testing.assert_allclose(np.asarray(shots.V0), np.asarray(states.candidates.V0)[np.arange(8), pick])
    agent.save(tmp_path / "lines")
    again = JaxPolicyAgent.load(tmp_path / "lines")
    assert again.action_form == "lines"
    shots2 = again.plan_batch(params.rules, states.game, params.physics, jax.random.split(jax.random.PRNGKey(0), 8))
    np.testing.assert_array_equal(np.asarray(shots2.phi), np.asarray(shots.phi))


# -- the Q-learner over the candidates (agents.jax_dqn) ---------------------------------------------

def test_q_learner_epsilon_falls_linearly_then_stays():
    from agents.jax_dqn import QConfig, epsilon

    c = QConfig(total_updates=100, eps_start=1.0, eps_end=0.1, explore_fraction=0.5)
    np.testing.assert_allclose([float(epsilon(c, u)) for u in (0, 25, 50, 99)], [1.0, 0.55, 0.1, 0.1], rtol=1e-6)


def test_q_learner_chooses_the_best_rated_valid_candidate_or_a_valid_one_at_random():
    from agents.jax_dqn import choose

    net = init_network(jax.random.PRNGKey(5), (8,), form="lines")
    mask = np.zeros((64, lines.COUNT))
    mask[:, [2, 9, 77]] = 1.0
    obs = _obs(jax.random.PRNGKey(6), mask)
    greedy = np.asarray(choose(net, obs, jax.random.PRNGKey(0), 0.0))
    np.testing.assert_array_equal(greedy, np.argmax(np.asarray(logits(net, obs)), -1))
    explored = np.asarray(choose(net, obs, jax.random.PRNGKey(1), 1.0))
    assert set(explored.tolist()) == {2, 9, 77}  # 64 draws over three valid candidates


@pytest.mark.parametrize("bad", [dict(n_envs=0), dict(buffer=8, n_envs=16), dict(eps_end=0.5, eps_start=0.2),
                                 dict(explore_fraction=0.0), dict(hidden=()), dict(lr_schedule="cosine"),
                                 dict(loss="huber"), dict(gamma=1.5), dict(gamma=0.5, loss="bce"),
                                 dict(plays=0), dict(plays=133), dict(plays=2, gamma=0.5), dict(leave="next"),
                                 dict(n_envs=16, plays=4, buffer=32)])
def test_q_learner_config_refuses_bad_settings(bad):
    from agents.jax_dqn import QConfig

    with pytest.raises(ValueError, match="QConfig"):
        QConfig(**bad)


@pytest.mark.parametrize("schedule", ["constant", "linear"])
def test_q_learner_learning_rate_stays_or_falls_to_zero_over_the_runs_gradient_steps(schedule):
    """Adam's step on a steady gradient is the learning rate: constant, or falling linearly to 0
    after total_updates x gradient_steps steps."""
    from agents.jax_dqn import CandidateQ, QConfig
    from billiards_env import make_functional

    dqn = CandidateQ(make_functional("three_cushion", action="lines"),
                     QConfig(total_updates=2, gradient_steps=3, lr=1e-2, lr_schedule=schedule, hidden=(4,)))
    params = {"w": jnp.zeros(1)}
    opt_state, steps = dqn.optimizer.init(params), []
    for _ in range(7):
        updates, opt_state = dqn.optimizer.update({"w": jnp.full(1, 0.5)}, opt_state, params)
        steps.append(-float(updates["w"][0]))
    want = [1e-2] * 7 if schedule == "constant" else [1e-2 * (1 - t / 6) for t in range(6)] + [0.0]
    np.testing.assert_allclose(steps, want, rtol=1e-3, atol=1e-9)


def test_q_learner_refuses_other_forms_and_modes():
    from agents.jax_dqn import CandidateQ
    from billiards_env import make_functional

    with pytest.raises(ValueError, match="lines"):
        CandidateQ(make_functional("three_cushion", action="contact"))
    with pytest.raises(ValueError, match="built-in opponent"):  # its shots would count in the learner's step
        CandidateQ(make_functional("three_cushion", "game", action="lines"))
    assert CandidateQ(make_functional("three_cushion", "game", "two_player", action="lines")).env.mode == "game"


def test_q_learner_logistic_loss_is_the_cross_entropy_of_the_carom_chance():
    """loss="bce": the scorer's output is the log-odds of a carom, and its loss on a sample of
    reward t is -(t log p + (1 - t) log(1 - p)), p the logistic of the output."""
    from agents.jax_dqn import CandidateQ, QConfig
    from agents.jax_policy import mlp
    from billiards_env import make_functional

    dqn = CandidateQ(make_functional("three_cushion", action="lines"), QConfig(hidden=(4,), loss="bce"))
    net = init_network(jax.random.PRNGKey(3), (4,), form="lines")
    feats = jax.random.normal(jax.random.PRNGKey(0), (6, lines.FEATURES))
    target = jnp.asarray([0.0, 1.0, 1.0, 0.0, 1.0, 0.0])
    mb = {"features": feats, "obs": jnp.zeros((6, observation.OBS_SIZE)), "target": target}
    _, stats = dqn._loss(net, mb)
    p = 1.0 / (1.0 + np.exp(-np.asarray(mlp(net["pi"], feats))[:, 0]))
    want = -np.mean(np.asarray(target) * np.log(p) + (1 - np.asarray(target)) * np.log(1 - p))
    np.testing.assert_allclose(float(stats["q_loss"]), want, rtol=1e-5)


@pytest.mark.slow
def test_q_learner_fills_its_buffer_with_the_played_candidates_and_learns_their_rewards():
    """Updates of the Q-learner: the buffer holds each shot's played candidate features and its
    reward; once learning starts the rating of the buffer's samples moves towards their rewards."""
    from agents.jax_dqn import CandidateQ, QConfig
    from agents.jax_policy import mlp
    from billiards_env import make_functional

    env = make_functional("three_cushion", action="lines")
    dqn = CandidateQ(env, QConfig(n_envs=8, gradient_steps=16, batch_size=16, buffer=64, learning_starts=16,
                                  lr=1e-2, hidden=(8,), total_updates=4))
    state = dqn.init(seed=0)
    first = state
    for _ in range(4):
        state, metrics = dqn.update(state)
    assert int(state.filled) == 32 and np.all(np.isfinite(np.asarray(metrics["q_loss"])))
    feats = np.asarray(state.replay["features"][:32])
    assert np.all(np.any(feats != 0, -1))  # every stored row is a candidate's features
    target = np.asarray(state.replay["target"][:32])
    assert set(np.unique(target)).issubset({0.0, 1.0})
    err = lambda net: float(np.mean((np.asarray(mlp(net["pi"], feats))[:, 0] - target) ** 2))  # noqa: E731
    assert err(state.net) < err(first.net)
    assert dqn.agent(state).action_form == "lines"


@pytest.mark.slow
@pytest.mark.parametrize("how", [dict(), dict(plays=3, leave="value"), dict(plays=3, leave="greedy")],
                         ids=["best", "value", "greedy"])
def test_q_learner_with_a_discount_adds_the_leaves_rating_to_a_carom_that_plays_on(how):
    """gamma > 0 in "inning" mode: a miss ends the inning, its target is 0; a carom's target is its
    point plus gamma times the leave's worth (some value other than the point alone): the best
    rating of its candidates, or the value head's reading, which rates the extra plays' leaves."""
    from agents.jax_dqn import CandidateQ, QConfig
    from billiards_env import make_functional

    env = make_functional("three_cushion", "inning", action="lines")
    config = QConfig(n_envs=64, gradient_steps=1, batch_size=8, buffer=192, learning_starts=1024, hidden=(4,),
                     total_updates=1, gamma=0.5, **how)
    dqn = CandidateQ(env, config)
    state, _ = dqn.update(dqn.init(seed=1))
    target = np.asarray(state.replay["target"])
    plain, _ = CandidateQ(env, dataclasses.replace(config, gamma=0.0)).update(dqn.init(seed=1))
    reward = np.asarray(plain.replay["target"])  # the same shots, rated by their points alone
    assert set(np.unique(reward)) == {0.0, 1.0} and int(state.filled) == 64 * config.plays
    target, reward = target[:int(state.filled)], reward[:int(state.filled)]
    np.testing.assert_array_equal(target[reward == 0], 0.0)
    assert np.all(target[reward == 1] != 1.0)
    if how.get("leave") == "greedy":  # the greedy plays (the first n_envs of an update) teach the value head
        np.testing.assert_array_equal(np.asarray(state.replay["chosen"])[:int(state.filled)],
                                      np.repeat([1.0, 0.0], [64, 128]))


def test_q_learner_greedy_leave_teaches_the_value_head_the_greedy_plays_only():
    """``leave="greedy"``: the value head's loss is the squared error of the chosen rows alone
    (the others' targets do not move it); ``leave="value"`` weighs every row."""
    from agents.jax_dqn import CandidateQ, QConfig
    from billiards_env import make_functional

    env = make_functional("three_cushion", "inning", action="lines")
    net = init_network(jax.random.PRNGKey(3), (4,), form="lines")
    rng = np.random.default_rng(0)
    mb = {"features": jnp.asarray(rng.normal(size=(6, lines.FEATURES)), jnp.float32),
          "obs": jnp.asarray(rng.normal(size=(6, observation.OBS_SIZE)), jnp.float32),
          "target": jnp.asarray([0.0, 1.0, 50.0, 0.0, 1.0, -50.0], jnp.float32),
          "chosen": jnp.asarray([1.0, 1.0, 0.0, 1.0, 1.0, 0.0], jnp.float32)}
    v = np.asarray(value(net, mb["obs"]))
    keep = np.asarray(mb["chosen"]) > 0
    greedy = CandidateQ(env, QConfig(gamma=1.0, plays=2, leave="greedy", hidden=(4,)))
    _, stats = greedy._loss(net, mb)
    np.testing.assert_allclose(float(stats["value_loss"]), np.mean((v[keep] - np.asarray(mb["target"])[keep]) ** 2),
                               rtol=1e-5)
    plain = CandidateQ(env, QConfig(gamma=1.0, plays=2, leave="value", hidden=(4,)))
    _, stats = plain._loss(net, {k: x for k, x in mb.items() if k != "chosen"})
    np.testing.assert_allclose(float(stats["value_loss"]), np.mean((v - np.asarray(mb["target"])) ** 2), rtol=1e-5)


def test_q_learner_plays_the_best_rated_others_or_valid_ones_at_random():
    """``others``: beside the first candidate, the next best rated, distinct and never the first;
    with eps 1 valid ones at random."""
    from agents.jax_dqn import others

    net = init_network(jax.random.PRNGKey(5), (8,), form="lines")
    mask = np.zeros((32, lines.COUNT))
    mask[:, [2, 9, 40, 77, 100]] = 1.0
    obs = _obs(jax.random.PRNGKey(7), mask)
    rated = np.asarray(logits(net, obs))
    first = np.argmax(rated, -1).astype(np.int32)
    more = np.asarray(others(net, obs, jax.random.PRNGKey(0), 0.0, jnp.asarray(first), 3))
    order = np.argsort(-rated, -1)
    np.testing.assert_array_equal(more, order[:, 1:4])
    assert not np.any(more == first[:, None])
    explored = np.asarray(others(net, obs, jax.random.PRNGKey(1), 1.0, jnp.asarray(first), 3))
    assert set(explored.ravel().tolist()) == {2, 9, 40, 77, 100}


@pytest.mark.slow
def test_q_learner_with_several_plays_stores_each_positions_other_candidates_and_their_outcomes():
    """plays > 1: each update stores n_envs x plays samples; the extra ones are the same positions'
    other candidates, and with exact execution their targets are what those candidates score when
    played from the position in the environment's own step."""
    from agents.jax_dqn import CandidateQ, QConfig
    from billiards_env import make_functional
    from billiards_env.modes import shooter_reward
    from billiards_env.runner import Runner

    env = make_functional("three_cushion", action="lines", noise=0.0)
    n, plays = 8, 3
    dqn = CandidateQ(env, QConfig(n_envs=n, plays=plays, gradient_steps=1, batch_size=8, buffer=64,
                                  learning_starts=1024, hidden=(4,), total_updates=1, eps_start=0.0, eps_end=0.0))
    start = dqn.init(seed=2)
    state, _ = dqn.update(start)
    assert int(state.filled) == n * plays and dqn.shots_per_update == n * plays
    feats, _ = lines.split(start.env_state.observation)
    stored = np.asarray(state.replay["features"][n:n * plays]).reshape(n, plays - 1, lines.FEATURES)
    obs = np.asarray(state.replay["obs"][n:n * plays]).reshape(n, plays - 1, -1)
    np.testing.assert_array_equal(obs, np.repeat(np.asarray(state.replay["obs"][:n])[:, None], plays - 1, 1))
    index = np.array([[np.flatnonzero(np.all(np.asarray(feats[i]) == row, -1))[0] for row in stored[i]]
                      for i in range(n)])
    runner = Runner(env, num_envs=n, autoreset=False)
    for j in range(plays - 1):
        after, _ = runner.step_rows(start.env_state, jnp.asarray(index[:, j], jnp.int32),
                                    jax.random.split(jax.random.PRNGKey(9), n), env.default_params)
        want = np.asarray(shooter_reward(start.env_state, after))
        np.testing.assert_array_equal(np.asarray(state.replay["target"][n:n * plays]).reshape(n, -1)[:, j], want)


def test_train_gives_the_q_learner_its_recipe_and_refuses_plays_it_cannot_rate():
    """experiments.train: DQN's defaults are the vine recipe (docs/training.md), the other learners
    keep theirs; --plays is the DQN's, and its extra plays' leaves are rated by the value head only."""
    from experiments import train

    dqn = train.parse_args(["--algo", "dqn", "--action", "lines"])
    assert (dqn.plays, dqn.gradient_steps, dqn.batch_size, dqn.buffer, dqn.net) == (16, 16, 1024, 1_000_000,
                                                                                     "256,256,256")
    sac = train.parse_args(["--algo", "sac"])
    assert (sac.plays, sac.gradient_steps, sac.buffer) == (1, 8, 200_000)
    assert train.parse_args(["--algo", "dqn", "--action", "lines", "--mode", "inning", "--gamma", "1",
                             "--leave", "value"]).leave == "value"
    for bad in (["--algo", "ppo", "--plays", "4"],
                ["--algo", "dqn", "--action", "lines", "--mode", "inning", "--gamma", "1"],
                ["--algo", "dqn", "--action", "lines", "--plays", "0"]):
        with pytest.raises(SystemExit):
            train.parse_args(bad)
    assert train.parse_args(["--algo", "dqn", "--action", "lines", "--mode", "inning", "--gamma", "1",
                             "--plays", "1"]).plays == 1


def test_train_starts_the_scorer_from_a_success_model_only_where_one_rates_the_same_candidates():
    """--init-from-policy: the DQN's logistic scorer (--loss bce), and a discipline whose shipped
    success model reads the lines form's features and grid (three-cushion); refused otherwise."""
    from experiments import train

    ok = ["--algo", "dqn", "--action", "lines", "--loss", "bce", "--init-from-policy"]
    assert train.parse_args(ok).init_from_policy
    assert len(train.teacher_of(train.parse_args(ok))[0][0]) == lines.FEATURES  # the first layer's inputs
    for bad in (ok[:4] + ok[6:], ok + ["--discipline", "one_cushion"], ok + ["--init-steps", "0"]):
        with pytest.raises(SystemExit):
            train.parse_args(bad)


@pytest.mark.slow
def test_q_learner_imitates_a_teachers_ratings_of_fresh_positions_candidates():
    """``CandidateQ.imitate``: the scorer's squared error to a teacher's ratings of every valid
    candidate falls over the steps, measured on positions it did not fit."""
    from agents.jax_dqn import CandidateQ, QConfig
    from agents.jax_policy import mlp
    from agents.nets import mlp_apply, mlp_init
    from billiards_env import make_functional

    env = make_functional("three_cushion", action="lines")
    dqn = CandidateQ(env, QConfig(n_envs=32, hidden=(16,)))
    teacher = mlp_init(jax.random.PRNGKey(4), [lines.FEATURES, 8, 1])
    held = env.init_batch(jax.random.split(jax.random.PRNGKey(99), 32))
    feats, mask = lines.split(held.observation)
    valid = np.asarray(mask) > 0.5

    def error(net):
        diff = np.asarray(mlp(net["pi"], feats))[..., 0] - np.asarray(mlp_apply(teacher, feats))[..., 0]
        return float(np.mean(diff[valid] ** 2))

    start = dqn.init(seed=0)
    fitted, loss = dqn.imitate(start, teacher, steps=60, lr=3e-3)
    assert np.isfinite(loss) and error(fitted.net) < 0.5 * error(start.net)
    with pytest.raises(ValueError, match="at least 1 step"):
        dqn.imitate(start, teacher, steps=0)
