"""Drawing a carom table and the paths of a shot with matplotlib (no display needed)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import physics  # noqa: E402
from experiments.layouts import BALL_COLOURS, BALL_NAMES  # noqa: E402


def draw_table(ax, params):
    L, W = float(params.table.length), float(params.table.width)
    rail = 0.08
    ax.add_patch(plt.Rectangle((-rail, -rail), L + 2 * rail, W + 2 * rail, color="#5b3a1e", zorder=0))
    ax.add_patch(plt.Rectangle((0, 0), L, W, color="#1f6f43", zorder=1))
    for k in range(1, 8):  # diamonds every 1/8 of the length, 1/4 of the width
        for y in (-rail / 2, W + rail / 2):
            ax.plot(k * L / 8, y, marker="D", ms=3, color="#e8e0c8", zorder=2)
    for k in range(1, 4):
        for x in (-rail / 2, L + rail / 2):
            ax.plot(x, k * W / 4, marker="D", ms=3, color="#e8e0c8", zorder=2)
    ax.set_xlim(-rail - 0.02, L + rail + 0.02)
    ax.set_ylim(-rail - 0.02, W + rail + 0.02)
    ax.set_aspect("equal")
    ax.axis("off")


def plot_shot(result, params, path, title="", samples=1500):
    """Write a PNG of a shot: the table, every ball's path, its start (ring) and rest (disc)."""
    R = float(params.ball.radius)
    T = float(result.final_time)
    times = np.linspace(0.0, T, samples)
    pos = np.asarray(physics.positions_at(result, times, params))
    fig, ax = plt.subplots(figsize=(10, 5.6))
    draw_table(ax, params)
    for b in range(pos.shape[1]):
        colour = BALL_COLOURS[b % len(BALL_COLOURS)]
        ax.plot(pos[:, b, 0], pos[:, b, 1], color=colour, lw=1.4, zorder=3,
                label=BALL_NAMES[b % len(BALL_NAMES)])
        ax.add_patch(plt.Circle(pos[0, b], R, fill=False, ec=colour, lw=1.5, zorder=4))
        ax.add_patch(plt.Circle(pos[-1, b], R, color=colour, ec="black", lw=0.5, zorder=5))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=pos.shape[1], frameon=False)
    ax.set_title(title)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
