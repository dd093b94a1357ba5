"""What the analysis sockets of one server share (:class:`AnalysisService`): the engine's
thinking for each analysis board, in turn on the analysis workers, and game reviews. The
socket itself is :mod:`chuhan.web.analysis.socket`, whose docstring says how it behaves.
"""

from __future__ import annotations

import asyncio
import logging
import math
import shlex
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chuhan.game import Game
from chuhan.search.limits import SearchLimits
from chuhan.web.analysis.rules import Line, describe_position, judge_review, read_line
from chuhan.web.compute.service import (
    AnalysisRequest,
    Compute,
    ProcessCompute,
    WorkerError,
    WorkersBusy,
)
from chuhan.web.compute.workers import Stream
from chuhan.web.round.manager import GameManager, RoomUnavailable
from chuhan.web.round.seats import seat_of
from chuhan.web.round.view import result_dict
from chuhan.web.settings import Settings
from chuhan.web.sockets.connection import Connection
from chuhan.web.sockets.protocol import ProtocolError

__all__ = [
    "MAX_MULTIPV",
    "AnalysisMember",
    "AnalysisService",
    "error_message",
    "lines_message",
    "why_not_deeper",
]

log = logging.getLogger("chuhan.web")

#: Lines shown at once (MultiPV).
MAX_MULTIPV = 5
#: Finished reviews kept in memory.
KEPT_REVIEWS = 200
#: What one position of a review costs its address's turn order (about the engine time of
#: ``Settings.review_nodes`` nodes and the mate search after them; see
#: :meth:`AnalysisService._turn_order`).
REVIEW_TURN_SECONDS = 0.4


class AnalysisMember(Connection):
    """One analysis websocket: its connection, and what its engine is doing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.greeted = False
        #: The thinking under way (a task), and the seq of the position it is about.
        self.thinking: asyncio.Task[None] | None = None
        self.stream: Stream | None = None
        self.position_seq = 0
        self.reviews: set[str] = set()


@dataclass(eq=False)
class _Review:
    """A review under way: the game's line, what is evaluated so far, who listens."""

    game_id: str
    line: Line
    #: The address of the connection that started it (counted against its reviews).
    address: str
    evaluations: list[dict[str, Any]] = field(default_factory=list)
    listeners: set[AnalysisMember] = field(default_factory=set)
    task: asyncio.Task[None] | None = None
    #: Nobody waits for it any more: it stops after the position being evaluated (a
    #: cancelled job would cost its worker process).
    abandoned: bool = False


