"""Helpers for the web server tests: a scripted websocket player and game set-ups."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

from starlette.websockets import WebSocketDisconnect

from chuhan.board import Board
from chuhan.web.compute.service import AnalysisRequest, MoveRequest
from chuhan.web.db import GameRow
from chuhan.web.db.statements import Body, One

with warnings.catch_warnings():
    # Starlette's TestClient warns that it will move from httpx to httpx2.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


#: The lobby's own sweep (every 2 s by default, on the real clock: it forgets the seeks of
#: owners no process holds) a day apart: a test that writes seeks of absent owners, or
#: sweeps when it wants, is not raced by it.
QUIET_LOBBY: dict[str, Any] = {"lobby_sweep_seconds": 86400}

#: The ``make_client`` fixture (conftest.py): ``make_client(**settings)`` opens the app.
MakeClient = Callable[..., TestClient]


class FakeClock:
    """The server's wall clock, moved by hand."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class FakeSleep:
    """The pause between two tries of a mail or a push, handed to the app
    (``create_app(sleep=...)``, ``make_client(sleep=...)``) so that no test waits on the
    wall clock: each pause asked for is recorded (:attr:`pauses`, in seconds) and ends at
    once, or, while :meth:`hold` is in force, when the test calls :meth:`release`."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self._held = False
        self._waiting: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._asked = threading.Condition()

    async def __call__(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] | None = None
        with self._asked:
            self.pauses.append(seconds)
            if self._held:
                future = loop.create_future()
                self._waiting.append((loop, future))
            self._asked.notify_all()
        if future is not None:
            await future

    def hold(self) -> None:
        """The pauses from now on last until :meth:`release`."""
        with self._asked:
            self._held = True

    def release(self) -> None:
        """End the pauses held, and hold no more."""
        with self._asked:
            self._held = False
            waiting, self._waiting = self._waiting, []
        for loop, future in waiting:
            loop.call_soon_threadsafe(_resolve, future)

    def wait_for(self, count: int, timeout: float = 60) -> list[float]:
        """Wait until ``count`` pauses have been asked for (``timeout``: a bound on a
        hang); the pauses."""
        with self._asked:
            assert self._asked.wait_for(lambda: len(self.pauses) >= count, timeout), (
                f"{len(self.pauses)} pauses asked for in {timeout} s, not {count}"
            )
            return list(self.pauses)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class FakeEngine:
    """Plays the first legal move in ICCS order (or the next scripted move): the tests
    check the server's plumbing, not the engine's play."""

    def __init__(self) -> None:
        self.script: list[str] = []
        self.requests: list[MoveRequest] = []

    def available(self) -> bool:
        return True

    @staticmethod
    def _board(variant: str, fen: str, moves: tuple[str, ...]) -> Board:
        game, _, rules = variant.partition(":")
        board = Board(fen, variant=game, rules=rules)
        for move in moves:
            board.push_iccs(move)
        return board

    async def best_move(self, request: MoveRequest) -> str | None:
        self.requests.append(request)
        if self.script:
            return self.script.pop(0)
        board = self._board(request.variant, request.fen, request.moves)
        moves = sorted(m.iccs() for m in board.legal_moves if not m.is_pass())
        return moves[0] if moves else None

    async def analyse(
        self, request: AnalysisRequest, *, first: bool = False
    ) -> list[dict[str, Any]]:
        board = self._board(request.variant, request.fen, request.moves)
        moves = sorted(m.iccs() for m in board.legal_moves)[: request.multipv]
        return [
            {"multipv": i + 1, "depth": 1, "score_cp": 0, "mate": None, "pv": {"iccs": [m]}}
            for i, m in enumerate(moves)
        ]

    def close(self) -> None:
        pass


#: Players still connected: closed before their app shuts down (an open test websocket
#: would keep the app's event loop waiting).
OPEN_PLAYERS: list[Player] = []


class Player:
    """A scripted websocket client: numbered messages, and the last state it saw."""

    def __init__(self, client: TestClient, game_id: str, token: str | None) -> None:
        self._context = client.websocket_connect(f"/ws/{game_id}")
        self.ws = self._context.__enter__()
        OPEN_PLAYERS.append(self)
        self.seq = 0
        self.state: dict[str, Any] = {}
        self.seen: list[dict[str, Any]] = []
        self.token = token

    def hello(self, **fields: Any) -> dict[str, Any]:
        fields.setdefault("protocol", 2)  # move lists as changes (``moves_from``)
        self.send("hello", token=self.token, **fields)
        welcome = self.expect("welcome")
        self.expect("state")
        self.expect("chat_history")
        return welcome

    def send(self, kind: str, **fields: Any) -> int:
        self.seq += 1
        self.ws.send_text(json.dumps({"type": kind, "seq": self.seq, **fields}))
        return self.seq

    def act(self, kind: str, **fields: Any) -> int:
        """Send a game action carrying the version of the last state seen."""
        fields.setdefault("version", self.state["version"])
        return self.send(kind, **fields)

    def receive(self) -> dict[str, Any]:
        """The next message; a ``state`` becomes :attr:`state` (its move list completed
        from the entries kept, ``moves_from``) and a ``presence`` updates it."""
        message: dict[str, Any] = self.ws.receive_json()
        self.seen.append(message)
        if message["type"] == "state":
            start = message.pop("moves_from")  # how the list travels, not the game
            kept = self.state.get("moves", [])[:start]
            assert len(kept) == start, "a delta that does not fit"
            message["moves"] = kept + message["moves"]
            self.state = message
        elif message["type"] == "presence" and self.state:
            for seat, seen in message["players"].items():
                self.state["players"][seat]["connected"] = seen["connected"]
            self.state["watchers"] = message["watchers"]
        return message

    def expect(self, kind: str) -> dict[str, Any]:
        """Read until a message of this type (errors are returned if asked for, and
        raise otherwise)."""
        while True:
            message = self.receive()
            if message["type"] == kind:
                return message
            if message["type"] == "error":
                raise AssertionError(f"expected {kind}, got error {message}")

    def wait_state(self, predicate: Any) -> dict[str, Any]:
        """Read until the state (with the presence updates since) satisfies ``predicate``."""
        while True:
            message = self.receive()
            if message["type"] == "error":
                raise AssertionError(f"expected a state, got error {message}")
            if message["type"] in ("state", "presence") and predicate(self.state):
                return self.state

    def do(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a game action, check it is acknowledged, return the state that follows."""
        seq = self.act(kind, **fields)
        ack = self.expect("ack")
        assert ack["seq"] == seq
        return self.expect("state")

    def move(self, iccs: str) -> dict[str, Any]:
        """Play a move and return the state that follows it."""
        seq = self.act("move", **{"from": iccs[:2], "to": iccs[2:]})
        ack = self.expect("ack")
        assert ack["seq"] == seq
        return self.expect("state")

    def closed_code(self) -> int:
        """Read until the server closes the socket; return the close code."""
        try:
            while True:
                self.receive()
        except WebSocketDisconnect as closed:
            return closed.code

    def close(self) -> None:
        if self in OPEN_PLAYERS:
            OPEN_PLAYERS.remove(self)
            self._context.__exit__(None, None, None)


