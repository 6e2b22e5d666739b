"""The main demonstration: simulate a three-cushion shot from the starting position, print its
event log in words and the referee's call, and write the ball paths as a PNG and the log as JSON.

    python -m experiments.demo --out results/demo
"""
from __future__ import annotations

import argparse
import json
import os

import jax
import numpy as np

import physics
import rules
from experiments.layouts import BALL_NAMES
from experiments.plotting import plot_shot


def describe(event) -> str:
    """One event in words, the way a commentator would say it."""
    names = [BALL_NAMES[b] for b in event["balls"]]
    kind = event["kind"]
    if kind == "cue_strike":
        return f"the cue strikes the {names[0]} ball"
    if kind == "ball_ball":
        return f"{names[0]} and {names[1]} collide"
    if kind == "ball_cushion":
        return f"{names[0]} hits the {event['cushion']} cushion"
    what = {
        "sliding_to_rolling": "stops sliding and rolls",
        "rolling_to_spinning": "stops rolling, still spinning on the spot",
        "rolling_to_stationary": "comes to rest",
        "spinning_to_stationary": "stops spinning",
    }.get(kind, kind.replace("_", " "))
    return f"{names[0]} {what}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="results/demo", help="output folder")
    ap.add_argument("--V0", type=float, default=3.42, help="cue speed (m/s)")
    ap.add_argument("--phi", type=float, default=11.34, help="aim (degrees, 0 along the long axis)")
    ap.add_argument("--a", type=float, default=-0.32, help="side offset (fraction of R, + right)")
    ap.add_argument("--b", type=float, default=-0.12, help="vertical offset (fraction of R, + follow)")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    params = physics.default_params()
    game = rules.make_rules("three_cushion")
    state = rules.init_game(game, jax.random.PRNGKey(0), params, breaker=0)  # white breaks
    layout = np.asarray(state.positions)
    shot = physics.Shot(V0=args.V0, phi=args.phi, a=args.a, b=args.b)
    result = physics.simulate(layout, shot, cue_ball=int(state.cue_ball), params=params)
    events = physics.event_list(result)
    _, outcome = rules.referee(game, state, result, params)

    print(f"Three-cushion table {float(params.table.length)} x {float(params.table.width)} m, starting position;")
    print(f"white struck at V0={args.V0} m/s, aim {args.phi} deg, offsets a={args.a} R, b={args.b} R.\n")
    for e in events:
        print(f"  {e['t']:7.3f} s  {describe(e)}")
    print(f"\n{len(events)} events, all balls at rest after {float(result.final_time):.2f} s.")
    print(f"Referee: {rules.call_words(outcome)}")
    png = os.path.join(args.out, "shot.png")
    plot_shot(result, params, png, title=f"V0={args.V0} m/s, phi={args.phi} deg, a={args.a}, b={args.b}")
    with open(os.path.join(args.out, "events.json"), "w") as f:
        json.dump({"shot": vars(args), "layout": layout.tolist(), "events": events,
                   "call": rules.call_words(outcome), "points": np.asarray(outcome.points).tolist()}, f, indent=1)
    print(f"wrote {png} and {os.path.join(args.out, 'events.json')}")


if __name__ == "__main__":
    main()
