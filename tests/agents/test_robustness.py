"""Success maps, shot robustness and sensitivity, choosing and valuing on separate draws, margins
under noise (agents.robustness, experiments.shot_map)."""
import dataclasses

import jax
import numpy as np
import pytest

import agents
import physics
from agents import ExecutionNoise, execute, shooter_points
from agents import robustness as rb
from billiards_env import setup

BATCH = 64  # the agents' and environments' batch: its simulation and referee are compiled already
KEY = jax.random.PRNGKey(4)


@pytest.fixture(scope="module")
def table():
    ruleset, params = setup("three_cushion")
    return ruleset, params, agents.random_state(ruleset, jax.random.PRNGKey(3), params)


@pytest.fixture(scope="module")
def exact_map(table):
    ruleset, params, state = table
    return rb.success_map(ruleset, state, params, KEY, np.linspace(-180, 180, 24, endpoint=False), [2.5, 4.0, 5.5, 7.0],
                          noise=ExecutionNoise(0.0), trials=1, batch=BATCH)


def _direct(game, state, params, shots, keys, scale):
    """Each shot played once through agents.execute with its own key: (scored, points)."""
    n = len(np.asarray(shots.V0))
    states = agents.base.repeat_state(state, n)
    _, _, out, _ = execute(game, states, shots, params, key=keys, noise=ExecutionNoise(scale), pad_to=BATCH)
    return np.asarray(out.shot_value) > 0, np.asarray(shooter_points(out, states.current_player))


def test_an_exact_map_is_each_cell_played_once(table, exact_map):
    game, params, state = table
    m = exact_map
    assert m.success.shape == (24, 4) and set(np.unique(m.success)) <= {0.0, 1.0}
    assert 0 < m.success.sum() < m.success.size  # some cells score, some do not
    cells = [(i, j) for i in range(24) for j in range(4)]
    shots = physics.Shot(**{f: np.array([float(np.asarray(getattr(m.shot(i, j), f))) for i, j in cells])
                            for f in rb.FIELDS})
    scored, points = _direct(game, state, params, shots, jax.random.split(KEY, len(cells)), 0.0)
    np.testing.assert_array_equal(scored, m.success.ravel() > 0)
    np.testing.assert_array_equal(points, m.points.ravel())


def test_noisy_trials_share_their_draws_across_shots(table):
    # trial t of every shot uses the t-th noise draw: the same plays as execute with those keys
    ruleset, params, state = table
    shots = physics.Shot(V0=np.array([3.0, 5.0]), phi=np.array([10.0, -100.0]), theta=np.zeros(2), a=np.zeros(2),
                         b=np.array([0.2, -0.1]))
    played = rb.play_trials(ruleset, state, shots, params, KEY, noise=ExecutionNoise(3.0), trials=5, batch=BATCH)
    draws = jax.random.split(KEY, 5)
    for k in range(2):
        one = jax.tree_util.tree_map(lambda x, k=k: np.repeat(np.asarray(x)[k:k + 1], 5), shots)
        scored, points = _direct(ruleset, state, params, one, draws, 3.0)
        assert played.scored[k] == scored.sum()
        np.testing.assert_array_equal(played.points[k], points)


def test_the_most_robust_cell_is_inside_a_scoring_region():
    p = np.zeros((5, 5))
    p[0, 0] = 1.0  # a lone cell that scores
    p[2:5, 2:5] = 1.0  # a region of them
    m = rb.SuccessMap("phi", "V0", np.arange(5.0), np.arange(5.0), {"theta": 0.0, "a": 0.0, "b": 0.0}, p, p, 0 * p, 8)
    assert m.most_robust(1) == [(3, 3)]
    assert m.most_robust(10)[-1] == (0, 0)  # a lone scoring cell comes after the whole region
    assert float(np.asarray(m.shot(3, 1).phi)) == 3.0 and float(np.asarray(m.shot(3, 1).V0)) == 1.0


def test_a_tip_map_leaves_out_the_offsets_beyond_the_miscue_limit(table):
    ruleset, params, state = table
    limit = float(params.cue.max_offset)
    offsets = np.linspace(-limit, limit, 5)
    m = rb.offset_map(ruleset, state, params, KEY, 30.0, 3.0, offsets, noise=ExecutionNoise(0.0), trials=1, batch=BATCH)
    a, b = np.meshgrid(offsets, offsets, indexing="ij")
    outside = np.hypot(a, b) > limit
    assert np.all(np.isnan(m.success[outside])) and not np.any(np.isnan(m.success[~outside]))


