"""The rollout engine: agents play innings and whole games in a discipline's own environment.

Innings are episodes of the functional environment's "inning" mode, games of its "game" mode,
both with no built-in opponent (``billiards_env.functional``): a ``Player`` (an agent under its
spec's label, ``make_player``) plans every shot from the game state, the planned strike becomes
the action (``billiards_env.actions.from_shot``, its choices keeping the layout planned from),
and the environment's step plays it (execution noise, simulation, referee, episode end). Innings
start from random legal layouts (``agents.states``), a stored set's (``billiards_env.layouts``) or
the starting position (``rules.init_game``) and end when the turn passes or the step cap is reached
("capped"); games start from the starting position, the breaker alternating, or from given
openings (``opening_states``: a stored set's layouts, each shot first once by either side), and
end at the distance or the cap ("unfinished").

Determinism: each inning's (game's) randomness comes from its own key (``row_keys``: seed and
stream), split per shot into a planning and a step key (``shot_keys``), so every agent and every
rule setting meets the same layouts and noise draws, shot for shot (common random numbers). A
player may have an execution noise of its own (``Player.noise``, a spec's ``@NOISE``): its rows
are stepped with that noise in the environment's params, a leaf, so the compiled step is shared.

Batching: every unfinished row is planned each round in ``plan_batch`` calls of ``Player.chunk``
states (``plan_chunk``: a search as many states as ``search_shots`` simulated shots allow, its
exact screen counted), then stepped ``batch`` rows at a time (``step_rows``), the last call padded,
so one compilation serves every round. Seconds per decision: planning wall time per state
actually planned (padding rows left out); the first call of each kind of rules compiles, is timed
apart (``first_call_seconds``) and repeated.

Results are rows of plain dicts: ``run_innings`` (inning rows, shot rows), ``run_games`` (game,
inning and shot rows); summarised by ``inning_summary``, ``game_summary``, ``shot_stats`` and
``paired_differences`` (``paired_by``: across rule settings) with the intervals of
``agents.stats``; ``evaluate`` runs it all for a list of agent specs (``experiments.evaluate`` is
its command; figures in docs/agents.md).
"""
from __future__ import annotations

import dataclasses
import time

import jax
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

import rules
from agents.base import index_tree
from agents.geometric import GeometricAgent
from agents.guided import GuidedAgent
from agents.search import SearchAgent
from agents.specs import agent_budget, check_discipline, make_agent, parse_agent_spec
from agents.states import random_states_for
from agents.stats import bounded_mean_ci, mean_ci, ratio_ci, wilson
from agents.success import SuccessAgent
from billiards_env import modes
from billiards_env.actions import from_shot
from billiards_env.functional import FunctionalEnv
from billiards_env.info import board_scores_batch
from billiards_env import layouts as layout_sets
from billiards_env.params import DEFAULT_NOISE, default_params, setup
from billiards_env.params import replace as replace_params
from billiards_env.runner import Runner
from physics.execution import MAX_ELEVATION, shot_array, shot_from_array

BATCH = 128  # rows per environment step (padded): one compiled step
SEARCH_SHOTS = 8192  # simulated shots per search planning call, at most (memory and time per call)
GEOMETRIC_CHUNK = 16  # states per geometric planning call (its line tables are large)
SHOT_FIELDS = ("V0", "phi", "theta", "a", "b")


# --- rows of game states on the host -----------------------------------------------------------

def to_host(tree):
    """Every leaf as a NumPy array (states kept between rounds, indexed without compiling)."""
    return jax.tree_util.tree_map(np.asarray, tree)


def pad_rows(tree, size: int):
    """Repeat the last row of every leaf up to ``size`` rows."""
    def one(x):
        x = np.asarray(x)
        extra = size - x.shape[0]
        return np.concatenate([x, np.repeat(x[-1:], extra, axis=0)]) if extra > 0 else x
    return jax.tree_util.tree_map(one, tree)


def put_rows(tree, rows, values):
    """A copy of ``tree`` with ``rows`` replaced by ``values``."""
    def one(x, v):
        x = np.array(x)
        x[rows] = np.asarray(v)
        return x
    return jax.tree_util.tree_map(one, tree, values)


@jax.jit
def shot_keys(row_keys, shot):
    """(N, 2, 2): per row, the planning and the step key (the execution noise) of its shot number
    ``shot``."""
    return jax.vmap(lambda k: jax.random.split(jax.random.fold_in(k, shot)))(row_keys)


