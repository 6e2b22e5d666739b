"""The functional environment (docs/design.md contract 3): ``init(key, params) -> State`` and
``step(state, action, key, params) -> State``, pure and jittable, one step = one shot (plus, in
"game" mode, the built-in opponent's shots), simulated by ``physics`` and judged by ``rules``.

A step is a short chain of stages, the same for every discipline and mode::

    begin (choices, strike, noise) -> simulate -> judge -> [opponent: begin -> simulate -> judge]* -> end

``end`` is the base step: the one place that enforces the shared behaviour (a finished state steps
to itself with zero rewards; the observation; termination and truncation). The physics stage is
``physics.simulate`` for one environment and the lane pool (``physics.simulate_batch``'s) for a
batch, because shots differ greatly in length. Each discipline only differs in data (``Rules``).

The stages can run fused (one compiled function: ``jax.jit(env.step)``) or staged (each stage
compiled on its own: the physics stage is then shared by the six carom disciplines, which cuts
compile time; ``billiards_env.runner``). Both run the same functions and give the same results.
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Mapping, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

import physics
import rules
from physics import devices, execution
from aiming import geometry
from billiards_env import actions, lines, modes, observation, starts
from billiards_env.observation import observe
from billiards_env.params import EnvParams, check_params, default_params, params_are_valid
from physics.api import simulate_fn, simulate_jit, simulate_pool_fn, simulate_pool_jit
from physics.pytree import pytree_dataclass, replace
from physics.simulate import DEFAULT_LANES
from rules import Call, Reason
from rules.outcome import quiet_outcome


@pytree_dataclass
class State:
    """One environment between steps.

    Attributes:
      game: ``rules.GameState``, the referee's state (layout, scores, counters, choices, pin).
      observation: (observation_size,) float32, for the player to shoot next (``observe_for``).
      current_player: () int32, who shoots next.
      rewards: (2,) float32, each player's reward for the last step.
      terminated: () bool, the episode ended by its mode's rule.  truncated: () bool, by max_steps.
      step_count: () int32, steps taken in this episode.
      outcome: ``rules.Outcome`` of the last step's first shot (the acting player's).
      shot: ``physics.Shot`` played in the last step's first shot (after noise), () fields.
      opponent_shots: () int32, shots the built-in opponent played in the last step.
      candidates: the "lines" form's candidate strikes of the position (``physics.Shot``, leaves
        (COUNT,); ``billiards_env.lines``), None for the other forms.
    """

    game: rules.GameState
    observation: jax.Array
    current_player: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    step_count: jax.Array
    outcome: rules.Outcome
    shot: physics.Shot
    opponent_shots: jax.Array
    candidates: Any = None

    @property
    def done(self):
        return self.terminated | self.truncated


@dataclasses.dataclass(frozen=True)
class Config:
    """What chooses code paths: static, hashable (compiled functions are shared per Config).

    The discipline is not here: within a family the disciplines differ in data (``Rules`` leaves),
    so one compiled step serves all six carom disciplines. ``action``: the acting player's action
    form (``actions.FORMS``); only the ``begin`` and ``end`` stages read it (the built-in
    opponent plays strike-form actions whatever the form). ``line_table``: for the "lines" form,
    the (cushions, hungarian) that shape the discipline's line table (``billiards_env.lines``).
    ``final_view``: False leaves the lines part of every observation a step or a reset makes at
    zero, for ``runner.batch_step``, which finds them once, after the automatic reset, for the
    position each environment plays next (none for a finished episode's final position: half a
    lines step's cost)."""

    family: str
    mode: str
    policy: Callable | None
    action: str = "strike"
    line_table: tuple = ()
    final_view: bool = True

    @property
    def pin(self) -> bool:
        """The pin stands in the physics: the Hungarian family (``rules.Rules.pin``)."""
        return self.family == "hungarian"


# -- the stages (one environment; the batched forms vmap them) ----------------------------------


def _zero_shot(dtype):
    z = jnp.zeros((), dtype)
    return physics.Shot(V0=z, phi=z, theta=z, a=z, b=z)


def observe_for(cfg: Config, game, params: EnvParams, step_count, viewer=None, lines_view: bool = True):
    """(observation, candidates): the observation of the acting player's form
    (``observation.observe``, and for the "lines" form the candidates' features and mask after it,
    ``billiards_env.lines.view``) and the "lines" form's candidate strikes (None otherwise).
    ``lines_view`` False: zeros for both instead of the lines (``Config.final_view``)."""
    obs = observe(params.rules, game, params, step_count, viewer)
    if cfg.action != "lines":
        return obs, None
    if not lines_view:
        zero = jnp.zeros((lines.COUNT,), params.physics.dtype)
        blank = jnp.zeros((observation.size("lines") - obs.shape[-1],), obs.dtype)
        return jnp.concatenate([obs, blank]), physics.Shot(V0=zero, phi=zero, theta=zero, a=zero, b=zero)
    cushions, hungarian = cfg.line_table
    view, shots = lines.view(cushions, hungarian, game, params)
    return jnp.concatenate([obs, view]), shots


def initial_state(cfg: Config, key, params: EnvParams) -> State:
    """``init``: a new episode (see ``billiards_env.modes`` and ``billiards_env.starts``)."""
    ruleset, phys = params.rules, params.physics
    if cfg.mode == "game":
        breaker = modes.AGENT if cfg.policy is not None else None
        game = rules.init_game(ruleset, key, phys, breaker=breaker)
    else:
        game = starts.initial_game(ruleset, key, params)
    return start_from(game, params, cfg)


def start_from(game, params: EnvParams, cfg: Config | None = None) -> State:
    """A new episode's State around the game state ``game`` (a ``rules.GameState``, e.g. a layout
    or a position of one's own): nothing played yet, ``game.current_player`` to shoot. ``init``
    builds its States so; callers that choose their own first positions (an evaluation that
    gives every agent the same layouts) start episodes with it. ``cfg``: the environment's Config
    (its action form sets the observation; default: the strike form's). Pure and jittable."""
    zero = jnp.zeros((), jnp.int32)
    outcome = quiet_outcome(Reason.SCORED, game.current_player, call=jnp.asarray(Call.NONE, jnp.int32))
    cfg = Config("", "shot", None) if cfg is None else cfg
    obs, candidates = observe_for(cfg, game, params, zero, lines_view=cfg.final_view)
    return State(
        game=game,
        observation=obs,
        current_player=game.current_player,
        rewards=jnp.zeros((2,), jnp.float32),
        terminated=jnp.asarray(False),
        truncated=jnp.asarray(False),
        step_count=zero,
        outcome=outcome,
        shot=_zero_shot(params.physics.dtype),
        opponent_shots=zero,
        candidates=candidates,
    )


_start_batch = jax.jit(jax.vmap(start_from, in_axes=(0, None, None)), static_argnums=2)


class Turn(NamedTuple):
    """A shot about to be simulated: the game with the shooter's choices written in, and the strike."""

    game: Any
    shot: Any
    pin: Any  # (2,) where the physics puts the pin, or None (carom games)


def strike(game, shot, key, phys, noise, pin: bool, skip) -> Turn:
    """The stage every shot goes through, the environments' and the agents' (``agents.execute``):
    ``shot`` as executed (``physics.execution.add_noise`` at scale ``noise``; V0 = 0 when
    ``skip``: nothing moves) and the pin where the physics sees it. pin: the discipline has one."""
    shot = execution.add_noise(shot, key, phys, noise)
    shot = replace(shot, V0=jnp.where(skip, jnp.zeros_like(shot.V0), shot.V0))
    return Turn(game, shot, pin_for_physics(game, pin))


def _prepare(cfg, params, game, action, key, skip, form: str = "strike", candidates=None):
    """The choices written into the game, and the strike (``strike``; nothing moves when
    ``skip`` or when the params are invalid, and ``judge`` voids the shot). ``action`` is of
    ``form``; a contact-form action is mapped to its strike from the game after the choices
    (``actions.contact_to_strike``)."""
    game, shot = actions.resolve(action, game, params, form, cfg.line_table, candidates)
    skip = skip | ~params_are_valid(params)
    return strike(game, shot, key, params.physics, params.noise, cfg.pin, skip)


def begin(cfg: Config, state: State, action, key, params: EnvParams) -> Turn:
    """The acting player's shot, its action of the form ``cfg.action``. A finished state plays a
    null shot (nothing moves; it is thrown away by ``end``)."""
    return _prepare(cfg, params, state.game, action, jax.random.fold_in(key, 0), state.done, cfg.action,
                    state.candidates)


def pin_for_physics(game, pin: bool):
    """(2,) or None: the pin is in play only while it stands (H-8.4 to H-8.6); otherwise it is put
    out of every ball's reach. pin: the discipline has a pin."""
    return rules.pin.in_play(game) if pin else None


def judge(cfg: Config, turn: Turn, result, key, params: EnvParams) -> dict:
    """The referee's verdict on a shot: the carry of the rest of the step (game, rewards, outcome,
    opponent shots so far, key for the opponent). Invalid params (traced, so nothing could raise)
    set ``Status.INVALID_PARAMS`` on the shot, which the referee voids (reason INVALID_SHOT: the
    game is unchanged), and give zero rewards."""
    valid = params_are_valid(params)
    flag = jnp.where(valid, 0, physics.Status.INVALID_PARAMS).astype(result.status.dtype)
    result = replace(result, status=result.status | flag)
    game, outcome = rules.referee(params.rules, turn.game, result, params.physics)
    rewards = jnp.where(valid, modes.reward_of(outcome, params), 0.0)
    return dict(game=game, rewards=rewards, outcome=outcome,
                n=jnp.zeros((), jnp.int32), key=jax.random.fold_in(key, 1))


def opponent_to_play(cfg: Config, carry: dict):
    """() bool: the built-in opponent shoots next."""
    if cfg.policy is None:
        return jnp.asarray(False)
    game = carry["game"]
    return (~game.game_over) & (game.current_player != modes.AGENT) & (carry["n"] < modes.MAX_OPPONENT_SHOTS)


def opponent_begin(cfg: Config, carry: dict, params: EnvParams) -> Turn:
    """The built-in opponent's next shot (a null shot where he is not to play): his policy gives a
    strike-form action (``modes.act``; ``agents.Planner.as_policy()`` too), whatever the acting
    player's form ``cfg.action``."""
    if cfg.policy is None:
        raise TypeError("cfg.policy is None: opponent_begin needs a config with a built-in opponent")
    game = carry["game"]
    k_policy, k_noise = jax.random.split(jax.random.fold_in(carry["key"], carry["n"]))
    obs = observe(params.rules, game, params, jnp.zeros((), jnp.int32))
    action = modes.act(cfg.policy, k_policy, obs, params, game)
    return _prepare(cfg, params, game, action, k_noise, ~opponent_to_play(cfg, carry))


def merge(cfg: Config, carry: dict, verdict: dict) -> dict:
    """The carry after the opponent's shot judged in ``verdict`` (unchanged where he was not to
    play): his shot's rewards are added, the acting player's outcome is kept."""
    played = dict(carry, game=verdict["game"], rewards=carry["rewards"] + verdict["rewards"], n=carry["n"] + 1)
    play = opponent_to_play(cfg, carry)
    return jax.tree_util.tree_map(lambda a, b: jnp.where(play, a, b), played, carry)


def end(cfg: Config, state: State, turn: Turn, carry: dict, params: EnvParams) -> State:
    """The base step: the next State, or the finished state itself with zero rewards."""
    game = carry["game"]
    step_count = state.step_count + 1
    terminated = modes.terminated(cfg.mode, carry["outcome"], game)
    stuck = opponent_to_play(cfg, dict(carry, n=jnp.zeros((), jnp.int32))) & (carry["n"] >= modes.MAX_OPPONENT_SHOTS)
    truncated = ~terminated & ((step_count >= params.max_steps) | stuck)
    obs, candidates = observe_for(cfg, game, params, step_count, lines_view=cfg.final_view)
    new = State(
        game=game,
        observation=obs,
        current_player=game.current_player,
        rewards=carry["rewards"],
        terminated=terminated,
        truncated=truncated,
        step_count=step_count,
        outcome=carry["outcome"],
        shot=turn.shot,
        opponent_shots=carry["n"],
        candidates=candidates,
    )
    finished = replace(state, rewards=jnp.zeros_like(state.rewards))
    return jax.tree_util.tree_map(lambda a, b: jnp.where(state.done, a, b), finished, new)


# -- composing the stages: fused or staged, one environment or a batch --------------------------


class Ops(NamedTuple):
    """The stages bound to one way of running them (see ``make_ops``)."""

    begin: Callable
    simulate: Callable
    judge: Callable
    opponent_to_play: Callable
    opponent_begin: Callable
    merge: Callable
    end: Callable
    loop: Callable


def transition(cfg: Config, state, action, key, params, ops: Ops):
    """One step (or a batch of steps) through the stages: (State, the first shot's ShotResult)."""
    turn = ops.begin(state, action, key, params)
    result = ops.simulate(turn, params)
    carry = ops.judge(turn, result, key, params)
    if cfg.policy is not None:

        def body(c):
            t = ops.opponent_begin(c, params)
            return ops.merge(c, ops.judge(t, ops.simulate(t, params), c["key"], params))

        carry = ops.loop(lambda c: jnp.any(ops.opponent_to_play(c)), body, carry)
    return ops.end(state, turn, carry, params), result


def _python_loop(cond, body, carry):
    while bool(np.asarray(cond(carry))):
        carry = body(carry)
    return carry


def simulate_turns(turn: Turn, phys, lanes: int = DEFAULT_LANES, staged: bool = True):
    """The physics stage for a batch of turns (leaves (B, ...)): the lane pool."""
    pool = simulate_pool_jit if staged else simulate_pool_fn
    return pool(turn.game.positions, turn.shot, turn.game.cue_ball, phys, turn.pin, lanes=lanes)


def _simulator(batched: bool, staged: bool, lanes: int):
    """The physics stage: ``physics.simulate``'s loop for one shot, the lane pool for a batch."""
    single = simulate_jit if staged else simulate_fn

    def simulate(turn: Turn, params):
        if batched:
            return simulate_turns(turn, params.physics, lanes, staged)
        return single(turn.game.positions, turn.shot, turn.game.cue_ball, params.physics, turn.pin)

    return simulate


_STAGED_CACHE: dict = {}


def _has_opponent(*args):  # a stand-in policy: stages that only ask "is there an opponent" share code
    raise AssertionError("never called")


def _stage_config(cfg: Config, name: str) -> Config:
    """The part of the Config a stage depends on, so that compiled stages are shared as widely as
    possible (the referee, the largest, once per family, whatever the mode, opponent and action
    form; only ``begin`` reads the form)."""
    if name == "begin":
        return Config(cfg.family, "shot", None, cfg.action, cfg.line_table)
    if name == "judge":
        return Config(cfg.family, "shot", None)
    if name == "end":  # the observation: the strike and contact forms share it
        form = cfg.action if cfg.action == "lines" else "strike"
        return Config(cfg.family, cfg.mode, None if cfg.policy is None else _has_opponent, form, cfg.line_table,
                      cfg.final_view)
    if name == "merge":
        return Config(cfg.family, cfg.mode, None if cfg.policy is None else _has_opponent)
    return dataclasses.replace(cfg, action="strike", line_table=())


# Each stage: the function and its vmap in_axes (cfg is bound first and is not mapped).
_STAGES: dict[str, tuple[Callable[..., Any], tuple]] = dict(
    begin=(begin, (0, 0, 0, None)),
    judge=(judge, (0, 0, 0, None)),
    opponent_to_play=(opponent_to_play, (0,)),
    opponent_begin=(opponent_begin, (0, None)),
    merge=(merge, (0, 0)),
    end=(end, (0, 0, 0, None)),
)


def _stage(cfg: Config, name: str, batched: bool, staged: bool):
    fn, axes = _STAGES[name]
    bound = functools.partial(fn, cfg)
    mapped = jax.vmap(bound, in_axes=axes) if batched else bound
    if not staged:
        return mapped
    key = (_stage_config(cfg, name), name, batched)
    if key not in _STAGED_CACHE:
        _STAGED_CACHE[key] = jax.jit(functools.partial(fn, key[0]) if not batched
                                     else jax.vmap(functools.partial(fn, key[0]), in_axes=axes))
    return _STAGED_CACHE[key]


def make_ops(cfg: Config, batched: bool, staged: bool, lanes: int = DEFAULT_LANES) -> Ops:
    """The stages for one environment or a batch, fused (plain functions, to be traced inside one
    ``jit``) or staged (each compiled on its own and shared by every environment whose Config
    agrees on what the stage reads; the physics compiled once per table kind and batch shape)."""
    stages = {name: _stage(cfg, name, batched, staged) for name in _STAGES}
    return Ops(simulate=_simulator(batched, staged, lanes), loop=_python_loop if staged else jax.lax.while_loop,
               **stages)


# -- the environment ------------------------------------------------------------------------------


class FunctionalEnv:
    """A discipline's environment in functional form. ``init``/``step`` are pure and jittable;
    ``init_batch``/``step_batch`` run a batch (the physics on the lane pool).

    Attributes:
      discipline, mode: as given to ``make_functional``.  policy: the built-in opponent or None.
      default_params: ``EnvParams`` with the options given to ``make_functional``.
      action_form: the action's form (``actions.FORMS``: "strike", "contact" or "lines").
      num_actions, observation_size: the form's action length (9 or 10; "lines": the number of
      candidates) and its observation's (``observation.size``).
    """

    def __init__(self, discipline: str, mode: str = "shot", opponent: modes.Opponent = "random",
                 params: EnvParams | None = None, action: str = "strike"):
        actions.check_form(action)
        row = rules.disciplines.get(discipline)
        self.discipline = discipline
        self.default_params = default_params(discipline) if params is None else params
        ruleset = self.default_params.rules
        carried = (rules.disciplines.matching(ruleset) if np.ndim(ruleset.zones) == 0
                   and not isinstance(ruleset.zones, jax.core.Tracer) else (discipline,))  # a sweep: not checked
        if ruleset.family != row.family or discipline not in carried:
            named = " / ".join(carried) or f"the {ruleset.family} family"
            raise ValueError(f"params carry the rules of {named}, not {discipline}; "
                             f"build them with default_params({discipline!r})")
        policy = modes.opponent_policy(mode, opponent)
        if isinstance(policy, modes.StatePolicy):
            policy = policy.fixing(self.default_params.rules)
        table = (geometry.line_cushions(ruleset), bool(ruleset.is_hungarian)) if action == "lines" else ()
        self.config = Config(row.family, modes.check_mode(mode), policy, action, table)

    mode = property(lambda self: self.config.mode)
    policy = property(lambda self: self.config.policy)
    action_form = property(lambda self: self.config.action)
    num_actions = property(lambda self: actions.size(self.config.action))
    observation_size = property(lambda self: observation.size(self.config.action))

    def __repr__(self):
        form = "" if self.action_form == "strike" else f", action={self.action_form!r}"
        return f"FunctionalEnv({self.discipline!r}, mode={self.mode!r}{form})"

    def _params(self, params):
        """The params to use (default: ``default_params``), checked when concrete (ValueError)."""
        params = self.default_params if params is None else params
        check_params(params)
        return params

    def init(self, key: jax.Array, params: EnvParams | None = None) -> State:
        """A new episode's State."""
        return initial_state(self.config, key, self._params(params))

    def init_from(self, game: rules.GameState, params: EnvParams | None = None) -> State:
        """A new episode's State from a game state of the caller's (``start_from``); a batch of
        game states gives a batch of States."""
        params = self._params(params)
        if np.ndim(game.current_player) == 0:
            return start_from(game, params, self.config)
        return _start_batch(game, params, self.config)

    def step(self, state: State, action: ArrayLike, key: jax.Array, params: EnvParams | None = None) -> State:
        """One step: the acting player's shot (and the built-in opponent's answer in "game" mode).
        Pass the params that ``init`` got (default: ``default_params``)."""
        ops = make_ops(self.config, batched=False, staged=False)
        return transition(self.config, state, action, key, self._params(params), ops)[0]

    def step_autoreset(self, state: State, action: ArrayLike, key: jax.Array,
                       params: EnvParams | None = None) -> tuple[State, State]:
        """One step with automatic reset, as gymnax and the vector environments do it:
        (the State to act from next, the step's own State). Where the step ends the episode the
        first is a new episode (drawn with a key split off ``key``) and the second keeps what the
        finished step did: its ``rewards``, ``outcome``, ``shot`` and final ``observation``;
        otherwise both are the same State. Pure and jittable; vmap it over states, actions, keys and
        (stacked) params."""
        k_step, k_reset = jax.random.split(key)
        params = self._params(params)
        stepped = self.step(state, action, k_step, params)
        fresh = self.init(k_reset, params)
        following = jax.tree_util.tree_map(lambda a, b: jnp.where(stepped.done, a, b), fresh, stepped)
        return following, stepped

    def init_batch(self, keys: jax.Array, params: EnvParams | None = None) -> State:
        """A batch of new episodes, one per key: keys (B,) (or (B, 2) raw keys)."""
        return jax.vmap(self.init, in_axes=(0, None))(keys, self._params(params))

    def step_batch(self, states: State, actions_: ArrayLike, keys: jax.Array, params: EnvParams | None = None,
                   lanes: int = DEFAULT_LANES) -> State:
        """A batch of steps with the shots simulated on a pool of ``lanes`` lanes. Gives what
        ``jax.vmap(env.step)`` gives, faster when shots differ in length. With several devices
        the batch is split over them (``physics.devices.split_batch``)."""
        actions.check_shape(actions_, batch=np.shape(states.step_count)[0], form=self.action_form)
        ops = make_ops(self.config, batched=True, staged=False, lanes=lanes)
        run = devices.split_batch(lambda s, a, k, p: transition(self.config, s, a, k, p, ops)[0],
                                  (True, True, True, False))
        return run(states, actions_, keys, self._params(params))

    def observe(self, state: State, viewer: ArrayLike, params: EnvParams | None = None) -> jax.Array:
        """(observation_size,) float32: the observation of ``state`` for player ``viewer``."""
        return observe_for(self.config, state.game, self._params(params), state.step_count, viewer)[0]


def make_functional(discipline: str, mode: str = "shot", opponent: modes.Opponent = "random", *,
                    action: str = "strike", rule_options: Mapping[str, Any] | None = None,
                    physics_options: Mapping[str, Any] | None = None, **values) -> FunctionalEnv:
    """A discipline's functional environment (``FunctionalEnv``); ``env.default_params`` holds the
    options. discipline: one of ``rules.DISCIPLINES``; mode: "shot", "inning" or "game";
    opponent ("game" mode): "random", "two_player", a policy or a ``modes.StatePolicy`` (e.g.
    ``agents.Planner.as_policy()``; it plays strike-form actions); action: the acting player's
    action form, "strike" (the raw strike, the default), "contact" (aimed at a ball) or "lines"
    (one of the geometry's candidate strikes; see ``billiards_env.actions``); rule_options,
    physics_options and
    the other values: see ``billiards_env.params.default_params``."""
    actions.check_form(action)
    params = default_params(discipline, rule_options=rule_options, physics_options=physics_options, **values)
    return FunctionalEnv(discipline, mode, opponent, params, action)
