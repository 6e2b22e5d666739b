"""A plain-Python reference referee, used only by the tests.

Written from the clauses of docs/rules.md (and the open-point choices that ``rules`` documents), with
loops and ifs over a list of event dicts, and no JAX. The differential test feeds it and the JAX
referee the same generated logs and states and asks for the same answer.

Inputs: ``discipline`` id; ``opts`` a dict of option values; ``state`` a dict with the fields of
``rules.GameState`` as Python values; ``shot`` a dict with ``events`` (list of dicts with kind,
time, balls, cushion, positions), ``status``, ``overflow``, ``final_positions``, ``on_table``,
``pin_present``, ``pin_position``; ``table`` a dict with length, width, radius, reach,
head_string_offset, spot_spacing, base_spot_fraction. Output: (state dict, outcome dict).
"""
from __future__ import annotations

import copy
import math

INF = math.inf

# Event kinds and cushions of the physics contract.
CUE_STRIKE, BALL_BALL, BALL_CUSHION, BALL_PIN, PIN_DOWN, OFF_TABLE = 1, 2, 3, 8, 9, 12
BOTTOM, TOP, RIGHT, LEFT = 0, 1, 2, 3

# The referee's codes (the interface of rules.codes).
SCORED, EMPTY, TOO_FEW_CUSHIONS, NOT_OFF_RED, FIELD_LIMIT, ANCHOR_LIMIT, PURE_LIMIT = range(7)
JUMPED, FROZEN_MOVED, NO_TARGET, PIN_FIRST, PIN_NOT_BY_TARGET, PIN_BEFORE_TARGET, WRONG_BALL = range(7, 14)
INVALID, GAME_OVER, LAG_DECIDED, LAG_FOUL, LAG_REPEAT, VOID_LIMIT = range(14, 20)
INVALID_LAYOUT = 4  # the physics' status bit: it refused the layout
VOID_SHOTS_RESOLVED = 3  # void shots in a row before the last one is judged a miss
CALL_POINTS, CALL_EMPTY, CALL_JUMPED, CALL_OPPONENT_BALL, CALL_FOUL, CALL_INVALID = range(1, 7)
CALL_LAG_REPEAT, CALL_LAG_WON, CALL_GAME_OVER = 7, 8, 9
ENTRE, DEDANS, A_CHEVAL = 1, 2, 3
NO_PIN, STANDING, WAITING, JAMMED = 0, 1, 2, 3
LAG, PLAY = 0, 1

# What each discipline is made of (docs/rules.md Part C and Part H).
KINDS = {
    "three_cushion": ("carom", None, "spots", "spots choice"),
    "one_cushion": ("carom", None, "start", "start choice"),
    "straight_rail": ("carom", "corners", "start", "start always"),
    "balkline_47_2": ("carom", "balkline", "start", "start choice"),
    "balkline_47_1": ("carom", "balkline", "start", "start choice"),
    "balkline_71_2": ("carom", "balkline", "start", "start choice"),
    "hungarian_1000": ("hungarian", None, "base spots", None),
}


def call_for(reason, family="carom"):
    if reason == WRONG_BALL and family == "hungarian":
        return CALL_FOUL  # H-4.3: "hiba"; there is no opponent's ball in this game (H-3.1)
    if reason == SCORED:
        return CALL_POINTS
    if reason in (EMPTY, TOO_FEW_CUSHIONS, NOT_OFF_RED, FIELD_LIMIT, ANCHOR_LIMIT, PURE_LIMIT):
        return CALL_EMPTY
    if reason == JUMPED:
        return CALL_JUMPED
    if reason == WRONG_BALL:
        return CALL_OPPONENT_BALL
    if reason in (FROZEN_MOVED, NO_TARGET, PIN_FIRST, PIN_NOT_BY_TARGET, PIN_BEFORE_TARGET):
        return CALL_FOUL
    return {INVALID: CALL_INVALID, GAME_OVER: CALL_GAME_OVER, LAG_DECIDED: CALL_LAG_WON,
            LAG_FOUL: CALL_LAG_WON, LAG_REPEAT: CALL_LAG_REPEAT, VOID_LIMIT: CALL_INVALID}[reason]


