"""Shared helpers of the rules tests (no tests here): compiled referees, states, conversions.

One jitted single-shot referee and one jitted batched referee serve every test; jit compiles them
once per family (the family is static metadata of ``Rules``; the discipline's columns and the
options are leaves, so the six carom disciplines, and tests that change an option, reuse the
compiled code).
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

import physics
import rules
from tests.support.shot_logs import build_shot, event_dicts, script  # noqa: F401  (re-exported)

REFEREE = jax.jit(rules.referee)
BATCH_REFEREE = rules.referee_batch
INIT = jax.jit(rules.init_game)

CAROM = ("three_cushion", "one_cushion", "straight_rail", "balkline_47_2", "balkline_47_1", "balkline_71_2")


@functools.lru_cache(maxsize=None)
def params_for(discipline: str):
    """The default physical parameters: the Hungarian table or the match table (O-2)."""
    return physics.default_params("hungarian" if discipline == "hungarian_1000" else "match")


def make(discipline: str, **options):
    """(rules, params) for a discipline."""
    return rules.make_rules(discipline, **options), params_for(discipline)


def state_with(rules_, params, **fields):
    """The initial state (breaker drawn from key 0) with fields replaced (arrays cast to the
    field's dtype). ``cue_ball`` follows ``current_player`` unless given."""
    state = INIT(rules_, jax.random.PRNGKey(0), params)
    if "current_player" in fields and "cue_ball" not in fields:
        fields["cue_ball"] = rules.cue_ball_of(rules_, fields["current_player"])
    changes = {}
    for name, value in fields.items():
        old = getattr(state, name)
        changes[name] = jnp.asarray(value, old.dtype).reshape(old.shape)
    state = rules.state.replace(state, **changes)
    if "positions" in fields:  # keep the frozen flags consistent with the layout
        tol = rules_.frozen_tolerance
        cue = state.cue_ball
        state = rules.state.replace(
            state,
            frozen_balls=rules.geometry.frozen_balls(state.positions, cue, params.ball.radius, tol),
            frozen_cushions=rules.geometry.frozen_cushions(state.positions[cue], params.cushion_reach, params.table,
                                                           tol),
        )
    return state


def judge(rules_, params, state, steps_or_events, final=None, cue=None, **shot_kwargs):
    """Referee one hand-made shot: steps (strings for ``script``) or event dicts."""
    if steps_or_events and isinstance(steps_or_events[0], str):
        events = script(int(state.cue_ball) if cue is None else cue, *steps_or_events)
    else:
        events = list(steps_or_events)
    final = np.asarray(state.positions) if final is None else np.asarray(final, float)
    shot = build_shot(events, final, **shot_kwargs)
    return REFEREE(rules_, state, shot, params)


# -- conversions for the reference referee -----------------------------------------------------

def to_python(tree):
    """A pytree dataclass as a dict of Python values (lists, ints, floats, bools)."""
    return {k: np.asarray(v).tolist() for k, v in vars(tree).items() if not isinstance(v, str)}


def options_dict(rules_):
    values = {k: np.asarray(v).item() for k, v in vars(rules_).items() if k not in ("family", "lag")}
    values["lag"] = rules_.lag
    return values


def table_dict(params):
    t = params.table
    f = lambda x: float(np.asarray(x))  # noqa: E731
    return dict(
        length=f(t.length), width=f(t.width), radius=f(params.ball.radius), reach=f(params.cushion_reach),
        head_string_offset=f(t.head_string_offset), spot_spacing=f(t.spot_spacing),
        base_spot_fraction=f(t.base_spot_fraction),
    )


def shot_dict(shot):
    """One (unbatched) ShotResult as the reference referee's dict."""
    return dict(
        events=event_dicts(shot), status=int(shot.status), overflow=bool(shot.overflow),
        final_positions=np.asarray(shot.final_positions).tolist(),
        on_table=np.asarray(shot.on_table).tolist(), pin_present=bool(shot.pin_present),
        pin_position=np.asarray(shot.pin_position).tolist(),
    )