def create_game(client: TestClient, **fields: Any) -> dict[str, Any]:
    response = client.post("/api/games", json=fields)
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def token_of(url: str) -> str:
    return url.split("?t=", 1)[1]


def expect_error(player: Player, code: str) -> dict[str, Any]:
    """Read until an error; check its code."""
    while True:
        message = player.receive()
        if message["type"] == "error":
            assert message["code"] == code, message
            return message


#: A xiangqi game from the start that ends in checkmate on its 63rd ply (found by chuhan's
#: engine playing Red against random Black moves; the referee confirms the mate).
_MATE_TEXT = (
    "b0c2 h7d7 h2g2 b7b5 g2g6 d7d8 g6c6 h9i7 c6i6 b5f5 i6i9 f5d5 h0g2 b9c7 a0a1 d5b5 a1d1 "
    "i7h5 d1d8 a6a5 g3g4 b5c5 g4g5 c7b9 g5h5 c5c6 c2e1 c6d6 d8d6 e6e5 i9f9 b9c7 b2c2 c9e7 "
    "d6f6 c7e8 c2e2 e7c5 f6f8 c5e7 e2e5 a9a7 f9d9 a7a6 d9g9 a5a4 f8e8 e9f9 e8e9 f9f8 a3a4 "
    "a6c6 e9e7 c6c8 a4a5 c8c3 e5e6 c3c6 g2f4 c6d6 g9g3 d6a6 g3f3"
)
MATE_LINE = _MATE_TEXT.split()


def join_friend_game(client: TestClient, **fields: Any) -> tuple[dict[str, Any], Player, Player]:
    """Create a friend game; return it with both players connected and caught up."""
    game = create_game(client, kind="friend", **fields)
    first = Player(client, game["game_id"], game["token"])
    first.hello()
    second = Player(client, game["game_id"], token_of(game["invite_url"]))
    second.hello()
    first.wait_state(lambda s: s["players"]["second"]["connected"])
    return game, first, second


def _held(key: str) -> Body[int]:
    found = yield One("SELECT coalesce(sum(held), 0) AS held FROM holdings WHERE key = ?", (key,))
    return int(found["held"])


def wait_held(client: TestClient, key: str, count: int) -> None:
    """Wait until the store counts ``count`` connections held under ``key`` (a closed
    socket is given back once the server has seen it close), under a 60 s bound on a
    hang."""
    store = client.app.state.context.store  # type: ignore[attr-defined]
    deadline = time.monotonic() + 60
    while True:
        held: int = client.portal.call(store.read, _held(key), "counting")  # type: ignore[union-attr]
        if held == count:
            return
        assert time.monotonic() < deadline, f"{held} held under {key!r}, never {count}"
        time.sleep(0.01)


def stored_game(number: int, **changes: Any) -> GameRow:
    """A local xiangqi game's row numbered ``number`` (``game-0007``), with ``changes``,
    for the stores' own tests."""
    row = GameRow(
        id=f"game-{number:04d}",
        kind="local",
        variant="xiangqi",
        rules="asian",
        start_fen=None,
        time_control=None,
        level=None,
        computer_side=None,
        names={},
        created=1.8e9 + number,
        updated=1.8e9 + number,
        offers={"draw": None, "takeback": None, "rematch": None},
    )
    for name, value in changes.items():
        setattr(row, name, value)
    return row