@jax.jit
def _start_states(ruleset, keys, breakers, params):
    return jax.vmap(lambda k, b: rules.init_game(ruleset, k, params, breaker=b))(keys, breakers)


def row_keys(seed: int, stream: int, n: int):
    """(n, 2): one key per inning or game."""
    return jax.random.split(jax.random.fold_in(jax.random.PRNGKey(seed), stream), n)


def first_states(ruleset, params, n: int, start: str, keys, breakers=None, layouts=None):
    """n game states on the host: random legal layouts (player 0 to shoot) or the starting
    position (``breakers`` to break; player 0 by default). ``layouts``: stored layouts
    (``billiards_env.layouts.load``) whose first n replace the random ones."""
    if start == "random":
        if layouts is not None:
            return to_host(layout_sets.states_of(layouts, ruleset, params, n))
        return to_host(random_states_for(ruleset, jnp.asarray(keys)[:n], params))
    if start != "start":
        raise ValueError(f"start must be 'random' or 'start', got {start!r}")
    if layouts is not None:
        raise ValueError("stored layouts replace random ones only: start must be 'random' with layouts")
    breakers = np.zeros(n, np.int32) if breakers is None else np.asarray(breakers, np.int32)
    return to_host(_start_states(ruleset, keys, jnp.asarray(breakers), params))


def inning_starts(ruleset, params, n: int, *, start: str = "random", seed: int = 0, stream: int = 0, layouts=None):
    """(the n innings' keys, their first game states on the host) as ``run_innings`` starts them,
    for whoever wants the layouts an evaluation played (``experiments.evaluate --save-shots``)."""
    keys = row_keys(seed, 2 * stream, n)
    return keys, first_states(ruleset, params, n, start, keys, layouts=layouts)


def opening_states(ruleset, params, layouts, n: int):
    """n games in play from stored layouts (``billiards_env.layouts.load``), the openings of a
    match: game g from layout g // 2 with player g % 2 to shoot first, so that an even n plays each
    layout twice, each side first once. The set's layouts are drawn for its own shooter (player 0)
    and cue ball: the first shooter's cue ball takes that ball's place (the two swapped; in the
    Hungarian game both play the red, H-3.1). ValueError when the set holds fewer than n / 2."""
    count = len(layouts.positions)
    if n > 2 * count:
        raise ValueError(f"layout set {layouts.name!r} holds {count} layouts of {layouts.discipline}: "
                         f"{2 * count} games at most (each layout twice), asked for {n}")
    index, shooter = np.arange(n) // 2, np.arange(n) % 2
    own = np.asarray(layouts.cue_ball)[index]
    ball = np.zeros(n, int) if ruleset.is_hungarian else shooter  # rules.cue_ball_of on the host
    positions = np.array(layouts.positions[index])
    rows = np.arange(n)
    positions[rows, ball], positions[rows, own] = layouts.positions[index, own], layouts.positions[index, ball]
    picked = layouts._replace(positions=positions, player=shooter.astype(np.int32), cue_ball=ball.astype(np.int32))
    return to_host(layout_sets.states_of(picked, ruleset, params, n))


# --- players -----------------------------------------------------------------------------------

