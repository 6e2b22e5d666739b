"""Shot analysis a coach can use: from one layout, the best distinct shots for a player of a given
level, each valued on noise draws that played no part in choosing it, with its margins, its own
success map and a fan of noisy plays, beside the geometric agent's line (and the strike played,
for a tracked match shot).

Where the balls lie: ``--seed N`` (a random legal layout, the one experiments.shot_map and
``experiments.view --seed`` draw; the default, seed 0), ``--from FILE`` (a shot file,
docs/shotfile.md: its strikes stand among the options as they are) or ``--tracked`` (a shot of
the tracked match data, three-cushion: its layout, and the strike the player played, labelled
"played"). ``--tracked`` takes ``[FILE:]SHOT_ID``: SHOT_ID a shot id of the tracked-shots JSON
FILE (default: the shipped match data, physics/tracking/data/tracked_3c_shots.json), whose
played strike is reconstructed from the tracks (experiments.reconstruct, about 20 s) and kept as
``OUT/shot_<id>.json``; or the path of such a shot file (``shot_<id>.json``, as
experiments.reconstruct writes it), whose played strike is used without refitting.

1. Candidates: the search agent's choice for the noise (``SearchAgent.for_noise``) under each
   of ``--keys`` keys, and the ``--favourites`` strikes the discipline's success model rates
   highest at distinct aims (agents.policy; none where the discipline has no model).
2. Choice: every candidate played ``--select-plays`` times on one set of noise draws and ranked
   by success; a candidate whose path, as aimed, is the same as a better one's (the same
   contacts of the cue ball, first ball and cushions in order, until the carom, or those short
   of the last ball for a strike that misses as aimed; with ``--same-within M`` also every ball
   ending within M metres) is left out; the first ``--top`` remain.
3. Valuation, on fresh draws (agents.robustness.held_out): each option, the geometric agent's
   line and any given or played strike played ``--plays`` times: the share that scores with its
   Wilson 95 % interval, the mean points, and its margins: how far the aim phi, the speed V0 and
   the tip offsets a and b may move, alone, before that share falls by half (on the same draws).
4. Figures: each option's success map over aim x speed through its own slice (its elevation and
   tip), the option and its margins marked; a fan of ``--fan`` noisy plays of each; the replays
   as aimed.

Writes under ``--out``: ``report.html`` (one self-contained page: opens from a file, no
network), ``report.json`` (settings, layout, each option's strike, source, success, low, high,
plays, margins, ...) and ``shots.json`` (a shot file of the options' strikes, which report.json
names: ``python -m experiments.view --from OUT/report.json`` replays them). Seeded: the same
arguments give the same report (timings aside). Noise: docs/physics.md section 6; the figures
and a worked example: docs/shot_report.md.

    python -m experiments.shot_report --discipline three_cushion --seed 3 --top 3 --noise club --out results/report
    python -m experiments.shot_report --tracked 545712 --noise club --out results/report_545712
    python -m experiments.shot_report --tracked results/report_545712/shot_545712.json --noise master
"""
from __future__ import annotations

import argparse
import base64
import dataclasses
import html
import io
import json
import os
import re
import time
import webbrowser
from typing import Optional, Sequence

import jax
import numpy as np

import physics
import rules
from agents import ExecutionNoise, GeometricAgent, SearchAgent, shotfile
from agents import robustness as rb
from agents.base import clip_shot, profile_of
from agents.states import random_state
from agents.stats import wilson
from billiards_env.params import DEFAULT_NOISE, setup
from experiments import view
from experiments.common import NOISE_HELP, add_discipline_argument, ball_names, begin, machine_info, noise_arg
from physics.params import TABLE_CALIBRATION

REPORT_FORMAT = "carom-billiards shot report"
REPORT_VERSION = 1
TRACKED_DISCIPLINE = "three_cushion"  # the tracked match's (experiments.reconstruct)
FAVOURITE_AIMS = 1.0  # deg: the model's favourites are this far apart in aim at least (other lines)
MAP_AIM, MAP_SPEED = 8.0, 2.5  # a map spans the option's aim +- deg and its speed +- m/s
MAP_CELLS = (33, 21)  # aims x speeds of a map
END_WITHIN = float("inf")  # m: the same contacts are the same shot, wherever the balls end (--same-within)
PAGE_WIDTH = 480  # pixels of each table on the page


