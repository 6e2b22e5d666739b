"""The shipped policy (``agents.policy``): its model files and sidecars (three-cushion and the
Hungarian game), the refusal of a file made for other inputs or another target kind, play without
simulation, the ``policy`` agent spec, and the labels of training (soft labels, net points); the
search it guides (``agents.guided``) and the ``guided`` agent spec."""
from __future__ import annotations

import json
import os
import pickle
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import physics
from agents import SearchAgent
from agents.base import index_tree, shot_array
from agents.guided import BUDGETS, GuidedAgent, guided_config
from agents.nets import ensemble, mlp_apply, mlp_init
from agents.policy import PolicyAgent, load_model, save_model, target_for
from agents.search import best_lines
from agents.store import MODELS_DIR, model_paths, noise_variants, shipped_disciplines
from agents.success import (
    AIMS, FEATURE_VERSIONS, SuccessAgent, aim_jitter, aimed, chances, check_aims, check_outcomes, line_grid, net_rating,
    noise_draws, ratings, with_lines,
)
from agents.specs import AgentSpecError, agent_budget, make_agent, parse_agent_spec
from experiments.success_model import (
    OUTCOMES, choice_room, fold_scaling, load_data, losses, net_label, outcome_fractions, scored_label, strike_label,
    success_dataset,
)
from experiments.success_model import main as success_model_main
from tests.support.agents import SMALL_NOISY, assert_playable, layouts, setup

HUNGARIAN_LAYOUTS = (131072, 40960)  # the training layouts of the exact model, and of the noise model (32768 exact
# layouts of the aimed grid and 8192 noisy ones, docs/agents.md section 3.5)
HUNGARIAN_FEATURES = 3  # the version of the shipped Hungarian models' inputs
THREE_CUSHION_FEATURES = 4  # and of the three-cushion ones' (docs/agents.md section 3.6)
FEATURES = FEATURE_VERSIONS[1]  # the inputs of the made-up models below


def _copy_model(tmp_path, name="three_cushion", noise=0.0, **changes):
    """The shipped three-cushion model for exact play copied into tmp_path as ``name``'s model for
    ``noise``, its sidecar's entries replaced by ``changes``; returns the folder."""
    npz, sidecar = model_paths("three_cushion")
    new_npz, new_sidecar = model_paths(name, str(tmp_path), noise)
    shutil.copyfile(npz, new_npz)
    with open(sidecar, encoding="utf-8") as f:
        meta = json.load(f)
    meta.update(changes)
    with open(new_sidecar, "w", encoding="utf-8") as f:
        json.dump(meta, f)
    return str(tmp_path)