def plan_chunk(agent, batch: int, search_shots: int = SEARCH_SHOTS) -> int:
    """States per planning call: a search as many as ``search_shots`` simulated shots allow, every
    shot its call simulates per state counted (``SearchConfig.budget``: the exact screen, round 1
    and round 2), at least one; the geometric agent and the success model (the policy)
    ``GEOMETRIC_CHUNK``, the guided search the smaller of the two; the others a whole batch."""
    limit = batch
    if isinstance(agent, (GeometricAgent, SuccessAgent, GuidedAgent)):  # they build the geometric line tables
        limit = min(batch, GEOMETRIC_CHUNK)
    if isinstance(agent, SearchAgent):
        return max(1, min(limit, search_shots // agent.config.budget))
    return limit


@dataclasses.dataclass
class Player:
    """An agent under its spec's label, planning in calls of ``chunk`` states, with its timing:
    ``plan_seconds`` over ``decisions`` (the states planned, padding left out), and the calls
    that compiled apart (``first_call_seconds``); ``noise``: the execution noise its shots are
    played with, None for the environment's."""

    label: str
    agent: object
    chunk: int
    plan_seconds: float = 0.0
    first_call_seconds: float = 0.0
    decisions: int = 0
    warm: set = dataclasses.field(default_factory=set)
    noise: float | None = None

    def decide(self, ruleset, states, params, keys):
        """(n, 5) NumPy array of planned shots for n host states; keys (n, 2)."""
        n = int(np.shape(keys)[0])
        out = []
        for start in range(0, n, self.chunk):
            m = min(self.chunk, n - start)
            part = pad_rows(index_tree(states, slice(start, start + m)), self.chunk)
            part_keys = pad_rows(np.asarray(keys[start:start + m]), self.chunk)
            kind = (ruleset.family, int(ruleset.cushions_required))  # what the agents compile for
            if kind not in self.warm:  # the first call compiles: timed apart, then repeated
                t0 = time.perf_counter()
                jax.block_until_ready(self.agent.plan_batch(ruleset, part, params, jnp.asarray(part_keys)))
                self.first_call_seconds += time.perf_counter() - t0
                self.warm.add(kind)
            t0 = time.perf_counter()
            shots = jax.block_until_ready(self.agent.plan_batch(ruleset, part, params, jnp.asarray(part_keys)))
            self.plan_seconds += time.perf_counter() - t0
            out.append(np.asarray(shot_array(shots))[:m])
        self.decisions += n
        return np.concatenate(out) if out else np.zeros((0, 5))

    def counters(self) -> tuple:
        return (self.plan_seconds, self.decisions)

    def timing(self, since=(0.0, 0)) -> dict:
        """Seconds per decision: planning time per state planned (padding rows left out),
        compilation left out; over the decisions made since the ``counters()`` given."""
        seconds, decisions = (a - b for a, b in zip(self.counters(), since))
        return dict(seconds_per_decision=seconds / decisions if decisions else float("nan"), decisions=decisions,
                    first_call_seconds=self.first_call_seconds, budget=agent_budget(self.agent))


def make_player(spec: str, noise: float, batch: int = BATCH, search_shots: int = SEARCH_SHOTS,
                discipline: str | None = None) -> Player:
    """The ``Player`` of an agent spec (``agents.specs.make_agent``) under that spec's label, with
    the spec's own noise (``@NOISE``) if it has one, else planning for ``noise``."""
    parsed = parse_agent_spec(spec)
    agent = make_agent(parsed, noise, discipline=discipline)
    return Player(parsed.text, agent, plan_chunk(agent, batch, search_shots), noise=parsed.noise)


# --- one round: plan, then the environment's step (noise, simulation, referee, episode end) ----

@jax.jit
def _actions(planned, games, env_params):
    """(B, 9) the planned shots (B, 5) as actions, their choices keeping the layouts the shots
    were planned from (``billiards_env.actions.from_shot``)."""
    return jax.vmap(lambda x, g: from_shot(shot_from_array(x), env_params, g))(planned, games)


def environment(ruleset, params, mode: str, noise: float, max_steps: int):
    """(env, env params): the functional environment of the discipline of ``ruleset`` in ``mode``
    with no built-in opponent (the agents play every shot), on ``ruleset`` and the
    physics ``params``, with the execution noise ``noise`` and the step cap ``max_steps``. The
    action's ranges span every strike a cue plays (``physics.execution.playable``), so that the
    agents' shots are played as planned (the default ranges stop at 8 m/s, and the geometric
    agent plans faster shots)."""
    discipline = rules.disciplines.matching(ruleset)[0]
    base = default_params(discipline)
    dtype = base.noise.dtype
    env_params = replace_params(
        base, rules=ruleset, physics=params, noise=jnp.asarray(noise, dtype),
        max_steps=jnp.asarray(max_steps, base.max_steps.dtype), v_min=jnp.zeros((), dtype),
        v_max=jnp.asarray(params.cue.max_speed, dtype), theta_max=jnp.asarray(MAX_ELEVATION, dtype),
        offset_max=jnp.asarray(0.999 * params.cue.max_offset, dtype))
    return FunctionalEnv(discipline, mode, "two_player", env_params), env_params


def step_rows(env, env_params, states, planned, keys, batch: int = BATCH):
    """The environment's step for n host States with their planned shots (n, 5) and step keys
    (n, 2), in batches of ``batch`` rows (the last padded), so that one compiled step serves
    every round. Returns (the stepped States on the host, their ShotResults)."""
    runner = Runner(env, batch, fused=False, autoreset=False)
    n = int(np.shape(planned)[0])
    stepped, results = [], []
    for first in range(0, n, batch):
        rows = slice(first, min(n, first + batch))
        part, shots, part_keys = (pad_rows(index_tree(t, rows), batch) for t in (states, planned, keys))
        nxt, result = runner.step_rows(part, _actions(jnp.asarray(shots), part.game, env_params),
                                       jnp.asarray(part_keys), env_params)
        stepped.append(to_host(index_tree(nxt, slice(0, rows.stop - first))))
        results.append(index_tree(result, slice(0, rows.stop - first)))
    if len(stepped) == 1:
        return stepped[0], results[0]
    return (jax.tree_util.tree_map(lambda *xs: np.concatenate(xs), *stepped),
            jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs), *results))


