"""Baseline players that choose a cue strike from the game state.

    planner.plan(rules, state, params, key) -> physics.Shot            one game state
    planner.plan_batch(rules, states, params, keys) -> physics.Shot    a batch (leading axis S)
    planner.env_actions(env_states, env_params, keys) -> (S, 9)        actions for the environments
    planner.as_policy()                                              an environment's built-in opponent

Players: ``RandomAgent`` (uniform random strikes); ``GeometricAgent`` (ghost-ball and
mirror-image lines, no simulation); ``SearchAgent`` (many candidates simulated in one batched
call and judged by the referee: ``SearchAgent()`` plans for exact execution,
``SearchAgent.for_noise()`` for the standard execution noise, ``SearchConfig`` sets the budget);
``GuidedAgent`` (the same search, its first-round candidates the strikes a shipped success model,
``agents.policy``, rates most likely to score: ``GuidedAgent.for_discipline(name, noise, shots)``);
``agents.leave.LeaveValue`` (a learned value of the layout left, for the search's position play:
``SearchAgent(leave=...)``); ``LearnedAgent`` (a stable-baselines3 policy trained on an environment's "shot" mode by
``experiments.train --backend sb3``; it sees the game through the environment's observation);
``JaxPolicyAgent`` (the same for a policy of the JAX PPO, ``agents.jax_ppo``).
Everything is seeded by the key and deterministic. The planners work on ``rules.GameState``
directly. Helpers: ``ExecutionNoise`` (the standard execution noise), ``agents.states``
(starting and random legal game states), ``agents.play.execute`` (play a batch of strikes:
noise, simulation, referee), ``agents.specs`` (agents named by a spec string, ``make_agent``),
``agents.arena`` (agents playing innings and games in the environments), ``agents.stats``
(interval estimates).
"""
from agents.base import NOISE_PROFILES, ExecutionNoise, Planner, clip_shot, noise_scale, stack_states
from agents.geometric import GeometricAgent
from agents.jax_policy import JaxPolicyAgent  # a policy of the JAX PPO (agents.jax_ppo)
from agents.learned import LearnedAgent  # stable-baselines3 is imported only to load a model
from agents.states import random_state, random_states, starting_state, state_from_layout
from agents.play import execute, net_points, shooter_points
from agents.random_agent import RandomAgent
from agents.search import SearchAgent, SearchConfig
from agents.guided import GuidedAgent
from agents.specs import AgentSpecError, make_agent, parse_agent_spec

__all__ = [
    "Planner", "RandomAgent", "GeometricAgent", "SearchAgent", "LearnedAgent", "JaxPolicyAgent", "SearchConfig",
    "GuidedAgent", "ExecutionNoise", "NOISE_PROFILES", "noise_scale",
    "clip_shot", "stack_states", "execute", "net_points", "shooter_points", "random_state",
    "random_states", "starting_state", "state_from_layout", "AgentSpecError", "make_agent", "parse_agent_spec",
]