# --- paths: which strikes are the same shot ------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Path:
    """A strike's path as aimed: ``route``, the cue ball's contacts in order (ball names, cushion
    names, "pin", "off table") until it has met both other balls (``carom``) or stopped, and
    ``ends`` (3, 2) where the balls came to rest (m)."""

    route: tuple
    ends: np.ndarray
    carom: bool = False


def path_of(events: Sequence[dict], ends, cue_ball: int, names: Sequence[str]) -> Path:
    """The ``Path`` of one simulated shot: its ``physics.event_list``, where the balls came to rest
    (``ShotResult.final_positions``), the cue ball and the balls' names."""
    met, route = set(), []
    for e in events:
        if cue_ball not in e["balls"]:
            continue
        if e["kind"] == "ball_ball":
            other = next(b for b in e["balls"] if b != cue_ball)
            route.append(names[other])
            met.add(other)
        elif e["kind"] in ("ball_cushion", "ball_pin", "off_table"):
            route.append({"ball_pin": "pin", "off_table": "off table"}.get(e["kind"], e.get("cushion", "cushion")))
        if len(met) == 2:
            break
    return Path(tuple(route), np.asarray(ends, np.float64), len(met) == 2)


def same_route(a: Path, b: Path) -> bool:
    """The same contacts; or one strike makes the carom and the other, which misses as aimed,
    makes the same contacts but the last ball (two at least) and goes on past it (the same shot,
    aimed a little off)."""
    if a.route == b.route:
        return True
    made, missed = (a, b) if a.carom else (b, a)
    return (made.carom and not missed.carom and len(made.route) >= 3
            and missed.route[:len(made.route) - 1] == made.route[:-1])


def same_path(a: Path, b: Path, within: float = END_WITHIN) -> bool:
    """Whether two strikes play the same shot: the same route (``same_route``), every ball ending
    within ``within`` m."""
    return same_route(a, b) and bool(np.all(np.linalg.norm(a.ends - b.ends, axis=-1) <= within))


def distinct(paths: Sequence[Path], order, k: int, within: float = END_WITHIN) -> tuple[list, list]:
    """(kept, group): walking the candidates in ``order`` (best first), the first ``k`` whose path
    is not the same as a kept one's; group[c] is the kept candidate whose path candidate c shares
    (itself for a kept one), -1 for none."""
    kept: list[int] = []
    group = [-1] * len(paths)
    for c in (int(i) for i in order):
        same = next((j for j in kept if same_path(paths[c], paths[j], within)), None)
        if same is not None:
            group[c] = same
        elif len(kept) < k:
            kept.append(c)
            group[c] = c
    return kept, group


def ranked(selection: rb.Trials) -> np.ndarray:
    """Candidates best first: by success, then mean points, then the order found."""
    return np.lexsort((np.arange(len(selection.scored)), -selection.points.mean(1), -selection.scored))


# --- where the balls lie ---------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Tracked:
    """What --tracked names: a shot id of a tracked-shots JSON, or a reconstructed shot file."""

    data: Optional[str] = None
    shot_id: Optional[int] = None
    file: Optional[str] = None


TRACKED_HELP = ("[FILE:]SHOT_ID, a shot of a tracked-shots JSON FILE (default: the shipped match data, "
                "physics/tracking/data/tracked_3c_shots.json), e.g. 545712 or my_shots.json:545712, whose played "
                "strike is reconstructed (about 20 s); or a shot file experiments.reconstruct wrote "
                "(shot_<id>.json), whose played strike is used as it stands")


def tracked_arg(text: str) -> Tracked:
    """argparse type of ``--tracked`` (``TRACKED_HELP``)."""
    head, colon, tail = text.rpartition(":")
    if re.fullmatch(r"\d+", text.strip()):
        return Tracked(shot_id=int(text))
    if colon and re.fullmatch(r"\d+", tail.strip()) and head:
        return Tracked(data=head, shot_id=int(tail))
    if not text.lower().endswith(".json"):
        raise argparse.ArgumentTypeError(f"expected {TRACKED_HELP}; got {text!r}")
    return Tracked(file=text)


@dataclasses.dataclass(frozen=True)
class Layout:
    """The layout reported on: the discipline, the game state, the strikes that stand among the
    options as they are (a shot file's, a played one), the noise its file names (or None), what
    it is (JSON) and in words."""

    discipline: str
    state: rules.GameState
    given: tuple
    noise: Optional[float]
    about: dict
    words: str


def _from_file(source: shotfile.ShotFile, about: dict, words: str) -> Layout:
    state = source.game()[2]
    return Layout(source.discipline, state, tuple(source.strikes), source.noise_scale, about, words)


