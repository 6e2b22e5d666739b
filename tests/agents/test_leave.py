"""The leave value (``agents.leave``): its features, the search's use of it, its files and the
``leave=value`` spec option; the fitted value iteration's targets (``experiments.leave_value``)."""
from __future__ import annotations

import dataclasses
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents import SearchAgent
from agents.guided import GuidedAgent
from agents.states import state_from_layout
from agents.leave import (
    FEATURES, FEATURES_VERSION, LeaveValue, load_value, model_paths, save_value, shipped, state_features,
)
from agents.store import shipped_disciplines
from agents.search import play_candidates
from agents.specs import AgentSpecError, make_agent, parse_agent_spec
from experiments.leave_value import _targets
from physics.pytree import replace
from tests.support.agents import SMALL_NOISY, layouts, setup


def _constant(value: float):
    """A one-layer value net that says ``value`` for every state."""
    return [(np.zeros((FEATURES, 1), np.float32), np.full((1,), value, np.float32))]


def test_the_features_are_the_same_for_mirrored_layouts_and_read_the_runs_counters():
    ruleset, params = setup("balkline_47_2")
    centre = np.asarray(params.table.centre)
    layout = np.array([[0.9, 0.4], [1.7, 1.1], [2.3, 0.3]])
    base = state_features(ruleset, state_from_layout(ruleset, layout, params), params)
    assert base.shape == (FEATURES,)
    for flip in ((-1, 1), (1, -1), (-1, -1)):  # the table's mirror symmetries (docs/physics.md section 7)
        mirrored = centre + (layout - centre) * np.array(flip)
        np.testing.assert_allclose(state_features(ruleset, state_from_layout(ruleset, mirrored, params), params), base,
                                   atol=1e-6)
    np.testing.assert_array_equal(base[12:], 0.0)  # a fresh inning: nothing counted
    state = replace(state_from_layout(ruleset, layout, params), field_zone=jnp.asarray(3, jnp.int32),
                    field_count=jnp.asarray(1, jnp.int32), pure_caroms=jnp.asarray(1, jnp.int32))
    counted = np.asarray(state_features(ruleset, state, params))
    limit = int(ruleset.field_limit)  # 47/2: two caroms in a field (C-12.3)
    np.testing.assert_allclose(counted[12:], [0.5, 1.0, 1.0 / limit, 0.0, 0.0])
    np.testing.assert_array_equal(counted[:12], base[:12])


def test_the_search_adds_the_value_of_the_layout_left_when_the_shooter_plays_on():
    ruleset, params = setup("three_cushion")
    states = layouts("three_cushion", 2, 7)
    keys = jax.random.split(jax.random.PRNGKey(3), 2)
    agent = SearchAgent(SMALL_NOISY)
    shots = agent.propose(ruleset, states, params, keys)
    plain = np.asarray(play_candidates(ruleset, states, params, shots, keys, 4, SMALL_NOISY))
    valued = np.asarray(play_candidates(ruleset, states, params, shots, keys, 4, SMALL_NOISY, _constant(2.5)))
    scored = plain > 0  # three-cushion: a point keeps the turn (C-9.1), and no game ends at 1 point
    assert 0 < scored.sum() < scored.size
    np.testing.assert_allclose(valued - plain, np.where(scored, 2.5, 0.0), atol=1e-6)
    # defensive play: a miss hands the opponent the layout, worth the leave value to him
    safe = dataclasses.replace(SMALL_NOISY, safety=0.5)
    guarded = np.asarray(play_candidates(ruleset, states, params, shots, keys, 4, safe, _constant(2.5)))
    np.testing.assert_allclose(guarded - plain, np.where(scored, 2.5, -0.5 * 2.5), atol=1e-6)


def test_safety_play_needs_a_leave_value_and_a_weight_of_zero_or_more():
    with pytest.raises(ValueError, match="leave value"):
        SearchAgent(SMALL_NOISY, safety=1.0)
    with pytest.raises(ValueError, match="safety must be >= 0"):
        dataclasses.replace(SMALL_NOISY, safety=-1.0)
    assert SearchAgent(SMALL_NOISY, leave=LeaveValue(_constant(1.0), "three_cushion"), safety=1.0).config.safety == 1.0
    guarded = make_agent("search:safety=1", noise=1.0, discipline="three_cushion")  # the spec loads the value
    assert guarded.config.safety == 1.0 and guarded.leave.discipline == "three_cushion"


