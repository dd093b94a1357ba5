"""A game's write stores the row computed from its state: all of it, or (``changed``) only
the columns its event may change, leaving the others as they are stored."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from test_round_rules import T0, decided, new_round, opening

from chuhan.web.db import GameRow
from chuhan.web.db.rows import event_text
from chuhan.web.db.sqlite import SqliteStore
from chuhan.web.round.state import (
    ROW_CHANGES,
    Event,
    RoundState,
    evolve,
    offer_stands,
    row_changes,
    row_of,
)


def test_a_write_told_what_changed_leaves_the_rest_as_stored(tmp_path: Path) -> None:
    async def run() -> tuple[GameRow | None, GameRow | None]:
        store = SqliteStore(tmp_path / "games.sqlite3")
        await store.open()
        try:
            row = row_of(opening(new_round(minutes=5)))
            await store.create_game(row, {"token": "both"})
            row.names = {"first": "Ann"}
            row.moves = [*row.moves, "a0a1"]
            await store.save_game(row, "move", {"move": "a0a1"}, changed=ROW_CHANGES["move"])
            partly = await store.load_game(row.id)
            row.moves = [*row.moves, "a9a8"]
            await store.save_game(row, "move", {"move": "a9a8"})
            return partly, await store.load_game(row.id)
        finally:
            await store.close()

    partly, whole = asyncio.run(run())
    assert partly is not None and whole is not None
    assert partly.moves == ["h2e2", "h9g7", "a0a1"] and partly.names == {}
    assert whole.moves == ["h2e2", "h9g7", "a0a1", "a9a8"] and whole.names == {"first": "Ann"}


def played_events() -> list[tuple[str, RoundState, list[Event]]]:
    """Games each given as a start and the events that follow, through names, offers that
    lapse or are answered, takebacks, endings, janggi setups and passes."""
    games = []
    state = new_round(minutes=5)
    events = [Event("name", {"seat": "first", "name": "Ann"}, T0)]
    for role, kind, fields in [
        ("first", "move", {"from": "h2", "to": "e2"}),
        ("first", "draw_offer", {}),
        ("second", "move", {"from": "h9", "to": "g7"}),
        ("first", "move", {"from": "h0", "to": "g2"}),
        ("second", "draw_offer", {}),
        ("second", "move", {"from": "i9", "to": "h9"}),
        ("first", "move", {"from": "i0", "to": "h0"}),
        ("first", "takeback_request", {}),
        ("second", "takeback_accept", {}),
        ("first", "move", {"from": "i0", "to": "i1"}),
        ("second", "takeback_request", {}),
        ("first", "takeback_decline", {}),
        ("second", "move", {"from": "a9", "to": "a8"}),
        ("second", "resign", {}),
        ("second", "rematch", {}),
    ]:
        events += decided_on(state, events, role, kind, fields)
    games.append(("xiangqi", new_round(minutes=5), events))
    janggi = new_round(variant="janggi", minutes=5)
    events = []
    for role, kind, fields in [
        ("second", "setup", {"arrangement": "마상상마"}),
        ("first", "setup", {"arrangement": "상마상마"}),
        ("first", "pass", {}),
        ("second", "abort", {}),
    ]:
        events += decided_on(janggi, events, role, kind, fields)
    games.append(("janggi", new_round(variant="janggi", minutes=5), events))
    return games


def decided_on(
    start: RoundState, events: list[Event], role: str, kind: str, fields: Mapping[str, object]
) -> list[Event]:
    """The events ``role``'s command makes after ``events`` (replayed on a new game like
    ``start``: a state is used once)."""
    state = new_round(variant=start.variant.game, minutes=5)
    for event in events:
        state = evolve(state, event)
    at = T0 + len(events) + 1
    return [event._replace(at=at) for event in decided(state, role, kind, at, **fields)]


def test_a_game_written_event_by_event_is_stored_as_its_state(tmp_path: Path) -> None:
    async def run() -> None:
        store = SqliteStore(tmp_path / "games.sqlite3")
        await store.open()
        try:
            for name, state, events in played_events():
                row = dataclasses.replace(row_of(state), id=name)
                state = state.replace(id=name)
                await store.create_game(row, {f"token-{name}": "both"})
                state = state.replace(revision=row.revision)
                kinds = set()
                for event in events:
                    offered = offer_stands(state)
                    state = evolve(state, event)
                    row = row_of(state)
                    changed = row_changes(event.kind, offered, state)
                    await store.save_game(row, event.kind, event.data, changed=changed)
                    state = state.replace(revision=row.revision)
                    assert await store.load_game(name) == row_of(state), (name, event)
                    kinds.add(event.kind)
                assert "move" in kinds and len(kinds) >= 3
        finally:
            await store.close()

    asyncio.run(run())


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("move", {"move": "h2e2"}),
        ("move", {"move": "h2e2", "computer": True}),
        ("move", {"move": 'a"\\甲'}),
        ("move", {"move": 12}),
        ("resign", {"side": "first"}),
        ("setup", {"side": "second", "arrangement": "마상상마"}),
    ],
)
def test_an_events_data_is_stored_as_the_json_encoder_writes_it(
    kind: str, data: dict[str, Any]
) -> None:
    assert event_text(kind, data) == json.dumps(data, ensure_ascii=False)