def tracked_file(tracked: Tracked, out: str, argv=None) -> str:
    """The shot file of a tracked shot: ``tracked.file``, or the shot reconstructed from the
    tracks (``physics.tracking.fit.reconstruct``, the match table's own physics) and written as
    ``OUT/shot_<id>.json`` by experiments.reconstruct's writer."""
    if tracked.file is not None:
        return tracked.file
    if tracked.shot_id is None:
        raise ValueError("--tracked names neither a shot id nor a shot file")
    from experiments import reconstruct as rc
    from physics.tracking import DATA
    from physics.tracking.fit import reconstruct

    shot = tracked_shot(tracked.data or str(DATA), tracked.shot_id)
    fit, shape = reconstruct(shot, physics.default_params())
    path = os.path.join(out, f"shot_{shot.shot_id}.json")
    rc.write_shot_file(path, shot, fit, shape, argv=argv)
    return path


def tracked_shot(data: str, shot_id: int):
    """The tracked shot ``shot_id`` of the JSON ``data``; ValueError naming the ids it holds."""
    from physics.tracking import tracks

    try:
        shots = {s.shot_id: s for s in tracks.load(data)}
    except (OSError, ValueError, KeyError) as err:
        raise ValueError(f"cannot read tracked shots from {data}: {err}") from None
    if shot_id not in shots:
        raise ValueError(f"no shot {shot_id} in {data}; its {len(shots)} shot ids: {', '.join(map(str, shots))}")
    return shots[shot_id]


def layout_of(args, argv=None) -> Layout:
    """The layout of the arguments (checked by ``check_args``)."""
    if args.tracked is not None:
        path = tracked_file(args.tracked, args.out, argv)
        source = shotfile.read(path)
        shot_id = (source.provenance or {}).get("tracked_shot")
        about = dict(kind="tracked", shot_file=path, shot_id=shot_id, data=args.tracked.data, notes=source.notes)
        return _from_file(source, about, f"match shot {shot_id or path} of the tracked data, its strike "
                                         "reconstructed from the tracks")
    if args.source is not None:
        return _from_file(args.shot_file, dict(kind="file", path=args.source), f"the layout of {args.source}")
    ruleset, params = setup(args.discipline)
    state = random_state(ruleset, jax.random.PRNGKey(args.seed), params)
    return Layout(args.discipline, state, (), None, dict(kind="seed", seed=args.seed),
                  f"the random legal layout of seed {args.seed}")


# --- candidates ------------------------------------------------------------------------------------

def search_choices(ruleset, state, params, keys, scale: float) -> list:
    """The search agent's choice under each key (planned for the noise ``scale``; exact: ``SearchAgent()``)."""
    agent = SearchAgent.for_noise(scale) if scale > 0 else SearchAgent()
    return [jax.tree_util.tree_map(np.asarray, agent.plan(ruleset, state, params, k)) for k in keys]


def favourites(discipline: str, ruleset, state, params, scale: float, count: int) -> list:
    """The ``count`` strikes the discipline's success model (agents.policy, the one for the
    noise nearest ``scale``) rates highest, each at least ``FAVOURITE_AIMS`` degrees in aim from
    the better ones (so mostly on other lines); none where the discipline has no model."""
    from agents.policy import PolicyAgent
    from agents.store import shipped_disciplines
    from agents.success import noise_draws, ratings

    if count <= 0 or discipline not in shipped_disciplines():
        return []
    agent = PolicyAgent.for_discipline(discipline, scale)
    states = jax.tree_util.tree_map(lambda x: np.asarray(x)[None], state)
    shots, best = agent.candidates(ruleset, states, params, jax.random.PRNGKey(0)[None])
    rated = ratings(agent.net, states, shots, best, params, noise_draws(params, agent.noise, agent.samples),
                    agent.target, agent.outcomes, agent.features)[0]
    shots = jax.tree_util.tree_map(lambda x: np.asarray(x)[0], clip_shot(shots, params))
    chosen: list = []
    for i in np.argsort(-np.asarray(rated), kind="stable"):
        if all(abs((shots.phi[i] - shots.phi[j] + 180.0) % 360.0 - 180.0) >= FAVOURITE_AIMS for j in chosen):
            chosen.append(int(i))
        if len(chosen) == count:
            break
    return [rb.take(shots, [i]) for i in chosen]