def with_noise(env_params, noise: float):
    """The environment's params with the execution noise ``noise`` (a leaf: the compiled step is
    the same)."""
    return replace_params(env_params, noise=jnp.asarray(noise, env_params.noise.dtype))


def step_seats(players, seats, env, env_params, states, planned, keys, batch: int = BATCH):
    """``step_rows`` with each row's shot played under its shooter's noise (``Player.noise``,
    the environment's where None): the rows of each noise stepped apart, each with its own key,
    then put back in order. When no player has a noise of its own, one ``step_rows`` call."""
    own = [p.noise for p in players]
    if all(x is None for x in own):
        return step_rows(env, env_params, states, planned, keys, batch)
    default = float(env_params.noise)
    noise = np.array([default if own[j] is None else own[j] for j in np.asarray(seats, int)], float)
    parts, order = [], []
    for value in np.unique(noise):
        rows = np.nonzero(noise == value)[0]
        parts.append(step_rows(env, with_noise(env_params, value), index_tree(states, rows), planned[rows],
                               keys[rows], batch))
        order.append(rows)
    back = np.argsort(np.concatenate(order))
    return (jax.tree_util.tree_map(lambda *xs: np.concatenate(xs)[back], *(p[0] for p in parts)),
            jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs)[back], *(p[1] for p in parts)))


def play_round(players, seats, env, env_params, states, keys, batch: int = BATCH):
    """One shot for each of n host States of ``env``: planned by the players, played by the
    environment's step (its execution noise or the shooter's own, simulation, referee and
    episode end: ``step_seats``).

    players: the Players; seats: (n,) which of them shoots in each row; keys: (n, 2, 2) each
    row's planning and step keys. Returns (planned shots (n, 5), the stepped States on the host,
    and the ShotResults of the n rows, for whoever wants to draw a shot).
    """
    keys = np.asarray(keys)
    planned = np.zeros((keys.shape[0], 5))
    for j, player in enumerate(players):
        mine = np.nonzero(seats == j)[0]
        if mine.size:
            planned[mine] = player.decide(env_params.rules, index_tree(states.game, mine), env_params.physics,
                                          keys[mine, 0])
    stepped, results = step_seats(players, seats, env, env_params, states, planned, keys[:, 1], batch)
    return planned, stepped, results


def shot_records(part, labels, rows, shot, stepped, planned):
    """One dict per shot played: who, what was planned, what the referee said (the stepped
    States' outcomes)."""
    outcomes = stepped.outcome
    shooter = np.asarray(outcomes.shooter)
    points = np.asarray(outcomes.points)
    mine = points[np.arange(len(shooter)), shooter]  # agents.shooter_points, on the host
    net = mine - points[np.arange(len(shooter)), 1 - shooter]  # agents.net_points
    records = []
    for i, row in enumerate(rows):
        reason = rules.Reason(int(outcomes.reason[i]))
        records.append(dict(
            part=part, agent=labels[i], row=int(row), shot=int(shot), shooter=int(shooter[i]),
            points=int(mine[i]), net_points=int(net[i]), shot_value=int(outcomes.shot_value[i]),
            success=bool(outcomes.shot_value[i] > 0), foul=bool(outcomes.foul[i]), reason=reason.name.lower(),
            turn_passes=bool(outcomes.turn_passes[i]), game_over=bool(outcomes.game_over[i]),
            **{f: float(planned[i, k]) for k, f in enumerate(SHOT_FIELDS)},
        ))
    return records


def put_back(states, rows, nxt, active, bar):
    """The states with the stepped rows put back; rows whose episode ended leave ``active`` (in
    place) and advance the progress bar."""
    states = put_rows(states, rows, nxt)
    done = np.asarray(nxt.done)
    active[rows[done]] = False
    bar.update(int(done.sum()))
    return states


