"""``GuidedAgent``: the search, with the strikes it starts from chosen by the shipped success model.

The search (``agents.search``) spends its first round on strikes drawn around the best geometric
lines, most of which miss. Here the discipline's shipped success model (``agents.policy``: P(the
strike scores | layout, strike), the model for the planned execution noise) first rates every
strike of the line grid (``agents.success.line_grid``: the 12 best lines, each as it is and in 10
variations, 132 strikes; no physics), and the proposal is the ``1 - explore`` share of strikes it
rates highest, the rest being the search's own (perturbations of its ``seeds`` best lines and
random strikes: exploration, for layouts the model misjudges). Under noise the proposal goes
through the exact screen first (``agents.screen``: each strike simulated once as aimed; round 1
plays those that score, the ones whose carom is hardest to miss first). Round 2 and the choice
are the search's (``agents.search._children``, ``_choose``): one engine, only the proposal
differs (``SearchAgent.propose``). Deterministic per key.

The budget (``guided_config``) comes from the simulated shots per decision N, a power of two
from 256 to 65536. Under noise, with trials T = 8: a screen of N / 2 strikes, round 1 C = N / (4 T)
candidates x T, round 2 M = min(16, C / 8) parents x N / (4 T M) children x T (a half, then a
quarter each): 1024 -> 512 + 32 x 8 + 4 x 8 x 8; 8192 (today's search budget) -> 4096 + 256 x 8 +
16 x 16 x 8. Exact (T = 1, no screen): round 1 C = N / 2, round 2 M = min(16, C / 8) x C / M.
With more strikes proposed than grid strikes, the whole grid is proposed and the rest explores.

The figures (the splits tried, the screen's worth, the guided search against the search, with
and without a leave value, in three-cushion and the Hungarian game) are in docs/agents.md
section 2: the splits in 2.1, the figures from before the screen in 2.2.

    agent = GuidedAgent.for_discipline("three_cushion", noise=1.0, shots=1024)
    shots = agent.plan_batch(rules, states, params, keys)
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

import physics
from physics.params import Params
from agents.policy import SEEDS, load_model
from agents.search import SearchAgent, SearchConfig, best_lines
from agents.store import MODELS_DIR
from agents.success import AIMS, GRID, aimed, check_aims, check_features, check_outcomes, check_target, line_grid, \
    ratings
from rules import GameState, Rules

TRIALS = 8  # noisy plays per candidate under noise, both rounds
MAX_PARENTS = 16
BUDGETS = tuple(2 ** n for n in range(8, 17))  # simulated shots per decision: 256 ... 65536
GRID_STRIKES = SEEDS * len(GRID)  # the strikes of the grid (the first variation is the line itself)


def guided_config(shots: int, noise: float, **options) -> SearchConfig:
    """The search budget of ``shots`` simulated shots per decision under execution noise ``noise``
    (see the module docstring); ``options``: other ``SearchConfig`` fields. ValueError naming the
    allowed budgets for any other number."""
    if isinstance(shots, bool) or not isinstance(shots, int) or shots not in BUDGETS:
        raise ValueError(f"shots must be a power of two from {BUDGETS[0]} to {BUDGETS[-1]} "
                         f"({', '.join(map(str, BUDGETS))}), got {shots!r}")
    if noise > 0:  # a half screened, a quarter to each round
        candidates = shots // (4 * TRIALS)
        parents = min(MAX_PARENTS, candidates // 8)
        split = dict(screen=shots // 2, candidates=candidates, trials=TRIALS, refine_parents=parents,
                     refine_children=shots // (4 * TRIALS * parents), refine_trials=TRIALS, noise=noise)
        return SearchConfig(**{**split, **options})
    candidates = shots // 2  # exact: one play per candidate, no screen
    parents = min(MAX_PARENTS, candidates // 8)
    split = dict(candidates=candidates, trials=1, refine_parents=parents,
                 refine_children=candidates // parents, refine_trials=1, noise=noise)
    return SearchConfig(**{**split, **options})


@functools.partial(jax.jit, static_argnames=("k", "target", "outcomes", "features"))
def _top_strikes(net, states, shots, best, params, k: int, target: str = "score", outcomes=None,
                 features: int = 1) -> physics.Shot:
    """(S, k) the strikes of ``shots`` (S, N) the model rates highest (``agents.success.ratings``:
    most likely to score, or worth the most net points), best first."""
    _, top = jax.lax.top_k(ratings(net, states, shots, best, params, None, target, outcomes, features), k)
    return jax.tree_util.tree_map(lambda v: jnp.take_along_axis(v, top, -1), shots)


class GuidedAgent(SearchAgent):
    """The search with round-1 candidates proposed by a success model (see the module docstring)."""

    name = "guided"

    def __init__(self, net, config: SearchConfig, explore: float = 0.25, rolling: bool = False,
                 discipline: str | None = None, meta: dict | None = None, leave=None):
        super().__init__(config, leave=leave)
        if not 0.0 <= explore <= 1.0:
            raise ValueError(f"explore must be in [0, 1], got {explore}")
        self.net = net
        self.explore = explore
        self.rolling = rolling  # the lines of the model's grid: with the rolling model or not
        self.discipline = discipline
        self.meta = meta
        self.target = check_target((meta or {}).get("target", "score"))  # what the model's output estimates
        self.outcomes = check_outcomes((meta or {}).get("outcomes"), self.target)
        self.features = check_features((meta or {}).get("features", 1))  # the version of the model's inputs
        self.aims = check_aims(((meta or {}).get("proposal") or {}).get("aims", AIMS))  # the grid's aim offsets
        self.rated = GRID_STRIKES * len(self.aims)  # the strikes the model rates

    @classmethod
    def for_discipline(cls, discipline: str, noise: float = 0.0, shots: int = 1024, explore: float = 0.25,
                       folder: str = MODELS_DIR, leave=None, **options) -> GuidedAgent:
        """The discipline's shipped model for the noise nearest ``noise``, guiding a search of
        ``shots`` simulated shots per decision (``guided_config``) planned for ``noise``; ``leave``:
        a leave value (``agents.leave.LeaveValue``) for position play."""
        net, meta = load_model(discipline, folder, noise)
        return cls(net, guided_config(shots, noise, **options), explore, meta["proposal"]["rolling"],
                   discipline, meta, leave)

    @classmethod
    def for_noise(cls, scale: float = 1.0, **options) -> GuidedAgent:
        """Not for the guided search, which needs a model: ``for_discipline``."""
        raise TypeError("a guided search needs its discipline's model: use GuidedAgent.for_discipline(discipline, "
                        "noise, shots)")

    def split(self) -> tuple[int, int]:
        """(from the grid, exploring) numbers of proposed strikes (the screen's, or round 1's)."""
        n = self.config.proposed
        grid = min(self.rated, n - int(round(self.explore * n)))
        return grid, n - grid

    def budget(self) -> str:
        """What a decision costs: strikes rated, and the search's simulated shots."""
        grid, explore = self.split()
        return f"{self.rated} strikes rated, {grid} + {explore} explored: {self.config.describe()}"

    def propose(self, ruleset: Rules, states: GameState, params: Params, keys: jax.Array) -> physics.Shot:
        """(S, candidates): the grid strikes the model rates highest, then exploring ones."""
        grid, explore = self.split()
        parts = []
        if grid:
            best = best_lines(ruleset, states, params, SEEDS, self.rolling)
            parts.append(_top_strikes(self.net, states, aimed(line_grid(best, params), self.aims), best, params, grid,
                                      self.target,
                                      self.outcomes, self.features))
        if explore:
            search = SearchAgent(self.config, candidates=explore, refine_parents=0, screen=0)
            parts.append(search.propose(ruleset, states, params, keys))
        return jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs, -1), *parts)


__all__ = ["GuidedAgent", "guided_config", "BUDGETS"]
