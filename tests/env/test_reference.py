"""The reference scores per environment id (``billiards_env.reference``): every registered id's
spec carries its discipline's geometric level as ``reward_threshold``, the table orders the agents
as measured, and the README's table is the module's."""
from __future__ import annotations

import re
from pathlib import Path

import gymnasium as gym
import pytest

import billiards_env
import rules
from billiards_env.reference import REFERENCE, reward_threshold

ROOT = Path(__file__).resolve().parents[2]


def test_every_discipline_has_reference_scores_of_the_random_geometric_and_rl_agents():
    assert set(REFERENCE) == set(rules.DISCIPLINES)
    for discipline, scores in REFERENCE.items():
        assert {"random", "geometric", "rl"} <= set(scores), discipline
        # random play is the floor; the shipped RL policy's curve ends above the geometric agent
        assert scores["random"] < scores["geometric"] < scores["rl"], (discipline, scores)


@pytest.mark.parametrize("discipline", rules.DISCIPLINES)
def test_the_gymnasium_spec_threshold_is_the_geometric_agents_level(discipline):
    spec = gym.spec(billiards_env.IDS[discipline])
    assert spec.reward_threshold == REFERENCE[discipline]["geometric"] == reward_threshold(discipline)


def test_a_discipline_without_reference_scores_has_no_threshold():
    assert reward_threshold("no_such_variant") is None


def test_the_readme_table_is_the_modules():
    text = (ROOT / "README.md").read_text()
    start = text.index("| environment id | random |")
    rows = [line for line in text[start:].splitlines()[2:] if line.startswith("| ")]
    assert len(rows) >= len(rules.DISCIPLINES)
    for line in rows[:len(rules.DISCIPLINES)]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        discipline = billiards_env.discipline_of(cells[0].strip("`"))
        numbers = [float(re.match(r"[-\d.]+", c).group()) for c in cells[1:4]]
        want = [REFERENCE[discipline][agent] for agent in ("random", "geometric", "rl")]
        assert numbers == pytest.approx(want, abs=1e-9), discipline