# ---------------------------------------------------------------------------------------------
# Table points

def dist(p, q):
    return math.hypot(p[0] - q[0], p[1] - q[1])


def head_string(t):
    x, y, d = 0.25 * t["length"], t["width"] / 2, t["head_string_offset"]
    return [[x, y - d], [x, y], [x, y + d]]


def top_spot(t):
    return [0.75 * t["length"], t["width"] / 2]


def centre(t):
    return [t["length"] / 2, t["width"] / 2]


def base_spots(t):
    x = t["base_spot_fraction"] * t["length"]
    return [[x, t["width"] / 2], [t["length"] - x, t["width"] / 2]]


def start_layout(t, shooter, side=0):
    """C-2.1: red top spot, other player's ball middle, shooter's ball on a side spot."""
    h = head_string(t)
    layout = [None, None, top_spot(t)]
    layout[shooter] = list(h[2] if side == 1 else h[0])
    layout[1 - shooter] = list(h[1])
    return layout


def lag_layout(t):
    h = head_string(t)
    return [list(h[0]), list(h[2]), top_spot(t)]


# ---------------------------------------------------------------------------------------------
# Zones: fields and anchors as predicates

def corner_zones(o, t):
    a, b = o["corner_long_leg"], o["corner_short_leg"]
    L, W = t["length"], t["width"]
    h = math.sqrt(a * a + b * b)
    zones = []
    for at_top in (False, True):
        for at_left in (False, True):
            def inside(p, tol, at_top=at_top, at_left=at_left):
                u = L - p[0] if at_top else p[0]
                v = W - p[1] if at_left else p[1]
                return u >= -tol and v >= -tol and (b * u + a * v - a * b) / h <= tol
            zones.append(inside)
    return zones


def rect(x_lo, x_hi, y_lo, y_hi):
    def inside(p, tol):
        return x_lo - p[0] <= tol and p[0] - x_hi <= tol and y_lo - p[1] <= tol and p[1] - y_hi <= tol
    return inside


def balkline_zones(o, t):
    L, W, d = t["length"], t["width"], o["line_distance"]
    xs, ys = [0.0, d, L - d, L], [0.0, d, W - d, W]
    fields = [rect(xs[i], xs[i + 1], ys[j], ys[j + 1]) for i in range(3) for j in range(3)]
    s = o["anchor_fraction"] * W
    half = 0.5 * s
    anchors = []
    for x0 in (d, L - d):
        anchors += [rect(x0 - half, x0 + half, 0.0, s), rect(x0 - half, x0 + half, W - s, W)]
    for y0 in (d, W - d):
        anchors += [rect(0.0, s, y0 - half, y0 + half), rect(L - s, L, y0 - half, y0 + half)]
    return fields, anchors


def zone_sets(kind, o, t):
    if kind == "corners":
        return corner_zones(o, t), []
    if kind == "balkline":
        return balkline_zones(o, t)
    return [], []


def shared_zone(zones, layout, objects, tracked, count, tol):
    """The zone both object balls lie in (the tracked one first), and caroms already made there."""
    both = [k for k, z in enumerate(zones) if all(z(layout[b], tol) for b in objects)]
    if tracked >= 0 and tracked in both:
        return tracked, count
    return (both[0], 0) if both else (-1, 0)


# ---------------------------------------------------------------------------------------------
# Reading the log

def first_contact(events, cue, ball):
    for e in events:
        if e["kind"] == BALL_BALL and cue in e["balls"] and ball in e["balls"]:
            return e["time"]
    return INF


def jumped_balls(shot):
    out = [not shot["on_table"][b] for b in range(3)]
    for e in shot["events"]:
        if e["kind"] == OFF_TABLE:
            out[e["balls"][0]] = True
    return out


