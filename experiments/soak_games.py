"""Game soak: whole games of one discipline with uniformly random actions, watched for games that
get stuck.

Each game runs in the functional environment in "game" mode, in any action form (``--action``:
random strikes, random contact actions, or random candidate indices of "lines", masked ones
included, so every position's lines are found and played) with both sides played by the soak
("two_player": one shot per step), a batch of games stepped together (the physics on the lane
pool), until it ends or reaches ``max_shots``. The carom games are played to a short distance by
default so that random play finishes some of them. A game is stuck when

* ``STUCK_AFTER`` shots in a row leave its state unchanged (layout, scores, run, shooter, pin);
* its layout is one the physics refuses to play from before a shot
  (``physics.simulate.layout_is_valid``, the standing pin included);
* a NaN (or inf) appears in its layout, its pin or its observation.

Counts: games, shots, finished and stuck games (and why), the referee's repairs
(``rules.GameState.repairs``) and void shots (reasons INVALID_SHOT and VOID_LIMIT).

    python -m experiments.soak_games --discipline three_cushion --games 200 --dtype float32
    python -m experiments.soak_games --discipline one_cushion --action lines --games 512
"""
from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import billiards_env
import rules
from billiards_env import actions as action_forms
from billiards_env.runner import Runner
from experiments.common import add_discipline_argument, begin

STUCK_AFTER = 5  # unchanged shots in a row that make a game stuck (a void streak is resolved at 3)
DEFAULT_MAX_SHOTS = 200
SOAK_DISTANCE = {"carom": 2, "hungarian": 300}  # points to win in the soak when no distance is given
DEFAULT_BATCH = 256  # games stepped together (the physics pool's lanes)
DTYPES = ("float64", "float32")
VOID_REASONS = (rules.Reason.INVALID_SHOT, rules.Reason.VOID_LIMIT)


