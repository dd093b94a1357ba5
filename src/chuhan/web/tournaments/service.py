"""The tournaments of one server process: create one, enter and withdraw players, pair a
round and make its games (``GameManager.create``, as the lobby makes a game), and give a
board its result when its game ends (the bus's ``GameFinished``, published by the process
that wrote the game's end).

An arena pairs its waiting players when its director pairs it, when a player enters it
while it runs, and when one of its games ends (in the process that heard the end).

What is not here yet (issue 23, later): a process that drives each tournament's clock
(starting it on time, pairing the next round by itself, ending an arena and pairing its
players who wait without an event) and its takeover when that process dies, the results
of games whose end another process wrote (heard through the store's notices), and
berserk (it changes the game's clock, which the round owns).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any

from chuhan.adjudication.outcome import Termination
from chuhan.clock import TimeControl
from chuhan.variants import get_variant
from chuhan.web.accounts.repository import Account
from chuhan.web.accounts.service import AccountService
from chuhan.web.bus import Bus, GameFinished
from chuhan.web.db import Store
from chuhan.web.round.manager import GameManager
from chuhan.web.tournaments.repository import (
    Settings,
    Tournament,
    TournamentRepository,
)
from chuhan.web.tournaments.rules import (
    Board,
    Entrant,
    Format,
    Result,
    Spec,
    TournamentError,
    UnknownTournament,
    check_spec,
)

__all__ = [
    "NotDirector",
    "TournamentService",
    "UnknownTournament",
    "code_sha256",
    "entrant_id_of",
]

log = logging.getLogger("chuhan.web.tournaments")

#: A new account's rating, for an entrant with no rating in the tournament's game.
UNRATED = 1500
MAX_NAME_CHARS = 60

#: A game's result (its ``result`` field) as a board's, red being the first mover.
_RESULTS = {"1-0": Result.RED_WINS, "0-1": Result.BLACK_WINS, "1/2-1/2": Result.DRAW}


class NotDirector(TournamentError):
    """Only the tournament's director (who created it) may do this."""