def frozen_to(layout, cue, o, t):
    limit = 2 * t["radius"] + o["frozen_tolerance"]
    return [b != cue and dist(layout[b], layout[cue]) < limit for b in range(3)]


def frozen_cushions(p, o, t):
    gaps = [p[0], t["length"] - p[0], p[1], t["width"] - p[1]]
    return [g - t["reach"] < o["frozen_tolerance"] for g in gaps]


def shot_reading(o, t, start, cue, shot):
    ev = shot["events"]
    tol = o["time_tolerance"]
    objects = [b for b in range(3) if b != cue]
    hits = {b: first_contact(ev, cue, b) for b in objects}
    carom = all(hits[b] < INF for b in objects)
    carom_t = max(hits.values()) if carom else INF
    # C-13.2: count the cue ball's cushions before the carom is completed, i.e. before its first
    # touch of the second object ball. O-7: if the two object balls were touched "at once", the
    # count must be complete before the earlier touch.
    earlier, later = sorted(hits.values())
    done = earlier if carom and later - earlier <= tol else carom_t
    cushions = sum(1 for e in ev if e["kind"] == BALL_CUSHION and e["balls"][0] == cue and e["time"] < done - tol)
    strikes = [e for e in ev if e["kind"] == CUE_STRIKE]
    wrong = bool(strikes) and strikes[0]["balls"][0] != cue
    frozen = frozen_to(start, cue, o, t)
    ball_moved = any(frozen[b] and hits[b] <= o["push_time"] for b in objects)
    fc = frozen_cushions(start[cue], o, t)
    cushion_moved = False
    for k in range(4):
        if fc[k]:
            times = [e["time"] for e in ev if e["kind"] == BALL_CUSHION and e["balls"][0] == cue and e["cushion"] == k]
            if times and times[0] <= o["push_time"]:
                cushion_moved = True
    return dict(objects=objects, hits=hits, carom=carom, carom_t=carom_t, cushions=cushions,
                wrong=wrong, ball_moved=ball_moved, cushion_moved=cushion_moved,
                first=min(hits.values()), jumped=jumped_balls(shot))


def left_zone(zone, objects, shot, tol):
    """An object ball was outside the zone at some event or at rest."""
    if zone is None:
        return False
    rows = [e["positions"] for e in shot["events"]] + [shot["final_positions"]]
    return any(not zone(row[b], tol) for row in rows for b in objects)


# ---------------------------------------------------------------------------------------------
# Outcomes

def blank_outcome(reason, shooter):
    return dict(points=[0, 0], shot_value=0, foul=False, reason=reason, call=call_for(reason),
                field_call=0, anchor_call=0, countdown=0, frozen_warning=False, turn_passes=False,
                ball_in_hand=False, game_over=False, winner=-1, draw=False, shooter=shooter,
                carom=False, pin_down=False, cushions=0, jumped=[False] * 3, respotted=[False] * 3,
                lag_winner=-1)


def countdown(o, score):
    need = o["distance"] - score
    return need if 1 <= need <= o["countdown_from"] else 0


def referee(discipline, o, state, shot, t):
    family = KINDS[discipline][0]
    s = copy.deepcopy(state)
    if s["game_over"]:
        out = blank_outcome(GAME_OVER, s["current_player"])
        out.update(game_over=True, winner=s["winner"], draw=s["draw"])
        return s, out
    if shot["status"] != 0 or shot["overflow"]:
        return void(family, o, s, shot, t)
    s["void_streak"] = 0
    if family == "hungarian":
        return hungarian(o, s, shot, t)
    if o["lag"] and s["phase"] == LAG:
        return lag(o, s, shot, t)
    return carom(discipline, o, s, shot, t)


