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

With the screen, on the calibrated physics and the retrained model (``experiments.evaluate
--discipline three_cushion --agents guided:shots=1024 --innings 200 --max-shots 1``, standard
noise; the layouts of seeds 0, 1 and 2; splits of 1024 shots played with the same command):

    split of 1024 shots                          seed 0   seed 1   seed 2   s/decision
    512 + 32 x 8 + 4 x 8 x 8 (the default)       71.0 %   66.0 %   68.5 %   0.06
    768 + 32 x 8, no round 2                     65.0 %   68.5 %   68.0 %   0.06
    768 + 16 x 8 + 2 x 8 x 8                     61.5 %
    512 + 48 x 8 + 2 x 8 x 8                              66.0 %   66.0 %
    without the screen: 64 x 8 + 8 x 8 x 8       47.5 %

Seed 0's interval for the default: [64.4, 76.8]. At 8192 shots per decision (4096 + 256 x 8 +
16 x 16 x 8), seed 0's 100 innings of at most 10 shots: 4.32 [3.62, 5.03] points per inning,
83.4 % success per shot, 0.44 s per decision (without the screen: 2.43 and 71.7 %); at 1024,
2.33 [1.88, 2.85] points per inning, 70.2 % per shot, 0.06 s per decision; at 8192 with the
leave value (``guided:shots=8192,leave=value``), 5.04 [4.26, 5.79], a paired difference of
+0.72 [-0.18, 1.62] on the same innings, with the value fitted before the screen; with the one
shipped now (fitted on the screened search's candidates), 4.66 [3.91, 5.36], +0.34 [-0.53,
1.21]. On seed 1's innings at 8192: 4.59 [3.87, 5.32], against the search's 3.29 [2.65, 3.93], a
paired +1.30 [0.36, 2.24]. In the Hungarian game
(``--discipline hungarian_1000``, seed 0's 200 layouts, one shot each, 1024 shots per decision):
59.9 [54.4, 65.1] net points per shot, against 43.9 [38.0, 49.5] without the screen (the search
at 8192: 62).

The screen finds what the noisy trials were spent looking for: on 200 other random layouts, 768
strikes per layout (the grid and 636 exploring) held 56 that score as aimed, and the best of them
under noise scored 78 % of the time (24 noisy plays each); 32 of them x 8 noisy plays chose
shots worth 67.9 % when picked by the carom margin, 61.3 % at random, 56.0 % by the model's
rating. Among the strikes that score as aimed, the exploring ones hold the robust shots more
often than the grid (the best of each: 75.5 % against 58.5 %), so the screen is given many
strikes rather than the grid alone.

Earlier figures, without the screen:

Figures (``experiments.evaluate --discipline three_cushion``, standard noise, the evaluation's
200 random layouts with one shot each, or its 100 innings of at most 10 shots; 95 % intervals; a
2-core CPU shared with other work, load 6-8). Rows marked * were played by a script on the same
layouts (``experiments.evaluate.run_innings``); those marked ** too, and in a first version whose
grid held each line twice and whose exploring share perturbed the model's 12 lines:

    agent, budget per decision                                success per shot    s/decision
    search, 512 x 8 + 16 x 32 x 8 = 8192                      67.5 % [60.7, 73.6]  1.13
    search alone, 64 x 8 + 8 x 8 x 8 = 1024 **                47.5 % [40.7, 54.4]
    guided, 64 x 8 + 8 x 8 x 8 = 1024, explore 0.25           49.0 % [42.2, 55.9]  0.17-0.38
      first version **                                        49.5 % [42.6, 56.4]
      explore 0 **                                            50.5 % [43.6, 57.4]
      128 x 4 + 8 x 8 x 8 *                                   49.5 % [42.6, 56.4]
      64 x 8 + 2 x 32 x 8 *                                   44.0 % [37.3, 50.9]
      64 x 4 + 4 x 12 x 16 *                                  50.0 % [43.1, 56.9]
      32 x 16 + 4 x 8 x 16 **                                 47.5 % [40.7, 54.4]
      64 x 16, no round 2 **                                  46.0 % [39.2, 52.9]
      128 x 8, no round 2 **                                  43.0 % [36.3, 49.9]
      the model's rating counted as 8 (32) extra trials **    43.0 (33.0) %

    100 innings of at most 10 shots, 8192 per decision       points per inning   success per shot
    search                                                    2.43 [1.88, 2.99]   71.5 %   1.33 s
    guided (the whole grid + 380 of the search's own)         2.23 [1.81, 2.70]   69.5 %   1.44 s
      first version                                           1.99 [1.56, 2.44]   66.8 %   1.79 s

With the model retrained on the latest calibrated set and twice the data (the policy alone:
40.5 % on these layouts), at 1024 shots per decision, played by a script:

    guided, 64 x 8 + 8 x 8 x 8, explore 0.25 (the default)    47.5 % [40.7, 54.4]  0.46
    the model's 16 best x 64 trials, no round 2, explore 0 *  44.0 %               0.13
    the model's 32 best x 32 trials, no round 2, explore 0 *  41.0 %               0.17
    32 x 16 + 4 x 8 x 8 (768 shots), explore 0 *              47.0 %               0.09

At 8192 shots per decision, 100 innings of at most 10 shots: 2.43 [1.93, 2.95] points per
inning, 71.7 % success per shot, 0.34 s per decision on a quiet CPU.
Spending the budget on more trials of the model's favourites gains little over the policy
itself; round 2's variations of the best candidates are what the simulation adds.
The model's choice adds a point or three to the search at 1024 shots, inside the noise of 200
layouts, and nothing at 8192; the policy alone scores 30.5 %. At one eighth of the budget the
guided search stays far under the full search whatever the split: choosing among noisy
candidates needs trials more than better proposals, and the model (trained on 4 noisy plays per
strike) judges worse than 8 simulated plays, as counting its rating as extra trials showed.

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

    def propose(self, rules: Rules, states: GameState, params: Params, keys: jax.Array) -> physics.Shot:
        """(S, candidates): the grid strikes the model rates highest, then exploring ones."""
        grid, explore = self.split()
        parts = []
        if grid:
            best = best_lines(rules, states, params, SEEDS, self.rolling)
            parts.append(_top_strikes(self.net, states, aimed(line_grid(best, params), self.aims), best, params, grid,
                                      self.target,
                                      self.outcomes, self.features))
        if explore:
            search = SearchAgent(self.config, candidates=explore, refine_parents=0, screen=0)
            parts.append(search.propose(rules, states, params, keys))
        return jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs, -1), *parts)


__all__ = ["GuidedAgent", "guided_config", "BUDGETS"]