def test_sensitivity_finds_where_a_scoring_shot_stops_scoring(table, exact_map):
    ruleset, params, state = table
    i, j = np.argwhere(exact_map.success > 0)[0]
    shot = exact_map.shot(i, j)
    steps, span = 20, 1.0
    edges = rb.sensitivity(ruleset, state, shot, params, steps=steps, spans={"phi": span}, batch=BATCH)
    down, up = edges["phi"]
    base = float(np.asarray(shot.phi))
    step = span / steps
    # every move up to the edge scores; one step further fails (unless the edge is the span)
    moves = range(-int(round(down / step)), int(round(up / step)) + 1)
    inside = [base - down, base + up] + [base + k * step for k in moves]
    outside = [x for x, e in ((base - down - step, down), (base + up + step, up)) if e < span]
    phis = np.array(inside + outside)
    n = len(phis)
    shots = physics.Shot(V0=np.full(n, float(np.asarray(shot.V0))), phi=phis, theta=np.zeros(n), a=np.zeros(n),
                         b=np.zeros(n))
    scored, _ = _direct(ruleset, state, params, shots, jax.random.split(KEY, n), 0.0)
    assert scored[:len(inside)].all() and not scored[len(inside):].any()


def test_a_shot_that_misses_exactly_has_no_margin(table, exact_map):
    ruleset, params, state = table
    i, j = np.argwhere(exact_map.success == 0)[0]
    edges = rb.sensitivity(ruleset, state, exact_map.shot(i, j), params, steps=4, batch=BATCH)
    assert all(v == (0.0, 0.0) for v in edges.values())


@pytest.mark.parametrize("kwargs, words", [
    (dict(trials=0), "trials must be a positive"), (dict(batch=0), "batch must be a positive"),
])
def test_bad_settings_are_refused(table, kwargs, words):
    ruleset, params, state = table
    shots = physics.Shot(V0=np.array([3.0]), phi=np.array([0.0]), theta=np.zeros(1), a=np.zeros(1), b=np.zeros(1))
    with pytest.raises(ValueError, match=words):
        rb.play_trials(ruleset, state, shots, params, KEY, **kwargs)


def test_a_map_over_an_unknown_input_is_refused(table):
    game, params, state = table
    with pytest.raises(ValueError, match="unknown shot input 'spin'"):
        rb._grid_map(game, state, params, KEY, "spin", [0.0, 1.0], "V0", [1.0, 2.0], {"phi": 0.0, "theta": 0.0,
                                                                                      "a": 0.0, "b": 0.0})


SCORES = physics.Shot(5.16, -153.94, 0.0, 0.256, 0.345)  # from seed 3's layout: scores as aimed, often under noise


def test_held_out_draws_are_not_the_choosing_draws(table):
    ruleset, params, state = table
    draws = {tuple(np.asarray(k).tolist()) for k in jax.random.split(KEY, 64)}
    fresh = {tuple(np.asarray(k).tolist()) for k in jax.random.split(rb.held_out_key(KEY), 64)}
    assert not draws & fresh and len(fresh) == 64
    shots = rb.stack_shots([physics.Shot(3.0, 10.0, 0.0, 0.0, 0.2), SCORES, physics.Shot(5.0, -100.0)])
    noise = ExecutionNoise(3.0)
    choice = rb.held_out(ruleset, state, shots, params, KEY, trials=6, plays=9, noise=noise, batch=BATCH)
    assert list(choice.chosen) == [int(np.argmax(choice.selection.scored))] and choice.value.trials == 9
    again = rb.play_trials(ruleset, state, shots, params, KEY, noise=noise, trials=6, batch=BATCH)
    np.testing.assert_array_equal(choice.selection.points, again.points)  # chosen on KEY's draws ...
    fresh_plays = rb.play_trials(ruleset, state, rb.take(shots, choice.chosen), params, rb.held_out_key(KEY),
                                 noise=noise, trials=9, batch=BATCH)
    np.testing.assert_array_equal(choice.value.points, fresh_plays.points)  # ... valued on the held-out key's
    two = rb.held_out(ruleset, state, shots, params, KEY, trials=6, choose=rb.best_by_success(2), noise=noise,
                      batch=BATCH)
    assert len(two.chosen) == 2 and two.chosen[0] == choice.chosen[0] and two.value.points.shape == (2, 6)
    with pytest.raises(ValueError, match="choose picked no shot"):
        rb.held_out(ruleset, state, shots, params, KEY, trials=1, choose=lambda t: [], batch=BATCH)