def void(family, o, s, shot, t):
    """A shot the simulation could not play faithfully: not judged; the layout the physics refused
    is checked (a repair; the generated layouts need no move); the third void shot in a row is a
    miss from the starting layout."""
    s["shots"] += 1
    s["void_streak"] += 1
    if shot["status"] & INVALID_LAYOUT:
        s["repairs"] += 1
        s["frozen_balls"] = frozen_to(s["positions"], s["cue_ball"], o, t)
        s["frozen_cushions"] = frozen_cushions(s["positions"][s["cue_ball"]], o, t)
    if s["void_streak"] >= VOID_SHOTS_RESOLVED:
        return void_miss(family, o, s, t)
    out = blank_outcome(INVALID, s["current_player"])
    out["ball_in_hand"] = s["ball_in_hand"]
    return s, out


def void_miss(family, o, s, t):
    """Too many void shots in a row: no points; carom C-9.2 a (turn passes) and C-8.3 (an
    equalizing inning ends short); Hungarian H-9.5 (the run is recorded, the turn passes); the
    balls to the starting layout (C-2.1 / H-2 with the pin on its spot and the red in hand);
    during a lag, the lag layout again (C-1.1)."""
    p = s["current_player"]
    before = [list(x) for x in s["positions"]]
    hungarian = family == "hungarian"
    board_before = list(s["scores"])
    board_before[p] += s["run"] if hungarian else 0  # a carom run is already in the scores (C-9.2 j)
    playing = s["phase"] == PLAY
    game_over, winner, turn_passes = False, -1, playing
    if playing and hungarian:
        s["scores"][p] += s["run"]
    elif playing and s["equalizing"]:
        game_over, winner, turn_passes = True, s["breaker"], False
    nxt = 1 - p if turn_passes else p
    if turn_passes:
        s["innings"][nxt] += 1
    s.update(run=0, current_player=nxt, pure_caroms=0, field_zone=-1, field_count=0, anchor_zone=-1,
             anchor_count=0, ball_in_hand=False, may_respot=False, base_spot_ball=-1,
             may_choose_side=playing and family != "hungarian" and not game_over,
             game_over=game_over, winner=winner, draw=False, void_streak=0, repairs=s["repairs"] + 1)
    if family == "hungarian":
        s.update(pin_state=STANDING, pin_position=centre(t), ball_in_hand=True)
        layout = [[0.0, 0.0]] + base_spots(t)
        layout[0] = red_in_hand(layout, 0, True, centre(t), o, t)
    elif playing:
        s["cue_ball"] = nxt
        layout = start_layout(t, nxt)
    else:
        layout = lag_layout(t)
    s["positions"] = [list(x) for x in layout]
    s["frozen_balls"] = frozen_to(s["positions"], s["cue_ball"], o, t)
    s["frozen_cushions"] = frozen_cushions(s["positions"][s["cue_ball"]], o, t)
    board_after = list(s["scores"])  # the run is over
    out = blank_outcome(VOID_LIMIT, p)
    out.update(points=[board_after[i] - board_before[i] for i in range(2)], turn_passes=turn_passes,
               ball_in_hand=s["ball_in_hand"], game_over=game_over, winner=winner,
               respotted=[dist(s["positions"][b], before[b]) > 1e-12 for b in range(3)])
    return s, out


# ---------------------------------------------------------------------------------------------
# Part C