# --- innings -----------------------------------------------------------------------------------

def run_innings(player: Player, ruleset, params, n: int, *, start: str = "random", noise: float = DEFAULT_NOISE,
                max_shots: int = 20, seed: int = 0, stream: int = 0, batch: int = BATCH, progress: bool = True,
                layouts=None):
    """n innings of one player (see the module docstring): episodes of the "inning" mode, capped
    at ``max_shots`` steps, from the first n of ``layouts`` if given (``first_states``). Returns
    (inning rows, shot rows)."""
    env, env_params = environment(ruleset, params, "inning", noise, max_shots)
    keys, games = inning_starts(ruleset, params, n, start=start, seed=seed, stream=stream, layouts=layouts)
    states = to_host(env.init_from(games, env_params))
    active = np.ones(n, bool)
    points, net, fouls, successes = np.zeros((4, n), int)  # per inning
    ended = np.array(["capped"] * n, dtype=object)
    shot_rows = []
    bar = tqdm(total=n, desc=f"{player.label} innings", unit="inning", disable=not progress, leave=False)
    s = 0
    while active.any():  # the step cap ends every inning
        rows = np.nonzero(active)[0]
        bar.set_postfix(shot=s + 1, playing=rows.size)
        k = np.asarray(shot_keys(keys, s))[rows]
        planned, nxt, _ = play_round([player], np.zeros(rows.size, int), env, env_params, index_tree(states, rows),
                                     k, batch)
        records = shot_records("inning", [player.label] * rows.size, rows, s, nxt, planned)
        shot_rows += records
        for i, row in enumerate(rows):
            points[row] += records[i]["points"]
            net[row] += records[i]["net_points"]
            fouls[row] += records[i]["foul"]
            successes[row] += records[i]["success"]
        over = np.asarray(nxt.terminated)  # the turn passed or the game ended; truncated: capped
        ended[rows[over]] = np.where(np.asarray(nxt.game.game_over)[over], "game_over", "turn_passed")
        states = put_back(states, rows, nxt, active, bar)
        s += 1
    bar.close()
    inning_rows = [dict(part="inning", agent=player.label, inning=i, start=start, shots=int(states.step_count[i]),
                        points=int(points[i]), net_points=int(net[i]), successes=int(successes[i]),
                        fouls=int(fouls[i]), ended=str(ended[i]), capped=bool(ended[i] == "capped"))
                   for i in range(n)]
    return inning_rows, shot_rows


def rate(k: int, n: int) -> dict:
    """A proportion k / n with its Wilson interval: value, low, high (value NaN for n = 0)."""
    low, high = wilson(k, n)
    return dict(value=k / n if n else float("nan"), low=low, high=high)


LIMIT_REASONS = ("field_limit", "anchor_limit")  # a field or anchor limit decided the call (C-11.2, C-12.3)


def shot_stats(shot_rows) -> dict:
    """Success and foul rates per shot with Wilson intervals, and the share of shots whose call a
    restricted field's or anchor's limit decided (a carom that did not count, C-11.2, C-12.3)."""
    n = len(shot_rows)
    k = sum(r["success"] for r in shot_rows)
    f = sum(r["foul"] for r in shot_rows)
    limited = sum(r["reason"] in LIMIT_REASONS for r in shot_rows)
    invalid = sum(r["reason"] == "invalid_shot" for r in shot_rows)
    s, fr, lr = rate(k, n), rate(f, n), rate(limited, n)
    return dict(shots=n, successes=k, success_rate=s["value"], success_low=s["low"], success_high=s["high"],
                fouls=f, foul_rate=fr["value"], foul_low=fr["low"], foul_high=fr["high"], limit_calls=limited,
                limit_rate=lr["value"], limit_low=lr["low"], limit_high=lr["high"], invalid_shots=invalid)


def player_unit(inning_rows) -> float:
    """The smallest step of the innings' points (1 in the carom games, 10 in the Hungarian game):
    the unit of ``bounded_mean_ci``; 1 when no inning scored."""
    steps = [abs(r["points"]) for r in inning_rows if r["points"]]
    return float(np.gcd.reduce(np.asarray(steps, int))) if steps else 1.0


