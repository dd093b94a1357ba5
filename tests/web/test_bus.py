"""One bus for this process's events and the other processes' notices."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from chuhan.web.bus import Bus, GameFinished, StateChanged
from chuhan.web.db import Notice


class FakeStore:
    """What the bus asks of a store: listen and notify."""

    def __init__(self) -> None:
        self.handler: Callable[[Notice], None] | None = None
        self.sent: list[tuple[str, str, dict[str, Any]]] = []

    async def listen(self, handler: Callable[[Notice], None]) -> None:
        self.handler = handler

    async def notify(self, game_id: str, kind: str, data: dict[str, Any]) -> None:
        self.sent.append((game_id, kind, data))


def test_a_notice_another_process_sent_reaches_the_subscribers_of_notices_only() -> None:
    store = FakeStore()
    bus = Bus(store)  # type: ignore[arg-type]
    notices: list[Notice] = []
    changes: list[StateChanged] = []
    bus.subscribe(Notice, notices.append)
    bus.subscribe(StateChanged, changes.append)
    asyncio.run(bus.hear_other_processes())
    assert store.handler is not None
    heard = Notice("presence", "g1", "other", {"roles": {"first": 1}})
    store.handler(heard)
    bus.publish(StateChanged("g1", 3, "move"))
    assert notices == [heard] and changes == [StateChanged("g1", 3, "move")]


def test_a_notice_is_sent_through_the_store_and_nowhere_without_one() -> None:
    store = FakeStore()
    asyncio.run(Bus(store).notify("g1", "presence", {"roles": {}}))  # type: ignore[arg-type]
    assert store.sent == [("g1", "presence", {"roles": {}})]
    asyncio.run(Bus().notify("g1", "presence", {"roles": {}}))  # (alone: nobody to tell)


def test_a_failing_subscriber_does_not_stop_the_others() -> None:
    bus = Bus()
    finished: list[GameFinished] = []

    def broken(event: GameFinished) -> None:
        raise RuntimeError("broken")

    bus.subscribe(GameFinished, broken)
    bus.subscribe(GameFinished, finished.append)
    event = GameFinished("g1", "xiangqi", "friend", {"winner": "first"})
    bus.publish(event)
    assert finished == [event]
