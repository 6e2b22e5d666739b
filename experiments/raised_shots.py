"""A jump shot and a massé as players know them, each found by a small grid search, drawn to PNGs
(docs/physics.md section 3; README, "A raised cue").

Jump: a blocking ball one ball-width in front of the cue ball (centres 4 R apart); the cue ball
must pass it without touching it and land beyond it. Massé: a ball in the direct line between the
cue ball and the spot it is to reach; the cue ball must stay on the cloth, curve round the blocker
without touching it (or a cushion) and cross the direct line again beyond it. The searches run
over cue elevation, speed and tip offset (and, for the massé, the aim) and keep the gentlest jump
and the massé that comes back to the line soonest.

    python -m experiments.raised_shots            # search both, write docs/images/*.png
    python -m experiments.raised_shots --no-png   # search and print only
"""
from __future__ import annotations

import argparse
import itertools
import os

import numpy as np

import physics
from physics import EventKind, Shot
from experiments.common import begin

CUE = np.array([0.70, 0.71])  # the cue ball on the long axis of the match table
THIRD = np.array([2.40, 0.25])  # the third ball, out of the way


def jump_layout(params) -> np.ndarray:
    """(3, 2): cue ball, a blocker one ball-width in front of it along +x, the third ball."""
    R = float(params.ball.radius)
    return np.stack([CUE, CUE + [4.0 * R, 0.0], THIRD])


def masse_layout(params) -> np.ndarray:
    """(3, 2): cue ball, a blocker 20 cm in front of it along +x, the third ball."""
    return np.stack([CUE, CUE + [0.20, 0.0], THIRD])


def _logs(res):
    n = np.asarray(res.num_events)
    kinds, balls = np.asarray(res.events.kind), np.asarray(res.events.balls)
    used = np.arange(kinds.shape[-1])[None] < n[:, None]
    return kinds, balls, used


def touched(res, i: int, j: int, until=None) -> np.ndarray:
    """(batch,) bool: balls i and j met in the shot (up to the times ``until``, (batch,), if given)."""
    kinds, balls, used = _logs(res)
    if until is not None:
        used = used & (np.asarray(res.events.time) <= np.asarray(until)[:, None])
    pair = np.sort(balls, axis=-1) == np.array(sorted((i, j)))
    return np.any(used & (kinds == EventKind.BALL_BALL) & np.all(pair, axis=-1), axis=-1)


def first_landing(res, ball: int = 0):
    """((batch, 2) where ``ball`` first lands, (batch,) when): NaN and inf where it never does."""
    kinds, balls, used = _logs(res)
    hit = used & (kinds == EventKind.BALL_LANDING) & (balls[..., 0] == ball)
    k = np.argmax(hit, axis=-1)
    rows = np.arange(k.size)
    landed = np.any(hit, axis=-1)
    at = np.asarray(res.events.positions)[rows, k, ball]
    return np.where(landed[:, None], at, np.nan), np.where(landed, np.asarray(res.events.time)[rows, k], np.inf)


def jump_works(res, params) -> np.ndarray:
    """(batch,) bool: the cue ball passed over the blocker without touching it and first landed on
    the table beyond it (what it does after that landing does not matter)."""
    blocker_x = float(jump_layout(params)[1, 0])
    where, when = first_landing(res)
    beyond = np.nan_to_num(where[:, 0], nan=-np.inf) > blocker_x + 2.0 * float(params.ball.radius)
    return ~touched(res, 0, 1, until=when) & beyond


def cue_paths(res, params, samples: int = 96):
    """((batch, samples) times, (batch, samples, 2) the cue ball's path) of a batch of shots."""
    import jax

    from physics.replay import positions_at

    t = np.linspace(0.0, 1.0, samples)[None] * np.asarray(res.final_time)[:, None]
    paths = jax.vmap(lambda r, times: positions_at(r, times, params))(res, t)
    return t, np.asarray(paths)[:, :, 0]


def masse_works(res, params):
    """((batch,) bool, (batch,) x where it crossed the line (m)): the cue ball stayed on the cloth,
    went round the blocker without touching it or any cushion, and crossed the direct line again
    beyond the blocker."""
    layout = masse_layout(params)
    kinds, balls, used = _logs(res)
    t, path = cue_paths(res, params, 192)
    off = path[..., 1] - layout[0, 1]
    beyond = path[:, 1:, 0] > layout[1, 0] + 2.0 * float(params.ball.radius)
    cross = beyond & (np.sign(off[:, 1:]) != np.sign(off[:, :-1]))
    at = 1 + np.argmax(cross, axis=-1)
    rows = np.arange(t.shape[0])
    when = np.where(np.any(cross, axis=-1), t[rows, at], -np.inf)
    early = np.asarray(res.events.time) <= when[:, None]
    cushion = np.any(used & early & (kinds == EventKind.BALL_CUSHION) & (balls[..., 0] == 0), axis=-1)
    air = np.any(used & (np.asarray(res.events.motion)[..., 0] == physics.Motion.AIRBORNE), axis=-1)
    ok = ~touched(res, 0, 1) & np.any(cross, axis=-1) & ~cushion & ~air & np.asarray(res.on_table)[:, 0]
    return ok, np.where(np.any(cross, axis=-1), path[rows, at, 0], np.inf)