def inning_summary(player: Player, inning_rows, shot_rows, since=(0.0, 0), **context) -> dict:
    """One agent's summary row over its innings: points (and net points) per inning, a bootstrap
    interval kept inside the possible range (``agents.stats.bounded_mean_ci``), shots per inning,
    the per-shot rates (``shot_stats``) and the timing since ``since`` (``Player.timing``)."""
    pts = bounded_mean_ci([r["points"] for r in inning_rows], floor=0.0, unit=player_unit(inning_rows))
    net = bounded_mean_ci([r["net_points"] for r in inning_rows], unit=player_unit(inning_rows))
    spi = bounded_mean_ci([r["shots"] for r in inning_rows], floor=1.0)
    row = dict(agent=player.label, **context, innings=len(inning_rows),
               points_per_inning=pts[0], points_low=pts[1], points_high=pts[2],
               net_points_per_inning=net[0], net_low=net[1], net_high=net[2],
               shots_per_inning=spi[0], shots_low=spi[1], shots_high=spi[2],
               capped_innings=sum(r["capped"] for r in inning_rows))
    row.update(shot_stats(shot_rows))
    row.update(player.timing(since))
    return own_noise(player, row)


def own_noise(player: Player, row: dict) -> dict:
    """A summary row with the player's own execution noise as its ``noise``, if it has one."""
    if player.noise is not None:
        row["noise"] = player.noise
    return row


def paired_differences(inning_rows) -> list[dict]:
    """One row per agent after the first in ``inning_rows``: its points and net points per inning
    minus the first agent's, inning by inning (the same layouts and noise draws: common random
    numbers), mean and 95 % interval (``mean_ci``), and how many innings it made more or fewer
    points. ValueError if the agents did not play the same innings."""
    by_agent: dict[str, dict[int, dict]] = {}
    for r in inning_rows:
        by_agent.setdefault(r["agent"], {})[int(r["inning"])] = r
    if len(by_agent) < 2:
        return []
    (first, base), *others = by_agent.items()
    rows = []
    for agent, mine in others:
        if mine.keys() != base.keys():
            raise ValueError(f"{agent!r} and {first!r} did not play the same innings: no paired difference")
        order = sorted(base)
        d = np.array([mine[i]["points"] - base[i]["points"] for i in order], float)
        dn = np.array([mine[i]["net_points"] - base[i]["net_points"] for i in order], float)
        pts, net = mean_ci(d), mean_ci(dn)
        rows.append(dict(agent=agent, against=first, innings=len(order), points_difference=pts[0],
                         points_low=pts[1], points_high=pts[2], net_difference=net[0], net_low=net[1],
                         net_high=net[2], more=int(np.sum(d > 0)), fewer=int(np.sum(d < 0))))
    return rows


def paired_by(inning_rows, key: str) -> list[dict]:
    """Per agent, each value of ``key`` (a rule setting, a variant) after the first against the
    first: ``paired_differences`` over the values, the rows of one agent under every value having
    played the same innings. Rows: agent, ``key``, against, and the differences."""
    out = []
    for agent in dict.fromkeys(r["agent"] for r in inning_rows):
        rows = [dict(r, agent=r[key]) for r in inning_rows if r["agent"] == agent]
        for d in paired_differences(rows):
            out.append({"agent": agent, key: d.pop("agent"), **d})
    return out


# --- games -------------------------------------------------------------------------------------

def board_scores(ruleset, states):
    """(n, 2) points on the board: recorded, plus the Hungarian pending run (H-9.9)."""
    return np.array(board_scores_batch(ruleset, states), int)


