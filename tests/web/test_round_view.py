"""What the ``state`` message says of a game (``round/view.py``): its JSON text, put
together from parts written by hand, is what ``json.dumps`` writes of its fields, through
offers, takebacks, endings, janggi setups and passes, and records with headers."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from test_round_rules import T0, act, move, new_round, opening

from chuhan.board import Board
from chuhan.jsontext import moves_json
from chuhan.squares import SQUARE_NAMES
from chuhan.web.encode import dumps
from chuhan.web.round.state import Event, RoundState, evolve
from chuhan.web.round.view import _pieces, _pieces_text, build_snapshot


def assert_written_as_json(state: RoundState) -> None:
    snapshot = build_snapshot(state, 1, T0 + 5)
    assert snapshot.head.endswith(", " + dumps(snapshot.rest)[1:-1])
    public = snapshot.public()
    assert public["turn"] == ("first" if state.game.board.turn else "second")
    assert public["ply"] == state.game.board.ply
    assert json.loads(snapshot.head + "}")["headers"] == state.headers
    again = build_snapshot(state, 2, T0 + 6, snapshot)
    assert again.head == build_snapshot(state, 2, T0 + 6).head


def states() -> list[tuple[str, RoundState]]:
    """States that fill in each part of the message in turn (each its own game: a state
    is used once)."""

    def played() -> RoundState:
        return opening(new_round(minutes=5))

    found = [("start", new_round(minutes=5)), ("moves", played())]
    found.append(("draw offer", act(played(), "first", "draw_offer")))
    found.append(("takeback request", act(played(), "second", "takeback_request")))
    found.append(("resigned", act(played(), "second", "resign")))
    offered = act(played(), "first", "draw_offer")
    found.append(("agreed", act(offered, "second", "draw_accept")))
    over = act(played(), "first", "resign")
    found.append(("rematch offer", act(over, "second", "rematch")))
    found.append(("abortable", move(new_round(minutes=1), "first", "h2e2")))
    checked = played()
    for text in ("a0a1", "b7e7", "e2e6"):
        checked = move(checked, "first" if checked.game.board.turn else "second", text)
    found.append(("check", checked))
    janggi = new_round(variant="janggi")
    found.append(("janggi setup", janggi))
    janggi = new_round(variant="janggi")
    for seat in ("second", "first"):
        janggi = act(janggi, seat, "setup", arrangement="마상상마")
    found.append(("janggi pass", act(janggi, "first", "pass")))
    named = evolve(played(), Event("name", {"seat": "first", "name": '"Ann" \\ 甲'}, T0))
    found.append(("names", named))
    headed = evolve(played(), Event("name", {"seat": "second", "name": "乙"}, T0))
    found.append(("headers", headed.replace(headers={"Event": '狂 "cup"', "Round": "1"})))
    return found


@pytest.mark.parametrize("name, state", states(), ids=lambda value: str(value)[:20])
def test_the_state_message_is_the_json_of_its_fields(name: str, state: RoundState) -> None:
    assert_written_as_json(state)


def test_every_part_was_met() -> None:
    rests: list[dict[str, Any]] = [build_snapshot(state, 1, T0).rest for _, state in states()]
    for field in ("pass_ends", "check", "setup", "result", "last_event"):
        assert any(rest[field] is not None for rest in rests), field
    assert any(rest["can_pass"] for rest in rests)
    assert any(rest["abortable"] for rest in rests)
    assert any(rest["offers"]["draw"] for rest in rests)
    assert any(rest["offers"]["takeback"] for rest in rests)
    assert any(rest["offers"]["rematch"] for rest in rests)
    assert any(rest["headers"] for rest in rests)


def grouped(codes: list[int]) -> dict[str, list[str]]:
    """Move codes' to-squares by from-square, in the order first met."""
    found: dict[str, list[str]] = {}
    for code in codes:
        found.setdefault(SQUARE_NAMES[code >> 7], []).append(SQUARE_NAMES[code & 127])
    return found


def test_the_moves_are_the_json_of_their_destinations() -> None:
    rng = random.Random(7)
    for variant in ("xiangqi", "janggi"):
        board = Board(variant=variant)
        for _ in range(60):
            codes = board.legal_move_codes()
            if not codes:
                break
            for moves in (codes, board.pseudo_legal_move_codes(not board.turn)):
                assert moves_json(moves) == json.dumps(grouped(moves))
                assert moves_json(moves[::-1]) == json.dumps(grouped(moves[::-1]))
            board.push_code(rng.choice(codes))


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_the_pieces_are_the_json_of_each_piece_position_after_position(variant: str) -> None:
    """``state.pieces``, put together from a text per piece and square, is what
    ``json.dumps`` writes of the pieces, position after position of a game."""
    rng = random.Random(3)
    board = Board(variant=variant)
    for _ in range(80):
        placement = board.placement
        expected = dumps(_pieces(tuple(placement), board.variant))
        assert _pieces_text(list(placement), board.variant) == expected
        codes = board.legal_move_codes()
        if not codes:
            break
        board.push_code(rng.choice(codes))