def _primitives(jaxpr, found=None):
    """Names of every primitive in a jaxpr and in the jaxprs nested in its equations."""
    found = set() if found is None else found
    for eqn in jaxpr.eqns:
        found.add(eqn.primitive.name)
        for value in eqn.params.values():
            for sub in value if isinstance(value, (list, tuple)) else (value,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    _primitives(inner, found)
    return found


@pytest.mark.parametrize("discipline, target, layouts, features", [
    ("three_cushion", "score", (32768, 65536), THREE_CUSHION_FEATURES),
    ("hungarian_1000", "net_points", HUNGARIAN_LAYOUTS, HUNGARIAN_FEATURES),
])
def test_the_shipped_models_load_and_their_sidecars_match(discipline, target, layouts, features):
    assert discipline in shipped_disciplines()
    assert noise_variants(discipline) == (0.0, 1.0)
    for scale in (0.0, 1.0):
        net, meta = load_model(discipline, noise=scale)
        assert meta["discipline"] == discipline and meta["features"] == features
        assert meta["target"] == target and meta["plays_for"] == scale
        width = len(meta.get("outcomes") or [None])  # an outcome-class head: one output per class
        assert meta["sizes"][0] == FEATURE_VERSIONS[features] and meta["sizes"][-1] == width
        assert meta["training"]["layouts"] >= layouts[scale > 0] and len(meta["commands"]) >= 3
        assert all(c.startswith("python -m experiments.success_model ") for c in meta["commands"])
        assert os.path.getsize(model_paths(discipline, noise=scale)[0]) < 5 * 2 ** 20
        out = np.asarray(mlp_apply(net, jnp.zeros((2, FEATURE_VERSIONS[features]))))
        assert out.shape == (2, width) and np.all(np.isfinite(out))
        assert PolicyAgent(net, discipline, meta).features == features


def test_a_sidecar_without_a_target_is_read_as_a_success_model(tmp_path):
    folder = _copy_model(tmp_path)
    sidecar = model_paths("three_cushion", folder)[1]
    with open(sidecar, encoding="utf-8") as f:
        meta = json.load(f)
    del meta["target"]  # as sidecars were written before the Hungarian model
    with open(sidecar, "w", encoding="utf-8") as f:
        json.dump(meta, f)
    assert load_model("three_cushion", folder)[1]["target"] == "score"
    assert (target_for("three_cushion"), target_for("straight_rail"), target_for("hungarian_1000")) == (
        "score", "score", "net_points")


@pytest.mark.parametrize("changes, complaint", [
    (dict(features=5), r"features is 5, this build reads input versions \[1, 2, 3, 4\]"),
    (dict(inputs=FEATURE_VERSIONS[2]),
     f"inputs is {FEATURE_VERSIONS[2]}, this build needs {FEATURE_VERSIONS[THREE_CUSHION_FEATURES]}"),
    (dict(discipline="hungarian_1000"), "discipline is 'hungarian_1000', this build needs 'three_cushion'"),
    (dict(proposal=dict(kind="line_grid", seeds=24)), "proposal is"),
    (dict(version=99), "sidecar version 99"),
    (dict(plays_for=1.0), "plays_for is 1.0, this build needs 0.0"),
    (dict(target="net_points"), "target is 'net_points', this build needs 'score'"),
    (dict(noise_draws=16), r"noise_draws must be 0, or an even number from 2 to 64 for a model of execution noise "
                           r"\(this one plays for noise 0\); got 16"),
])
def test_a_model_made_for_other_inputs_is_refused(tmp_path, changes, complaint):
    folder = _copy_model(tmp_path, **changes)
    with pytest.raises(ValueError, match=complaint):
        load_model("three_cushion", folder)


def test_the_model_for_the_nearest_noise_is_chosen(tmp_path):
    _copy_model(tmp_path)
    folder = _copy_model(tmp_path, noise=1.0, plays_for=1.0)
    _copy_model(tmp_path, noise=2.0, plays_for=1.0)  # a sidecar that does not match its file name
    assert noise_variants("three_cushion", folder) == (0.0, 1.0, 2.0)
    assert shipped_disciplines(folder) == ("three_cushion",)
    for noise, chosen in ((0.0, 0.0), (0.4, 0.0), (0.9, 1.0), (1.0, 1.0)):
        assert load_model("three_cushion", folder, noise)[1]["plays_for"] == chosen
    with pytest.raises(ValueError, match="three_cushion_noise2.json: plays_for is 1.0, this build needs 2.0"):
        load_model("three_cushion", folder, 3.0)


def test_a_discipline_without_a_model_names_the_ones_that_have_one(tmp_path):
    folder = _copy_model(tmp_path, name="balkline_47_2", discipline="balkline_47_2")
    assert shipped_disciplines(folder) == ("balkline_47_2",)
    with pytest.raises(ValueError, match=r"'three_cushion' has no shipped policy model; disciplines with one: "
                                         r"balkline_47_2"):
        load_model("three_cushion", folder)
    assert shipped_disciplines(str(tmp_path / "none")) == ()


def test_the_policy_spec_loads_the_disciplines_model_or_says_which_have_one():
    assert parse_agent_spec("policy").kind == "policy"
    with pytest.raises(AgentSpecError, match="takes no options"):
        parse_agent_spec("policy:fast")
    agent = make_agent("policy", 1.0, discipline="three_cushion")
    assert isinstance(agent, PolicyAgent) and agent.discipline == "three_cushion" and agent.grid
    assert agent.meta["plays_for"] == 1.0 and make_agent("policy", discipline="three_cushion").meta["plays_for"] == 0
    assert agent_budget(agent) == "no simulation: 144 strikes ranked"  # 12 lines, each as it is and 11 variations
    hungarian = make_agent("policy", 1.0, discipline="hungarian_1000")
    assert hungarian.discipline == "hungarian_1000" and hungarian.target == "net_points"
    assert hungarian.meta["plays_for"] == 1.0
    with pytest.raises(AgentSpecError, match="'straight_rail' has no shipped policy model; disciplines with one: "
                                             "hungarian_1000, three_cushion"):
        make_agent("policy", discipline="straight_rail")
    with pytest.raises(AgentSpecError, match="needs the discipline"):
        make_agent("policy")


@pytest.mark.parametrize("discipline, noise", [("three_cushion", 0.0), ("hungarian_1000", 1.0)])
def test_the_policy_plays_legal_shots_without_simulating(discipline, noise):
    ruleset, params = setup(discipline)
    states = index_tree(layouts(discipline, 12, 11), slice(0, 4))  # the layouts of tests/agents/test_search.py
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    agent = PolicyAgent.for_discipline(discipline, noise, MODELS_DIR)
    shots = agent.plan_batch(ruleset, states, params, keys)
    assert np.shape(shots.V0) == (4,)
    assert_playable(shots, params)
    again = agent.plan_batch(ruleset, states, params, jax.random.split(jax.random.PRNGKey(5), 4))
    np.testing.assert_array_equal(np.asarray(shots.phi), np.asarray(again.phi))  # no random draw
    # It plays the candidate its model rates highest (what experiments.success_model's room reads).
    candidates, best = agent.candidates(ruleset, states, params, keys)
    assert np.shape(candidates.V0) == (4, 12 * 11 * len(agent.aims) + 12)  # the grid at each aim, and the lines
    top = np.argmax(np.asarray(ratings(agent.net, states, candidates, best, params, None, agent.target,
                                       agent.outcomes, agent.features)), -1)
    np.testing.assert_allclose(np.asarray(shots.phi), np.asarray(candidates.phi)[np.arange(4), top])
    # No loop in the decision: the simulation is an event loop (a while primitive); the plan is not.
    plan = jax.make_jaxpr(lambda s, k: agent.plan_batch(ruleset, s, params, k))(states, keys)
    assert not {"while", "scan"} & _primitives(plan.jaxpr)


def test_the_room_is_the_best_strike_among_the_models_k_best_by_half_the_plays():
    rating = np.array([[3.0, 2.0, 1.0], [1.0, 3.0, 2.0]])  # the model's order: 0, 1, 2 and 1, 2, 0
    values = np.zeros((2, 3, 4))
    values[0, 2] = 1.0  # layout 0: only its worst-rated strike scores, every play
    values[1, 2] = [1.0, 0.0, 1.0, 0.0]  # layout 1: its second-rated scores half its plays
    rows = choice_room(rating, values, ks=(1, 2))
    assert [r["k"] for r in rows] == [1, 2, 3]
    np.testing.assert_allclose([r["worth"] for r in rows], [0.0, 0.25, 0.75])
    np.testing.assert_allclose([r["best_of_means"] for r in rows], [0.0, 0.25, 0.75])


def test_the_room_values_a_choice_on_plays_it_was_not_chosen_by():
    rating = np.array([[2.0, 1.0]])
    values = np.array([[[0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]]])  # each strike scores in one half only
    (own, both), = [choice_room(rating, values, ks=(1,))]
    assert own["worth"] == 0.5  # the model's choice, valued on all its plays
    assert both["worth"] == 0.0  # the better of two noisy means is not inflated to 1
    assert both["best_of_means"] == 0.5  # each strike's mean over all four plays
    with pytest.raises(ValueError, match="even number of plays"):
        choice_room(rating, values[..., :3])


def test_soft_labels_are_the_fraction_of_plays_that_scored():
    values = jnp.array([[[1.0, 0.0, 2.0], [0.0, 0.0, 0.0]], [[-1.0, 3.0, 1.0], [1.0, 1.0, 1.0]]])
    np.testing.assert_allclose(scored_label(values), [[2 / 3, 0.0], [2 / 3, 1.0]], rtol=1e-6)
    hard = scored_label(values[..., :1])
    assert hard.dtype == jnp.bool_ and np.asarray(hard).tolist() == [[True, False], [False, True]]
    # the training set keeps the fractions as targets
    _, params = setup("three_cushion")
    best = np.zeros((1, 2, 4))
    best[0, 0] = (0.8, 35.0, 3.5, 0.1)
    data = dict(positions=np.asarray([[[0.9, 0.4], [2.1, 1.0], [1.6, 0.3]]]), cue=np.zeros(1, np.int32),
                shots=np.asarray([[[3.0, 37.0, 0.0, 0.2, -0.1], [2.0, -50.0, 0.0, 0.0, 0.3]]]),
                scored=np.asarray([[0.75, 0.25]], np.float32), best=best)
    X, y = success_dataset(data, params)
    assert X.shape == (2, FEATURES)
    np.testing.assert_array_equal(y, [0.75, 0.25])


def test_the_net_points_label_is_the_mean_net_points_over_a_hundred():
    # net points of three plays of each strike: a carom (H-9.2), a pin (H-9.3), carom and pin (H-9.4),
    # a foul handing the opponent the pin (H-9.7), nothing (H-9.5)
    values = jnp.array([[[10, 50, 100], [-50, 0, 0]], [[0, 0, 0], [100, 100, -100]]])
    expected = [[160 / 300, -50 / 300], [0.0, 100 / 300]]
    np.testing.assert_allclose(net_label(values), expected, rtol=1e-6)
    assert net_label(values).dtype == jnp.float32
    np.testing.assert_allclose(strike_label(values, "net_points"), expected, rtol=1e-6)
    np.testing.assert_allclose(strike_label(values, "score"), [[1.0, 0.0], [0.0, 2 / 3]], rtol=1e-6)


def test_a_net_points_model_is_rated_without_the_sigmoid():
    ruleset, params = setup("three_cushion")
    states = layouts("three_cushion", 2, 7)  # the guided search's layouts below
    best = best_lines(ruleset, states, params, 12, rolling=False)
    grid = line_grid(best, params)
    net = [(jnp.zeros((FEATURES, 1)), jnp.array([0.4]))]  # a constant output of 0.4
    np.testing.assert_allclose(ratings(net, states, grid, best, params, None, "net_points"), 0.4, rtol=1e-6)
    np.testing.assert_allclose(chances(net, states, grid, best, params, None), 1 / (1 + np.exp(-0.4)), rtol=1e-6)


def test_an_outcome_class_head_is_rated_by_the_expected_net_points_of_its_classes():
    ruleset, params = setup("three_cushion")
    states = layouts("three_cushion", 2, 7)
    best = best_lines(ruleset, states, params, 12, rolling=False)
    grid = line_grid(best, params)
    # class probabilities 1/2, 1/4, 1/4 on -50, 0 and 100 net points: an expectation of 0, though the
    # likeliest class is a foul and the best one a carom with the pin (H-9.4, H-9.7)
    net = [(jnp.zeros((FEATURES, 3)), jnp.log(jnp.array([0.5, 0.25, 0.25])))]
    rated = ratings(net, states, grid, best, params, None, "net_points", (-50.0, 0.0, 100.0))
    np.testing.assert_allclose(rated, 0.0, atol=1e-6)
    np.testing.assert_allclose(net_rating(jnp.log(jnp.array([0.2, 0.8])), "net_points", (10.0, 50.0)), 0.42,
                               rtol=1e-6)
    assert check_outcomes(None, "score") is None and check_outcomes([0, 10], "net_points") == (0.0, 10.0)
    for outcomes, target in (((0.0, 10.0), "score"), ((10.0,), "net_points"), ((10.0, 10.0), "net_points")):
        with pytest.raises(ValueError, match="an outcome-class head needs the target 'net_points' and two distinct"):
            check_outcomes(outcomes, target)
    with pytest.raises(ValueError, match="the network has 3 outputs; a 'net_points' model needs one"):
        SuccessAgent(net, grid=True, target="net_points")
    with pytest.raises(ValueError, match="needs 2, one per outcome class"):
        SuccessAgent(net, grid=True, target="net_points", outcomes=(0.0, 10.0))


def test_outcome_classes_are_the_fraction_of_plays_worth_each_and_the_loss_is_their_cross_entropy():
    # four plays of each strike: carom and pin, a foul handing over the pin, nothing, a carom (H-9.2 to H-9.7);
    # -60 (a jumped ball on a foul, H-9.8) counts in the nearest class
    values = np.array([[[100, -50, 0, 10], [0, 0, 0, -60]]], np.int16)
    fractions, off = outcome_fractions(dict(values=values), 4)
    k = {v: i for i, v in enumerate(OUTCOMES)}
    expected = np.zeros((1, 2, len(OUTCOMES)))
    for strike, plays in enumerate(values[0]):
        for v in plays:
            expected[0, strike, k[min(OUTCOMES, key=lambda c: abs(c - int(v)))]] += 0.25
    np.testing.assert_allclose(fractions, expected)
    assert off == 1 / 8
    exact, off = outcome_fractions(dict(scored=np.array([[0.5, -1.0]], np.float32)), 1)  # one play: the label
    assert exact[0, 0, k[50]] == 1 and exact[0, 1, k[-100]] == 1 and off == 0
    with pytest.raises(ValueError, match="only the mean of several plays"):
        outcome_fractions(dict(scored=np.array([[0.5]], np.float32)), 4)
    net = [(jnp.zeros((2, 3)), jnp.log(jnp.array([0.5, 0.25, 0.25])))]
    p = jnp.array([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]])
    loss = losses("net_points", "classes")(net, jnp.zeros((2, 2)), p)
    np.testing.assert_allclose(loss, (np.log(4) + 0.5 * np.log(2) + 0.5 * np.log(4)) / 2, rtol=1e-6)