def code_sha256(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def entrant_id_of(account: Account) -> str:
    """An account's entrant id (a director's entry without an account would have its own)."""
    return f"a:{account.id}"


class TournamentService:
    """Tournaments on ``store``, their games made by ``manager``, their players' accounts
    and ratings read through ``accounts``."""

    def __init__(
        self,
        store: Store,
        manager: GameManager,
        accounts: AccountService,
        bus: Bus,
        now: Callable[[], float],
    ) -> None:
        self.repository = TournamentRepository(store)
        self.store = store
        self.manager = manager
        self.accounts = accounts
        self.now = now
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe = bus.subscribe(GameFinished, self._finished)

    def close(self) -> None:
        self._unsubscribe()
        for task in list(self._tasks):
            task.cancel()

    async def idle(self) -> None:
        """Wait for the results being given (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # ------------------------------------------------------------------ the organiser

    async def create(
        self, *, director: Account, name: str, spec: Spec, settings: Settings, starts: float
    ) -> Tournament:
        """A new tournament directed by ``director``: refused when it starts in the past,
        has no name, or ``spec`` is absurd (``rules.check_spec``)."""
        name = " ".join(name.split())
        if not name:
            raise TournamentError("a tournament needs a name")
        if len(name) > MAX_NAME_CHARS:
            raise TournamentError(f"a tournament's name is at most {MAX_NAME_CHARS} characters")
        now = self.now()
        if starts < now:
            raise TournamentError(
                f"the start time is {now - starts:.0f} seconds in the past; choose a time to come"
            )
        check_spec(spec)
        get_variant(settings.game, settings.rules)  # an unknown game is refused here
        tournament = Tournament(
            id=secrets.token_urlsafe(9),
            name=name,
            spec=spec,
            settings=settings,
            status="created",
            created_by=director.id,
            starts=starts,
            created=now,
        )
        await self.repository.create(tournament)
        return tournament

    async def tournament(self, tournament_id: str) -> Tournament:
        found = await self.repository.tournament(tournament_id)
        if found is None:
            raise UnknownTournament(f"there is no tournament {tournament_id!r}")
        return found

    async def _directed(self, tournament_id: str, director: Account) -> Tournament:
        tournament = await self.tournament(tournament_id)
        if tournament.created_by != director.id:
            raise NotDirector("only the tournament's director may do this")
        return tournament

    async def pair_round(
        self, tournament_id: str, director: Account, *, revision: int | None = None
    ) -> tuple[Board, ...]:
        """Pair the next round (the director only) and make its games; the boards."""
        tournament = await self._directed(tournament_id, director)
        if tournament.spec.format is Format.ARENA:
            return await self._pair_arena(tournament)
        boards = await self.repository.pair_round(tournament_id, revision=revision)
        names = {entrant.id: entrant.name for entrant in tournament.entrants}
        started = []
        for board in boards:
            if board.black is not None:
                started.append(await self._start_game(tournament, board, names))
            else:
                started.append(board)
        return tuple(started)

    async def _pair_arena(self, tournament: Tournament) -> tuple[Board, ...]:
        """Pair the arena's waiting players now and make their games."""
        boards = await self.repository.pair_arena(tournament.id, self.now())
        if boards:
            tournament = await self.tournament(tournament.id)  # (with who entered since)
        names = {entrant.id: entrant.name for entrant in tournament.entrants}
        return tuple([await self._start_game(tournament, board, names) for board in boards])

    async def _pair_arena_again(self, tournament_id: str) -> None:
        """After an arena game's end or an entry: pair whoever waits (nothing once the
        arena is over)."""
        tournament = await self.tournament(tournament_id)
        if tournament.spec.format is not Format.ARENA or tournament.status != "running":
            return
        try:
            await self._pair_arena(tournament)
        except TournamentError as refusal:
            log.info("arena %s not paired: %s", tournament_id, refusal)

    async def _start_game(
        self, tournament: Tournament, board: Board, names: dict[str, str]
    ) -> Board:
        """Make a board's game: a game between two people (the lobby's kind, ``friend``:
        chat, offers and claims as in any), each seat its account's, rated when the
        tournament is."""
        assert board.black is not None
        settings = tournament.settings
        variant = get_variant(settings.game, settings.rules)
        fields = settings.time_control
        control = (
            None
            if fields is None
            else TimeControl(
                base=fields["base"],
                increment=fields.get("increment", 0.0),
                periods=int(fields.get("periods", 0)),
                period_seconds=fields.get("period_seconds", 0.0),
            )
        )
        row, _ = await self.manager.create(
            kind="friend",
            variant=variant,
            time_control=control,
            level=None,
            human_seat="first",
            name=None,
            names={"first": names[board.red], "second": names[board.black]},
        )
        await self.repository.attach_game(tournament.id, board.round, board.number, row.id)
        if settings.rated:
            await self.accounts.repository.rate_game(row.id, variant.game, row.created)
        for seat, entrant_id in (("first", board.red), ("second", board.black)):
            if entrant_id.startswith("a:"):
                await self.accounts.repository.attach_account(row.id, seat, entrant_id[2:])
        return board

    async def enter_result(
        self,
        tournament_id: str,
        director: Account,
        round_number: int,
        board_number: int,
        result: Result,
        *,
        revision: int | None = None,
    ) -> Board:
        """The director enters a board's result (a forfeit, a game played elsewhere): a
        board that has one already is refused."""
        await self._directed(tournament_id, director)
        return await self.repository.set_result(
            tournament_id, round_number, board_number, result, revision=revision
        )

    async def keep_apart(
        self, tournament_id: str, director: Account, first: str, second: str
    ) -> None:
        """The director keeps two players (by name) apart in the rounds to come."""
        tournament = await self._directed(tournament_id, director)
        ids = {entrant.name: entrant.id for entrant in tournament.entrants}
        for name in (first, second):
            if name not in ids:
                raise TournamentError(f"{name!r} is not a player of the tournament")
        await self.repository.forbid(tournament_id, ids[first], ids[second])

    # ------------------------------------------------------------------ the players

    async def join(self, tournament_id: str, account: Account, code: str | None = None) -> Entrant:
        """Enter ``account`` at its rating in the tournament's game (a new account's if
        it has none): refused with a wrong code for a tournament entered by code, and as
        ``rules.can_join`` refuses."""
        tournament = await self.tournament(tournament_id)
        if tournament.settings.entry == "code" and (
            code is None or code_sha256(code) != tournament.settings.code_sha256
        ):
            raise TournamentError("this tournament is entered with its code, and that is not it")
        ratings = await self.accounts.repository.ratings_of(account.id)
        found = ratings.get(tournament.settings.game)
        rating = UNRATED if found is None else round(found.rating)
        entrant = await self.repository.enter(
            tournament_id,
            entrant_id_of(account),
            name=account.name,
            rating=rating,
            account_id=account.id,
        )
        if tournament.spec.format is Format.ARENA and tournament.status == "running":
            await self._pair_arena_again(tournament_id)
        return entrant

    async def withdraw(self, tournament_id: str, account: Account) -> Entrant:
        await self.tournament(tournament_id)
        return await self.repository.withdraw(tournament_id, entrant_id_of(account))

    async def current_game(self, tournament_id: str, account: Account) -> dict[str, Any]:
        """The account's game of the last round paired: ``{game_id, seat, token}``, or the
        refusal (not paired, a bye, the game not made yet)."""
        tournament = await self.tournament(tournament_id)
        me = entrant_id_of(account)
        if tournament.spec.format is Format.ARENA:
            boards = tuple(board for board in tournament.boards if board.result is None)
        else:
            boards = tournament.round_boards(tournament.rounds_paired)
        mine = [board for board in boards if me in (board.red, board.black)]
        if not mine:
            raise TournamentError("you have no board in the round being played")
        (board,) = mine
        if board.black is None:
            raise TournamentError(f"you have the bye in round {board.round}")
        game_id = await self.repository.game_of(tournament_id, board.round, board.number)
        if game_id is None:
            raise TournamentError("your game is being made; ask again in a moment")
        seat = "first" if board.red == me else "second"
        seats = await self.store.seats_of(game_id)
        return {"game_id": game_id, "seat": seat, "token": seats[seat], "round": board.round}

    # ------------------------------------------------------------------ results

    def _finished(self, event: GameFinished) -> None:
        if event.kind != "friend":
            return
        self._spawn(self._give_result(event))

    async def _give_result(self, event: GameFinished) -> None:
        """The board of a tournament game that ended gets its result (an aborted game, no
        one having played, is a double forfeit)."""
        result = _RESULTS.get(str(event.result.get("result")), Result.DOUBLE_FORFEIT)
        try:
            termination = Termination(event.result.get("termination"))
        except ValueError:
            termination = None
        try:
            given = await self.repository.result_of_game(event.game_id, result, termination)
            if given is not None and given[1].round == 0:
                await self._pair_arena_again(given[0])
        except Exception:
            log.exception("the result of game %s was not given to its board", event.game_id)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def with_code(settings: Settings, code: str | None) -> Settings:
    """``settings`` with the entry code kept as its SHA-256 (for entry by code)."""
    if settings.entry != "code":
        return replace(settings, code_sha256=None)
    if not code:
        raise TournamentError("a tournament entered by code needs its 'code'")
    return replace(settings, code_sha256=code_sha256(code))
