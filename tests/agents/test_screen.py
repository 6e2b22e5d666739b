"""The exact screen of a search under noise (``agents.screen``, ``agents.search.screened``): the cut
of a hit against answers known from geometry, the carom margin read from an event log, and the
screen's order."""
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import physics
from agents.screen import CAROM_TIME_SCALE, carom_margin, contact_cuts, screen_keys
from agents.search import SearchAgent, SearchConfig, play_candidates, screened
from physics.events import EventKind, EventLog
from tests.support.agents import layouts, setup

R = float(physics.default_params().ball.radius)  # the match table's balls (m)


def _straight_shot(offset):
    """The cue ball (ball 0) sent along +x at ball 1, whose centre lies ``offset`` off its path;
    ball 2 far away."""
    params = physics.default_params()
    positions = np.array([[0.5, 0.7], [1.0, 0.7 + offset], [2.5, 1.2]])
    return physics.simulate(positions, physics.Shot(V0=1.5, phi=0.0), 0, params)


SIN60 = np.sin(np.radians(60))


@pytest.mark.parametrize("offset, cut", [(0.0, 0.0), (R, 0.5), (2 * R * SIN60, SIN60)])
def test_the_cut_of_a_hit_is_the_sine_of_the_angle_between_path_and_line_of_centres(offset, cut):
    """A ball struck in the centre runs straight: its centre meets the object ball's when their
    distance is 2R, so a centre ``offset`` off the path makes sin(angle) = offset / 2R."""
    result = _straight_shot(offset)
    h1, h2, t2, reached = contact_cuts(result, 0)
    assert h1 == pytest.approx(cut, abs=1e-6)
    assert not reached and carom_margin(result, 0) == 0.0  # ball 2 is never hit


def _log_result(events, n_events):
    """A ShotResult of one shot whose log holds ``events``: (kind, time, balls, positions, velocities)."""
    params = physics.default_params()
    base = physics.simulate(np.array([[0.5, 0.7], [1.0, 1.0], [2.0, 0.4]]), physics.Shot(V0=0.0, phi=0.0), 0, params)
    log = EventLog.empty(base.events.capacity, 3, params.dtype)
    arrays = {f.name: np.array(getattr(log, f.name)) for f in dataclasses.fields(log)}
    for k, (kind, t, balls, positions, velocities) in enumerate(events, start=1):
        arrays["kind"][k], arrays["time"][k], arrays["balls"][k] = kind, t, balls
        arrays["positions"][k], arrays["velocities"][k] = positions, velocities
    return dataclasses.replace(base, events=EventLog(**{k: jnp.asarray(v) for k, v in arrays.items()}),
                               num_events=jnp.asarray(n_events, jnp.int32))


def _hit(cue, other, angle, t, speed=2.0):
    """A BALL_BALL event of ``cue`` (moving along +x at ``speed`` before) with ``other`` whose
    centre lies at ``angle`` degrees from the path; outgoing velocities summing to the incoming."""
    positions = np.zeros((3, 2))
    positions[cue] = [1.0, 0.7]
    positions[other] = positions[cue] + 2 * R * np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    velocities = np.zeros((3, 2))
    velocities[cue], velocities[other] = [0.4 * speed, -0.3 * speed], [0.6 * speed, 0.3 * speed]
    return (EventKind.BALL_BALL, t, (cue, other), positions, velocities)


def test_the_carom_margin_counts_the_second_hit_fully_the_first_by_half_and_the_time_of_the_carom():
    cushion = (EventKind.BALL_CUSHION, 1.0, (0, -1), np.zeros((3, 2)), np.zeros((3, 2)))
    # Ball 2 hit again before ball 1: not the carom.
    events = [_hit(0, 2, 30.0, 0.5), cushion, _hit(0, 2, 80.0, 1.5), _hit(1, 0, 60.0, 2.0)]
    result = _log_result(events, 5)
    h1, h2, t2, reached = contact_cuts(result, 0)
    assert reached and (h1, h2, t2) == pytest.approx((0.5, SIN60, 2.0), abs=1e-12)
    expected = (1 - SIN60) * (1 - 0.25) / (1 + 2.0 / CAROM_TIME_SCALE)
    assert carom_margin(result, 0) == pytest.approx(expected, abs=1e-12)
    # Events past the log's count are not read: the carom is gone.
    assert carom_margin(_log_result(events, 4), 0) == 0.0
    # Hits between the object balls are not the cue ball's.
    assert not contact_cuts(_log_result([_hit(1, 2, 0.0, 0.5), _hit(0, 1, 0.0, 1.0)], 3), 0)[3]