def test_a_class_heads_sidecar_names_its_outcomes_and_the_policy_rates_with_them(tmp_path):
    rng = np.random.default_rng(3)
    net = [(rng.normal(size=(FEATURES, 8)).astype(np.float32), np.zeros(8, np.float32)),
           (rng.normal(size=(8, len(OUTCOMES))).astype(np.float32), np.zeros(len(OUTCOMES), np.float32))]
    folder = str(tmp_path)
    for noise in (0.0, 1.0):
        save_model(net, "hungarian_1000", folder, True, noise, target="net_points", outcomes=OUTCOMES)
    agent = PolicyAgent.for_discipline("hungarian_1000", 1.0, folder)
    assert agent.outcomes == tuple(float(v) for v in OUTCOMES) and agent.meta["sizes"][-1] == len(OUTCOMES)
    ruleset, params = setup("hungarian_1000")
    states = index_tree(layouts("hungarian_1000", 12, 11), slice(0, 4))
    best = best_lines(ruleset, states, params, 12, True)
    shots = agent.plan_batch(ruleset, states, params, jax.random.split(jax.random.PRNGKey(0), 4))
    rated = np.asarray(ratings(agent.net, states, with_lines(line_grid(best, params), best), best, params, None,
                               "net_points", agent.outcomes))
    chosen = np.asarray(shot_array(shots))
    candidates = np.asarray(shot_array(with_lines(line_grid(best, params), best)))
    for s in range(4):  # the strike played is one rated highest
        rows = np.flatnonzero(np.all(np.isclose(candidates[s], chosen[s]), -1))
        assert rows.size and np.isclose(rated[s, rows].max(), rated[s].max())
    sidecar = model_paths("hungarian_1000", folder, 1.0)[1]
    with open(sidecar, encoding="utf-8") as f:
        meta = json.load(f)
    meta["outcomes"] = [0, 10]  # two classes, but the network has seven outputs
    with open(sidecar, "w", encoding="utf-8") as f:
        json.dump(meta, f)
    with pytest.raises(ValueError, match="the network has 7 outputs; a 'net_points' model needs 2"):
        PolicyAgent.for_discipline("hungarian_1000", 1.0, folder)
    meta["outcomes"] = [0]
    with open(sidecar, "w", encoding="utf-8") as f:
        json.dump(meta, f)
    with pytest.raises(ValueError, match="hungarian_1000_noise1.json: outcomes: an outcome-class head needs"):
        load_model("hungarian_1000", folder, 1.0)