@dataclasses.dataclass(frozen=True)
class Candidate:
    """A strike reported on: the shot (scalar fields), its label, where it came from ("search",
    "model", "geometric", "played", a shot file's source) and its role: "candidate" (one of those
    the best are chosen from), "geometric", "played" or "given" (reported as it is)."""

    shot: physics.Shot
    label: str
    source: str
    role: str = "candidate"


def scalar(shot) -> physics.Shot:
    """A shot with scalar float fields."""
    return physics.Shot(*(float(np.asarray(getattr(shot, f)).reshape(-1)[0]) for f in rb.FIELDS))


def as_they_are(geometric, given: Sequence[shotfile.Strike]) -> list:
    """The strikes reported beside the best, not chosen: the geometric agent's line, and a shot
    file's strikes (one whose source is "played" labelled "played", with what its file says)."""
    out = [Candidate(scalar(geometric), "geometric line", "geometric", "geometric")]
    for g in given:
        if g.source == "played":
            label = "played" if not g.label or g.label.lower().startswith("played") else f"played: {g.label}"
            out.append(Candidate(g.shot, label, "played", "played"))
        else:
            out.append(Candidate(g.shot, g.label or g.source or "given", g.source or "given", "given"))
    return out


def find_candidates(args, discipline, ruleset, state, params, key, scale: float, progress) -> list:
    """The search's choice under each of ``args.keys`` keys, then the model's favourites."""
    found = [Candidate(scalar(s), f"search (key {i})", "search") for i, s in
             enumerate(search_choices(ruleset, state, params, jax.random.split(key, args.keys), scale))]
    progress("search", f"search: {len(found)} choices")
    liked = favourites(discipline, ruleset, state, params, scale, args.favourites)
    progress("model", f"success model: {len(liked)} favourites" + (
        "" if liked or not args.favourites else f" (no shipped model for {discipline})"))
    return found + [Candidate(scalar(s), f"model favourite {i + 1}", "model") for i, s in enumerate(liked)]


# --- the report ------------------------------------------------------------------------------------

def profile_name(scale: float) -> str:
    """The noise in words: its profile's name and scale, or the scale."""
    name = profile_of(scale)
    return f"{name} (x{scale:g})" if name else f"x{scale:g}"


def margin_words(margins: dict, spans: dict) -> str:
    """Margins in words: ``phi -0.67/+1.3 deg``; a move that reached its span is "at least" it."""
    units = {"phi": " deg", "V0": " m/s", "a": " R", "b": " R"}
    parts = []
    for f, (down, up) in margins.items():
        def far(x, sign, f=f):
            return "0" if not x else sign + (">=" if x >= spans[f] else "") + f"{x:.2g}"

        parts.append(f"{f} {far(down, '-')}/{far(up, '+')}{units.get(f, '')}")
    return ", ".join(parts)


def map_png(m: rb.SuccessMap, option: dict, title: str) -> str:
    """The option's success map as a base64 PNG, the option ringed and its phi and V0 margins as bars."""
    import matplotlib.pyplot as plt

    from experiments.shot_map import map_figure

    fig, ax = map_figure(m, title, ("aim phi (deg)", "cue speed V0 (m/s)"), [], size=(6.4, 3.6))
    s, mg = option["strike"], option.get("margins") or {}
    xerr = [[mg["phi"][0]], [mg["phi"][1]]] if "phi" in mg else None
    yerr = [[mg["V0"][0]], [mg["V0"][1]]] if "V0" in mg else None
    ax.errorbar([s["phi"]], [s["V0"]], xerr=xerr, yerr=yerr, fmt="o", mfc="none", mec="#ff3030", ecolor="#ff3030",
                ms=12, mew=2, capsize=4)
    ax.title.set_fontsize(9)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80, metadata={"Software": None})
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


COLUMNS = ("option", "source", "strike (V0 m/s, phi, theta deg, a, b R)", "as aimed: the cue ball's contacts, the call",
           "scores under noise (95 % interval)", "mean points", "on the choosing draws",
           "margins (how far it may move before the success falls by half)")


def _cell(text) -> str:
    return f"<td>{html.escape(str(text))}</td>"


