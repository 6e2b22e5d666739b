"""The referee: pure, jittable rules for seven carom disciplines and the Hungarian 1000 game.

It reads a shot's event log (``physics.ShotResult``) and the game state, and returns the next
state and the verdict. It knows nothing of collision models and nothing of environments.

API::

    rules.DISCIPLINES                                   # the seven discipline ids
    rules.register_discipline(id, base=..., gym_name=..., **columns) -> Discipline  # a variant
    rules.make_rules(discipline, **options) -> Rules    # the ruleset; ValueError on bad names or values
    rules.valid_options(discipline) -> tuple[str]
    rules.init_game(ruleset, key, params, breaker=None) -> GameState  # layout; breaker by lot
    rules.game_from_layout(ruleset, positions, params, player=0) -> GameState  # a game in play
    rules.random_layout(ruleset, key, params) -> (3, 2)   # a random legal layout, nothing frozen
    rules.referee(ruleset, state, shot, params) -> (GameState, Outcome)
    rules.referee_batch(ruleset, states, shots, params)     # jitted, over a leading batch axis
    rules.call_words(outcome, discipline) -> str        # Python side: the call in words

    # the next shooter's choices, written into the state before the shot (no-ops when not offered)
    rules.place_cue_ball(ruleset, state, fraction, params)     # H-6.4, red in hand on the cross axis
    rules.choose_base_spot(ruleset, state, spot, params)       # H-7.3
    rules.choose_respot(ruleset, state, respot, params)        # C-12.7 a, C-13.3 a
    rules.choose_start_side(ruleset, state, side, params)      # C-2.1 c
    rules.choose_breaker(ruleset, state, breaker, params)      # C-1.2, after a lag

The environment shoots from ``state.positions`` with ball ``state.cue_ball`` (C-3.4: 0 white,
1 yellow, 2 red; Hungarian H-3.1: 0 red for both players, 1 white, 2 yellow), with the pin
standing at ``state.pin_position`` when ``state.pin_state == PinState.STANDING``.

``Rules``, ``GameState`` and ``Outcome`` are pytrees of fixed-shape arrays: ``jax.jit`` the
functions with the rules as an argument (the family is static; the discipline's columns and options
are leaves, so the six carom disciplines share one compiled referee) and ``jax.vmap`` over states,
shots and rule options. One job a module: ``disciplines`` (the data table), ``options`` (Rules),
``state``, ``log``, ``judge`` (facts of a shot), ``geometry``, ``fields``, ``scoring``, ``carom`` and
``hungarian`` (one shot of each family), ``respot``, ``pin``, ``lag``, ``referee``, ``repair``,
``void``, ``choices``, ``outcome``, ``codes`` and ``calls``; ``point`` (a three-cushion point, Python side).

Where the rules leave a point open (simultaneous contacts, frozen balls, field sizes, void shots,
repairs, ...) the choice is made in one module each and listed in docs/rules.md, "Open points".
"""
from rules.calls import call_words
from rules.choices import choose_base_spot, choose_breaker, choose_respot, choose_start_side, place_cue_ball
from rules.codes import Call, Phase, PinState, PositionCall, Reason
from rules.disciplines import DISCIPLINES, Discipline, register_discipline
from rules.options import Rules, make_rules, valid_options
from rules.outcome import Outcome
from rules.referee import referee, referee_batch
from rules.start import game_from_layout, init_game, random_layout
from rules.state import GameState, board_scores_of, cue_ball_of

__all__ = [
    "DISCIPLINES", "Discipline", "register_discipline",
    "Rules", "make_rules", "valid_options", "init_game", "game_from_layout",
    "random_layout", "referee", "referee_batch", "call_words",
    "place_cue_ball", "choose_base_spot", "choose_respot", "choose_start_side", "choose_breaker",
    "GameState", "Outcome", "Reason", "Call", "PositionCall", "PinState", "Phase",
    "board_scores_of", "cue_ball_of",
]