def test_the_input_scaling_folds_into_the_first_layer():
    rng = np.random.default_rng(0)
    net = [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 1)), rng.normal(size=1))]
    x, mean, std = rng.normal(size=(5, 3)) * 20, np.array([1.0, -2.0, 30.0]), np.array([0.5, 2.0, 10.0])
    folded = fold_scaling(net, mean, std)
    np.testing.assert_allclose(mlp_apply(folded, x), mlp_apply(net, (x - mean) / std), rtol=1e-4, atol=1e-4)
    back = fold_scaling(folded, mean, std, inverse=True)
    np.testing.assert_allclose(back[0][0], net[0][0], rtol=1e-5)
    np.testing.assert_allclose(back[0][1], net[0][1], rtol=1e-5, atol=1e-5)


def test_training_reads_several_folders_made_alike_and_refuses_mixed_ones(tmp_path):
    def folder(name, discipline, target, layouts, trials=1, **arrays):
        path = tmp_path / name
        path.mkdir()
        (path / "generate.json").write_text(json.dumps(dict(discipline=discipline, target=target, rolling=True,
                                                            trials=trials)))
        np.savez(path / "data.npz", cue=np.arange(layouts), scored=np.full((layouts, 2), 0.5), grid=np.asarray(True),
                 **arrays)
        return str(path)

    first = folder("a", "hungarian_1000", "net_points", 3)
    second = folder("b", "hungarian_1000", "net_points", 2, values=np.zeros((2, 2, 1), np.int16))
    data, made = load_data([first, second])
    assert made["discipline"] == "hungarian_1000" and bool(data["grid"])
    np.testing.assert_array_equal(data["cue"], [0, 1, 2, 0, 1])
    assert data["scored"].shape == (5, 2)
    assert "values" not in data  # kept only where every folder has them (data made before outcome classes lacks them)
    other = folder("c", "three_cushion", "score", 2)
    noisy = folder("d", "hungarian_1000", "net_points", 2, trials=4)
    for mixed in (other, noisy):
        with pytest.raises(ValueError, match="--data: the folders .* hold data of different kinds"):
            load_data([first, mixed])
    with pytest.raises(ValueError, match="--head classes is for models of net points .* target is 'score'"):
        success_model_main(["train", "--head", "classes", "--data", other, "--out", str(tmp_path / "out")])