def carom(discipline, o, s, shot, t):
    _, zone_kind, jumped_kind, frozen_kind = KINDS[discipline]
    tol = o["time_tolerance"]
    p = s["current_player"]
    cue = s["cue_ball"]
    start = s["positions"]
    r = shot_reading(o, t, start, cue, shot)
    objects = r["objects"]
    other = [b for b in objects if b != 2][0]
    fields, anchors = zone_sets(zone_kind, o, t)

    def judge_zone(zones, tracked, count):
        if not zones or not o["restricted_fields"]:
            return -1, 0, False, False
        z, before = shared_zone(zones, start, objects, tracked, count, o["line_tolerance"])
        if z < 0:
            return -1, 0, False, False
        left = left_zone(zones[z], objects, shot, o["line_tolerance"])
        return z, before, before + 1 >= o["field_limit"], left

    fz = judge_zone(fields, s["field_zone"], s["field_count"])
    az = judge_zone(anchors, s["anchor_zone"], s["anchor_count"])

    # the verdict, first matching reason
    if r["wrong"]:
        reason = WRONG_BALL  # C-9.2 j
    elif any(r["jumped"]):
        reason = JUMPED  # C-9.2 b
    elif r["ball_moved"]:
        reason = FROZEN_MOVED  # C-12.7 c, C-13.3 c
    elif not r["carom"]:
        reason = EMPTY  # C-9.2 a
    elif r["cushions"] < o["cushions_required"]:
        reason = TOO_FEW_CUSHIONS  # C-13.1, C-13.2
    elif s["first_carom_pending"] and not (r["hits"][2] + tol < r["hits"][other]):
        reason = NOT_OFF_RED  # C-2.2
    elif fz[2] and not fz[3]:
        reason = FIELD_LIMIT  # C-11.2, C-12.3, C-12.4
    elif az[2] and not az[3]:
        reason = ANCHOR_LIMIT
    else:
        reason = SCORED
    foul = reason in (WRONG_BALL, JUMPED, FROZEN_MOVED, EMPTY, TOO_FEW_CUSHIONS)
    scored = reason == SCORED

    scores = list(s["scores"])
    if scored:
        scores[p] += 1  # C-3.3
    game_over, winner, draw = False, -1, False
    equalize = False
    turn_passes = not scored
    if s["equalizing"]:
        if scored and scores[p] >= o["distance"]:
            game_over, draw = True, True  # C-8.4
        elif not scored:
            game_over, winner = True, s["breaker"]  # C-8.3
    elif scored and scores[p] >= o["distance"]:
        if p == s["breaker"] and o["equalizing_inning"]:
            equalize = True  # C-8.3
            turn_passes = True
        else:
            game_over, winner = True, p
    if game_over:
        turn_passes = False
    nxt = 1 - p if turn_passes else p

    layout = [list(x) for x in shot["final_positions"]]
    in_start = False
    if any(r["jumped"]):
        if jumped_kind == "start":
            layout = start_layout(t, nxt)  # C-11.4, C-12.8, C-13.4 a
            in_start = True
        else:
            layout = three_cushion_respot(layout, r["jumped"], nxt, o, t)  # C-13.4 b-d
    if equalize:
        layout = start_layout(t, nxt)
        in_start = True
    frozen = frozen_to(layout, nxt, o, t)
    if frozen_kind == "start always" and any(frozen):
        layout = start_layout(t, nxt)  # C-11.3
        in_start = True
        frozen = frozen_to(layout, nxt, o, t)

    keep = scored and not turn_passes and not game_over
    fzone, fcount, azone, acount = -1, 0, -1, 0
    if keep:
        if fz[0] >= 0 and not fz[3]:
            fzone, fcount = fz[0], fz[1] + 1
        if az[0] >= 0 and not az[3]:
            azone, acount = az[0], az[1] + 1
    next_objects = [b for b in range(3) if b != nxt]
    field_call, anchor_call = 0, 0
    if o["restricted_fields"] and not game_over:
        zf, cf = shared_zone(fields, layout, next_objects, fzone, fcount, o["line_tolerance"])
        za, ca = shared_zone(anchors, layout, next_objects, azone, acount, o["line_tolerance"])
        if zf >= 0:
            field_call = DEDANS if cf >= 1 else ENTRE
        elif za >= 0:
            field_call = A_CHEVAL
        if za >= 0:
            anchor_call = DEDANS if ca >= 1 else ENTRE

    innings = list(s["innings"])
    if turn_passes:
        innings[1 - p] += 1
    respotted = [dist(layout[b], shot["final_positions"][b]) > 0 or r["jumped"][b] for b in range(3)]
    s.update(
        positions=layout, scores=scores, run=s["run"] + 1 if keep else 0,
        current_player=p if game_over else nxt, cue_ball=s["cue_ball"] if game_over else nxt,
        innings=innings, shots=s["shots"] + 1, pure_caroms=0,
        field_zone=fzone, field_count=fcount, anchor_zone=azone, anchor_count=acount,
        frozen_balls=frozen, frozen_cushions=frozen_cushions(layout[nxt], o, t),
        may_respot=any(frozen) and frozen_kind in ("start choice", "spots choice") and not game_over,
        may_choose_side=in_start and not game_over, may_choose_breaker=False,
        first_carom_pending=s["first_carom_pending"] and not scored,
        equalizing=s["equalizing"] or equalize, game_over=game_over, winner=winner, draw=draw,
    )
    out = blank_outcome(reason, p)
    out.update(
        points=[1 if (scored and i == p) else 0 for i in range(2)], shot_value=int(scored),
        foul=foul, field_call=field_call, anchor_call=anchor_call,
        countdown=0 if game_over else countdown(o, scores[nxt]),
        frozen_warning=any(frozen) and not game_over, turn_passes=turn_passes, game_over=game_over,
        winner=winner, draw=draw, carom=r["carom"], cushions=r["cushions"] if r["carom"] else 0,
        jumped=r["jumped"], respotted=respotted,
    )
    return s, out