def test_margins_are_where_the_success_falls_by_half(table):
    ruleset, params, state = table
    noise, steps, span = ExecutionNoise(2.0), 3, 1.2
    m = rb.margins(ruleset, state, SCORES, params, KEY, noise=noise, trials=8, steps=steps, fields=("phi",),
                   spans={"phi": span}, batch=BATCH)
    moves = np.arange(1, steps + 1) * span / steps
    np.testing.assert_allclose(m.moves["phi"], moves)
    phis = np.concatenate([[-153.94], -153.94 - moves, -153.94 + moves])
    moved = rb.stack_shots(dataclasses.replace(SCORES, phi=p) for p in phis)
    direct = rb.play_trials(ruleset, state, moved, params, KEY, noise=noise, trials=8,
                            batch=BATCH).success  # the same draws for every move
    assert m.success == direct[0] > 0 and m.trials == 8
    np.testing.assert_array_equal(m.curves["phi"], direct[1:].reshape(2, steps))
    for side, (edge, curve) in enumerate(zip(m.edges["phi"], m.curves["phi"])):
        kept = np.cumprod(curve >= direct[0] / 2)  # every move up to here keeps half the success
        assert edge == (moves[kept.sum() - 1] if kept.sum() else 0.0), side
    assert 0 < max(m.edges["phi"]) < span  # an edge inside the span, not only zeros
    never = rb.margins(ruleset, state, physics.Shot(0.3, 90.0), params, KEY, noise=noise, trials=4, steps=2,
                       fields=("V0",), batch=BATCH)
    assert never.success == 0.0 and never.edges == {"V0": (0.0, 0.0)}
    for kwargs, words in ((dict(steps=0), "steps must be a positive"), (dict(fields=("spin",)), "fields must name")):
        with pytest.raises(ValueError, match=words):
            rb.margins(ruleset, state, SCORES, params, KEY, batch=BATCH, **kwargs)


@pytest.mark.slow
def test_the_command_writes_maps_and_the_shot_report(tmp_path):
    from experiments import shot_map

    shot_map.main(["--aims", "16", "--speeds", "4", "--trials", "2", "--offsets", "3", "--shot-trials", "16",
                   "--batch", str(BATCH), "--seed", "3", "--out", str(tmp_path), "--no-progress"])
    for name in ("aim_speed.png", "aim_speed.csv", "tip.png", "tip.csv", "shot.json"):
        assert (tmp_path / name).stat().st_size > 0
    import json
    report = json.loads((tmp_path / "shot.json").read_text())
    low, high = report["shot"]["success_ci"]
    assert 0 <= low <= report["shot"]["success"] <= high <= 1 and set(report["shot"]["sensitivity"]) == set(rb.FIELDS)
    # the most robust cells: chosen on the map's plays, their success measured on 16 fresh ones
    ruleset, params = setup("three_cushion")
    state = agents.random_state(ruleset, jax.random.PRNGKey(3), params)
    rows = report["most_robust"]
    cells = rb.stack_shots(physics.Shot(r["V0"], r["phi"]) for r in rows)
    chose = jax.random.split(jax.random.PRNGKey(4), 4)[0]  # the map's key (seed + 1)
    fresh = rb.play_trials(ruleset, state, cells, params, rb.held_out_key(chose), noise=ExecutionNoise(1.0), trials=16,
                           batch=BATCH)
    assert [r["success"] for r in rows] == list(fresh.success) and all(r["trials"] == 16 for r in rows)
    assert all(r["success_ci"][0] <= r["success"] <= r["success_ci"][1] for r in rows)
    assert rows[0]["map_success"] == max(r["map_success"] for r in rows)


def test_player_profiles_are_named_noise_scales():
    from experiments import evaluate, shot_map, train

    assert agents.noise_scale("club") == agents.NOISE_PROFILES["club"] == agents.ExecutionNoise.profile("club").scale
    assert agents.noise_scale("2.5") == 2.5 and agents.NOISE_PROFILES["standard"] == 1.0
    levels = [agents.NOISE_PROFILES[k] for k in ("exact", "standard", "world_class", "master", "club", "beginner")]
    assert levels == sorted(levels)  # a weaker player, a larger noise
    for parser in (evaluate.build_parser(), shot_map.build_parser()):
        assert parser.parse_args(["--noise", "world_class"]).noise == agents.NOISE_PROFILES["world_class"]
    assert train.parse_args(["--noise", "beginner"]).noise == agents.NOISE_PROFILES["beginner"]
    for bad in ("pro", "-1", "nan"):
        with pytest.raises(ValueError, match="profile name"):
            agents.noise_scale(bad)
    with pytest.raises(ValueError, match="unknown noise profile 'pro'"):
        agents.ExecutionNoise.profile("pro")