def test_an_ensemble_outputs_the_mean_of_its_members():
    members = [mlp_init(jax.random.PRNGKey(k), [5, w, 3, 7]) for k, w in ((0, 4), (1, 6), (2, 4))]
    x = jax.random.normal(jax.random.PRNGKey(9), (11, 5))
    merged = ensemble(members)
    assert [np.shape(W) for W, _ in merged] == [(5, 14), (14, 9), (9, 7)]  # side by side, block-diagonal, averaged
    expected = np.mean([np.asarray(mlp_apply(m, x)) for m in members], 0)
    np.testing.assert_allclose(np.asarray(mlp_apply(merged, x)), expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"differ in \(layers, inputs, outputs\)"):
        ensemble([members[0], mlp_init(jax.random.PRNGKey(3), [5, 4, 7])])


def _hungarian_run(tmp_path, name, seed, head="classes", layouts=10, strikes=4, features=1, init=None, aims=None):
    """A run folder trained (one epoch, width 8) on random Hungarian grid data of its own, on inputs
    of version ``features``, from the run ``init`` if given; ``aims``: the data's aim offsets (its
    generate.json has none without them, as data from before them)."""
    rng = np.random.default_rng(seed)
    data = tmp_path / f"data_{name}"
    data.mkdir()
    (data / "generate.json").write_text(json.dumps(dict(
        command=f"python -m experiments.success_model generate --seed {seed}", layouts=layouts, trials=1,
        noise=0.0, rolling=True, strikes=layouts * strikes, discipline="hungarian_1000", target="net_points",
        **({} if aims is None else dict(aims=list(aims))))))
    values = rng.choice(np.asarray(OUTCOMES, np.int16), (layouts, strikes, 1))
    np.savez(data / "data.npz", positions=rng.uniform(0.2, 0.8, (layouts, 3, 2)), cue=np.zeros(layouts, np.int32),
             shots=rng.uniform(0.1, 1.0, (layouts, strikes, 5)), scored=(values[..., 0] / 100).astype(np.float32),
             best=rng.uniform(0.1, 1.0, (layouts, 12, 4)), values=values, grid=np.asarray(True))
    run = str(tmp_path / name)
    success_model_main(["train", "--head", head, "--epochs", "1", "--width", "8", "--standardize", "--seed",
                        str(seed), "--data", str(data), "--out", run, "--features", str(features)]
                       + (["--init", init] if init else []))
    return run