def three_cushion_respot(layout, off, next_shooter, o, t):
    """C-13.4 b, c, d: each jumped ball to its spot, or to the spot of the ball covering it."""
    spot = {2: top_spot(t), next_shooter: head_string(t)[1], 1 - next_shooter: centre(t)}
    clearance = 2 * t["radius"] + o["frozen_tolerance"]
    on_table = [not x for x in off]
    layout = [list(x) for x in layout]
    for b in range(3):
        if not off[b]:
            continue
        target = b
        for _ in range(3):
            takers = [k for k in range(3) if k != b and on_table[k] and dist(layout[k], spot[target]) < clearance]
            if takers:
                target = takers[0]
        layout[b] = list(spot[target])
        on_table[b] = True
    return layout


def lag(o, s, shot, t):
    ev = shot["events"]
    jumped = jumped_balls(shot)
    fouls = []
    for b in (0, 1):
        red = any(e["kind"] == BALL_BALL and b in e["balls"] and 2 in e["balls"] for e in ev)
        mine = [e for e in ev if e["kind"] == BALL_CUSHION and e["balls"][0] == b]
        top = any(e["cushion"] == TOP for e in mine)
        long_first = bool(mine) and mine[0]["cushion"] in (RIGHT, LEFT)
        fouls.append(red or not top or long_first or jumped[b])  # C-1.4
    collided = any(e["kind"] == BALL_BALL and 0 in e["balls"] and 1 in e["balls"] for e in ev)
    x = [shot["final_positions"][b][0] for b in (0, 1)]
    if collided or (fouls[0] and fouls[1]):
        winner = -1
    elif fouls[0] != fouls[1]:
        winner = 1 if fouls[0] else 0
    elif abs(x[0] - x[1]) <= o["lag_tie_tolerance"]:
        winner = -1
    else:
        winner = 0 if x[0] < x[1] else 1
    s["shots"] += 1
    s["lag_collisions"] += int(collided)
    if winner >= 0:
        layout = start_layout(t, winner)
        s.update(phase=PLAY, breaker=winner, current_player=winner, cue_ball=winner,
                 innings=[int(winner == 0), int(winner == 1)], may_choose_breaker=True, may_choose_side=True)
    else:
        layout = lag_layout(t)
        s.update(current_player=0, cue_ball=0, may_choose_breaker=False, may_choose_side=False)
    cue = s["cue_ball"]
    s.update(positions=layout, frozen_balls=frozen_to(layout, cue, o, t),
             frozen_cushions=frozen_cushions(layout[cue], o, t))
    if winner < 0:
        reason = LAG_REPEAT
    elif fouls[0] != fouls[1]:
        reason = LAG_FOUL
    else:
        reason = LAG_DECIDED
    out = blank_outcome(reason, 0)
    out.update(foul=fouls[0] or fouls[1], lag_winner=winner, jumped=jumped, respotted=[True] * 3)
    return s, out


# ---------------------------------------------------------------------------------------------
# Part H