def run_games(players, ruleset, params, n: int, *, noise: float = DEFAULT_NOISE, max_shots: int = 2000, seed: int = 0,
              stream: int = 1, batch: int = BATCH, progress: bool = True, openings=None):
    """n games: episodes of the "game" mode with both players' shots as steps, capped at
    ``max_shots`` steps. ``players`` is [agent] (it plays both sides) or [agent, opponent]
    (player 0 and player 1). ``openings``: n game states on the host to start from
    (``opening_states``), their player to shoot first the game's "breaker"; default the starting
    position, player g % 2 breaking game g. Returns (game rows, inning rows, shot rows)."""
    if len(players) not in (1, 2):
        raise ValueError("games need one player (both sides) or two")
    env, env_params = environment(ruleset, params, "game", noise, max_shots)
    keys = row_keys(seed, 2 * stream + 1, n)
    if openings is None:
        breakers = np.arange(n) % 2
        openings = first_states(ruleset, params, n, "start", keys, breakers)
    else:
        breakers = np.asarray(openings.current_player, int)
        if breakers.shape != (n,):
            raise ValueError(f"{n} games need {n} opening states, got {breakers.shape[0] if breakers.ndim else 1}")
    states = to_host(env.init_from(openings, env_params))
    seat = np.zeros((n, 2), int) if len(players) == 1 else np.tile([0, 1], (n, 1))
    labels = [[players[seat[g, p]].label for p in (0, 1)] for g in range(n)]
    active = np.ones(n, bool)
    open_points, open_net, open_shots, open_from = np.zeros((4, n), int)  # per game
    inning_rows, shot_rows = [], []
    bar = tqdm(total=n, desc=" vs ".join(p.label for p in players) + " games", unit="game",
               disable=not progress, leave=False)
    s = 0
    while active.any():  # the step cap ends every game
        rows = np.nonzero(active)[0]
        bar.set_postfix(shot=s + 1, playing=rows.size)
        sub = index_tree(states, rows)
        current = np.asarray(sub.current_player)
        k = np.asarray(shot_keys(keys, s))[rows]
        planned, nxt, _ = play_round(players, seat[rows, current], env, env_params, sub, k, batch)
        records = shot_records("game", [labels[r][c] for r, c in zip(rows, current)], rows, s, nxt, planned)
        shot_rows += records
        inning_over = np.asarray(modes.terminated("inning", nxt.outcome, nxt.game))
        for i, row in enumerate(rows):
            open_points[row] += records[i]["points"]
            open_net[row] += records[i]["net_points"]
            open_shots[row] += 1
            if inning_over[i]:
                inning_rows.append(dict(part="game", agent=labels[row][current[i]], game=int(row),
                                        player=int(current[i]), first_shot=int(open_from[row]),
                                        shots=int(open_shots[row]), points=int(open_points[row]),
                                        net_points=int(open_net[row])))
                open_points[row], open_net[row], open_shots[row], open_from[row] = 0, 0, 0, s + 1
        states = put_back(states, rows, nxt, active, bar)
        s += 1
    bar.close()
    final = states.game
    scores = board_scores(ruleset, final)
    innings = np.asarray(final.innings)
    game_rows = []
    for g in range(n):
        finished = bool(final.game_over[g])
        winner = int(final.winner[g]) if finished else -1
        draw = bool(final.draw[g]) if finished else False
        game_rows.append(dict(
            game=g, player0=labels[g][0], player1=labels[g][1], breaker=int(breakers[g]), finished=finished,
            winner=winner, winner_agent=labels[g][winner] if winner >= 0 else ("draw" if draw else "unfinished"),
            draw=draw, score0=int(scores[g, 0]), score1=int(scores[g, 1]), innings0=int(innings[g, 0]),
            innings1=int(innings[g, 1]), length_innings=int(innings[g].max()), shots=int(states.step_count[g]),
            average0=float(scores[g, 0] / max(1, innings[g, 0])), average1=float(scores[g, 1] / max(1, innings[g, 1])),
            distance=int(ruleset.distance),
        ))
    return game_rows, inning_rows, shot_rows


def game_summary(players, game_rows, inning_rows, shot_rows, since=None, **context) -> list:
    """One row per agent over the games: wins, game length (finished games), general average
    (points over innings, every game), per-shot rates. In self-play (one player) ``wins`` counts
    the games the breaker won."""
    out = []
    finished = [g for g in game_rows if g["finished"]]
    length = bounded_mean_ci([g["length_innings"] for g in finished], floor=1.0)
    breaker_wins = sum(g["winner"] == g["breaker"] for g in finished)
    for j, player in enumerate(players):
        label = player.label
        seats = [(g, p) for g in game_rows for p in (0, 1) if g[f"player{p}"] == label]
        wins = breaker_wins if len(players) == 1 else sum(g["winner_agent"] == label for g in game_rows)
        win = rate(wins, len(finished))
        avg = ratio_ci([g[f"score{p}"] for g, p in seats], [g[f"innings{p}"] for g, p in seats])
        mine = [r for r in inning_rows if r["agent"] == label]
        pts = bounded_mean_ci([r["points"] for r in mine], floor=0.0, unit=player_unit(mine))
        row = dict(agent=label, **context, games=len(game_rows), finished=len(finished),
                   unfinished=len(game_rows) - len(finished), draws=sum(g["draw"] for g in game_rows),
                   wins=wins, win_rate=win["value"], win_low=win["low"], win_high=win["high"],
                   breaker_wins=breaker_wins,
                   length_innings=length[0], length_low=length[1], length_high=length[2],
                   general_average=avg[0], average_low=avg[1], average_high=avg[2],
                   points_per_inning=pts[0], points_low=pts[1], points_high=pts[2])
        row.update(shot_stats([r for r in shot_rows if r["agent"] == label]))
        row.update(player.timing(since[j] if since else (0.0, 0)))
        out.append(own_noise(player, row))
    return out


