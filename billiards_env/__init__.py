"""Environments for carom billiards: a functional JAX environment per discipline, and its
Gymnasium, vector, Stable-Baselines3 and two-player adapters; rendering.

    import billiards_env, gymnasium
    env = gymnasium.make("billiards_env/ThreeCushion-v0")           # one shot per episode
    envs = gymnasium.make_vec("billiards_env/Hungarian1000-v0", num_envs=1024, mode="game")

    fenv = billiards_env.make_functional("three_cushion", mode="inning")   # pure JAX
    state = fenv.init(key, fenv.default_params)
    state = fenv.step(state, action, key)                            # jax.jit / jax.vmap

    game, params = billiards_env.setup("three_cushion")             # the rules and physics a planner takes

Module map: ``params`` (EnvParams; ``setup``, a discipline's rules and physics), ``actions`` (the
action vector), ``observation``, ``starts`` (where episodes start), ``modes`` (episode modes,
opponents, rewards), ``functional`` (State and the staged step), ``runner`` (compiled drivers),
``gym_env``, ``vector``, ``sb3``, ``pettingzoo_env``, ``gymnax_env`` (gymnax, optional),
``render``, ``registration``, ``reference`` (reference scores per id, the specs' reward
threshold), ``layouts`` (the fixed benchmark layouts, bench-v1), ``testing`` (``api_test``: an
environment, a variant's or a wrapped one, checked against the contracts).
"""
from billiards_env.functional import FunctionalEnv, State, make_functional
from billiards_env.modes import shooter_reward
from billiards_env.params import EnvParams, default_params, replace, setup
from billiards_env.registration import ENV_IDS, IDS, discipline_of, env_id, register_all

register_all()


def make_gymnax(name: str = "three_cushion", mode: str = "shot", opponent="random", **options):
    """(env, env_params): a discipline (id or Gymnasium id) as a gymnax environment
    (``billiards_env.gymnax_env``; needs the optional gymnax, imported only here)."""
    from billiards_env.gymnax_env import make_gymnax as make

    return make(name, mode, opponent, **options)


def api_test(env, **options) -> list:
    """``billiards_env.testing.api_test``: ``env`` (a Gymnasium environment, wrappers included,
    or a ``FunctionalEnv``) checked against the environments' contracts; AssertionError naming
    what fails, else the names of the checks run."""
    from billiards_env.testing import api_test as check

    return check(env, **options)


__all__ = [
    "FunctionalEnv", "State", "make_functional", "EnvParams", "default_params", "ENV_IDS", "IDS",
    "discipline_of", "env_id", "register_all", "shooter_reward", "replace", "make_gymnax", "setup", "api_test",
]
