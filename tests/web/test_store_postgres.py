"""The PostgreSQL store against a real PostgreSQL: the same contract as the SQLite store
(round trips, revisions, conflicts, event numbers), what several processes need (races
won by exactly one, notices between stores, drivers taken over from dead servers) and the
faults (an unreachable database, connections killed while serving)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg  # type: ignore[import-untyped]
import pytest
from web_helpers import stored_game

from chuhan.web.db import (
    ChatLine,
    GameRow,
    GameUnreadable,
    Notice,
    StoreConflict,
    StoredEvent,
    StoreError,
)
from chuhan.web.db.migrations import SCHEMA_VERSION
from chuhan.web.db.postgres import PostgresStore
from chuhan.web.db.rows import noticed_change
from chuhan.web.server import free_port


def run(url: str, work: Callable[..., Awaitable[Any]], *, stores: int = 1, **options: Any) -> Any:
    """``work(*stores)`` on ``stores`` open stores of ``url``, closed afterwards."""

    async def main() -> Any:
        opened = [PostgresStore(url, **options) for _ in range(stores)]
        try:
            for store in opened:
                await store.open()
            return await work(*opened)
        finally:
            for store in opened:
                await store.close()

    return asyncio.run(main())


async def sql(url: str, query: str, *arguments: Any) -> list[Any]:
    """``query`` on a connection of its own (the test's look behind the store)."""
    connection = await asyncpg.connect(url)
    try:
        return list(await connection.fetch(query, *arguments))
    finally:
        await connection.close()


async def terminate(url: str, application: str) -> int:
    """Kill the server processes of the connections named ``application`` (as an operator
    or a crash would); how many."""
    found = await sql(
        url,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE application_name = $1 AND pid <> pg_backend_pid()",
        application,
    )
    return len(found)


async def until(condition: Callable[[], bool], seconds: float = 60.0) -> None:
    """Poll until ``condition`` holds (a bound on a hang only)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("the condition did not come true in time")
        await asyncio.sleep(0.01)


def full_row() -> GameRow:
    """A row with every field set to something other than its default."""
    return GameRow(
        id="full-1",
        kind="computer",
        variant="janggi",
        rules="korean",
        start_fen="rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1",
        time_control={"base": 300, "increment": 3},
        level=4,
        computer_side="second",
        names={"first": "한", "second": "楚 engine"},
        created=1_800_000_000.25,
        updated=1_800_000_123.5,
        version=7,
        status="setup",
        setup={"first": "마상마상"},
        setup_deadline=1_800_000_200.75,
        moves=["h2e2", "h9g7"],
        clock={"first": 12.5, "second": 30.0, "running": "first"},
        clock_at=1_800_000_123.0,
        offers={"draw": "first", "takeback": None, "rematch": None},
        ending={"reason": "none"},
        result={"winner": None},
        headers={"Event": "Test", "Site": "here"},
        rematch={"game_id": "full-2"},
    )


# ------------------------------------------------------------------------- round trips


def test_create_and_load_round_trip_every_field(postgres_url: str) -> None:
    async def work(store: PostgresStore) -> None:
        row = full_row()
        await store.create_game(row, {"tok-a": "first", "tok-b": "second"}, event="import")
        assert row.revision == 1
        loaded = await store.load_game(row.id)
        assert loaded == row
        assert await store.load_game("nothing") is None
        assert await store.seat("tok-a") == (row.id, "first")
        assert await store.seat("tok-zz") is None
        assert await store.seats_of(row.id) == {"first": "tok-a", "second": "tok-b"}
        assert await store.events(row.id) == [StoredEvent(7, row.updated, "import", {})]
        assert await store.unfinished_game_ids() == [row.id]
        other = stored_game(2, updated=1_900_000_000.0, status="over")
        await store.create_game(other, {"tok-c": "both"})
        assert await store.unfinished_game_ids() == [row.id]
        listed = await store.games_for_tokens(["tok-a", "tok-c", "tok-unknown", "tok-a"])
        assert [(t, s, g.id) for t, s, g in listed] == [
            ("tok-c", "both", other.id),
            ("tok-a", "first", row.id),
        ]
        assert listed[1][2] == row
        assert await store.games_for_tokens([]) == []
        line = ChatLine(1_800_000_001.5, "first", "한", "안녕 — hello")
        await store.add_chat(row.id, line)
        await store.add_chat(row.id, line._replace(text="second"))
        await store.add_chat(row.id, line._replace(text="third"))
        history = await store.chat_history(row.id, limit=2)
        assert [c.text for c in history] == ["second", "third"]
        assert (await store.chat_history(row.id))[0] == line

    run(postgres_url, work)


def test_save_game_moves_the_revision_and_numbers_the_events(postgres_url: str) -> None:
    async def work(store: PostgresStore) -> None:
        row = stored_game(1)
        await store.create_game(row, {"t": "both"})
        for ply, move in enumerate(("h2e2", "h9g7", "h0g2"), start=2):
            row.moves.append(move)
            row.version = ply
            row.updated += 1
            row.names = {"first": f"after {move}"}
            await store.save_game(row, "move", {"move": move})
            assert row.revision == ply
        assert await store.load_game(row.id) == row
        found = await sql(
            store.url,
            "SELECT number, version, kind, data FROM events WHERE game_id = $1 ORDER BY number",
            row.id,
        )
        assert [tuple(r) for r in found] == [
            (1, 1, "create", "{}"),
            (2, 2, "move", '{"move": "h2e2"}'),
            (3, 3, "move", '{"move": "h9g7"}'),
            (4, 4, "move", '{"move": "h0g2"}'),
        ]

    run(postgres_url, work)


def test_a_stale_revision_is_refused_and_writes_nothing(postgres_url: str) -> None:
    async def work(store: PostgresStore) -> None:
        row = stored_game(1)
        await store.create_game(row, {"t": "both"})
        stale = stored_game(1)
        stale.revision = 1
        row.moves.append("h2e2")
        row.version = 2
        await store.save_game(row, "move", {"move": "h2e2"})
        stale.moves.append("b2e2")
        stale.version = 2
        with pytest.raises(StoreConflict) as refused:
            await store.save_game(stale, "move", {"move": "b2e2"})
        assert refused.value.revision == 1 and refused.value.game_id == row.id
        assert stale.revision == 1
        assert await store.load_game(row.id) == row
        assert [e.data for e in await store.events(row.id)] == [{}, {"move": "h2e2"}]
        ghost = stored_game(99)
        ghost.revision = 1
        with pytest.raises(StoreError, match="not where it was stored") as missing:
            await store.save_game(ghost, "move", {})
        assert not isinstance(missing.value, StoreConflict)

    run(postgres_url, work)


def test_saves_made_together_are_batched_and_each_gets_its_own_outcome(
    postgres_url: str,
) -> None:
    """Saves arriving together go in few statements, yet each game gets its own answer: a
    stale revision or a missing game refuses that save only, and an event number taken
    behind the store's back (which fails the whole statement) costs only its own game."""

    async def work(store: PostgresStore) -> None:
        rows = [stored_game(number) for number in range(300)]
        await asyncio.gather(*(store.create_game(row, {f"t{row.id}": "both"}) for row in rows))
        await sql(
            store.url,
            "INSERT INTO events (game_id, number, version, at, kind, data) "
            "VALUES ($1, 2, 2, 0, 'move', '{}')",
            rows[7].id,
        )
        stale = stored_game(3, revision=0, version=2)
        ghost = stored_game(999, revision=1, version=2)
        for row in rows:
            row.moves.append("h2e2")
            row.version = 2
        outcomes = await asyncio.gather(
            *(store.save_game(row, "move", {"move": "h2e2"}) for row in rows),
            store.save_game(stale, "move", {"move": "b2e2"}),
            store.save_game(ghost, "move", {}),
            return_exceptions=True,
        )
        # (the rows one transaction inserted share its id, xmin: one per batch)
        found = await sql(
            store.url, "SELECT count(DISTINCT xmin::text) FROM events WHERE number = 2"
        )
        assert found[0][0] < 40, found  # (300 saves)
        for number, outcome in enumerate(outcomes[:300]):
            if number == 7:
                assert isinstance(outcome, StoreConflict)
                assert rows[7].revision == 1
            else:
                assert outcome is None, (number, outcome)
                assert rows[number].revision == 2
        assert isinstance(outcomes[300], StoreConflict) and stale.revision == 0
        assert isinstance(outcomes[301], StoreError)
        assert not isinstance(outcomes[301], StoreConflict)
        assert "not where it was stored" in str(outcomes[301])
        for row in (rows[0], rows[3], rows[299]):
            assert await store.load_game(row.id) == row
        assert [e.data for e in await store.events(rows[3].id)] == [{}, {"move": "h2e2"}]
        assert (await store.load_game(rows[7].id) or pytest.fail()).revision == 1

    run(postgres_url, work)


def test_a_store_closing_first_writes_and_announces_the_saves_waiting(
    postgres_url: str,
) -> None:
    async def work(one: PostgresStore, two: PostgresStore) -> None:
        heard: list[Notice] = []
        await two.listen(heard.append)
        rows = [stored_game(number) for number in range(300)]
        await asyncio.gather(*(one.create_game(row, {f"t{row.id}": "both"}) for row in rows))
        for row in rows:
            row.moves.append("h2e2")
            row.version = 2
        saves = [asyncio.ensure_future(one.save_game(r, "move", {"move": "h2e2"})) for r in rows]
        await asyncio.sleep(0)  # (all asked for, most of them waiting for a batch)
        await one.close()
        assert await asyncio.gather(*saves, return_exceptions=True) == [None] * len(rows)
        await until(lambda: sum(n.data.get("revision") == 2 for n in heard) == len(rows))
        stored = await two.newer_revisions({row.id: 1 for row in rows})
        assert stored == {row.id: 2 for row in rows}

    run(postgres_url, work, stores=2)


def test_batches_racing_over_the_same_games_never_deadlock(postgres_url: str) -> None:
    """Two processes' batches that write the same games (a race on each, in different
    orders), with takeovers sweeping the games at the same time: every game has exactly
    one winner a round, and no batch fails (PostgreSQL would end a deadlock by failing one
    of its statements, which would refuse every save in that batch)."""

    async def work(one: PostgresStore, two: PostgresStore, dead: PostgresStore) -> None:
        rows = [stored_game(number) for number in range(600)]
        await asyncio.gather(*(dead.create_game(row, {f"t{row.id}": "both"}) for row in rows))
        await sql(dead.url, "UPDATE servers SET heartbeat = heartbeat - interval '1 hour'")
        shuffler = random.Random(5)
        for number in range(8):
            writes = []
            for store in (one, two):
                order = rows[:]
                shuffler.shuffle(order)
                for row in order:
                    copy = stored_game(int(row.id.split("-")[-1]), revision=row.revision)
                    copy.version = row.revision + 1
                    copy.moves = [f"r{number}"]
                    writes.append((copy, store.save_game(copy, "move", {"round": number})))
            beats = [one.beat(3.0), two.beat(3.0)] if number % 2 == 0 else []
            outcomes = await asyncio.gather(*(w for _, w in writes), *beats, return_exceptions=True)
            failures = [o for o in outcomes if isinstance(o, BaseException)]
            assert all(isinstance(o, StoreConflict) for o in failures), failures[:3]
            won = {copy.id for (copy, _), o in zip(writes, outcomes, strict=False) if o is None}
            assert won == {row.id for row in rows}
            assert len(failures) == len(rows)
            rows = [
                next(
                    c
                    for (c, _), o in zip(writes, outcomes, strict=False)
                    if c.id == r.id and o is None
                )
                for r in rows
            ]

    run(postgres_url, work, stores=3)


def test_two_stores_racing_for_one_revision_exactly_one_wins(postgres_url: str) -> None:
    rounds, writers = 25, 8

    async def work(one: PostgresStore, two: PostgresStore) -> None:
        row = stored_game(1)
        await one.create_game(row, {"t": "both"})
        for number in range(rounds):
            made_on = row.revision
            copies = []
            for writer in range(writers):
                copy = stored_game(1, revision=made_on, version=made_on + 1)
                copy.moves = [f"w{writer}r{number}"]
                copies.append(copy)
            outcomes = await asyncio.gather(
                *(
                    (one if n % 2 else two).save_game(copy, "move", {"writer": n})
                    for n, copy in enumerate(copies)
                ),
                return_exceptions=True,
            )
            won = [n for n, outcome in enumerate(outcomes) if outcome is None]
            assert len(won) == 1, outcomes
            lost = [o for o in outcomes if o is not None]
            assert all(isinstance(o, StoreConflict) for o in lost), lost
            winner = copies[won[0]]
            assert winner.revision == made_on + 1
            assert all(c.revision == made_on for n, c in enumerate(copies) if n != won[0])
            stored = await two.load_game(row.id)
            assert stored is not None and stored.moves == winner.moves
            row = winner
        events = await one.events(row.id)
        assert len(events) == rounds + 1

    run(postgres_url, work, stores=2)


def test_game_since_returns_the_row_and_the_later_events(postgres_url: str) -> None:
    async def work(store: PostgresStore) -> None:
        row = stored_game(1)
        await store.create_game(row, {"t": "both"})
        for ply, move in enumerate(("h2e2", "h9g7", "h0g2"), start=2):
            row.moves.append(move)
            row.version = ply
            await store.save_game(row, "move", {"move": move})
        found = await store.game_since(row.id, 2)
        assert found is not None
        stored, later = found
        assert stored == row and stored.revision == 4
        assert [(e.version, e.data) for e in later] == [
            (3, {"move": "h9g7"}),
            (4, {"move": "h0g2"}),
        ]
        assert (await store.game_since(row.id, 4)) == (row, [])
        everything = await store.game_since(row.id, 0)
        assert everything is not None and everything[1] == await store.events(row.id)
        assert await store.game_since("nothing", 0) is None

    run(postgres_url, work)


def test_malformed_stored_values_make_the_game_unreadable(postgres_url: str) -> None:
    async def work(store: PostgresStore) -> None:
        await store.create_game(stored_game(1), {"t1": "both"})
        await store.create_game(stored_game(2), {"t2": "both"})
        await sql(store.url, "UPDATE games SET clock = '{not json' WHERE id = 'game-0001'")
        await sql(store.url, "UPDATE events SET data = '[1]' WHERE game_id = 'game-0002'")
        with pytest.raises(GameUnreadable):
            await store.load_game("game-0001")
        with pytest.raises(GameUnreadable):
            await store.events("game-0002")
        with pytest.raises(GameUnreadable):
            await store.game_since("game-0002", 0)
        listed = await store.games_for_tokens(["t1", "t2"])
        assert [g.id for _, _, g in listed] == ["game-0002"]

    run(postgres_url, work)


# ------------------------------------------------------------------------- notices


def test_notices_reach_the_other_stores_not_the_sender(postgres_url: str) -> None:
    async def work(one: PostgresStore, two: PostgresStore) -> None:
        heard_one: list[Notice] = []
        heard_two: list[Notice] = []
        await one.listen(heard_one.append)
        await two.listen(heard_two.append)
        row = stored_game(1)
        await one.create_game(row, {"t": "both"})
        row.moves.append("h2e2")
        row.version = 2
        await one.save_game(row, "move", {"move": "h2e2"})
        line = ChatLine(1_800_000_001.5, "first", "한", "안녕")
        await one.add_chat(row.id, line)
        await two.notify(row.id, "presence", {"roles": {"first": 1}})
        await until(lambda: len(heard_two) == 3 and len(heard_one) == 1)
        assert [(n.kind, n.game_id, n.origin, n.data.get("revision")) for n in heard_two] == [
            ("game", row.id, one.server_id, 1),
            ("game", row.id, one.server_id, 2),
            ("chat", row.id, one.server_id, None),
        ]
        assert heard_two[2].data == {"line": list(line)}
        assert heard_one == [Notice("presence", row.id, two.server_id, {"roles": {"first": 1}})]
        # A refused write announces nothing; a chat line too long for a notice goes
        # without its line (receivers reload the chat).
        stale = stored_game(1, revision=1)
        with pytest.raises(StoreConflict):
            await one.save_game(stale, "move", {})
        await one.add_chat(row.id, line._replace(text="말" * 3000))
        await until(lambda: len(heard_two) == 4)
        assert heard_two[3] == Notice("chat", row.id, one.server_id, {})
        assert (await two.chat_history(row.id))[-1].text == "말" * 3000
        await asyncio.sleep(0.2)
        assert len(heard_two) == 4 and len(heard_one) == 1

    run(postgres_url, work, stores=2)


def test_a_game_notice_carries_the_write_as_the_store_has_it(postgres_url: str) -> None:
    """The process that hears a write applies it from the notice instead of reading the
    game: what the notice gives must be what the store holds, event by event, whatever the
    event (moves, a takeback, offers, names, a result); a write too large for a notice goes
    with its revision only, and the hearer reads the store."""

    async def work(one: PostgresStore, two: PostgresStore) -> None:
        heard: list[Notice] = []
        await two.listen(heard.append)
        row = stored_game(1)
        row.time_control = {"base": 60, "increment": 1}
        await one.create_game(row, {"t": "both"})
        before = (await two.game_since(row.id, 0) or pytest.fail("no game"))[0]
        steps: list[tuple[str, dict[str, Any], Callable[[GameRow], object]]] = [
            ("move", {"move": "h2e2"}, lambda r: r.moves.append("h2e2")),
            ("move", {"move": "h9g7"}, lambda r: r.moves.append("h9g7")),
            ("draw_offer", {"side": "first"}, lambda r: r.offers.update(draw="first")),
            ("takeback", {"side": "second"}, lambda r: r.moves.pop()),
            ("name", {"side": "second", "name": "乙"}, lambda r: r.names.update(second="乙")),
            ("setup_timer", {"side": "first"}, lambda r: setattr(r, "setup_deadline", 9.5)),
            ("resign", {"side": "first"}, lambda r: setattr(r, "result", {"winner": "second"})),
        ]
        for number, (event, data, change) in enumerate(steps, start=2):
            change(row)
            row.version += event not in ("name", "setup_timer")
            row.updated += 1.25
            row.clock = {"first": 50.0 - number, "second": 60.0, "running": "second"}
            row.status = "over" if event == "resign" else "playing"
            await one.save_game(row, event, data)

            def told(n: int = number) -> bool:
                return any(x.data.get("revision") == n for x in heard)

            await until(told)
            notice = heard[-1]
            stored = await two.game_since(row.id, number - 1)
            assert stored is not None
            assert noticed_change(notice, before) == (stored[0], stored[1][0]), event
            assert stored[0] == row
            before = stored[0]
        # Too long for a notice: only the revision, and noticed_change says to read.
        row.headers = {"Event": "棋" * 4000}
        await one.save_game(row, "name", {"side": "first", "name": "甲"})
        await until(lambda: heard[-1].data.get("revision") == len(steps) + 2)
        assert heard[-1].data == {"revision": len(steps) + 2}
        assert noticed_change(heard[-1], before) is None
        # A notice that is not the next revision is not applied either.
        assert noticed_change(heard[-1], row) is None

    run(postgres_url, work, stores=2)


def test_notices_of_many_writes_at_once_arrive_in_order_in_batches(postgres_url: str) -> None:
    async def work(one: PostgresStore, two: PostgresStore) -> None:
        heard: list[Notice] = []
        await two.listen(heard.append)
        rows = [stored_game(number) for number in range(40)]
        await asyncio.gather(*(one.create_game(row, {f"t{row.id}": "both"}) for row in rows))
        for row in rows:
            row.moves.append("h2e2")
            row.version = 2
        await asyncio.gather(*(one.save_game(row, "move", {"move": "h2e2"}) for row in rows))
        texts = [f"line {n} " + "字" * 400 for n in range(60)]  # (~1.2 KB each: many payloads)
        for text in texts:
            await one.add_chat(rows[0].id, ChatLine(1.8e9, "first", "A", text))
        await until(lambda: len(heard) == 40 + 40 + 60)
        games = [n for n in heard if n.kind == "game"]
        assert sorted((n.game_id, n.data["revision"]) for n in games) == sorted(
            [(row.id, 1) for row in rows] + [(row.id, 2) for row in rows]
        )
        for row in rows:  # each game's notices in the order of its writes
            assert [n.data["revision"] for n in games if n.game_id == row.id] == [1, 2]
        assert [n.data["line"][3] for n in heard if n.kind == "chat"] == texts

    run(postgres_url, work, stores=2)


def test_a_lost_listening_connection_comes_back_with_a_resync(postgres_url: str) -> None:
    async def work(one: PostgresStore, two: PostgresStore) -> None:
        heard: list[Notice] = []
        await two.listen(heard.append)
        assert await terminate(postgres_url, f"chuhan-listen {two.server_id}") == 1
        await until(lambda: bool(heard))
        assert heard == [Notice("resync", "", two.server_id, {})]
        await one.notify("g", "presence", {"roles": {}})
        await until(lambda: len(heard) == 2)
        assert heard[1] == Notice("presence", "g", one.server_id, {"roles": {}})

    run(postgres_url, work, stores=2)


# ------------------------------------------------------------------------- drivers


#: The silence after which a server counts as dead in the beat test: the time between
#: live's beat and the survivor's (two queries) must stay under it, on a loaded machine.
TAKEOVER = 3.0


def test_beat_takes_over_the_games_of_dead_servers_only(postgres_url: str) -> None:
    async def work(live: PostgresStore, dead: PostgresStore, survivor: PostgresStore) -> None:
        await live.create_game(stored_game(1), {"t1": "both"})
        await dead.create_game(stored_game(2), {"t2": "both"})
        await dead.create_game(stored_game(3, status="over"), {"t3": "both"})
        await dead.create_game(stored_game(4, kind="imported"), {"t4": "both"})
        await survivor.create_game(stored_game(5), {"t5": "both"})
        # A beat with a takeover time of a minute takes nothing from anyone here, on a
        # loaded machine too; a dead server is one silent for longer than TAKEOVER.
        assert await live.beat(60.0) == {"game-0001"}
        await sql(postgres_url, "UPDATE games SET driver = NULL WHERE id = 'game-0005'")
        # Nobody has missed a beat yet: the survivor takes only the game without a driver.
        assert await survivor.beat(60.0) == {"game-0005"}
        await asyncio.sleep(TAKEOVER + 0.5)  # at least that long: dead is silent past it
        assert await live.beat(60.0) == {"game-0001"}  # live is not (it beat just now)
        assert await survivor.beat(TAKEOVER) == {"game-0002", "game-0005"}
        assert await dead.beat(60.0) == set()  # it came back: its game is gone
        assert await live.beat(60.0) == {"game-0001"}
        # A driver whose server row is gone (deleted by hand) loses its games at once.
        await sql(postgres_url, "DELETE FROM servers WHERE id = $1", live.server_id)
        assert await survivor.beat(60.0) == {"game-0001", "game-0002", "game-0005"}

    run(postgres_url, work, stores=3)


def test_concurrent_survivors_each_game_gets_exactly_one_driver(postgres_url: str) -> None:
    games = 60

    async def work(dead: PostgresStore, *survivors: PostgresStore) -> None:
        for number in range(games):
            await dead.create_game(stored_game(number), {f"t{number}": "both"})
        await sql(
            postgres_url,
            "UPDATE servers SET heartbeat = clock_timestamp() - interval '1 hour' WHERE id = $1",
            dead.server_id,
        )
        for _ in range(3):
            claims = await asyncio.gather(*(s.beat(5.0) for s in survivors))
            assert sum(len(c) for c in claims) == games
            assert set().union(*claims) == {f"game-{n:04d}" for n in range(games)}
            for one in range(len(claims)):
                for two in range(one + 1, len(claims)):
                    assert not claims[one] & claims[two]
        drivers = await sql(postgres_url, "SELECT DISTINCT driver FROM games")
        assert {r["driver"] for r in drivers} <= {s.server_id for s in survivors}

    run(postgres_url, work, stores=4)


def test_a_closed_store_hands_its_games_over(postgres_url: str) -> None:
    async def work() -> None:
        leaving = PostgresStore(postgres_url)
        staying = PostgresStore(postgres_url)
        await leaving.open()
        await staying.open()
        try:
            await leaving.create_game(stored_game(1), {"t": "both"})
            await leaving.close()
            await leaving.close()  # safe twice
            assert await staying.beat(600.0) == {"game-0001"}
        finally:
            await staying.close()

    asyncio.run(work())


# ------------------------------------------------------------------------- faults


def test_an_unreachable_database_is_named_without_its_password(postgres_url: str) -> None:
    async def opening(url: str) -> str:
        store = PostgresStore(url)
        with pytest.raises(StoreError) as refused:
            await store.open()
        await store.close()
        return str(refused.value)

    port = free_port()
    message = asyncio.run(opening(f"postgresql://chuhan:s3cret-pw@127.0.0.1:{port}/games"))
    assert f"postgresql://chuhan@127.0.0.1:{port}/games" in message
    assert "s3cret-pw" not in message
    assert "refused" in message

    parts = urlsplit(postgres_url)
    missing = urlunsplit((parts.scheme, parts.netloc, "/no_such_db", "", ""))
    message = asyncio.run(opening(missing))
    assert "no_such_db" in message and "no such database" in message


def test_schema_migrations_are_recorded_and_a_newer_schema_is_refused(postgres_url: str) -> None:
    async def work() -> None:
        # Several processes starting at once: one migrates, the others find it done.
        stores = [PostgresStore(postgres_url) for _ in range(4)]
        await asyncio.gather(*(s.open() for s in stores))
        for store in stores:
            await store.close()
        found = await sql(postgres_url, "SELECT value FROM meta WHERE key = 'schema'")
        assert [r["value"] for r in found] == [str(SCHEMA_VERSION)]
        await sql(
            postgres_url, "UPDATE meta SET value = $1 WHERE key = 'schema'", str(SCHEMA_VERSION + 1)
        )
        newer = PostgresStore(postgres_url)
        with pytest.raises(StoreError, match="newer chuhan"):
            await newer.open()

    asyncio.run(work())


def test_a_database_with_other_tables_is_refused(postgres_url: str) -> None:
    async def work() -> None:
        await sql(postgres_url, "CREATE TABLE invoices (id int)")
        with pytest.raises(StoreError, match=r"not a chuhan game database.*invoices"):
            await PostgresStore(postgres_url).open()

    asyncio.run(work())


def test_connections_killed_while_serving_give_store_errors_then_recover(
    postgres_url: str,
) -> None:
    async def work(store: PostgresStore) -> None:
        row = stored_game(1)
        await store.create_game(row, {"t": "both"})
        for attempt in range(3):
            await terminate(postgres_url, f"chuhan {store.server_id}")
            row.moves.append(f"m{attempt}")
            row.version += 1
            try:
                await store.save_game(row, "move", {"n": attempt})
            except StoreConflict:  # (cannot happen: one writer)
                raise
            except StoreError as error:
                assert "connection" in str(error), error
                assert store.shown in str(error)
                stored = await store.load_game(row.id)  # a write not acknowledged...
                assert stored is not None
                if stored.revision == row.revision + 1:  # ...may still have committed
                    row.revision += 1
            # Reads meet the dead connections and are tried again on fresh ones.
            await terminate(postgres_url, f"chuhan {store.server_id}")
            assert (await store.load_game(row.id)) is not None
            await store.save_game(row, "move", {"n": attempt, "again": True})
        stored = await store.load_game(row.id)
        assert stored == row

    run(postgres_url, work)


def test_a_write_whose_connection_dies_under_it_is_refused_not_acknowledged(
    postgres_url: str,
) -> None:
    async def work(store: PostgresStore) -> None:
        row = stored_game(1)
        await store.create_game(row, {"t": "both"})
        blocker = await asyncpg.connect(postgres_url)
        try:
            # Hold the game's row so the write waits in the database, then kill the
            # server process it waits in.
            locked = blocker.transaction()
            await locked.start()
            await blocker.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", row.id)
            row.moves.append("h2e2")
            row.version = 2
            saving = asyncio.ensure_future(store.save_game(row, "move", {"move": "h2e2"}))
            waiting = (
                "SELECT pid FROM pg_stat_activity "
                "WHERE application_name = $1 AND wait_event_type = 'Lock'"
            )
            name = f"chuhan {store.server_id}"
            for _ in range(500):
                if await blocker.fetch(waiting, name):
                    break
                await asyncio.sleep(0.01)
            (waiter,) = await blocker.fetch(waiting, name)
            await blocker.execute("SELECT pg_terminate_backend($1)", waiter["pid"])
            with pytest.raises(StoreError, match="connection to the database was lost") as lost:
                await saving
            assert not isinstance(lost.value, StoreConflict)
            assert row.revision == 1
            await locked.rollback()
        finally:
            await blocker.close()
        stored = await store.load_game(row.id)
        assert stored is not None and stored.revision == 1 and stored.moves == []
        await store.save_game(row, "move", {"move": "h2e2"})
        assert row.revision == 2 and await store.load_game(row.id) == row

    run(postgres_url, work)


def test_a_database_that_goes_away_fails_fast_and_is_used_again_when_back(
    postgres_url: str,
) -> None:
    """The whole database disappears (every connection refused) and comes back."""

    async def work(store: PostgresStore) -> None:
        row = stored_game(1)
        await store.create_game(row, {"t": "both"})
        name = urlsplit(postgres_url).path.lstrip("/")
        admin = urlunsplit((*urlsplit(postgres_url)[:2], "/postgres", "", ""))
        await sql(admin, f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        await terminate(admin, f"chuhan {store.server_id}")
        started = time.monotonic()
        with pytest.raises(StoreError) as failed:
            await store.load_game(row.id)
        assert time.monotonic() - started < 120  # a bound on a hang only
        assert store.shown in str(failed.value)
        await sql(admin, f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        row.moves.append("h2e2")
        row.version = 2
        await store.save_game(row, "move", {})
        assert await store.load_game(row.id) == row

    run(postgres_url, work)


_KILLED_SERVER = """
import asyncio, sys, time
from chuhan.web.db.postgres import PostgresStore
from chuhan.web.db.rows import noticed_change
from chuhan.web.db import GameRow

async def main():
    store = PostgresStore(sys.argv[1])
    await store.open()
    row = GameRow(id="game-0001", kind="local", variant="xiangqi", rules="asian",
                  start_fen=None, time_control=None, level=None, computer_side=None,
                  names={}, created=1.8e9, updated=1.8e9,
                  offers={"draw": None, "takeback": None, "rematch": None})
    await store.create_game(row, {"t1": "both"})
    await store.beat(60.0)
    print(store.server_id, flush=True)
    await asyncio.sleep(120)

asyncio.run(main())
"""


def test_a_killed_server_is_dead_after_one_missed_beat_not_the_whole_takeover_time(
    postgres_url: str,
) -> None:
    import os
    import signal
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-c", _KILLED_SERVER, postgres_url], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        killed_id = process.stdout.readline().strip()
        assert killed_id

        async def work(survivor: PostgresStore) -> None:
            # Alive and beating: its game is its own, whatever the takeover time.
            assert await survivor.beat(60.0) == set()
            assert await survivor.live_servers(60.0) == {killed_id, survivor.server_id}
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=60)
            # Though the takeover time (60 s) is far off, it has no session left: dead
            # once its connections are closed with it (polled, not slept for).
            deadline = time.monotonic() + 60  # a bound on a hang only
            while await survivor.live_servers(60.0) != {survivor.server_id}:
                assert time.monotonic() < deadline, "the killed server still counts as live"
                await asyncio.sleep(0.05)
            assert await survivor.beat(60.0) == {"game-0001"}

        run(postgres_url, work)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=60)
        if process.stdout is not None:
            process.stdout.close()