def preamble(report: dict, maps: dict) -> str:
    """The report's HTML above the replays: what was done, the options' table, their maps."""
    s = report["settings"]
    rows = []
    for o in report["options"]:
        strike = ", ".join(f"{f} {o['strike'][f]:.3g}" for f in rb.FIELDS)
        chosen = "" if o["selection"] is None else f"{100 * o['selection']['success']:.0f} %"
        found = ", ".join(f"{k} x{n}" for k, n in (o.get("found_by") or {}).items())
        found = f" (found by {found})" if found else ""
        if o.get("same_path_as"):
            found += f" (the same path as {o['same_path_as']})"
        rows.append("<tr>" + "".join(_cell(x) for x in (
            o["label"], o["source"] + found, strike,
            " - ".join(o["as_aimed"]["route"]) + ": " + o["as_aimed"]["call"],
            f"{100 * o['success']:.1f} % [{100 * o['low']:.1f}, {100 * o['high']:.1f}] of {o['plays']}",
            f"{o['points']:.2f}", chosen,
            margin_words(o["margins"], s["margin_spans"]) if o["margins"] else "")) + "</tr>")
    head = "".join(f"<th>{html.escape(h)}</th>" for h in COLUMNS)
    figures = "".join(f'<figure><img alt="success map of {html.escape(label)}" src="data:image/png;base64,{png}">'
                      f"<figcaption>{html.escape(label)}</figcaption></figure>" for label, png in maps.items())
    notes = "".join(f"<p>{html.escape(line)}</p>" for line in report["summary"])
    return (f'<div id="report" style="max-width:1400px">{notes}<table border="1" cellpadding="4" '
            f'style="border-collapse:collapse;background:#fff;font-size:13px"><tr>{head}</tr>{"".join(rows)}</table>'
            f'<h2>Success maps: each option\'s own slice, aim x speed at its elevation and tip</h2>'
            f'<div style="display:flex;flex-wrap:wrap;gap:12px">{figures}</div>'
            f"<h2>The options as aimed, and their noisy plays</h2></div>")


def summary_lines(report: dict) -> list:
    """The report in a few sentences: what was searched, how chosen, how valued, what the played
    strike scores against the options."""
    s, c = report["settings"], report["candidates"]
    lines = [f"{report['discipline']}: {report['layout']['words']}, {report['layout']['shooter']} to shoot; "
             f"noise {profile_name(s['noise'])}; physics: {s['physics']}.",
             f"Candidates: {c['search']} search choices and {c['model']} success-model favourites, {c['paths']} "
             f"distinct paths; each candidate played {s['select_plays']} times to choose; each option then played "
             f"{s['plays']} times on fresh noise draws (held out from the choice): the success, its 95 % Wilson "
             f"interval and the margins come from those."]
    best = [o for o in report["options"] if o["role"] == "best"]
    if len(best) < s["top"]:
        lines.append(f"Only {len(best)} distinct shots were found among the candidates (--top {s['top']}).")
    for o in report["options"]:
        if o["role"] != "played":
            continue
        more = [b["label"] for b in best if b["low"] > o["high"]]
        lines.append(f"The strike played scores {100 * o['success']:.1f} % [{100 * o['low']:.1f}, "
                     f"{100 * o['high']:.1f}] under this noise; " + (
                         f"scoring more, beyond the intervals: {', '.join(more)}." if more else
                         "no option scores more beyond the intervals."))
    return lines


def option_entry(c: Candidate, entry, path: Path, trials: rb.Trials, row: int, selection=None) -> dict:
    """One option of report.json: the strike, how it plays as aimed, and its held-out plays
    (row ``row`` of ``trials``); ``selection``: its plays on the choosing draws (None: not chosen)."""
    k = int(trials.scored[row])
    low, high = wilson(k, trials.trials)
    return dict(label=c.label, role=c.role, source=c.source,
                strike={f: float(np.asarray(getattr(c.shot, f))) for f in rb.FIELDS},
                as_aimed=dict(call=entry.call, route=list(path.route)), success=k / trials.trials, low=low,
                high=high, plays=trials.trials, scored=k, points=float(trials.points[row].mean()),
                given=float(trials.given[row].mean()), selection=selection)


class Progress:
    """Prints each step with the seconds since the start, and keeps what each step took."""

    def __init__(self):
        self.start = self.last = time.perf_counter()
        self.timings: dict = {}

    def __call__(self, step: str, text: str):
        now = time.perf_counter()
        self.timings[step] = round(now - self.last, 2)
        self.last = now
        print(f"[{now - self.start:6.1f} s] {text}", flush=True)

    @property
    def seconds(self) -> float:
        return round(time.perf_counter() - self.start, 1)


