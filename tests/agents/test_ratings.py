"""The Bradley-Terry ratings (``agents.ratings``) against answers worked out by hand: two players'
gap from the prior's stationary equation, symmetry, a player who won everything, intervals,
seeds and bad input. Plain NumPy, no JAX."""
from __future__ import annotations

import math

import numpy as np
import pytest

from agents import ratings


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def expected_gap(score: float, games: int) -> float:
    """The rating gap when A scores ``score`` of ``games`` against B, with one virtual draw each
    against an opponent of log-strength 0.

    The posterior is symmetric under (t_A, t_B) -> (-t_B, -t_A), so at its maximum t_B = -t_A = -t,
    and the derivative in t_A is score - games sigma(2t) + 1/2 - sigma(t) = 0 (the games' part,
    then the virtual draw's). It falls in t: solved by bisection. The gap is 2t natural-log units,
    400 / ln 10 Elo points each."""
    low, high = -20.0, 20.0
    for _ in range(200):
        t = (low + high) / 2
        if score - games * sigmoid(2 * t) + 0.5 - sigmoid(t) > 0:
            low = t
        else:
            high = t
    return 2 * t * 400 / math.log(10)


def by_agent(rows) -> dict:
    return {r["agent"]: r for r in rows}


def test_three_wins_of_four_give_the_gap_of_the_stationary_equation():
    rows = ratings.rate([("a", "b", "a")] * 3 + [("a", "b", "b")])
    a, b = by_agent(rows)["a"], by_agent(rows)["b"]
    gap = expected_gap(3, 4)
    assert math.isclose(a["rating"] - b["rating"], gap, abs_tol=1e-6)
    assert 160 < gap < 400 * math.log10(3)  # shrunk by the prior from the plain 190.8 (odds of 3 to 1)
    assert math.isclose(a["rating"], -b["rating"], abs_tol=1e-9)  # the field's average is 0
    assert [r["agent"] for r in rows] == ["a", "b"]  # best first
    assert (a["games"], a["wins"], b["wins"], a["draws"]) == (4, 3, 1, 0)


def test_a_draw_counts_half_a_win_and_an_unfinished_game_nothing():
    rows = by_agent(ratings.rate([("a", "b", "a"), ("b", "a", "draw"), ("a", "b", "unfinished")]))
    assert math.isclose(rows["a"]["rating"] - rows["b"]["rating"], expected_gap(1.5, 2), abs_tol=1e-6)
    assert (rows["a"]["games"], rows["a"]["wins"], rows["a"]["draws"], rows["b"]["draws"]) == (2, 1, 1, 1)
    even = by_agent(ratings.rate([("a", "b", "draw")] * 3))
    assert even["a"]["rating"] == pytest.approx(0.0, abs=1e-9) == even["b"]["rating"]


GAMES = [("x", "y", "x"), ("y", "z", "y"), ("z", "x", "x"), ("x", "y", "y"), ("z", "y", "draw"),
         ("x", "z", "z"), ("x", "y", "x"), ("y", "z", "y"), ("z", "x", "x")] * 2


def test_swapping_the_labels_or_the_seats_swaps_the_ratings():
    swap = {"x": "y", "y": "x", "z": "z", "draw": "draw"}
    base = by_agent(ratings.rate(GAMES, seed=3))
    swapped = by_agent(ratings.rate([(swap[a], swap[b], swap[o]) for a, b, o in GAMES], seed=3))
    seats = by_agent(ratings.rate([(b, a, o) for a, b, o in GAMES], seed=3))
    for name in "xyz":
        assert swapped[swap[name]]["rating"] == pytest.approx(base[name]["rating"], abs=1e-8)
        assert seats[name]["rating"] == pytest.approx(base[name]["rating"], abs=1e-8)
    assert base["x"]["rating"] > base["y"]["rating"] > base["z"]["rating"]  # 8, 7 and 3 of 12 each


def test_a_player_who_won_everything_rates_highest_and_finite():
    games = [("a", "b", "a")] * 5 + [("c", "a", "a")] * 5 + [("b", "c", "b"), ("b", "c", "c")] * 3
    rows = ratings.rate(games)
    assert rows[0]["agent"] == "a" and rows[0]["wins"] == rows[0]["games"] == 10
    assert all(np.isfinite([r["rating"], r["low"], r["high"]]).all() for r in rows)
    assert rows[0]["rating"] < 1000  # the prior keeps it within reach
    two = by_agent(ratings.rate([("a", "b", "a")] * 20))
    assert two["a"]["rating"] - two["b"]["rating"] == pytest.approx(expected_gap(20, 20), abs=1e-6)


def test_intervals_contain_the_estimate_and_follow_the_seed():
    rows = ratings.rate(GAMES, seed=5)
    for r in rows:
        assert r["low"] <= r["rating"] <= r["high"] and r["low"] < r["high"]
    assert ratings.rate(GAMES, seed=5) == rows
    other = ratings.rate(GAMES, seed=6)
    assert [r["rating"] for r in other] == [r["rating"] for r in rows]  # the estimate needs no seed
    assert [(r["low"], r["high"]) for r in other] != [(r["low"], r["high"]) for r in rows]
    unanimous = ratings.rate([("a", "b", "a")] * 4)  # every resample the same games: no spread
    assert all(r["low"] == pytest.approx(r["rating"]) == pytest.approx(r["high"]) for r in unanimous)


def test_an_agent_without_finished_games_rates_at_the_average():
    rows = by_agent(ratings.rate([("a", "b", "a"), ("a", "c", "unfinished")], agents=["a", "b", "c"]))
    assert rows["c"]["games"] == 0 and rows["a"]["rating"] > 0 > rows["b"]["rating"]
    assert sum(r["rating"] for r in rows.values()) == pytest.approx(0.0, abs=1e-9)
    nothing = ratings.rate([("a", "b", "unfinished")])
    assert [(r["rating"], r["low"], r["high"]) for r in nothing] == [(0.0, 0.0, 0.0)] * 2


@pytest.mark.parametrize("games, kwargs, words", [
    ([], {}, "no games"),
    ([("a", "b", "c")], {}, "unknown outcome 'c'"),
    ([("a", "b", "won")], {}, "unknown outcome"),
    ([("a", "a", "a")], {}, "against itself"),
    ([("a", "draw", "a")], {}, "cannot be named"),
    ([("a", "b", "a")], dict(agents=["a"]), "at least two"),
    ([("a", "b", "a")], dict(agents=["a", "c"]), "not in the list"),
    ([("a", "b", "a")], dict(resamples=0), "resamples"),
    ([("a", "b", "a")], dict(prior=0.0), "prior"),
])
def test_bad_input_is_refused_naming_what_is_wrong(games, kwargs, words):
    with pytest.raises(ValueError, match=words):
        ratings.rate(games, **kwargs)