def value_of(carom, pin):
    """H-9.2 to H-9.4."""
    if carom and pin:
        return 100
    if pin:
        return 50
    return 10 if carom else 0


def hungarian(o, s, shot, t):
    R = t["radius"]
    tol = o["time_tolerance"]
    p, q = s["current_player"], 1 - s["current_player"]
    cue = s["cue_ball"]
    ev = shot["events"]
    r = shot_reading(o, t, s["positions"], cue, shot)
    first = r["first"]
    standing = s["pin_state"] == STANDING
    downs = [e for e in ev if e["kind"] == PIN_DOWN]
    fell = standing and bool(downs)
    cue_pin = [e["time"] for e in ev if e["kind"] == BALL_PIN and e["balls"][0] == cue]
    t_cue_pin = cue_pin[0] if cue_pin else INF
    # H-4.8, H-8.1: only a target ball knocks the pin down legally; a touch of the cue ball at
    # the moment it falls is read against the shooter (H-6.6)
    by_cue = fell and (downs[0]["balls"][0] not in (1, 2) or any(abs(x - downs[0]["time"]) <= tol for x in cue_pin))
    pin_first = t_cue_pin < INF and not (first + tol < t_cue_pin)
    before_target = fell and not (first + tol < downs[0]["time"])
    touched = first < INF

    checks = [(r["wrong"], WRONG_BALL), (any(r["jumped"]), JUMPED),
              (r["ball_moved"] or r["cushion_moved"], FROZEN_MOVED), (not touched, NO_TARGET),
              (pin_first, PIN_FIRST), (by_cue, PIN_NOT_BY_TARGET), (before_target, PIN_BEFORE_TARGET)]
    fouls = [reason for hit, reason in checks if hit]
    foul = bool(fouls)
    value = value_of(r["carom"], fell)
    pure = r["carom"] and not fell
    limited = not foul and pure and o["pure_carom_limit"] and s["pure_caroms"] >= 2  # H-6.3
    scored = not foul and not limited and value > 0
    if foul:
        reason = fouls[0]
    elif limited:
        reason = PURE_LIMIT  # H-9.6
    elif scored:
        reason = SCORED
    else:
        reason = EMPTY  # H-9.5

    scores = list(s["scores"])
    board_before = list(scores)
    board_before[p] += s["run"]
    run = 0
    game_over, winner = False, -1
    mode = o["scoring_mode"]
    if scored:
        if scores[p] + s["run"] + value >= o["distance"]:
            scores[p] += s["run"] + value  # H-10.1
            game_over, winner = True, p
        else:
            run = s["run"] + value
    elif not foul:
        scores[p] += s["run"]  # H-9.5, H-9.6: he records the run
    else:
        penalty = value + 10 * sum(r["jumped"])  # H-9.7, H-9.8
        if mode == 3 and (not touched or before_target):
            penalty += 10  # H-9.10
        if mode == 1:
            scores[q] += s["run"] + penalty
        elif mode == 2:
            scores[q] += penalty
        else:
            scores[p] += s["run"]
            scores[q] += penalty
        if scores[q] >= o["distance"]:
            game_over, winner = True, q
    turn_passes = not scored and not game_over
    nxt = q if turn_passes else p

    # H-7: jumped balls
    layout = [list(x) for x in shot["final_positions"]]
    in_hand = any(r["jumped"]) or r["wrong"]  # H-7.2 to H-7.4; H-6.4 for a foul against H-4.3
    base = base_spots(t)
    clearance = 2 * R + o["frozen_tolerance"]
    choice = -1
    if r["jumped"][1] and r["jumped"][2]:
        layout[1], layout[2] = list(base[0]), list(base[1])
    elif r["jumped"][1] or r["jumped"][2]:
        j = 1 if r["jumped"][1] else 2
        other = layout[3 - j]
        free = [dist(spot, other) >= clearance for spot in base]
        layout[j] = list(base[0] if free[0] else base[1])
        if free[0] and free[1]:
            choice = j

    # H-8.4 to H-8.7: the pin
    spot = centre(t)
    present = [True, True, True]
    present[cue] = not in_hand
    lying = shot["pin_position"] if shot["pin_present"] else s["pin_position"]
    pin_state, pin_pos = s["pin_state"], list(s["pin_position"])
    if pin_state != NO_PIN:
        down = fell or pin_state == JAMMED
        where = lying if fell else s["pin_position"]
        jam = down and any(present[b] and dist(layout[b], where) < R + o["pin_jam_reach"] for b in range(3))
        if jam:
            pin_state, pin_pos = JAMMED, list(where)
        elif down or pin_state == WAITING:
            clear = R + o["pin_radius"] + o["frozen_tolerance"]
            taken = any(present[b] and dist(layout[b], spot) < clear for b in range(3))
            pin_state, pin_pos = (WAITING if taken else STANDING), list(spot)
        else:
            pin_pos = list(lying)
    if in_hand:
        layout[cue] = red_in_hand(layout, cue, pin_state == STANDING, pin_pos, o, t)
    frozen = frozen_to(layout, cue, o, t)

    innings = list(s["innings"])
    if turn_passes:
        innings[q] += 1
    s.update(
        positions=layout, scores=scores, run=run, current_player=p if game_over else nxt,
        innings=innings, shots=s["shots"] + 1,
        pure_caroms=s["pure_caroms"] + 1 if (scored and pure and not turn_passes) else 0,
        ball_in_hand=in_hand and not game_over, base_spot_ball=-1 if game_over else choice,
        frozen_balls=frozen, frozen_cushions=frozen_cushions(layout[cue], o, t),
        pin_state=pin_state, pin_position=pin_pos, first_carom_pending=False,
        game_over=game_over, winner=winner,
    )
    board_after = list(scores)
    board_after[s["current_player"]] += run
    out = blank_outcome(reason, p)
    out.update(
        call=call_for(reason, "hungarian"),
        points=[board_after[i] - board_before[i] for i in range(2)],
        shot_value=value if scored else 0, foul=foul,
        frozen_warning=any(frozen) and not game_over, turn_passes=turn_passes,
        ball_in_hand=in_hand and not game_over, game_over=game_over, winner=winner,
        carom=r["carom"], pin_down=fell, cushions=r["cushions"] if r["carom"] else 0,
        jumped=r["jumped"],
        respotted=[dist(layout[b], shot["final_positions"][b]) > 0 or r["jumped"][b] for b in range(3)],
    )
    return s, out


