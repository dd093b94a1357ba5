"""The tournament pages' live connections (``/ws/t/{id}``: :mod:`.socket`): each page is
sent the tournament again whenever it changes, here or on another process sharing the
database, and the tournament's chat.

A committed write of a tournament (:attr:`TournamentRepository.changed`) reads it once and
marks every page watching it; each page's writer renders the newest reading when it gets
there (a slow page skips readings, never piles them up), with the reader's own part
(``you``: directing, playing) added. A tournament is read for its pages at most once per
``Settings.tournament_page_seconds``: a change within that time of the last reading is
read when the time is up, together with every change made meanwhile (a 200-player arena
changes several times a second); a reading of no new revision is sent to nobody. The
other processes hear a ``tournament`` notice and do the same; a chat line travels in its
notice, so nobody reads it back. A ``resync`` (notices may have been lost) reads every
watched tournament again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections import deque
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

from chuhan.web.accounts.repository import Account
from chuhan.web.bus import Bus, Notice
from chuhan.web.db import StoreError
from chuhan.web.settings import Settings
from chuhan.web.sockets.connection import STATE, Connection
from chuhan.web.sockets.protocol import ProtocolError, TokenBucket
from chuhan.web.tournaments.repository import (
    ChatLine,
    Tournament,
    TournamentRepository,
    entrant_id_of,
)
from chuhan.web.tournaments.rules import ArenaTally, Format
from chuhan.web.tournaments.views import tournament_json, you_of

__all__ = ["CHAT_SHOWN", "NOTICE_KIND", "TournamentLive", "TournamentMember"]

log = logging.getLogger("chuhan.web")

#: The notices' kind between processes (the rooms' manager hands them over).
NOTICE_KIND = "tournament"
#: The chat lines a page is sent when it comes, and kept per watched tournament.
CHAT_SHOWN = 50
#: Flood budgets kept at most (then forgotten at once, as a game room's are).
CHAT_BUDGETS_KEPT = 10_000


class TournamentMember(Connection):
    """A tournament page's websocket: the tournament it watches and the account it came
    with (None: a visitor, who reads but does not chat)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tournament_id: str | None = None
        self.account: Account | None = None


def line_json(line: ChatLine) -> dict[str, Any]:
    return {"at": line.at, "name": line.name, "text": line.text}