def check_arguments(discipline, games, dtype, seed, max_shots, distance, batch=DEFAULT_BATCH, action="strike"):
    """ValueError naming the argument and what is allowed."""
    action_forms.check_form(action)
    if discipline not in rules.disciplines.ids():
        raise ValueError(f"discipline must be one of {', '.join(rules.disciplines.ids())}, got {discipline!r}")
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    for name, value, low in (("games", games, 1), ("max_shots", max_shots, 1), ("seed", seed, 0), ("batch", batch, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    whole = isinstance(distance, (int, np.integer)) and not isinstance(distance, bool)
    if distance is not None and (not whole or distance < 1):
        raise ValueError(f"distance must be None or an integer >= 1, got {distance!r}")


def _key_fields(game):
    """What must change when a shot is played: layout, scores, run, shooter, pin."""
    return (game.positions, game.scores, game.run, game.current_player, game.pin_state, game.pin_position)


def shot_checks(before, after, observation, params):
    """For one game: (() bool unchanged, () bool layout refused, () bool NaN) of the state
    ``after`` a shot played from ``before`` (``rules.GameState``s); vmap over a batch."""
    same = jnp.all(jnp.stack([jnp.all(a == b) for a, b in zip(_key_fields(before), _key_fields(after))]))
    refused = ~rules.repair.layout_ok(params.physics, after)
    finite = jnp.all(jnp.isfinite(after.positions)) & jnp.all(jnp.isfinite(after.pin_position))
    return same, refused & ~after.game_over, ~(finite & jnp.all(jnp.isfinite(observation)))


_batch_checks = jax.jit(jax.vmap(shot_checks, in_axes=(0, 0, 0, None)))


class Tally:
    """Per-game counters of a batch of games, fed after every step."""

    def __init__(self, batch: int):
        self.unchanged_run = np.zeros(batch, int)
        self.unchanged = np.zeros(batch, bool)
        self.refused = np.zeros(batch, bool)
        self.nan = np.zeros(batch, bool)
        self.shots = np.zeros(batch, int)
        self.voids = np.zeros(batch, int)

    def add(self, live, same, refused, nan, void):
        """One step: live (batch,) bool, the games that played a shot; the rest as shot_checks."""
        self.shots += live
        self.voids += live & void
        self.unchanged_run = np.where(live, np.where(same, self.unchanged_run + 1, 0), self.unchanged_run)
        self.unchanged |= self.unchanged_run >= STUCK_AFTER
        self.refused |= live & refused
        self.nan |= live & nan

    @property
    def stuck(self):
        return self.unchanged | self.refused | self.nan


def random_actions(key, form: str, batch: int):
    """A batch of uniformly random actions of the form: strike or contact components in [-1, 1],
    or "lines" indices over all candidates (a masked one plays the fallback strike)."""
    if form == "lines":
        return np.asarray(jax.random.randint(key, (batch,), 0, action_forms.size(form), jnp.int32))
    return np.asarray(jax.random.uniform(key, action_forms.shape(form, batch), jnp.float32, -1.0, 1.0))


def play_batch(env, params, states, key, max_shots: int):
    """Play a batch of games (functional ``State``s) with random actions until each ends or has
    played ``max_shots`` shots. Returns (Tally, the last States). The layout is checked before
    the first shot too, so a game started stuck is seen."""
    batch = states.step_count.shape[0]
    runner = Runner(env, batch, fused=False, lanes=batch, autoreset=False)
    tally = Tally(batch)
    same, refused, nan = (np.asarray(x) for x in _batch_checks(states.game, states.game, states.observation, params))
    tally.refused |= refused
    tally.nan |= nan
    for i in range(max_shots):
        live = ~np.asarray(states.done)
        if not live.any():
            break
        k_act, k_step = jax.random.split(jax.random.fold_in(key, i))
        after, _ = runner.step(states, random_actions(k_act, env.action_form, batch), k_step, params)
        same, refused, nan = (np.asarray(x) for x in _batch_checks(states.game, after.game, after.observation, params))
        void = np.isin(np.asarray(after.outcome.reason), [int(r) for r in VOID_REASONS])
        tally.add(live, same, refused, nan, void)
        states = after
    return tally, states


def make_env(discipline: str, dtype: str, max_shots: int, distance: int | None, action: str = "strike"):
    """The functional environment of the soak ("game" mode, both sides random, actions of the form
    ``action``) with its params."""
    points = SOAK_DISTANCE[rules.disciplines.get(discipline).family] if distance is None else int(distance)
    env = billiards_env.make_functional(discipline, "game", "two_player", rule_options={"distance": points},
                                        physics_options={"dtype": dtype}, max_steps=max_shots, action=action)
    return env, env.default_params


def run(discipline: str, games: int, dtype: str = "float64", seed: int = 0, max_shots: int = DEFAULT_MAX_SHOTS,
        distance: int | None = None, batch: int = DEFAULT_BATCH, action: str = "strike") -> dict:
    """Play ``games`` random games of a discipline and count (see the module docstring).

    distance: points to win; None plays to ``SOAK_DISTANCE`` of the discipline's family (the
    rules' own distance is far beyond random play's reach in the carom games). Games run in
    batches of at most ``batch``, with random actions of the form ``action``. Returns a dict of
    counts (and the settings and seconds)."""
    check_arguments(discipline, games, dtype, seed, max_shots, distance, batch, action)
    env, params = make_env(discipline, dtype, max_shots, distance, action)
    key = jax.random.PRNGKey(seed)
    counts = dict(games=0, shots=0, finished=0, stuck=0, stuck_unchanged=0, stuck_invalid_layout=0,
                  stuck_nan=0, repairs=0, void_shots=0)
    start = time.perf_counter()
    for round_ in range(-(-games // batch)):
        n = min(batch, games - round_ * batch)
        k_init, k_play = jax.random.split(jax.random.fold_in(key, round_))
        states = Runner(env, n, fused=False, lanes=n, autoreset=False).reset(k_init, params)
        tally, states = play_batch(env, params, states, k_play, max_shots)
        counts["games"] += n
        counts["shots"] += int(tally.shots.sum())
        counts["finished"] += int(np.asarray(states.game.game_over).sum())
        counts["stuck"] += int(tally.stuck.sum())
        counts["stuck_unchanged"] += int(tally.unchanged.sum())
        counts["stuck_invalid_layout"] += int(tally.refused.sum())
        counts["stuck_nan"] += int(tally.nan.sum())
        counts["repairs"] += int(np.asarray(states.game.repairs).sum())
        counts["void_shots"] += int(tally.voids.sum())
    counts.update(discipline=discipline, action=action, dtype=dtype, seed=seed, max_shots=max_shots,
                  distance=int(params.rules.distance), seconds=round(time.perf_counter() - start, 1))
    return counts


def main(argv=None) -> dict:
    begin()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_discipline_argument(parser)
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    parser.add_argument("--dtype", default="float64", choices=DTYPES)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-shots", type=int, default=DEFAULT_MAX_SHOTS, help="shots after which a game is cut off")
    parser.add_argument("--distance", type=int, default=None, help="points to win (default: a short soak distance)")
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, help="games stepped together")
    parser.add_argument("--action", default="strike", choices=action_forms.FORMS,
                        help="the action form the random player plays (default strike)")
    args = parser.parse_args(argv)
    counts = run(args.discipline, args.games, args.dtype, args.seed, args.max_shots, args.distance, args.batch,
                 args.action)
    for name in ("games", "shots", "finished", "stuck", "stuck_unchanged", "stuck_invalid_layout", "stuck_nan",
                 "repairs", "void_shots"):
        print(f"{name:>22}: {counts[name]}")
    verdict = "no game stuck" if counts["stuck"] == 0 else f"{counts['stuck']} game(s) STUCK"
    print(f"{args.discipline} {args.dtype}, {args.action} actions, distance {counts['distance']}: "
          f"{counts['games']} games, {counts['shots']} shots in {counts['seconds']} s: {verdict}")
    return counts


if __name__ == "__main__":
    main()