def choose_options(args, ruleset, state, params, key, noise, candidates: list, paths: list):
    """(kept, group, held out): the best distinct candidates chosen on ``args.select_plays`` plays
    each (the draws of ``key``) and valued on ``args.plays`` fresh ones (``rb.held_out``)."""
    kept: list = []
    group: list = []

    def choose(selection):
        kept[:], group[:] = distinct(paths, ranked(selection), args.top, args.same_within)
        return kept

    choice = rb.held_out(ruleset, state, rb.stack_shots(c.shot for c in candidates), params, key, choose=choose,
                         trials=args.select_plays, plays=args.plays, noise=noise, batch=args.batch)
    return kept, group, choice


def success_maps(args, options: list, ruleset, state, params, key, noise) -> dict:
    """{label: base64 PNG}: each option's map over aim x speed around it, at its own elevation and
    tip (the same draws of ``key`` for every map); each option gets its map's extent under "map"."""
    maps = {}
    for o in options if args.map_trials else ():
        s = o["strike"]
        aims = s["phi"] + np.linspace(-MAP_AIM, MAP_AIM, args.map_cells[0])
        speeds = np.linspace(max(0.2, s["V0"] - MAP_SPEED), min(float(params.cue.max_speed), s["V0"] + MAP_SPEED),
                             args.map_cells[1])
        m = rb.success_map(ruleset, state, params, key, aims, speeds, theta=s["theta"], a=s["a"], b=s["b"],
                           noise=noise, trials=args.map_trials, batch=args.batch)
        o["map"] = dict(aims=[float(aims[0]), float(aims[-1]), len(aims)], speeds=[float(speeds[0]),
                        float(speeds[-1]), len(speeds)], trials=m.trials, best_cell=float(np.max(m.success)))
        title = (f"{o['label'].split(':')[0]}: theta {s['theta']:.3g}, a {s['a']:+.2f}, b {s['b']:+.2f}; "
                 f"{m.trials} plays a cell")
        maps[o["label"]] = map_png(m, o, title)
    return maps


