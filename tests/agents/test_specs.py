"""Agent specs that name a plug-in planner (``plugin:MODULE.CLASS``) or a player's own execution
noise (``SPEC@NOISE``): parsed, built, and refused with a message naming what is wrong. No JAX
compilation: the planners are made, not called."""
from __future__ import annotations

import pytest

from agents import NOISE_PROFILES, GeometricAgent, SearchAgent
from agents.arena import make_player
from agents.plugin_example import NearestBall
from agents.specs import AGENT_KINDS, SPEC_HELP, AgentSpecError, make_agent, parse_agent_spec, split_noise
from tests.support import plugin_agents

EXAMPLE = "plugin:agents.plugin_example.NearestBall"
SUPPORT = "plugin:tests.support.plugin_agents."


@pytest.mark.parametrize("text, body, noise", [
    ("search@club", "search", NOISE_PROFILES["club"]),
    ("geometric@0.5", "geometric", 0.5),
    ("search:candidates=64@beginner", "search:candidates=64", 14.0),
    ("random@exact", "random", 0.0),
    ("random", "random", None),
    ("learned:runs/a@b/model.npz", "learned:runs/a@b/model.npz", None),  # a path's own @ is no noise
    ("learned:runs/a@b/model.npz@2", "learned:runs/a@b/model.npz", 2.0),
])
def test_a_spec_may_end_in_its_players_noise(text, body, noise):
    assert split_noise(text) == (body, noise)
    spec = parse_agent_spec(f" {text} ")
    assert (spec.text, spec.noise) == (text, noise)  # the label is the whole text


@pytest.mark.parametrize("text", ["search@clubb", "geometric@-1", "search@", "random@nan"])
def test_a_bad_players_noise_names_the_profiles(text):
    with pytest.raises(AgentSpecError, match="bad player noise.*club, beginner"):
        parse_agent_spec(text)


def test_the_players_noise_replaces_the_evaluations_for_planning_and_play():
    assert make_agent("search@club", 0.0).config == SearchAgent.for_noise(NOISE_PROFILES["club"]).config
    assert make_agent("search@exact", 1.0).config == SearchAgent().config
    player = make_player("geometric@master", 1.0, batch=8)
    assert (player.label, player.noise) == ("geometric@master", NOISE_PROFILES["master"])
    assert isinstance(player.agent, GeometricAgent) and make_player("geometric", 1.0, batch=8).noise is None


def test_the_shipped_example_is_a_plugin():
    spec = parse_agent_spec(EXAMPLE + "@club")
    assert (spec.kind, spec.options, spec.noise) == ("plugin", "agents.plugin_example.NearestBall", 4.9)
    agent = make_agent(spec)
    assert isinstance(agent, NearestBall) and agent.speed == 3.0
    assert "plugin" in AGENT_KINDS and "plugin:MODULE.CLASS" in SPEC_HELP and "@NOISE" in SPEC_HELP
    assert make_player(EXAMPLE, 1.0, batch=8).chunk == 8  # planned a whole batch at a time


def test_a_plugin_that_takes_noise_gets_the_players():
    assert make_agent(SUPPORT + "NoisyNearestBall", 1.0).noise == 1.0
    assert make_agent(SUPPORT + "NoisyNearestBall@club", 1.0).noise == 4.9
    assert isinstance(make_agent(SUPPORT + "NoisyNearestBall"), plugin_agents.NoisyNearestBall)


@pytest.mark.parametrize("name, words", [
    ("", "plugin:MODULE.CLASS"),
    ("NearestBall", "plugin:MODULE.CLASS"),
    ("no_such_package.agents.Mine", "module 'no_such_package.agents' cannot be imported"),
    ("agents.plugin_example.Nearest", "has no 'Nearest'"),
    ("tests.support.plugin_agents.NOT_A_CLASS", "has no class 'NOT_A_CLASS'"),
    ("tests.support.plugin_agents.NoPlanBatch", r"no method plan_batch\(ruleset, states, params, keys\)"),
    ("tests.support.plugin_agents.InheritsOnly", "no method plan_batch"),
])
def test_a_bad_plugin_is_refused_when_parsed(name, words):
    with pytest.raises(AgentSpecError, match=words):
        parse_agent_spec("plugin:" + name)


@pytest.mark.parametrize("name, words", [
    ("NeedsArguments", "must be made with no arguments.*speed"),
    ("ShortPlanBatch", r"plan_batch must take \(ruleset, states, params, keys\)"),
])
def test_a_plugin_that_cannot_be_made_or_called_is_refused_when_built(name, words):
    parse_agent_spec(SUPPORT + name)  # the class exists and has a plan_batch
    with pytest.raises(AgentSpecError, match=words):
        make_agent(SUPPORT + name)
