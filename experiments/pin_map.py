"""Where the pin falls: a map over the ball's speed and its offset from the pin's axis.

The ball starts 1 um from touching the pin, on a line offset sideways from the pin's axis by a
fraction of (R + pin radius) (0: full hit, 1: a graze), and is struck along that line. Writes a
PNG map (fallen or not, with the model's threshold v cos(a) = v_crit drawn on it) and a CSV.

    python -m experiments.pin_map --out results/pin_map
"""
from __future__ import annotations

import argparse
import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import physics  # noqa: E402
from physics.collide.ball_pin import topple_speed  # noqa: E402
from experiments.common import begin  # noqa: E402


def sweep(params, speeds, offsets):
    """Pin down (len(offsets), len(speeds)) for ball speeds (m/s) and offset fractions."""
    R, rp = float(params.ball.radius), float(params.pin.contact_radius)
    pin = np.asarray(params.table.centre)
    M, m = float(params.cue.mass), float(params.ball.mass)
    V0 = speeds * (M + m) / (2 * M)  # cue speed that gives the ball this speed (TP A-30)
    off, vv = np.meshgrid(offsets, V0, indexing="ij")
    side = off.ravel() * (R + rp)
    gap = np.sqrt((R + rp) ** 2 - side**2) + 1e-6  # cloth friction over 1 um is negligible
    red = np.stack([pin[0] - gap, pin[1] + side], axis=-1)
    others = np.broadcast_to(np.array([[0.3, 0.2], [1.8, 0.85]]), (len(red), 2, 2))
    layouts = np.concatenate([red[:, None], others], axis=1)
    shots = physics.Shot(V0=vv.ravel(), phi=np.zeros(len(red)))
    res = physics.simulate_batch(layouts, shots, 0, params, pin=pin)
    return np.asarray(res.pin_down).reshape(off.shape)


def main(argv=None):
    begin()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="results/pin_map", help="output folder")
    ap.add_argument("--speeds", type=int, default=80, help="speeds in the sweep")
    ap.add_argument("--offsets", type=int, default=41, help="offsets in the sweep")
    args = ap.parse_args(argv)
    if args.speeds < 2 or args.offsets < 2:
        ap.error(f"--speeds and --offsets must be at least 2 (a sweep's two ends), got {args.speeds} and "
                 f"{args.offsets}")
    os.makedirs(args.out, exist_ok=True)
    params = physics.default_params("hungarian")
    speeds = np.linspace(0.01, 0.3, args.speeds)
    offsets = np.linspace(0.0, 0.98, args.offsets)
    down = sweep(params, speeds, offsets)
    v_crit = float(topple_speed(params))

    with open(os.path.join(args.out, "pin_map.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["offset_fraction", "ball_speed_m_s", "pin_down"])
        for i, o in enumerate(offsets):
            for j, s in enumerate(speeds):
                w.writerow([f"{o:.4f}", f"{s:.4f}", int(down[i, j])])

    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.pcolormesh(speeds, offsets, down, cmap="RdYlGn_r", shading="nearest", vmin=0, vmax=1)
    # Head-on component v cos(a) reaches v_crit, with sin(a) the offset fraction.
    ax.plot(v_crit / np.sqrt(1 - offsets**2), offsets, "k--", lw=1.5,
            label=f"model threshold (v_crit = {v_crit:.3f} m/s)")
    ax.set_xlim(speeds[0], speeds[-1])
    ax.set_xlabel("ball speed at the pin (m/s)")
    ax.set_ylabel("offset from the pin's axis / (R + pin radius)")
    ax.set_title("Where the pin falls (red: down, green: stays up)")
    ax.legend(loc="lower right")
    path = os.path.join(args.out, "pin_map.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    print(f"pin falls above {v_crit:.3f} m/s head-on; {down.mean():.0%} of the sweep knocked it down")
    print(f"wrote {path} and {os.path.join(args.out, 'pin_map.csv')}")


if __name__ == "__main__":
    main()