# --- a whole evaluation ------------------------------------------------------------------------

def evaluate(discipline, specs, *, innings=100, start="random", max_shots=20, games=0, opponent=None,
             distance=None, max_game_shots=2000, rule_options=None, noise=DEFAULT_NOISE, batch=BATCH,
             search_shots=SEARCH_SHOTS, seed=0, progress=True, players=None, calibration=None,
             layouts="random") -> dict:
    """Every agent spec of ``specs`` over ``innings`` innings and ``games`` games of a discipline
    (``--opponent``'s spec as player 1, else self-play; ``distance``: the games' reduced distance);
    returns a dict of row lists (``summary``, ``innings``, ``shots``, ``paired``, ``games``,
    ``games_summary``, ``game_innings``) and the ``settings``. ``players`` may pass ready
    ``Player``s (by label) to reuse their compiled functions and timing. ``calibration``: the
    physics' named parameter set (``physics.CALIBRATIONS``; default: the table's own). ``layouts``:
    where the innings start, "random" (from ``seed``) or a stored set of
    ``billiards_env.layouts.LAYOUT_SETS``, its layouts in order (the noise draws still from ``seed``)."""
    stored = None if layouts == "random" else layout_sets.load(layouts, discipline)
    if stored is not None and start != "random":
        raise ValueError(f"layouts={layouts!r} replaces the random layouts: start must be 'random', got {start!r}")
    options = dict(rule_options or {})
    ruleset, params = setup(discipline, calibration, **options)  # innings: the game's own distance
    if distance is not None:  # games only: a reduced distance
        options["distance"] = distance
    games_rules, _ = setup(discipline, **options)
    players = {} if players is None else players

    def player(spec):
        label = parse_agent_spec(spec).text
        if label not in players:
            players[label] = make_player(spec, noise, batch, search_shots, discipline)
        check_discipline(players[label].agent, label, discipline)
        return players[label]

    evaluated = [player(s) for s in specs]
    rival = player(opponent) if opponent else None
    context = dict(discipline=discipline, noise=noise)
    out: dict = dict(summary=[], innings=[], shots=[], games=[], games_summary=[], game_innings=[])
    for p in evaluated:
        if innings > 0:
            since = p.counters()
            rows, shots = run_innings(p, ruleset, params, innings, start=start, noise=noise, max_shots=max_shots,
                                      seed=seed, batch=batch, progress=progress, layouts=stored)
            out["summary"].append(inning_summary(p, rows, shots, since, **context, start=start, layouts=layouts))
            out["innings"] += rows
            out["shots"] += shots
        if games > 0:
            seats = [p] if rival is None or rival is p else [p, rival]
            since_all = [q.counters() for q in seats]
            g_rows, i_rows, s_rows = run_games(seats, games_rules, params, games, noise=noise, max_shots=max_game_shots,
                                               seed=seed, batch=batch, progress=progress)
            for r in g_rows + i_rows + s_rows:
                r["evaluated"] = p.label
            summary = game_summary(seats, g_rows, i_rows, s_rows, since_all, **context)
            for r in summary:
                r["evaluated"] = p.label
            out["games"] += g_rows
            out["game_innings"] += i_rows
            out["games_summary"] += summary
            out["shots"] += s_rows
    out["paired"] = paired_differences(out["innings"])
    out["settings"] = dict(discipline=discipline, agents=[p.label for p in evaluated],
                           opponent=rival.label if rival else None, rule_options=options,
                           distance=int(games_rules.distance), noise=noise, innings=innings, start=start,
                           layouts=layouts, max_shots=max_shots, games=games, max_game_shots=max_game_shots,
                           batch=batch, search_shots=search_shots, seed=seed, calibration=calibration,
                           search_configs={p.label: dataclasses.asdict(p.agent.config) for p in evaluated
                                           if isinstance(p.agent, SearchAgent)})
    return out