@pytest.mark.slow  # the quick tier's time budget
def test_merged_runs_ship_as_one_model_naming_every_members_data_and_commands(tmp_path):
    a, b = _hungarian_run(tmp_path, "a", 0), _hungarian_run(tmp_path, "b", 1)
    out, models = str(tmp_path / "merged"), str(tmp_path / "models")
    success_model_main(["merge", "--members", a, b, "--out", out])
    report = json.loads((tmp_path / "merged" / "train.json").read_text())["A"]
    assert report["members"] == [a, b] and report["head"] == "classes" and report["outcomes"] == list(OUTCOMES)
    assert len(report["members_val_top1_scored"]) == 2 and -1 <= report["val_top1_scored"] <= 1
    success_model_main(["ship", "--out", out, "--models", models])
    net, meta = load_model("hungarian_1000", models)
    assert meta["sizes"] == [FEATURES, 16, 16, 16, len(OUTCOMES)] and meta["outcomes"] == list(OUTCOMES)
    assert meta["training"]["layouts"] == 20 and len(meta["training"]["data"]) == 2
    assert [c.split()[3] for c in meta["commands"]] == ["generate", "train", "generate", "train", "merge", "ship"]
    x = jax.random.normal(jax.random.PRNGKey(0), (4, FEATURES))
    members = []
    for run in (a, b):
        with open(os.path.join(run, "nets.pkl"), "rb") as fh:
            members.append(pickle.load(fh)["success"])
    expected = np.mean([np.asarray(mlp_apply(m, x)) for m in members], 0)
    np.testing.assert_allclose(np.asarray(mlp_apply(net, x)), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.slow  # the quick tier's time budget
def test_merge_refuses_a_single_run_and_runs_of_different_kinds(tmp_path):
    a, mean = _hungarian_run(tmp_path, "a", 0), _hungarian_run(tmp_path, "m", 1, head="mean")
    with pytest.raises(ValueError, match="--members needs two run folders or more"):
        success_model_main(["merge", "--members", a, "--out", str(tmp_path / "out")])
    kinds = r"differ in \(discipline, target, head, outcomes, rolling, input version, aims\)"
    with pytest.raises(ValueError, match=kinds):
        success_model_main(["merge", "--members", a, mean, "--out", str(tmp_path / "out")])
    hits = _hungarian_run(tmp_path, "h", 2, features=2)
    with pytest.raises(ValueError, match="input version"):
        success_model_main(["merge", "--members", a, hits, "--out", str(tmp_path / "out")])


@pytest.mark.slow  # the quick tier's time budget
def test_a_model_of_the_second_inputs_ships_records_them_and_plays_on_them(tmp_path):
    run, models = _hungarian_run(tmp_path, "h", 0, features=2), str(tmp_path / "models")
    with pytest.raises(ValueError, match="that model takes inputs of version 2, this run fits version 1"):
        _hungarian_run(tmp_path, "f", 1, init=run)
    success_model_main(["ship", "--out", run, "--models", models])
    net, meta = load_model("hungarian_1000", models)
    assert meta["features"] == 2 and meta["inputs"] == FEATURE_VERSIONS[2] == meta["sizes"][0]
    agent = PolicyAgent(net, "hungarian_1000", meta)
    assert agent.features == 2
    ruleset, params = setup("hungarian_1000")
    states = index_tree(layouts("hungarian_1000", 12, 11), slice(0, 2))
    assert_playable(agent.plan_batch(ruleset, states, params, jax.random.split(jax.random.PRNGKey(0), 2)), params)
    with pytest.raises(ValueError, match="the network takes 41 inputs; input version 1 has 28"):
        SuccessAgent(net, grid=True, target="net_points", outcomes=OUTCOMES)


def test_noise_draws_come_in_antithetic_pairs_of_the_standard_size():
    _, params = setup("three_cushion")
    assert noise_draws(params, 0.0, 16) is None and noise_draws(params, 1.0, 1) is None
    draws = np.asarray(noise_draws(params, 1.0, 16))
    assert draws.shape == (16, 5)
    np.testing.assert_allclose(draws[:8], -draws[8:])
    np.testing.assert_allclose(np.asarray(noise_draws(params, 2.0, 16)), 2 * draws, rtol=1e-12)


@pytest.mark.parametrize("draws", [3, 66, True, 2.0])
def test_a_noise_model_with_an_odd_or_out_of_range_number_of_noise_draws_is_refused(tmp_path, draws):
    folder = _copy_model(tmp_path, noise=1.0, plays_for=1.0, noise_draws=draws)
    _copy_model(tmp_path)
    with pytest.raises(ValueError, match=f"three_cushion_noise1.json: noise_draws must be 0, or an even number from "
                                         f"2 to 64 .*; got {draws!r}"):
        load_model("three_cushion", folder, 1.0)
    net, _ = load_model("three_cushion", folder)
    before = {f: os.path.getmtime(os.path.join(folder, f)) for f in os.listdir(folder)}
    with pytest.raises(ValueError, match="noise_draws must be 0"):
        save_model(net, "three_cushion", str(tmp_path / "new"), False, 1.0, noise_draws=draws)
    assert not (tmp_path / "new").exists()  # refused before anything is written
    assert {f: os.path.getmtime(os.path.join(folder, f)) for f in os.listdir(folder)} == before


def test_a_model_shipped_with_noise_draws_averages_its_ratings_over_them(tmp_path):
    net, meta = load_model("three_cushion")
    folder, features = str(tmp_path), meta["features"]
    save_model(net, "three_cushion", folder, False, features=features)
    save_model(net, "three_cushion", folder, False, 1.0, features=features, noise_draws=8)
    agent = PolicyAgent.for_discipline("three_cushion", 1.0, folder)
    assert agent.meta["noise_draws"] == 8 and (agent.noise, agent.samples) == (1.0, 8)
    assert agent.budget().endswith("x 8 noise draws")
    assert "noise_draws" not in PolicyAgent.for_discipline("three_cushion", 0.0, folder).meta  # none: not written
    ruleset, params = setup("three_cushion")
    states = index_tree(layouts("three_cushion", 12, 11), slice(0, 4))
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    shots = agent.plan_batch(ruleset, states, params, keys)
    candidates, best = agent.candidates(ruleset, states, params, keys)
    rated = np.asarray(ratings(net, states, candidates, best, params, noise_draws(params, 1.0, 8), features=features))
    np.testing.assert_allclose(np.asarray(shots.phi), np.asarray(candidates.phi)[np.arange(4), rated.argmax(-1)])
    plain = np.asarray(ratings(net, states, candidates, best, params, None, features=features))
    assert not np.allclose(rated, plain)  # the draws change the ratings


# --- the guided search -------------------------------------------------------------------------

def test_the_guided_budget_splits_into_the_searchs_rounds():
    cfg = guided_config(1024, 1.0)  # under noise: a half screened, a quarter to each round
    assert (cfg.screen, cfg.candidates, cfg.trials, cfg.refine_parents, cfg.refine_children,
            cfg.round2_trials) == (512, 32, 8, 4, 8, 8)
    assert cfg.budget == 1024 and cfg.noise == 1.0
    full, search = guided_config(8192, 1.0), SearchAgent.for_noise().config
    assert full.budget == search.budget == 8192
    assert full.describe() == "4096 + 256 x 8 + 16 x 16 x 8 = 8192 simulated shots"
    exact = guided_config(256, 0.0)
    assert (exact.candidates, exact.trials, exact.refine_parents, exact.refine_children) == (128, 1, 16, 8)
    assert all(guided_config(n, 1.0).budget == n for n in BUDGETS)
    for bad in (1000, 128, 2 ** 17, 1024.0, True):
        with pytest.raises(ValueError, match=r"shots must be a power of two from 256 to 65536 \(256, 512, "):
            guided_config(bad, 1.0)


def test_the_guided_spec_takes_a_budget_it_can_split_and_the_disciplines_model():
    assert parse_agent_spec("guided:shots=8192,explore=0.5").kind == "guided"
    with pytest.raises(AgentSpecError, match="shots=1000 cannot be split into the search's rounds; allowed: "
                                             "256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536"):
        parse_agent_spec("guided:shots=1000")
    with pytest.raises(AgentSpecError, match="unknown guided option 'trials'; valid: shots, explore"):
        parse_agent_spec("guided:trials=4")
    agent = make_agent("guided", 1.0, discipline="three_cushion")
    assert isinstance(agent, GuidedAgent) and agent.meta["plays_for"] == 1.0 and not agent.rolling
    assert agent_budget(agent) == ("132 strikes rated, 132 + 380 explored: "
                                   "512 + 32 x 8 + 4 x 8 x 8 = 1024 simulated shots")
    wide = make_agent("guided:shots=8192,explore=0.5,position_weight=0.2", 1.0, discipline="three_cushion")
    assert wide.config.budget == 8192 and wide.split() == (132, 3964) and wide.config.position_weight == 0.2
    assert make_agent("guided:shots=256", discipline="three_cushion").config.trials == 1  # exact play
    with pytest.raises(AgentSpecError, match="explore must be in"):
        make_agent("guided:explore=2", 1.0, discipline="three_cushion")
    with pytest.raises(AgentSpecError, match="'straight_rail' has no shipped policy model; disciplines with one: "
                                             "hungarian_1000, three_cushion"):
        make_agent("guided", 1.0, discipline="straight_rail")
    with pytest.raises(AgentSpecError, match="needs the discipline"):
        make_agent("guided", 1.0)
    with pytest.raises(TypeError, match="use GuidedAgent.for_discipline"):
        GuidedAgent.for_noise(1.0)


def _guided(explore):
    """The noise model guiding the small noisy search of the neighbouring tests (2 states: the
    same compiled simulation)."""
    net, meta = load_model("three_cushion", noise=1.0)
    return GuidedAgent(net, SMALL_NOISY, explore, meta["proposal"]["rolling"], "three_cushion", meta)


def test_the_guided_search_plays_legal_shots_deterministically_per_key():
    ruleset, params = setup("three_cushion")
    states = layouts("three_cushion", 2, 7)
    keys = jax.random.split(jax.random.PRNGKey(8), 2)
    agent = _guided(0.25)
    assert agent.split() == (12, 4)
    shots = agent.plan_batch(ruleset, states, params, keys)
    assert np.shape(shots.V0) == (2,)
    assert_playable(shots, params)
    again = agent.plan_batch(ruleset, states, params, keys)
    np.testing.assert_array_equal(np.asarray(shot_array(shots)), np.asarray(shot_array(again)))
    proposed = [np.asarray(shot_array(agent.propose(ruleset, states, params, k))) for k in (keys, keys[::-1])]
    np.testing.assert_array_equal(proposed[0][:, :12], proposed[1][:, :12])  # the grid part: no random draw
    assert not np.array_equal(proposed[0][:, 12:], proposed[1][:, 12:])  # the exploring part: the key's


def test_without_exploration_every_candidate_is_a_grid_strike_the_model_rates_highest():
    ruleset, params = setup("three_cushion")
    states = layouts("three_cushion", 2, 7)
    agent = _guided(0.0)
    assert agent.split() == (16, 0)
    keys = jax.random.split(jax.random.PRNGKey(1), 2)
    candidates = np.asarray(shot_array(agent.propose(ruleset, states, params, keys)))
    best = best_lines(ruleset, states, params, 12, rolling=False)
    grid = line_grid(best, params)
    rated = np.asarray(ratings(agent.net, states, grid, best, params, None, features=agent.features))
    strikes = np.asarray(shot_array(grid))  # (2, 132, 5)
    assert strikes.shape == (2, 132, 5)
    for s in range(2):
        rows = [int(np.flatnonzero(np.all(strikes[s] == c, -1))[0]) for c in candidates[s]]  # each is a grid strike
        np.testing.assert_array_equal(rated[s, rows], np.sort(rated[s])[::-1][:16])  # the 16 rated highest, best first


AIMED = (0.0, -0.5, 0.5, -1.0, 1.0)


def test_the_aimed_grid_plays_every_strike_at_each_aim_offset_in_turn():
    rng = np.random.default_rng(4)
    shots = physics.Shot(*(jnp.asarray(rng.uniform(0.1, 1.0, (2, 3))) for _ in range(5)))
    out = aimed(shots, AIMED)
    assert np.shape(out.phi) == (2, 15)
    phi = np.asarray(out.phi).reshape(2, 3, 5)
    np.testing.assert_allclose(phi - np.asarray(shots.phi)[..., None], np.broadcast_to(AIMED, (2, 3, 5)), atol=1e-12)
    for field in ("V0", "theta", "a", "b"):  # everything but the aim as the strike it varies
        np.testing.assert_array_equal(np.asarray(getattr(out, field)).reshape(2, 3, 5),
                                      np.repeat(np.asarray(getattr(shots, field))[..., None], 5, -1))
    assert aimed(shots, AIMS) is shots  # the lines' own aim: the grid as it was


def test_aim_jitter_moves_each_strike_by_one_offset_drawn_per_key():
    shots = physics.Shot(V0=jnp.full((64, 132), 2.0), phi=jnp.full((64, 132), 30.0), theta=jnp.zeros((64, 132)),
                         a=jnp.zeros((64, 132)), b=jnp.zeros((64, 132)))
    key = jax.random.PRNGKey(5)
    moved = np.asarray(aim_jitter(shots, AIMED, key).phi) - 30.0
    assert set(np.round(moved, 9).ravel()) == set(AIMED)  # every offset drawn, nothing else
    counts = np.array([np.isclose(moved, a).mean() for a in AIMED])
    np.testing.assert_allclose(counts, 0.2, atol=0.02)  # uniformly (8,448 draws: sd 0.004)
    np.testing.assert_array_equal(np.asarray(aim_jitter(shots, AIMED, key).phi), moved + 30.0)
    assert not np.array_equal(np.asarray(aim_jitter(shots, AIMED, jax.random.PRNGKey(6)).phi), moved + 30.0)
    np.testing.assert_array_equal(np.asarray(aim_jitter(shots, AIMED, key).V0), 2.0)


@pytest.mark.parametrize("aims", [(0.5, -0.5), (0.0, 0.5, 0.5), (0.0, float("nan")), (0.0, 12.0), ()])
def test_aim_offsets_without_zero_repeated_or_out_of_range_are_refused(aims):
    with pytest.raises(ValueError, match="aims: distinct aim offsets in degrees within \\+-10, 0 among them"):
        check_aims(aims)


def test_an_aimed_model_ships_its_offsets_and_ranks_the_aimed_grid(tmp_path):
    run, models = _hungarian_run(tmp_path, "aimed", 0, aims=AIMED), str(tmp_path / "models")
    assert json.loads((tmp_path / "aimed" / "train.json").read_text())["A"]["aims"] == list(AIMED)
    plain = _hungarian_run(tmp_path, "plain", 2)
    _hungarian_run(tmp_path, "tuned", 1, init=plain, aims=AIMED)  # a plain model fine-tuned on aimed data ranks
    assert json.loads((tmp_path / "tuned" / "train.json").read_text())["A"]["aims"] == list(AIMED)  # as its data
    with pytest.raises(ValueError, match="aims"):
        success_model_main(["merge", "--members", run, plain, "--out", str(tmp_path / "merged")])
    success_model_main(["ship", "--out", run, "--models", models])
    net, meta = load_model("hungarian_1000", models)
    assert meta["proposal"]["aims"] == list(AIMED)
    agent = PolicyAgent(net, "hungarian_1000", meta)
    assert agent.aims == AIMED and agent.budget() == f"no simulation: {12 * (11 * 5 + 1)} strikes ranked"
    ruleset, params = setup("hungarian_1000")
    states = index_tree(layouts("hungarian_1000", 12, 11), slice(0, 2))
    keys = jax.random.split(jax.random.PRNGKey(0), 2)
    candidates, best = agent.candidates(ruleset, states, params, keys)
    expected = with_lines(aimed(line_grid(best, params), AIMED), best)
    np.testing.assert_array_equal(np.asarray(shot_array(candidates)), np.asarray(shot_array(expected)))
    assert_playable(agent.plan_batch(ruleset, states, params, keys), params)
    npz, sidecar = model_paths("hungarian_1000", models)
    meta["proposal"]["aims"] = [0.5]
    with open(sidecar, "w", encoding="utf-8") as f:
        json.dump(meta, f)
    with pytest.raises(ValueError, match="hungarian_1000.json: proposal aims: aims: distinct aim offsets"):
        load_model("hungarian_1000", models)


def test_the_aims_option_of_generate_is_checked_before_any_work():
    with pytest.raises(SystemExit):
        success_model_main(["generate", "--grid", "--aims", "0.5,1", "--layouts", "1"])