def test_screen_keys_put_the_strikes_that_score_first_those_hardest_to_miss_first():
    full = _log_result([_hit(0, 1, 0.0, 0.5), _hit(0, 2, 0.0, 1.0)], 3)
    thin = _log_result([_hit(0, 1, 0.0, 0.5), _hit(0, 2, 70.0, 1.0)], 3)
    results = jax.tree_util.tree_map(lambda *x: jnp.stack(x), full, thin, full, thin)
    keys = np.asarray(screen_keys(jnp.asarray([1.0, 1.0, 0.0, -10.0]), results, jnp.zeros(4, jnp.int32)))
    assert keys[0] > keys[1] > keys[2] > keys[3]
    assert keys[2] == 0.0 and keys[3] == -10.0  # what does not score keeps its value
    assert 0.5 <= keys[1] and keys[0] <= 1.0


def test_a_screen_needs_noise_and_at_least_its_candidates_and_counts_in_the_budget():
    cfg = SearchConfig(candidates=32, trials=8, noise=1.0, refine_parents=4, refine_children=8, screen=512)
    assert cfg.budget == 1024 and cfg.proposed == 512
    assert cfg.describe() == "512 + 32 x 8 + 4 x 8 x 8 = 1024 simulated shots"
    for bad in (dict(screen=16), dict(screen=512, noise=0.0, trials=1, refine_trials=1)):
        with pytest.raises(ValueError, match="screen must be 0 or, under noise, at least candidates"):
            dataclasses.replace(cfg, **bad)


def test_the_screen_keeps_the_strikes_that_score_as_aimed_hardest_to_miss_first():
    ruleset, params = setup("three_cushion")
    states = layouts("three_cushion", 2, 7)
    cfg = SearchConfig(candidates=8, seeds=8, trials=4, noise=1.0, refine_parents=0, screen=64)
    agent = SearchAgent(cfg)
    proposed = agent.propose(ruleset, states, params, jax.random.split(jax.random.PRNGKey(3), 2))
    assert proposed.V0.shape == (2, 64)
    kept = screened(ruleset, states, params, proposed, cfg)
    exact = dataclasses.replace(cfg, noise=0.0, trials=1, screen=0)
    keys = jnp.zeros((2, 2), jnp.uint32)
    all_values = np.asarray(play_candidates(ruleset, states, params, proposed, keys, 1, exact))[..., 0]
    kept_values = np.asarray(play_candidates(ruleset, states, params, kept, keys, 1, exact))[..., 0]
    for s in range(2):
        scorers = int(np.sum(all_values[s] > 0))
        assert scorers > 0  # these layouts have strikes that score as aimed
        assert np.sum(kept_values[s] > 0) == min(8, scorers)
        assert np.all(np.diff((kept_values[s] > 0).astype(int)) <= 0)  # scorers first


def test_the_search_under_noise_screens_by_default_and_the_spec_turns_it_off():
    from agents.specs import make_agent

    agent = make_agent("search", 1.0)
    assert agent.config == SearchAgent.for_noise(1.0).config
    assert agent.config.describe() == "4096 + 256 x 8 + 16 x 16 x 8 = 8192 simulated shots"
    earlier = make_agent("search:screen=0,candidates=512,refine_children=32", 1.0)  # the split before the screen
    assert earlier.config.describe() == "512 x 8 + 16 x 32 x 8 = 8192 simulated shots"
    assert make_agent("search", 0.0).config.screen == 0  # exact play has nothing to screen
