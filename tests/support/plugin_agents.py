"""Plug-in agents for the spec tests (``plugin:tests.support.plugin_agents.CLASS``): one that takes
the evaluation's noise, and classes that lack what the planner interface needs."""
from __future__ import annotations

from agents.base import Planner
from agents.plugin_example import NearestBall

NOT_A_CLASS = 3


class NoisyNearestBall(NearestBall):
    """The shipped example, made with the noise it will play under (``noise=``)."""

    def __init__(self, noise: float = 0.0):
        super().__init__()
        self.noise = noise


class NoPlanBatch:
    """Has no ``plan_batch``."""

    def plan(self, ruleset, state, params, key):
        raise NotImplementedError


class InheritsOnly(Planner):
    """Has only ``agents.base.Planner``'s ``plan_batch``, which raises."""


class NeedsArguments(NearestBall):
    """Cannot be made with no arguments."""

    def __init__(self, speed: float):
        super().__init__(speed)


class ShortPlanBatch:
    """``plan_batch`` takes the states alone."""

    def plan_batch(self, states):
        raise NotImplementedError