class TournamentLive:
    """The watched tournaments of this process: their pages, their newest reading, their
    chat's last lines and each chatting account's flood budget."""

    def __init__(
        self,
        repository: TournamentRepository,
        bus: Bus,
        settings: Settings,
        now: Callable[[], float],
    ) -> None:
        self.repository = repository
        self.bus = bus
        self.settings = settings
        self.now = now
        self.watchers: dict[str, set[TournamentMember]] = {}
        #: The newest reading of each watched tournament, its JSON text, and its entrants'
        #: names by id (each page's ``you``).
        self._shown: dict[str, tuple[Tournament, str, dict[str, str]]] = {}
        #: The tournaments being read (or waiting for their next reading's time), those
        #: changed again meanwhile, and when each was last read for its pages (``now``).
        self._reading: set[str] = set()
        self._again: set[str] = set()
        self._read_at: dict[str, float] = {}
        #: The arenas' points kept from one reading to the next.
        self._tallies: dict[str, ArenaTally] = {}
        #: The next reading's timer of each tournament changed since its last reading.
        self._due: dict[str, asyncio.TimerHandle] = {}
        #: Readings taken for the pages (tests and the bench count them).
        self.readings = 0
        self._chat: dict[str, deque[ChatLine]] = {}
        self._chat_reads: dict[str, asyncio.Lock] = {}
        self._budgets: dict[tuple[str, str], TokenBucket] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        repository.changed = self.changed

    # ------------------------------------------------------------------ pages

    async def join(self, member: TournamentMember, tournament: Tournament) -> None:
        """A page starts watching ``tournament`` (just read): it is sent the tournament
        and the chat's last lines."""
        tournament_id = tournament.id
        member.tournament_id = tournament_id
        self.watchers.setdefault(tournament_id, set()).add(member)
        shown = self._shown.get(tournament_id)
        if shown is None or shown[0].revision <= tournament.revision:
            self._keep(tournament)
        member.mark(STATE)
        lines = await self._lines(tournament_id)
        member.send({"type": "chat_history", "lines": [line_json(line) for line in lines]})

    def leave(self, member: TournamentMember) -> None:
        tournament_id = member.tournament_id
        watchers = self.watchers.get(tournament_id or "")
        if tournament_id is None or watchers is None:
            return
        watchers.discard(member)
        if not watchers:
            del self.watchers[tournament_id]
            self._shown.pop(tournament_id, None)
            self._read_at.pop(tournament_id, None)
            self._tallies.pop(tournament_id, None)
            timer = self._due.pop(tournament_id, None)
            if timer is not None:
                timer.cancel()
            self._chat.pop(tournament_id, None)
            self._chat_reads.pop(tournament_id, None)
            for key in [key for key in self._budgets if key[0] == tournament_id]:
                del self._budgets[key]

    def render(self, member: TournamentMember) -> str | None:
        """The ``tournament`` message of the newest reading, with the reader's part."""
        shown = self._shown.get(member.tournament_id or "")
        if shown is None:
            return None
        tournament, text, names = shown
        you = json.dumps(you_of(tournament, names, member.account), ensure_ascii=False)
        return f'{{"type":"tournament","you":{you},"tournament":{text}}}'

    def _keep(self, tournament: Tournament) -> None:
        """Keep a reading and mark its pages, unless they were sent the same already (a
        game made for a board changes no revision: the texts are compared)."""
        tally = None
        if tournament.spec.format is Format.ARENA and not tournament.settings.over_the_board:
            tally = self._tallies.setdefault(tournament.id, ArenaTally(tournament.spec.scoring))
        shown_json = tournament_json(tournament, whole=True, tally=tally)
        text = json.dumps(shown_json, ensure_ascii=False)
        shown = self._shown.get(tournament.id)
        if shown is not None and shown[1] == text:
            return
        names = {entrant.id: entrant.name for entrant in tournament.entrants}
        self._shown[tournament.id] = (tournament, text, names)
        for member in self.watchers.get(tournament.id, ()):
            member.mark(STATE)

    # ------------------------------------------------------------------ changes

    def changed(self, tournament_id: str) -> None:
        """A write of this process changed the tournament: its pages here are sent it
        again, and the other processes told."""
        self._read_again(tournament_id)
        self._spawn(self._tell_others(tournament_id, {}))

    def game_made(self, tournament_id: str, players: tuple[str, ...], game_id: str) -> None:
        """A board's game was made: its players' pages are told at once (``your_game``),
        here and on the other processes, without waiting for the tournament's next
        reading (at most one a second), so that the game opens as soon as it can."""
        self._tell_players(tournament_id, players, game_id)
        self._spawn(self._tell_others(tournament_id, {"game": [game_id, *players]}))

    def _tell_players(self, tournament_id: str, players: Iterable[str], game_id: str) -> None:
        wanted = set(players)
        message = {"type": "your_game", "game": game_id}
        for member in self.watchers.get(tournament_id, ()):
            if member.account is not None and entrant_id_of(member.account) in wanted:
                member.send(message)

    def hear(self, notice: Notice) -> None:
        """A notice of another process (or a ``resync``)."""
        if notice.kind == "resync":
            for tournament_id in list(self.watchers):
                self._read_again(tournament_id)
            return
        tournament_id = notice.game_id
        made = notice.data.get("game")
        if isinstance(made, list) and made and all(isinstance(part, str) for part in made):
            self._tell_players(tournament_id, made[1:], made[0])
            return
        line = notice.data.get("line")
        if line is None:
            self._read_again(tournament_id)
            return
        try:
            at, name, text = line
            self._show_line(tournament_id, ChatLine(float(at), str(name), str(text)))
        except (TypeError, ValueError):
            log.warning("a tournament chat notice without a line: %r", notice.data)

    def _read_again(self, tournament_id: str, *, due: bool = False) -> None:
        """Read the tournament for its pages: now, unless it was read less than
        ``tournament_page_seconds`` ago (then when that time is up, once for all the
        changes until then: ``due``), or is being read (then again after)."""
        if tournament_id not in self.watchers:
            return
        if tournament_id in self._reading:
            self._again.add(tournament_id)
            return
        last = self._read_at.get(tournament_id)
        wait = 0.0 if last is None else last + self.settings.tournament_page_seconds - self.now()
        if wait > 0 and not due:
            if tournament_id not in self._due:
                loop = asyncio.get_running_loop()
                self._due[tournament_id] = loop.call_later(
                    wait, lambda: self._read_again(tournament_id, due=True)
                )
            return
        timer = self._due.pop(tournament_id, None)
        if timer is not None:
            timer.cancel()
        self._reading.add(tournament_id)
        self._spawn(self._read(tournament_id))

    async def _read(self, tournament_id: str) -> None:
        self._again.discard(tournament_id)
        self._read_at[tournament_id] = self.now()
        self.readings += 1
        try:
            tournament = await self.repository.tournament(tournament_id)
            if tournament is not None and tournament_id in self.watchers:
                self._keep(tournament)
        except StoreError as error:
            log.warning("cannot read tournament %s for its pages: %s", tournament_id, error)
        finally:
            self._reading.discard(tournament_id)
        if tournament_id in self._again:  # (changed while it was read: its time comes next)
            self._again.discard(tournament_id)
            self._read_again(tournament_id)

    async def _tell_others(self, tournament_id: str, data: dict[str, Any]) -> None:
        try:
            await self.bus.notify(tournament_id, NOTICE_KIND, data)
        except StoreError as error:
            log.warning(
                "cannot tell the other processes of tournament %s: %s", tournament_id, error
            )

    # ------------------------------------------------------------------ chat

    async def _lines(self, tournament_id: str) -> deque[ChatLine]:
        lock = self._chat_reads.setdefault(tournament_id, asyncio.Lock())
        async with lock:
            lines = self._chat.get(tournament_id)
            if lines is None:
                stored = await self.repository.chat_history(tournament_id, CHAT_SHOWN)
                lines = self._chat[tournament_id] = deque(stored, maxlen=CHAT_SHOWN)
            return lines

    async def chat(self, member: TournamentMember, text: str) -> None:
        """A chat line from a page: by a signed-in account, within its flood limit; kept,
        shown on every page of the tournament, here and on the other processes."""
        tournament_id, account = member.tournament_id, member.account
        if tournament_id is None:
            raise ProtocolError("hello_first", "send 'hello' first")
        if account is None:
            raise ProtocolError("not_signed_in", "sign in to chat in a tournament")
        key = (tournament_id, account.id)
        budget = self._budgets.get(key)
        if budget is None:
            settings = self.settings
            if len(self._budgets) >= CHAT_BUDGETS_KEPT:
                self._budgets.clear()
            budget = self._budgets[key] = TokenBucket(
                settings.chat_burst, 1 / settings.chat_every_seconds, now=self.now
            )
        if not budget.take():
            wait = max(1, math.ceil(budget.wait()))
            raise ProtocolError(
                "chat_flood",
                f"you are sending chat messages too fast: wait {wait} s before the next one",
            )
        line = ChatLine(self.now(), account.name, text)
        await self.repository.add_chat(tournament_id, account.id, line)
        self._show_line(tournament_id, line)
        self._spawn(self._tell_others(tournament_id, {"line": [line.at, line.name, line.text]}))

    def _show_line(self, tournament_id: str, line: ChatLine) -> None:
        lines = self._chat.get(tournament_id)
        if lines is not None:
            lines.append(line)
        message = {"type": "chat", "line": line_json(line)}
        for member in self.watchers.get(tournament_id, ()):
            member.send(message, droppable=True)

    # ------------------------------------------------------------------ tasks

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(work)
        except RuntimeError:  # (no loop: a write outside the server, e.g. a command)
            work.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def idle(self) -> None:
        """Wait for the readings and notices under way (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def close(self) -> None:
        for timer in self._due.values():
            timer.cancel()
        self._due.clear()
        for task in list(self._tasks):
            task.cancel()
