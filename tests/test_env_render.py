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
