"""Rendering: the balls are drawn where the state says (pixel colours at the ball centres), the pin,
the headless "human" mode, and the GIF replay of a shot."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from billiards_env import render  # noqa: E402


def centre_colours(img, positions, params):
    canvas = render.Canvas(float(params.table.length), float(params.table.width), img.shape[1])
    px = canvas.to_pixels(np.asarray(positions))
    return [tuple(int(v) for v in img[int(r), int(c)]) for c, r in px]


def test_balls_are_drawn_where_the_state_says():
    env = gym.make("billiards_env/ThreeCushion-v0", fused=False, render_mode="rgb_array")
    layout = np.array([[0.4, 0.3], [1.5, 1.1], [2.5, 0.2]])
    env.reset(seed=0, options={"layout": layout})
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    phys = env.unwrapped.params.physics
    assert centre_colours(img, layout, phys) == list(render.CAROM_COLOURS)
    env.step(np.array([0.1, 0.3, -1, 0, 0, 0, 0, 0, 0], np.float32))
    img = env.render()
    positions = np.asarray(env.unwrapped.state.game.positions)
    assert centre_colours(img, positions, phys) == list(render.CAROM_COLOURS)


def test_hungarian_frame_shows_the_pin_and_the_balls_colours():
    env = gym.make("billiards_env/Hungarian1000-v0", fused=False, render_mode="rgb_array")
    layout = np.array([[0.5, 0.3], [1.6, 0.8], [1.8, 0.2]])
    env.reset(seed=0, options={"layout": layout})
    img = env.render()
    phys = env.unwrapped.params.physics
    assert centre_colours(img, layout, phys) == list(render.HUNGARIAN_COLOURS)
    assert centre_colours(img, [np.asarray(phys.table.centre)], phys) == [render.PIN]


def test_human_mode_runs_headless_and_the_replay_is_a_gif(tmp_path):
    env = gym.make("billiards_env/ThreeCushion-v0", fused=False, render_mode="human")
    env.reset(seed=1)
    env.step(np.array([0.3, 0.2, -1, 0.2, 0.4, 0, 0, 0, 0], np.float32))  # renders in human mode
    assert env.render() is None
    path = env.unwrapped.save_replay(tmp_path / "shot.gif", fps=8, width=160)
    gif = Image.open(path)
    assert gif.format == "GIF" and gif.n_frames >= 2 and gif.size[0] == 160
    env.close()


def test_rendered_paths_pass_through_every_contact_of_a_long_shot():
    """A 12 s shot drawn from 64 evenly spaced times cut corners: its lines missed the cushions and
    the first ball. The paths now pass through the position of every contact in the log."""
    import physics

    params = physics.default_params()
    layout = np.array([[0.55, 0.30], [1.05, 0.75], [2.35, 0.95]])
    result = physics.simulate(layout, physics.Shot(V0=5.0, phi=36.5, a=0.4, b=0.1), 0, params)
    paths = render.shot_paths(result, params)
    log = result.events
    kinds, balls = np.asarray(log.kind), np.asarray(log.balls)
    contacts = [k for k in range(int(result.num_events))
                if kinds[k] in (physics.EventKind.BALL_BALL, physics.EventKind.BALL_CUSHION)]
    assert float(result.final_time) > 8.0 and len(contacts) >= 6
    for k in contacts:
        for b in balls[k]:
            if b < 0 or b > 2:
                continue
            gap = np.min(np.linalg.norm(paths[:, b] - np.asarray(log.positions)[k, b], axis=-1))
            assert gap < 1e-6, (k, int(kinds[k]), int(b), gap)
    # no corner cut: the true path (densely replayed) stays within 2 mm of the drawn chords
    times = render.path_times(result)
    dense = np.linspace(0.0, float(result.final_time), 6000)
    truth = np.asarray(physics.positions_at(result, dense, params))
    j = np.clip(np.searchsorted(times, dense), 1, len(times) - 1)
    a, b = paths[j - 1], paths[j]
    u = np.clip(((truth - a) * (b - a)).sum(-1) / np.maximum(((b - a) ** 2).sum(-1), 1e-30), 0.0, 1.0)
    off = np.linalg.norm(truth - (a + u[..., None] * (b - a)), axis=-1)
    assert off.max() < 0.002, off.max()