def test_a_saved_value_loads_for_the_nearest_noise_and_other_inputs_are_refused(tmp_path):
    net = _constant(1.25)
    save_value(net, "balkline_47_2", str(tmp_path), 1.0, command="python -m experiments.leave_value")
    save_value(net, "balkline_47_2", str(tmp_path), 0.0)
    assert shipped(str(tmp_path)) == {"balkline_47_2": (0.0, 1.0)}
    loaded, meta = load_value("balkline_47_2", str(tmp_path), noise=0.8)
    assert meta["plays_for"] == 1.0 and meta["features"] == FEATURES_VERSION and meta["sizes"] == [FEATURES, 1]
    np.testing.assert_array_equal(loaded[0][1], [1.25])
    with pytest.raises(ValueError, match="'three_cushion' has no shipped leave value; disciplines with one: "
                                         "balkline_47_2"):
        load_value("three_cushion", str(tmp_path))
    assert shipped_disciplines(str(tmp_path)) == ()  # leave values are not policies
    _, sidecar = model_paths("balkline_47_2", str(tmp_path), 1.0)
    meta["features"] = FEATURES_VERSION + 1
    with open(sidecar, "w", encoding="utf-8") as f:
        json.dump(meta, f)
    with pytest.raises(ValueError, match="features is 2, this build needs 1 .retrain with experiments.leave_value"):
        load_value("balkline_47_2", str(tmp_path), noise=1.0)


def test_the_leave_spec_option_loads_the_disciplines_value_or_says_what_is_allowed():
    assert parse_agent_spec("search:leave=value,candidates=64").kind == "search"
    with pytest.raises(AgentSpecError, match="leave must be one of value, none .* got 'maybe'"):
        parse_agent_spec("search:leave=maybe")
    with pytest.raises(AgentSpecError, match="unknown search option 'leaves'"):
        parse_agent_spec("search:leaves=value")
    agent = make_agent("search:leave=value,candidates=64", 1.0, discipline="three_cushion")
    assert isinstance(agent.leave, LeaveValue) and agent.leave.discipline == "three_cushion"
    assert agent.config.candidates == 64 and agent.discipline == "three_cushion"
    assert make_agent("search:leave=none", 1.0, discipline="three_cushion").leave is None
    guided = make_agent("guided:leave=value", 1.0, discipline="three_cushion")
    assert isinstance(guided, GuidedAgent) and guided.leave.discipline == "three_cushion"
    with pytest.raises(AgentSpecError, match="'hungarian_1000' has no shipped leave value; disciplines with one: "):
        make_agent("search:leave=value", 1.0, discipline="hungarian_1000")
    with pytest.raises(AgentSpecError, match="needs the discipline"):
        make_agent("search:leave=value", 1.0)


def test_value_iteration_targets_take_the_double_estimated_best_candidate():
    # One state, two candidates, four plays: candidate 0 scores 1 on its first half of plays and
    # 0 on the second; candidate 1 scores 0 then 1. The double estimator picks on one half and
    # values on the other: (0 + 0) / 2 = 0, where the plain max of means would say 0.5 or 1.
    points = jnp.asarray([[[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]])
    on = points > 0
    nxt = jnp.zeros((1, 2, 4, FEATURES))
    np.testing.assert_allclose(_targets(_constant(0.0), points, on, nxt), [0.0])
    # Both candidates score on every play: the value of the layout left is added to each.
    full = jnp.ones((1, 2, 4))
    np.testing.assert_allclose(_targets(_constant(3.0), full, full > 0, nxt), [4.0])
    # A candidate that scores half the time everywhere: points 0.5 + 0.5 * V.
    half = jnp.asarray([[[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]]])
    np.testing.assert_allclose(_targets(_constant(2.0), half, half > 0, nxt), [1.5])


@pytest.mark.slow
def test_the_training_command_writes_its_data_report_and_curve(tmp_path):
    from experiments import leave_value

    argv = ["--discipline", "balkline_47_2", "--states", "16", "--candidates", "16", "--trials", "2", "--top", "4",
            "--screen", "32", "--iterations", "2", "--epochs", "2", "--out", str(tmp_path), "--no-progress"]
    leave_value.main(argv)
    for name in ("data.npz", "net.npz", "fit.json", "curve.png"):
        assert (tmp_path / name).stat().st_size > 0, name
    with np.load(tmp_path / "data.npz") as data:
        assert data["x"].shape == (16, FEATURES) and data["points"].shape == (16, 4, 2)
        assert data["next"].shape == (16, 4, 2, FEATURES)
        np.testing.assert_array_equal(data["on"], data["points"] > 0)  # balkline: a point keeps the turn
    report = json.loads((tmp_path / "fit.json").read_text())
    first, second = report["history"]
    assert 0.0 <= first["mean_target"] <= 1.0  # V_0 = 0: the best candidate's share of scoring plays
    assert second["iteration"] == 2 and np.isfinite(second["heldout_mse"])
    assert report["data_config"] == "32 + 16 x 2 = 64 simulated shots"  # the screen's 32, then 16 played twice
    for bad, words in ((["--trials", "3"], "--trials must be even"), (["--top", "17"], "--top must be in"),
                       (["--screen", "8"], "--screen must be 0 or at least --candidates")):
        with pytest.raises(SystemExit, match=words):
            leave_value.main(argv + bad)