class AnalysisService:
    """What the analysis sockets of one server share: the compute service, the reviews made and
    under way."""

    def __init__(self, settings: Settings, compute: Compute, manager: GameManager) -> None:
        self._compute = compute
        self.manager = manager
        self.settings = settings
        self.reviews: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.running: dict[str, _Review] = {}
        #: Reviews under way by the address that started them.
        self.review_addresses: Counter[str] = Counter()
        #: The analyses thinking or waiting for a worker, by address: each board's task.
        self.analysing: dict[str, dict[AnalysisMember, asyncio.Task[None]]] = {}
        #: Fair queueing by address (see :meth:`_turn_order`): the place in the queue of
        #: the latest turn that has started, and where each address's next turn goes.
        self.virtual_time = -math.inf
        self.address_clock: dict[str, float] = {}

    @property
    def compute(self) -> ProcessCompute | None:
        compute = self._compute
        if isinstance(compute, ProcessCompute) and compute.available():
            return compute
        return None

    def engine_name(self) -> str:
        compute = self.compute
        if compute is None:
            return ""
        if compute.analysis_engine is not None:
            return Path(shlex.split(compute.analysis_engine.command)[0]).name
        return "chuhan"

    # ------------------------------------------------------------------ thinking

    def _turn_order(self, address: str, cost: float) -> float:
        """The place in the workers' queue of a turn ``address`` asks for now, costing it
        about ``cost`` seconds of engine time: start-time fair queueing by address. Each
        address has a clock that its turns move on by their cost; a turn is placed at the
        later of its address's clock and the place of the latest turn that has started (the
        virtual time, which follows the queue, not the wall clock), or one cost before it
        when the address has no turn queued. So the turns of an address with many boards or
        reviews wait behind each other, every busy address gets one turn a round, and a
        newcomer's first turn waits only for the turn running. When no
        turn waits, the virtual time catches up with the event loop's clock (the places
        other jobs of the workers take, such as a finished game's analysis over HTTP)."""
        now = asyncio.get_running_loop().time()
        compute = self.compute
        if compute is None or compute.analysis_waiting() == 0:
            self.virtual_time = max(self.virtual_time, now)
        clocks = self.address_clock
        # An address with no turn in the queue (its clock is behind) starts one turn ahead
        # of the round: its first lines come after the turn running now.
        order = max(clocks.get(address, -math.inf), self.virtual_time - cost)
        clocks[address] = order + cost
        if len(clocks) > 64:  # an address whose clock is behind the virtual time has no credit
            for stale in [a for a, clock in clocks.items() if clock <= self.virtual_time]:
                del clocks[stale]
        return order

    def think(
        self,
        member: AnalysisMember,
        line: Line,
        multipv: int,
        seq: int,
        seconds: float,
        *,
        deeper_than: int | None = None,
    ) -> None:
        """Start the engine on ``line`` for ``member`` for ``seconds`` of its time
        (stopping what it did before). With ``deeper_than`` ("Think longer": the depth
        the board shows), it goes on past ``seconds`` until a deeper depth is complete,
        for up to ``Settings.analysis_deeper_seconds``; if it ends no deeper, its last
        ``lines`` say why (``not_deeper``, see :func:`why_not_deeper`). An address thinks on at most
        ``Settings.analyses_per_address`` boards at once (its other sockets are told
        ``too_many_analyses``), so that a few addresses cannot fill the queue of the
        analyses waiting for a worker."""
        self.stop(member)
        member.position_seq = seq
        boards = self.analysing.setdefault(member.address, {})
        cap = self.settings.analyses_per_address
        if member not in boards and len(boards) >= cap:
            member.send(
                error_message(
                    "too_many_analyses",
                    f"your address already has {len(boards)} boards thinking; stop one of "
                    "them, or wait for one to finish",
                    seq,
                )
            )
            return
        task = asyncio.get_running_loop().create_task(
            self._think(member, line, multipv, seq, seconds, deeper_than)
        )
        member.thinking = boards[member] = task

        def finished(task: asyncio.Task[None], address: str = member.address) -> None:
            if boards.get(member) is task:
                del boards[member]
                if not boards and self.analysing.get(address) is boards:
                    del self.analysing[address]

        task.add_done_callback(finished)

    def stop(self, member: AnalysisMember) -> None:
        if member.stream is not None:
            member.stream.stop()
            member.stream = None
        if member.thinking is not None:
            member.thinking.cancel()
            member.thinking = None

    async def _think(
        self,
        member: AnalysisMember,
        line: Line,
        multipv: int,
        seq: int,
        budget: float,
        deeper_than: int | None = None,
    ) -> None:
        compute = self.compute
        settings = self.settings
        if compute is None:
            member.send(error_message("engine_unavailable", "the engine is not available", seq))
            return
        loop = asyncio.get_running_loop()
        shown = {"depth": 0, "turn": 0}
        last: dict[str, Any] = {}
        spent = 0.0
        turn = 0
        # "Think longer": past the budget, on until a depth beyond deeper_than is shown.
        cap = budget if deeper_than is None else max(budget, settings.analysis_deeper_seconds)

        def enough(spent: float) -> bool:
            deep = deeper_than is None or shown["depth"] > deeper_than
            return spent >= cap or (spent >= budget and deep)

        def reported(data: dict[str, Any]) -> None:
            if member.position_seq != seq:
                return
            depth = data["depth"]
            # A resumed search starts again from depth 1 (its hash table warm): the lines
            # shown never go back to a shallower depth.
            if depth < shown["depth"] or (depth == shown["depth"] and shown["turn"] != turn):
                return
            shown.update(depth=depth, turn=turn)
            last.clear()
            last.update(data)
            member.send(lines_message(seq, data, done=False))

        try:
            while not enough(spent):
                turn += 1
                movetime = max(100, round((cap - spent) * 1000))
                request = AnalysisRequest(
                    line.variant.name,
                    line.fen,
                    line.moves,
                    SearchLimits(movetime=movetime),
                    multipv,
                )
                # The first turn is short: enough for the first lines, so that many new
                # analyses at once each show some soon; the later turns are longer.
                slice_seconds = (
                    settings.analysis_first_slice_seconds
                    if turn == 1
                    else settings.analysis_slice_seconds
                )
                order = self._turn_order(member.address, slice_seconds)
                try:  # the first turn takes a place in the queue; the others come back
                    stream = compute.analysis_stream(
                        request, reported, order=order, bounded=turn == 1
                    )
                except WorkersBusy:
                    self.address_clock[member.address] = order  # (no turn taken)
                    member.send(
                        error_message(
                            "engine_busy",
                            f"the engine is busy: {compute.analysis_waiting()} analyses are "
                            "waiting for it; try again in a few seconds",
                            seq,
                        )
                    )
                    return
                member.stream = stream
                yielded = False
                task = stream.task
                assert task is not None
                while not task.done():
                    await asyncio.wait({task}, timeout=0.1)
                    since = stream.running_since
                    if since is not None:
                        self.virtual_time = max(self.virtual_time, order)
                    if since is None or stream.stop_asked is not None:
                        continue
                    if enough(spent + loop.time() - since):
                        stream.stop()  # the budget spent (and deeper, if asked)
                    elif loop.time() - since >= slice_seconds and compute.analysis_waiting() > 0:
                        stream.stop()  # another analyst's turn
                        yielded = True
                answer = await stream.result()
                if stream.running_since is not None:
                    spent += loop.time() - stream.running_since
                if answer is not None and answer.get("depth", 0) >= shown["depth"]:
                    if not last or answer["depth"] > last.get("depth", 0):
                        last.clear()
                        last.update(answer)
                if not yielded:
                    break
        except WorkerError as error:
            member.send(error_message("engine_failed", str(error), seq))
            return
        finally:
            if member.position_seq == seq:
                member.stream = None
        if member.position_seq == seq:
            final = lines_message(seq, last or {"depth": 0, "lines": []}, done=True)
            if deeper_than is not None and final["depth"] <= deeper_than:
                final["not_deeper"] = why_not_deeper(line, last, spent >= cap)
            member.send(final)

    # ------------------------------------------------------------------ reviews

    async def review(self, member: AnalysisMember, game_id: str, seq: int) -> None:
        kept = self.reviews.get(game_id)
        if kept is not None:
            self.reviews.move_to_end(game_id)
            member.send({**kept, "seq": seq})
            return
        settings = self.settings
        if game_id not in member.reviews and len(member.reviews) >= settings.reviews_per_connection:
            raise ProtocolError(
                "too_many_reviews",
                f"this board already has {len(member.reviews)} reviews under way; "
                "wait for one to finish",
            )
        running = self.running.get(game_id)
        if running is None:
            line = await self._finished_line(game_id)
            if self.compute is None:
                raise ProtocolError("engine_unavailable", "the engine is not available")
            if len(line.moves) > settings.review_max_plies:
                raise ProtocolError(
                    "too_many_moves",
                    f"the game has {len(line.moves)} moves; a review takes at most "
                    f"{settings.review_max_plies}",
                )
            address = member.address
            if self.review_addresses[address] >= settings.reviews_per_address:
                raise ProtocolError(
                    "too_many_reviews",
                    f"your address already has {self.review_addresses[address]} reviews "
                    "under way; wait for one to finish",
                )
            if len(self.running) >= settings.reviews_at_once:
                raise ProtocolError(
                    "engine_busy",
                    f"the engine is busy with {len(self.running)} reviews; try again in a minute",
                )
            if game_id in self.running or game_id in self.reviews:  # made meanwhile
                return await self.review(member, game_id, seq)
            running = _Review(game_id, line, address)
            self.running[game_id] = running
            self.review_addresses[address] += 1
            running.task = asyncio.get_running_loop().create_task(self._review(running))
        running.listeners.add(member)
        member.reviews.add(game_id)
        member.send(
            {
                "type": "review_started",
                "seq": seq,
                "game": game_id,
                "plies": len(running.line.moves),
            }
        )
        for evaluation in running.evaluations:  # what was done before this one came
            member.send(_progress(running, evaluation))

    async def _review(self, review: _Review) -> None:
        compute = self.compute
        assert compute is not None
        line = review.line
        moves = line.moves
        replay = line.game.board.root()
        game = Game(line.variant, replay, repetitions=line.game.repetitions)
        try:
            for ply in range(len(moves) + 1):
                if review.abandoned:
                    return
                if ply:
                    game.push(replay.parse_iccs(moves[ply - 1]))
                evaluation: dict[str, Any] = {"ply": ply, "turn": seat_of(replay.turn)}
                over = game.outcome()
                if over is not None:
                    evaluation["over"] = result_dict(over, line.variant)
                    evaluation["line"] = None
                else:
                    order = self._turn_order(review.address, REVIEW_TURN_SECONDS)
                    answer = await compute.evaluate(
                        AnalysisRequest(
                            line.variant.name,
                            line.fen,
                            moves[:ply],
                            SearchLimits(nodes=self.settings.review_nodes),
                            1,
                            mate_moves=self.settings.review_mate_moves,
                            mate_nodes=self.settings.review_mate_nodes,
                        ),
                        order=order,
                    )
                    self.virtual_time = max(self.virtual_time, order)
                    evaluation["line"] = answer["line"]
                review.evaluations.append(evaluation)
                for member in list(review.listeners):
                    member.send(_progress(review, evaluation))
            judged = judge_review(review.evaluations, list(moves))
            done = {
                "type": "review_done",
                "game": review.game_id,
                "plies": len(moves),
                "evaluations": review.evaluations,
                **judged,
            }
            self.reviews[review.game_id] = done
            while len(self.reviews) > KEPT_REVIEWS:
                self.reviews.popitem(last=False)
            for member in list(review.listeners):
                member.send(done)
        except WorkerError as error:
            for member in list(review.listeners):
                member.send(error_message("engine_failed", f"the review stopped: {error}"))
        finally:
            self.running.pop(review.game_id, None)
            self.review_addresses[review.address] -= 1
            if self.review_addresses[review.address] <= 0:
                del self.review_addresses[review.address]
            for member in review.listeners:
                member.reviews.discard(review.game_id)

    def close(self) -> None:
        """The server stops: the reviews under way are given up."""
        for review in list(self.running.values()):
            if review.task is not None:
                review.task.cancel()

    def leave(self, member: AnalysisMember) -> None:
        """A connection closed: its engine stops at once, and a review nobody else
        waits for is given up."""
        self.stop(member)
        member.position_seq = -1
        for game_id in list(member.reviews):
            review = self.running.get(game_id)
            if review is None:
                continue
            review.listeners.discard(member)
            if not review.listeners:
                review.abandoned = True

    # ------------------------------------------------------------------ games

    async def _finished_line(self, game_id: str) -> Line:
        room = await self._room(game_id)
        if room.status != "over":
            raise ProtocolError(
                "game_in_progress",
                "this game is still being played: it can be analysed once it is over",
            )
        board = room.game.board
        line = read_line(
            room.variant.game,
            room.variant.rules,
            board.root().fen(),
            [m.iccs() for m in board.move_stack],
            max_plies=max(self.settings.analysis_max_plies, len(board.move_stack)),
        )
        line.game.repetitions = room.game.repetitions
        return line

    async def _room(self, game_id: str) -> Any:
        manager = self.manager
        try:
            room = await manager.room(game_id)
        except RoomUnavailable as error:
            raise ProtocolError("internal", str(error)) from None
        if room is None:
            raise ProtocolError("no_game", f"there is no game {game_id[:40]!r}")
        return room

    async def open_game(self, member: AnalysisMember, game_id: str, seq: int) -> None:
        line = await self._finished_line(game_id)
        room = await self._room(game_id)
        players = {seat: room.published.players[seat].get("name") for seat in ("first", "second")}
        member.send(
            {
                "type": "game",
                "seq": seq,
                "game": game_id,
                "players": players,
                "result": room.result(),
                "position": describe_position(line, all_moves=True),
            }
        )