def _one(res, k):
    import jax

    return jax.tree_util.tree_map(lambda x: x[k], res)


def _batch(shots, layout, params):
    fields = {f: np.array([s[f] for s in shots], float) for f in ("V0", "phi", "theta", "a", "b")}
    n = len(shots)
    return physics.simulate_batch(np.broadcast_to(layout, (n,) + layout.shape), Shot(**fields), 0, params)


def search_jump(params):
    """The jump with the lowest cue speed (then elevation) on the grid: (shot dict, result, found)."""
    grid = [dict(V0=v, phi=0.0, theta=t, a=0.0, b=b)
            for v, t, b in itertools.product(np.arange(2.0, 10.01, 0.5), np.arange(30.0, 80.1, 5.0), (0.0, 0.2))]
    res = _batch(grid, jump_layout(params), params)
    ok = jump_works(res, params)
    order = sorted(np.flatnonzero(ok), key=lambda k: (grid[k]["V0"], grid[k]["theta"]))
    return (grid[order[0]], _one(res, order[0]), len(order)) if order else (None, None, 0)


def search_masse(params):
    """The massé that comes back to the direct line soonest after the blocker: (shot dict, result, found)."""
    # Right english (a > 0) on a steep cue curves the ball to the right: aim to the left of the blocker.
    grid = [dict(V0=v, phi=p, theta=t, a=a, b=b)
            for v, p, t, a, b in itertools.product((1.8, 2.0, 2.2), np.arange(30.0, 55.1, 5.0), (70.0, 75.0, 80.0),
                                                   (0.3, 0.4, 0.5), (-0.3, -0.15, 0.0))]
    res = _batch(grid, masse_layout(params), params)
    ok, back_at = masse_works(res, params)
    order = sorted(np.flatnonzero(ok), key=lambda k: back_at[k])
    return (grid[order[0]], _one(res, order[0]), len(order)) if order else (None, None, 0)


def draw(path, result, layout, params, title):
    """A PNG of one shot: the table (``billiards_env.render.frame``) with the paths, start rings."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from billiards_env import render

    paths = render.shot_paths(result, params)
    img = render.frame(np.asarray(result.final_positions), params, paths=paths,
                       on_table=np.asarray(result.on_table), width=900)
    canvas = render.Canvas(float(params.table.length), float(params.table.width), 900)
    fig, ax = plt.subplots(figsize=(9, 9 * img.shape[0] / img.shape[1] + 0.6))
    ax.imshow(img)
    R = float(params.ball.radius) * canvas.scale
    for xy in layout:
        ax.add_patch(plt.Circle(canvas.to_pixels(xy), R * 1.15, fill=False, ec="black", lw=0.8))
    ax.set_axis_off()
    ax.set_title(title, fontsize=9, loc="left")
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)


def describe(shot) -> str:
    return (f"V0 {shot['V0']:.1f} m/s, elevation {shot['theta']:.0f} deg, aim {shot['phi']:.0f} deg, "
            f"tip a {shot['a']:+.2f} R, b {shot['b']:+.2f} R")


def main(argv=None):
    begin()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join("docs", "images"), help="folder for the PNGs")
    parser.add_argument("--no-png", action="store_true", help="search and print only")
    args = parser.parse_args(argv)
    params = physics.default_params()
    found = {}
    for name, search, layout in (("jump", search_jump, jump_layout(params)),
                                 ("masse", search_masse, masse_layout(params))):
        shot, result, count = search(params)
        found[name] = shot
        if shot is None:
            print(f"{name}: no shot on the grid does it")
            continue
        print(f"{name}: {count} shots on the grid do it; the gentlest: {describe(shot)}")
        if not args.no_png:
            os.makedirs(args.out, exist_ok=True)
            path = os.path.join(args.out, f"raised_{name}.png")
            draw(path, result, layout, params, f"{name}: {describe(shot)}")
            print(f"  wrote {path}")
    return found


if __name__ == "__main__":
    main()
