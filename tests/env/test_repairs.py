"""The environments never wedge on an impossible layout: every adapter (single env, vector env,
SB3 VecEnv, PettingZoo) plays on after one, and reports the referee's repair counter under the
same info key (``billiards_env.gym_env.REPAIRS_KEY``)."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

import billiards_env  # noqa: F401  (registers the ids)
from billiards_env.gym_env import REPAIRS_KEY, BilliardsEnv
from billiards_env.params import replace
from billiards_env.pettingzoo_env import BilliardsAECEnv
from billiards_env.sb3 import BilliardsVecEnv
from billiards_env.vector import BilliardsVectorEnv
from physics.simulate import layout_is_valid
from tests.support.env import BATCH

pytestmark = pytest.mark.usefixtures("one_torch_thread")

# two balls inside each other: the physics refuses to play from this layout
KNOT = np.array([[0.5, 0.4], [1.5, 1.0], [1.51, 1.0]])


def plant(state, batch=None):
    """The functional State with the knot as its layout (in the first environment of a batch), and
    no choice offered that would move the balls first (C-2.1 c)."""
    game = state.game
    positions = jnp.asarray(KNOT, game.positions.dtype)
    if batch is not None:
        positions = game.positions.at[0].set(positions)
    no = jnp.zeros_like(game.may_choose_side)
    return replace(state, game=replace(game, positions=positions, may_choose_side=no, may_respot=no))


def test_the_single_env_re_lays_an_impossible_layout_and_reports_it():
    env = BilliardsEnv("three_cushion", mode="inning", fused=False)
    _, info = env.reset(seed=0)
    assert info[REPAIRS_KEY] == 0
    env._state = plant(env._state)
    *_, info = env.step(np.zeros(9, np.float32))
    assert info[REPAIRS_KEY] == 1 and info["reason"] == "invalid_shot"
    game = env.state.game
    assert bool(layout_is_valid(game.positions, env.params.physics))
    *_, info = env.step(np.zeros(9, np.float32))  # the next shot is played and judged
    assert info["reason"] != "invalid_shot" and info[REPAIRS_KEY] == 1


def test_the_vector_env_and_the_sb3_adapter_report_repairs_per_environment():
    vec = BilliardsVectorEnv(BATCH, "three_cushion", fused=False, lanes=BATCH)
    _, info = vec.reset(seed=0)
    assert np.array_equal(info[REPAIRS_KEY], np.zeros(BATCH))
    vec._state = plant(vec._state, BATCH)
    *_, info = vec.step(np.zeros((BATCH, 9), np.float32))
    assert info[REPAIRS_KEY][0] == 1 and not np.any(info[REPAIRS_KEY][1:])

    venv = BilliardsVecEnv("three_cushion", num_envs=BATCH, fused=False, lanes=BATCH, seed=0)
    venv.reset()
    venv._state = plant(venv._state, BATCH)
    *_, infos = venv.step(np.zeros((BATCH, 9), np.float32))
    assert infos[0][REPAIRS_KEY] == 1 and all(i[REPAIRS_KEY] == 0 for i in infos[1:])


def test_the_pettingzoo_env_reports_repairs_to_every_agent():
    env = BilliardsAECEnv("three_cushion", fused=False, max_steps=12)
    env.reset(seed=0)
    assert all(env.infos[a][REPAIRS_KEY] == 0 for a in env.agents)
    env._state = plant(env._state)
    env.step(np.zeros(9, np.float32))
    assert all(env.infos[a][REPAIRS_KEY] == 1 for a in env.agents)


def test_info_has_the_same_keys_and_kinds_after_reset_and_step_in_one_env_and_a_batch():
    """The table of ``billiards_env.info``: reset info has the step's keys (neutral values), the
    reason is a name in one environment and in a batch, the batch has every batch key."""
    from billiards_env import info as info_table

    env = BilliardsEnv("three_cushion", fused=False)
    _, first = env.reset(seed=0)
    *_, after = env.step(np.zeros(9, np.float32))
    assert set(first) == set(after) == set(info_table.BATCH_KEYS + info_table.ONE_ONLY_KEYS)
    assert first["points"] == [0, 0] and first["reason"] == "" and first["events"] == []
    assert isinstance(after["reason"], str) and after["reason"] in info_table.REASON_NAMES
    vec = BilliardsVectorEnv(BATCH, "three_cushion", fused=False, lanes=BATCH)
    _, first = vec.reset(seed=0)
    *_, after = vec.step(np.zeros((BATCH, 9), np.float32))
    keys = set(info_table.BATCH_KEYS)
    assert set(first) == keys and keys <= set(after)
    for key in keys:
        assert np.shape(first[key]) == np.shape(after[key]) and np.shape(after[key])[0] == BATCH, key
    assert after["reason"].dtype.kind == "U" and set(after["reason"]) <= set(info_table.REASON_NAMES)
    assert after["points"].dtype.kind == "i" and after["rewards"].dtype == np.float32