def run(args, argv=None) -> dict:
    """Find, choose, value and draw (the module docstring); write the three files; the report."""
    progress = Progress()
    where = layout_of(args, argv)
    discipline, state = where.discipline, where.state
    ruleset, params = setup(discipline)
    scale = args.noise if args.noise is not None else where.noise if where.noise is not None else DEFAULT_NOISE
    noise = ExecutionNoise(scale)
    root = jax.random.PRNGKey(args.seed)
    k_fan, k_search, k_choose, k_map = (jax.random.fold_in(root, i) for i in (1, 2, 3, 4))  # k_fan: view --seed's
    names = ball_names(ruleset)
    cue, player = int(np.asarray(state.cue_ball)), int(np.asarray(state.current_player))
    progress("layout", f"{discipline}, {where.words}; noise {profile_name(scale)}")

    candidates = find_candidates(args, discipline, ruleset, state, params, k_search, scale, progress)
    beside = as_they_are(GeometricAgent().plan(ruleset, state, params, root), where.given)
    everything = candidates + beside
    entries = view.shot_entries(discipline, [c.shot for c in everything], labels=[c.label for c in everything],
                                state=state)
    paths = [path_of(physics.event_list(e.result), e.result.final_positions, cue, names) for e in entries]
    n = len(candidates)
    kept, group, choice = choose_options(args, ruleset, state, params, k_choose, noise, candidates, paths[:n])
    others = rb.value_chosen(ruleset, state, rb.stack_shots(c.shot for c in beside), params, k_choose, noise=noise,
                             trials=args.plays, batch=args.batch)
    progress("choice", f"chose {len(kept)} distinct of {n} candidates on {args.select_plays} plays each; valued "
                       f"them and {len(beside)} more on {args.plays} fresh plays each")

    options, rows = [], kept + list(range(n, len(everything)))
    for r, c in enumerate(kept):
        best = dataclasses.replace(candidates[c], label=f"#{r + 1} {candidates[c].label}", role="best")
        sel = dict(success=float(choice.selection.success[c]), plays=choice.selection.trials)
        options.append(option_entry(best, entries[c], paths[c], choice.value, r, sel))
        sources = [candidates[i].source for i in range(n) if group[i] == c]
        options[-1]["found_by"] = {k: sources.count(k) for k in dict.fromkeys(sources)}
    for r, c in enumerate(beside):
        options.append(option_entry(c, entries[n + r], paths[n + r], others, r))
        same = [o["label"] for o, i in zip(options, kept) if same_path(paths[n + r], paths[i], args.same_within)]
        options[-1]["same_path_as"] = same[0] if same else None
    for o, i in zip(options, rows):
        o["margins"] = None if not args.margin_steps else {f: list(v) for f, v in rb.margins(
            ruleset, state, everything[i].shot, params, rb.held_out_key(k_choose), noise=noise, trials=args.plays,
            steps=args.margin_steps, batch=args.batch).edges.items()}
    progress("margins", f"margins of {len(options)} options" if args.margin_steps else "no margins")
    maps = success_maps(args, options, ruleset, state, params, k_map, noise)
    progress("maps", f"{len(maps)} success maps" if maps else "no maps")

    labels = [f"{o['label']}: {100 * o['success']:.0f} % of {o['plays']}" for o in options]
    shots = [everything[i].shot for i in rows]
    fans = view.fan_entries(discipline, shots, args.fan, scale, k_fan, labels=labels, state=state) if args.fan else []
    report = dict(
        format=REPORT_FORMAT, version=REPORT_VERSION, shot_file="shots.json", page="report.html",
        discipline=discipline,
        settings=dict(noise=scale, noise_profile=profile_of(scale), noise_std=noise.describe(), seed=args.seed,
                      top=args.top, plays=args.plays, select_plays=args.select_plays, keys=args.keys,
                      favourites=args.favourites, same_within=args.same_within, margin_steps=args.margin_steps,
                      margin_spans={f: rb.MARGIN_SPANS[f] for f in rb.MARGIN_FIELDS},
                      map_trials=args.map_trials, map_cells=list(args.map_cells), fan=args.fan,
                      physics=physics_words(discipline)),
        layout=dict(**where.about, words=where.words, positions=np.asarray(state.positions).tolist(), cue_ball=cue,
                    player=player, shooter=names[cue]),
        candidates=dict(search=sum(c.source == "search" for c in candidates),
                        model=sum(c.source == "model" for c in candidates), paths=len({p.route for p in paths[:n]})),
        options=options)
    summary: list[str] = summary_lines(report)
    report["summary"] = summary
    os.makedirs(args.out, exist_ok=True)
    strikes = [shotfile.Strike.of(s, label, o["source"]) for s, label, o in zip(shots, labels, options)]
    shotfile.write(os.path.join(args.out, "shots.json"), discipline, np.asarray(state.positions), strikes,
                   cue_ball=cue, player=player, noise=scale, notes=" ".join(summary),
                   provenance=shotfile.provenance("experiments.shot_report", argv, seed=args.seed))
    replays = [dataclasses.replace(entries[i], label=label) for i, label in zip(rows, labels)]
    page = view.write_view(os.path.join(args.out, "report.html"), replays,
                           f"{discipline}: the {len(kept)} best shots for noise {profile_name(scale)}", PAGE_WIDTH,
                           fans, preamble(report, maps))
    progress("page", f"fans of {args.fan} plays and the page" if fans else "the page")
    report.update(timings=progress.timings, seconds=progress.seconds, machine=machine_info())
    with open(os.path.join(args.out, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    for o in options:
        print(f"  {o['label']:<32} scores {100 * o['success']:5.1f} % [{100 * o['low']:.1f}, {100 * o['high']:.1f}] "
              f"of {o['plays']} held-out plays" + (f"; margins {margin_words(o['margins'], rb.MARGIN_SPANS)}"
                                                   if o["margins"] else ""))
    print(f"wrote {page}, {args.out}/report.json, {args.out}/shots.json in {report['seconds']:.0f} s")
    return report


def physics_words(discipline: str) -> str:
    """The physics the report ran on: the discipline's table with its default parameter set."""
    table = rules.disciplines.get(discipline).table
    return f"the {table} table's default parameters (calibration {TABLE_CALIBRATION.get(table, 'reference')!r})"


# --- the command -----------------------------------------------------------------------------------

def _cells(text: str) -> tuple:
    try:
        aims, speeds = (int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected AIMS,SPEEDS (two whole numbers), got {text!r}") from None
    if aims < 2 or speeds < 2:
        raise argparse.ArgumentTypeError(f"a map needs at least 2 aims and 2 speeds, got {text!r}")
    return aims, speeds


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m experiments.shot_report", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    add_discipline_argument(parser)
    parser.set_defaults(discipline=None)  # three_cushion, or the discipline of --from / --tracked
    parser.add_argument("--seed", type=int, default=0, help="the random layout's seed (without --from and "
                                                            "--tracked) and the seed of every noise draw")
    parser.add_argument("--from", dest="source", metavar="FILE", help="a shot file (docs/shotfile.md): its layout, "
                                                                      "and its strikes among the options")
    parser.add_argument("--tracked", type=tracked_arg, metavar="[FILE:]SHOT_ID", help=TRACKED_HELP)
    parser.add_argument("--noise", type=noise_arg, help=NOISE_HELP + f" (default: the file's, else {DEFAULT_NOISE:g})")
    parser.add_argument("--top", type=int, default=3, help="distinct best shots to report (default %(default)s)")
    parser.add_argument("--plays", type=int, default=400,
                        help="held-out noisy plays valuing each option and each of its margins' moves "
                             "(default %(default)s)")
    parser.add_argument("--select-plays", type=int, default=200,
                        help="noisy plays of each candidate to choose on (default %(default)s)")
    parser.add_argument("--keys", type=int, default=8, help="search keys: one search choice each (default %(default)s)")
    parser.add_argument("--favourites", type=int, default=8,
                        help="the success model's favourite strikes (default %(default)s)")
    parser.add_argument("--same-within", type=float, default=END_WITHIN, metavar="M",
                        help="metres within which every ball must end for two strikes with the same contacts to be "
                             "one shot (default: inf, the contacts alone: after the carom the ends scatter)")
    parser.add_argument("--margin-steps", type=int, default=12,
                        help="moves per direction of each margin (default %(default)s; 0: none)")
    parser.add_argument("--map-trials", type=int, default=24,
                        help="noisy plays per map cell (default %(default)s; 0: no maps)")
    parser.add_argument("--map-cells", type=_cells, default=MAP_CELLS, metavar="AIMS,SPEEDS",
                        help=f"cells of each map, over aim +-{MAP_AIM:g} deg and speed +-{MAP_SPEED:g} m/s (default "
                             f"{MAP_CELLS[0]},{MAP_CELLS[1]})")
    parser.add_argument("--fan", type=int, default=32, metavar="N",
                        help="noisy plays drawn of each option (default %(default)s; 0: none)")
    parser.add_argument("--batch", type=int, default=rb.BATCH, help="shots per compiled call")
    parser.add_argument("--out", default="results/shot_report", help="folder of report.html, report.json, shots.json")
    parser.add_argument("--open", action="store_true", help="open the page in the web browser")
    return parser


def check_args(parser, args):
    """Refuse what cannot run, saying what is allowed, before any simulation."""
    for name, low in (("top", 1), ("plays", 1), ("select_plays", 1), ("batch", 1), ("keys", 0), ("favourites", 0),
                      ("margin_steps", 0), ("map_trials", 0), ("fan", 0)):
        if getattr(args, name) < low:
            parser.error(f"argument --{name.replace('_', '-')}: must be a whole number >= {low}, "
                         f"got {getattr(args, name)}")
    if args.keys + args.favourites < 1:
        parser.error("arguments --keys, --favourites: the candidates need one search key or one favourite at least")
    if not args.same_within >= 0:
        parser.error(f"argument --same-within: must be a distance >= 0 in metres (or inf), got {args.same_within}")
    if args.source is not None and args.tracked is not None:
        parser.error("argument --tracked: not with --from; give one layout")
    args.shot_file = None
    if args.source is not None:
        try:
            args.shot_file = view.read_source(args.source)
        except shotfile.ShotFileError as err:
            parser.error(f"argument --from: {err}")
        file_discipline = args.shot_file.discipline
    elif args.tracked is not None:
        file_discipline = TRACKED_DISCIPLINE
        try:
            if args.tracked.file is not None:
                played = [s for s in shotfile.read(args.tracked.file).strikes if s.source == "played"]
                if not played:
                    raise ValueError(f"{args.tracked.file} holds no played strike (source \"played\"); give "
                                     f"[FILE:]SHOT_ID to reconstruct one, or --from {args.tracked.file}")
            else:
                from physics.tracking import DATA
                tracked_shot(args.tracked.data or str(DATA), args.tracked.shot_id)
        except ValueError as err:
            parser.error(f"argument --tracked: {err}")
    else:
        file_discipline = None
    if file_discipline and args.discipline not in (None, file_discipline):
        parser.error(f"argument --discipline: {args.discipline} is not the layout's {file_discipline}")
    args.discipline = file_discipline or args.discipline or "three_cushion"


def main(argv=None) -> dict:
    begin()
    parser = build_parser()
    args = parser.parse_args(argv)
    check_args(parser, args)
    try:
        report = run(args, argv)
    except shotfile.ShotFileError as err:
        parser.error(str(err))
    if args.open:
        webbrowser.open("file://" + os.path.abspath(os.path.join(args.out, "report.html")))
    return report


if __name__ == "__main__":
    main()