def red_in_hand(layout, cue, pin_standing, pin_pos, o, t, wanted=None):
    """H-6.4: the red on the cross axis, nearest the wanted place, touching no ball and no standing
    pin: the free parts of the axis are what is left after cutting out a blocked interval around
    each obstacle; take the nearest free point."""
    L, W, R = t["length"], t["width"], t["radius"]
    x = L / 2
    lo, hi = t["reach"], W - t["reach"]
    if wanted is None:
        wanted = W / 2 - t["spot_spacing"]
    obstacles = [(layout[b], 2 * R + o["frozen_tolerance"]) for b in range(3) if b != cue]
    if pin_standing:
        obstacles.append((pin_pos, R + o["pin_radius"] + o["frozen_tolerance"]))
    blocked = []
    for c, clear in obstacles:
        dx = x - c[0]
        if abs(dx) < clear:
            w = math.sqrt(max(clear * clear - dx * dx, 0.0))
            blocked.append((c[1] - w, c[1] + w))
    blocked.sort()
    merged = []
    for a, b in blocked:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    free = []
    start = lo
    for a, b in merged:
        if a > start:
            free.append((start, min(a, hi)))
        start = max(start, b)
    if start <= hi:
        free.append((start, hi))
    best = None
    for a, b in free:
        if a > b:
            continue
        y = min(max(wanted, a), b)
        if best is None or abs(y - wanted) < abs(best - wanted):
            best = y
    if best is None:
        best = min(max(wanted, lo), hi)
    return [x, best]