#: The search's deepest iteration (chuhan.search.tree: MAX_PLY - 8).
MAX_SEARCH_DEPTH = 112
#: Permille of the hash table in use from which it is called full.
HASH_FULL = 950


def why_not_deeper(line: Line, last: dict[str, Any], out_of_time: bool) -> str:
    """Why "Think longer" ended at no deeper a depth than the board showed: ``"mate"``
    (the engine has proved a mate: deeper cannot change it), ``"only_move"`` (one legal
    move: the search looks one ply deep), ``"depth_cap"`` (the search's deepest
    iteration), ``"hash_full"`` (out of time with the hash table full, so that the
    search forgets as fast as it learns), or ``"time"`` (the next depth needs more than
    ``Settings.analysis_deeper_seconds``)."""
    lines = last.get("lines") or []
    if lines and lines[0].get("mate") is not None:
        return "mate"
    if len(line.game.board.legal_moves) == 1:
        return "only_move"
    if last.get("depth", 0) >= MAX_SEARCH_DEPTH:
        return "depth_cap"
    if out_of_time and last.get("hashfull", 0) >= HASH_FULL:
        return "hash_full"
    return "time"


def _progress(review: _Review, evaluation: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "review",
        "game": review.game_id,
        "plies": len(review.line.moves),
        "evaluation": evaluation,
    }


def error_message(code: str, message: str, seq: int | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if seq is not None:
        error["seq"] = seq
    return error


def lines_message(seq: int, data: dict[str, Any], *, done: bool) -> dict[str, Any]:
    time_ms = data.get("time_ms") or 0
    nodes = data.get("nodes") or 0
    return {
        "type": "lines",
        "seq": seq,
        "depth": data.get("depth", 0),
        "nodes": nodes,
        "nps": nodes * 1000 // time_ms if time_ms else 0,
        "lines": data.get("lines", []),
        "done": done,
    }
