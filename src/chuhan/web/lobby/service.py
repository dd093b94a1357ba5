"""The live lobby: open seeks, quick pairing and direct challenges, and the games they
start (the socket is :mod:`chuhan.web.lobby.socket`; the protocol ``docs/web-protocol.md``).

**Who.** Every lobby connection belongs to an *owner*: a signed-in player's account
(``a:<account id>``), else an anonymous browser, known by a secret the page keeps in its
storage and sends in ``hello`` (the owner is ``v:`` and the secret's SHA-256, so the
store never holds the secret, and nobody can speak for another browser without it). All
the tabs of one owner are one player: each sees its seeks, may cancel them, and is taken
to the game when one is accepted.

**Seeks live in the store** (:class:`~chuhan.web.lobby.repository.SeekRepository`), so every server
process lists the same ones and any of them may accept one. Accepting takes the seek (one
``DELETE``: of two acceptors, on one process or two, exactly one gets it) and then creates
the game, attaches the accounts and marks it rated. The acceptor gets its seat token in the
answer; the seeker's connections (on whatever process) are told the game and their seat,
and their process reads the token from the store: a token travels to its own player only.

**Lifetime.** A seek lives while its owner has a lobby connection on a live process. When
an owner's last connection on this process closes, its seeks go unless another live
process holds the owner (another tab); every ``lobby_sweep_seconds`` each process sweeps
the seeks of owners that no live process holds (a process killed, see
:meth:`~chuhan.web.db.Store.live_servers`) and reads the list again.

**Kept challenges.** A signed-in player's challenge may name an account that is not
online, and is kept in the store whoever comes and goes (and across restarts) until it is
accepted, declined, withdrawn or expires: ``challenge_correspondence_days`` (7) after it
was sent for a game of days per move, ``challenge_realtime_hours`` (24) for any other. The
sweep deletes the expired ones and tells their senders (``expired``). The target sees it
in the lobby's list whenever they come; one not in the lobby when it is sent is told at
once through :attr:`Lobby.challenge_hooks` (the app's push message; the e-mail digest
lists it too). A challenge of days per move can be accepted while its sender is away
(the game is made; the sender finds it in "your games", or is taken to it when in the
lobby); any other waits for its sender to be in the lobby (a
game on a clock of minutes needs both players there: accepting it meanwhile is refused,
``sender_away``). Its sender, when not in the lobby, is told of its answer through the
same hooks (:class:`ChallengeNews`: accepted, with the game; declined; expired), by the
one process whose ``DELETE`` took the challenge, so once.

**Fan-out.** A change is announced with a ``lobby`` notice (``{"changed": true}``: the
others read the seeks again), and a message for one owner with ``{"to": owner, ...}``. The
:class:`~chuhan.web.round.manager.GameManager` hands ``lobby`` notices to
:meth:`Lobby.hear` (its ``listeners``).

**Rules.** Rated seeks need a signed-in seeker and a signed-in acceptor of another
account. A rating range bounds the acceptor's rating in the seek's game (an anonymous
player has none, so a seek with a range takes signed-in players only). The ratings are
read from the store again whenever a player posts, pairs or accepts, so a range is
checked against the rating the player has now, not the one it had when its socket said
hello. The store counts the limits (:class:`~chuhan.web.lobby.repository.SeekLimits`:
per player, per network, anonymous seeks a smaller share, challenges per target). Quick pairing
(:meth:`Lobby.quick`) pairs the player with the waiting quick seek of the same game, rule
set, time control and rated choice whose rating is nearest (ranges respected both ways;
the oldest among equals), or leaves a quick seek of its own waiting.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import unicodedata
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from chuhan.clock import TimeControl
from chuhan.errors import ChuhanError
from chuhan.variants import get_variant
from chuhan.web.accounts.ratings import is_provisional, rating_category
from chuhan.web.accounts.repository import Account, network_of
from chuhan.web.db import Notice, StoreError
from chuhan.web.lobby.repository import Seek, SeekLimits, SeekRefused, SeekRepository
from chuhan.web.round.seats import other_seat
from chuhan.web.sockets.connection import Connection
from chuhan.web.sockets.protocol import ProtocolError, TokenBucket

if TYPE_CHECKING:
    from chuhan.web.accounts.service import AccountService
    from chuhan.web.db import Store
    from chuhan.web.round.manager import GameManager
    from chuhan.web.settings import Settings

__all__ = ["ChallengeNews", "Lobby", "LobbyMember", "owner_of", "short_time_control"]

log = logging.getLogger("chuhan.web")

#: A display name an anonymous player gives: at most this many characters.
MAX_VISITOR_NAME = 20
#: The lowest and highest rating a range may name.
RATING_BOUNDS = (0, 4000)
#: The rating quick pairing assumes for a player who has none (anonymous).
UNRATED = 1500.0
_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


@dataclass(frozen=True, slots=True)
class ChallengeNews:
    """What befell a kept challenge, for the account it concerns when that account is
    not in the lobby (:attr:`Lobby.challenge_hooks`). ``what`` is ``"sent"`` (for its
    target), or ``"accepted"``, ``"declined"`` or ``"expired"`` (for its sender); ``url``
    is the page that shows it: the sender's seat in the game an acceptance made
    (``/g/{id}?t={token}``), else the lobby (``/``)."""

    what: str
    seek: Seek
    url: str = "/"

    @property
    def owner(self) -> str:
        """The lobby owner key of the account told."""
        return f"a:{self.seek.target}" if self.what == "sent" else self.seek.owner


def owner_of(account: Account | None, visitor: str | None) -> str:
    """The owner key of a lobby connection: the account's, else the browser's secret's."""
    if account is not None:
        return f"a:{account.id}"
    assert visitor is not None
    return "v:" + hashlib.sha256(visitor.encode()).hexdigest()


#: The games in play the lobby lists to watch, the names of who is in it it shows, and how
#: often one process reads them (every page of the lobby asks).
WATCH_GAMES = 20
WATCH_NAMES = 50
WATCH_EVERY_SECONDS = 2.0


def short_time_control(control: dict[str, Any] | None) -> str | None:
    """A time control as players write it: ``"10+5"``, ``"20 3x30"``, ``"3d"`` (days per
    move); None: untimed."""
    if control is None:
        return None
    if control.get("days"):
        return f"{control['days']}d"
    minutes = f"{control['base'] / 60:g}"
    if control["periods"]:
        return f"{minutes} {control['periods']}x{control['period_seconds']:g}"
    return f"{minutes}+{control['increment']:g}"


def check_visitor_name(value: str) -> str:
    """An anonymous player's name (NFKC; empty: ``Anonymous``), or ``ValueError`` naming
    the character that is refused (by its code point: it may be a control character or a
    right-to-left override)."""
    kept = unicodedata.normalize("NFKC", value).strip()
    for char in kept:
        if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp"):
            raise ValueError(
                f"has a control or formatting character (U+{ord(char):04X}); use letters, "
                "digits, spaces and punctuation"
            )
    if len(kept) > MAX_VISITOR_NAME:
        raise ValueError(f"is longer than {MAX_VISITOR_NAME} characters")
    return kept


class LobbyMember(Connection):
    """One lobby websocket: a :class:`~chuhan.web.sockets.connection.Connection` (its outbox, rate
    limit and seq) with the player it belongs to, once it said ``hello``."""

    def __init__(self, bucket: TokenBucket, patience: TokenBucket, address: str = "") -> None:
        super().__init__(bucket, patience, address)
        self.owner: str | None = None
        self.account: Account | None = None
        self.display_name = ""
        #: ``{game: (rating, deviation)}`` of a signed-in player, read at ``hello`` and
        #: again before each seek, quick pairing or accept.
        self.ratings: dict[str, tuple[float, float]] = {}


class Lobby:
    """One server process's lobby: its connections by owner, the open seeks (a copy of the
    store's, read again on every change another process announces and every sweep), and
    the actions."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        manager: GameManager,
        accounts: AccountService,
        now: Callable[[], float],
    ) -> None:
        self.settings = settings
        self.store = store
        self.repository = SeekRepository(store)
        #: The last answer of :meth:`watch_list` and when it was read.
        self._watch_list: tuple[float, dict[str, Any]] | None = None
        self.manager = manager
        self.accounts = accounts
        self.now = now
        self.limits = SeekLimits(
            settings.lobby_seeks_per_player,
            settings.lobby_seeks_per_address,
            settings.lobby_max_seeks,
            settings.lobby_anonymous_seeks_per_address,
            settings.lobby_max_anonymous_seeks,
            settings.lobby_challenges_per_target,
        )
        self.members: dict[str, set[LobbyMember]] = {}
        self.seeks: dict[str, Seek] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._sweeping: asyncio.Task[None] | None = None
        self._reading = False
        self._read_again = False
        #: Called with the news of a kept challenge for an account not in the lobby: one
        #: sent to it, once it is stored; the answer to one it sent (accepted, declined,
        #: or expired), once it is deleted (the app hands them to the notices, which this
        #: package does not know). A hook must not block: it starts its work and returns,
        #: so nobody's answer waits on a push service or a mail server.
        self.challenge_hooks: list[Callable[[ChallengeNews], None]] = []

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        self.manager.listeners["lobby"] = self.hear
        await self.sweep()
        self._sweeping = asyncio.get_running_loop().create_task(self._sweep_forever())

    def close(self) -> None:
        if self._sweeping is not None:
            self._sweeping.cancel()
            self._sweeping = None
        for task in list(self._tasks):
            task.cancel()
        for members in list(self.members.values()):
            for member in list(members):
                member.close(1001)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _alive(self) -> set[str]:
        return await self.store.live_servers(self.manager.takeover_seconds)

    async def watch_list(self) -> dict[str, Any]:
        """The games in play to watch, the latest moved first, and who is in the lobby (how
        many, and the names of the signed-in): read at most once every
        :data:`WATCH_EVERY_SECONDS` by this process, whoever asks and however often."""
        now = self.now()
        kept = self._watch_list
        if kept is not None and now - kept[0] < WATCH_EVERY_SECONDS:
            return kept[1]
        games = await self.repository.live_games(WATCH_GAMES)
        count, names = await self.repository.lobby_visitors(await self._alive())
        answer = {
            "games": [
                {
                    "game_id": game.game_id,
                    "watch_url": f"/w/{game.game_id}",
                    "kind": game.kind,
                    "variant": game.variant,
                    "rules": game.rules,
                    "names": game.names,
                    "level": game.level,
                    "time_control": short_time_control(game.time_control),
                    "rated": game.rated,
                    "updated_ms": round(game.updated * 1000),
                }
                for game in games
            ],
            "online": {"count": count, "names": names[:WATCH_NAMES]},
        }
        self._watch_list = (now, answer)
        return answer

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.settings.lobby_sweep_seconds)
            try:
                await self.sweep()
            except Exception:  # a sweep that fails must not stop the next one
                log.exception("a lobby sweep failed")

    async def sweep(self) -> None:
        """Forget the seeks of owners no live process holds; read the seeks again."""
        try:
            alive = await self._alive()
            removed = await self.repository.sweep_lobby(
                self.store.server_id, set(self.members), alive | {self.store.server_id}
            )
        except StoreError as error:
            log.warning("cannot sweep the lobby: %s", error)
            return
        if removed:
            self._announce({"changed": True})
        try:
            await self.expire()
        except StoreError as error:
            log.warning("cannot expire the challenges: %s", error)
        await self._read_seeks()

    async def _read_seeks(self) -> None:
        try:
            found = await self.repository.open_seeks(self.settings.lobby_max_seeks)
        except StoreError as error:
            log.warning("cannot read the lobby's seeks: %s", error)
            return
        seeks = {seek.id: seek for seek in found}
        if seeks.keys() != self.seeks.keys():
            self.seeks = seeks
            self._publish_locally()

    def _read_soon(self) -> None:
        """Read the seeks again (one read at a time; a change heard meanwhile asks for
        another)."""
        if self._reading:
            self._read_again = True
            return
        self._reading = True

        async def run() -> None:
            try:
                while True:
                    self._read_again = False
                    await self._read_seeks()
                    if not self._read_again:
                        return
            finally:
                self._reading = False

        self._spawn(run())

    # ------------------------------------------------------------------ fan-out

    def _publish_locally(self) -> None:
        for members in self.members.values():
            for member in members:
                member.mark("state")

    def _announce(self, data: dict[str, Any]) -> None:
        if not self.store.shared:
            return

        async def run() -> None:
            try:
                await self.manager.bus.notify("", "lobby", data)
            except StoreError as error:
                log.warning("cannot tell the other servers of a lobby change: %s", error)

        self._spawn(run())

    def _changed(self, added: Seek | None = None, removed: list[Seek] | None = None) -> None:
        """The seeks changed here: the copy, this process's connections, the others."""
        if added is not None:
            self.seeks[added.id] = added
        for seek in removed or []:
            self.seeks.pop(seek.id, None)
        self._publish_locally()
        self._announce({"changed": True})

    def hear(self, notice: Notice) -> None:
        """A ``lobby`` notice from another process (or a ``resync``: read everything)."""
        try:
            if notice.kind == "resync" or notice.data.get("changed"):
                self._read_soon()
            owner = notice.data.get("to")
            if owner is None:
                return
            if "paired" in notice.data:
                paired = dict(notice.data["paired"])
                self._spawn(self._tell_paired(str(owner), paired))
            elif "declined" in notice.data:
                self._tell(str(owner), {"type": "declined", **dict(notice.data["declined"])})
            elif "expired" in notice.data:
                self._tell(str(owner), {"type": "expired", **dict(notice.data["expired"])})
        except (KeyError, TypeError, ValueError) as error:
            log.warning("a malformed lobby notice from server %s: %s", notice.origin, error)

    def _tell(self, owner: str, message: dict[str, Any]) -> bool:
        """Send ``message`` to this process's connections of ``owner``; whether any."""
        members = self.members.get(owner, set())
        for member in members:
            member.send(message)
        return bool(members)

    async def _tell_paired(self, owner: str, paired: dict[str, Any]) -> None:
        """Take ``owner``'s connections here to the game: each gets its seat's token, read
        from the store (notices never carry a token)."""
        if owner not in self.members:
            return
        try:
            tokens = await self.store.seats_of(str(paired["game_id"]))
        except StoreError as error:
            log.warning("cannot read the seats of a paired game: %s", error)
            return
        self._tell(owner, _paired(paired, tokens[str(paired["seat"])]))

    # ------------------------------------------------------------------ connections

    async def join(self, member: LobbyMember) -> None:
        """``member`` said hello: it is in the lobby (and its owner, on this process)."""
        assert member.owner is not None
        first = member.owner not in self.members
        self.members.setdefault(member.owner, set()).add(member)
        if first:
            await self.repository.enter_lobby(member.owner, self.store.server_id)
        member.mark("state")

    def leave(self, member: LobbyMember) -> None:
        """``member``'s socket closed: its owner's seeks go with its last connection, unless
        another process holds the owner. (The store's part runs in a task of the lobby's
        own: a socket's task may be cancelled as it ends.)"""
        owner = member.owner
        if owner is None:
            return
        members = self.members.get(owner, set())
        members.discard(member)
        if members:
            return
        self.members.pop(owner, None)
        self._spawn(self._left(owner))

    async def _left(self, owner: str) -> None:
        try:
            alive = await self._alive()
        except StoreError as error:
            log.warning("cannot tell who left the lobby (the sweep will): %s", error)
            return
        alive |= {self.store.server_id}
        alive.discard(self.store.server_id)  # (this process holds the owner no more)
        if owner in self.members:  # (back meanwhile, in another tab)
            return
        try:
            removed = await self.repository.leave_lobby(owner, self.store.server_id, alive)
        except StoreError as error:
            log.warning("cannot take a player's seeks out of the lobby (the sweep will): %s", error)
            return
        if removed:
            self._changed(removed=removed)

    def render(self, member: LobbyMember) -> str:
        """The ``seeks`` message as ``member`` sees it: the open seeks, and the challenges
        it made or was sent."""
        account_id = member.account.id if member.account is not None else None
        shown = [
            self.seek_json(seek, member)
            for seek in sorted(self.seeks.values(), key=lambda s: (s.created, s.id))
            if seek.target is None or seek.owner == member.owner or seek.target == account_id
        ]
        return _encode({"type": "seeks", "seeks": shown})

    def seek_json(self, seek: Seek, member: LobbyMember) -> dict[str, Any]:
        """A seek as a client sees it (never its owner key, address or account id)."""
        control = seek.time_control
        return {
            "id": seek.id,
            "game": seek.game,
            "rules": seek.rules,
            "time_control": short_time_control(control),
            "time_control_text": None if control is None else TimeControl(**control).describe(),
            "rated": seek.rated,
            "color": seek.color,
            "name": seek.name,
            "rating": None if seek.rating is None else round(seek.rating),
            "provisional": seek.deviation is not None and is_provisional(seek.deviation),
            "range": None
            if seek.rating_min is None and seek.rating_max is None
            else [seek.rating_min, seek.rating_max],
            "quick": seek.pool is not None,
            "challenge": None
            if seek.target is None
            else {"from": seek.name, "to": seek.target_name},
            "mine": seek.owner == member.owner,
            "expires_ms": None if seek.expires is None else round(seek.expires * 1000),
            "created_ms": round(seek.created * 1000),
        }

    # ------------------------------------------------------------------ posting

    async def _read_ratings(self, member: LobbyMember) -> None:
        """The signed-in ``member``'s ratings as they are now (a game may have been settled
        since its hello, on any process)."""
        if member.account is not None:
            ratings = await self.accounts.repository.ratings_of(member.account.id)
            member.ratings = {game: (r.rating, r.deviation) for game, r in ratings.items()}

    async def _new_seek(
        self, member: LobbyMember, fields: dict[str, Any], *, color: str | None = None
    ) -> Seek:
        """A seek of ``member`` from checked message fields (``time_control`` already a
        :class:`~chuhan.clock.TimeControl` or None; raises :class:`ProtocolError` for a bad
        value or a rule broken)."""
        assert member.owner is not None
        try:
            variant = get_variant(str(fields["variant"]), fields.get("rules") or None)
        except ChuhanError as error:
            raise ProtocolError("bad_field", str(error)) from None
        control: TimeControl | None = fields.get("time_control")
        rated = bool(fields.get("rated"))
        if rated and member.account is None:
            raise ProtocolError(
                "account_required", "sign in to post a rated seek (anonymous seeks are casual)"
            )
        low, high = fields.get("rating_min"), fields.get("rating_max")
        if low is not None and high is not None and low > high:
            raise ProtocolError(
                "bad_field", f"the rating range {low}-{high} is empty: the lower bound is higher"
            )
        await self._read_ratings(member)
        category = rating_category(variant.game, control)
        rating = member.ratings.get(category) if member.account is not None else None
        if member.account is not None and rating is None:
            rating = (UNRATED, 350.0)
        return Seek(
            id=secrets.token_urlsafe(9),
            owner=member.owner,
            address=network_of(member.address) or member.address,
            account_id=None if member.account is None else member.account.id,
            name=member.display_name,
            game=variant.game,
            rules=variant.rules,
            time_control=None if control is None else control.to_dict(),
            rated=rated,
            color=color or str(fields.get("color") or "random"),
            rating=None if rating is None else rating[0],
            deviation=None if rating is None else rating[1],
            rating_min=low,
            rating_max=high,
            target=None,
            target_name=None,
            pool=None,
            created=self.now(),
        )

    async def post(self, member: LobbyMember, fields: dict[str, Any]) -> Seek:
        """Post a seek (``seek`` message)."""
        seek = await self._new_seek(member, fields)
        await self._add(seek)
        return seek

    async def _add(self, seek: Seek) -> None:
        try:
            await self.repository.add_seek(seek, self.limits)
        except SeekRefused as error:
            raise ProtocolError(error.code, error.reason) from None
        self._changed(added=seek)

    async def challenge(self, member: LobbyMember, fields: dict[str, Any]) -> Seek:
        """Challenge a named player (``challenge`` message). A signed-in player's
        challenge is kept until it is answered or expires (:meth:`_expiry`), whether or not
        the target is in the lobby; an anonymous player may challenge only someone in the
        lobby, and the challenge goes with them as a seek does."""
        name = str(fields["to"])
        target = await self.accounts.repository.account_by_name(name)
        if target is None:
            raise ProtocolError("no_player", f"there is no player called {name[:40]!r}")
        if member.account is not None and target.id == member.account.id:
            raise ProtocolError("not_allowed", "you cannot challenge yourself")
        if member.account is None and not await self.repository.is_in_lobby(
            f"a:{target.id}", await self._alive()
        ):
            raise ProtocolError(
                "not_in_lobby",
                f"{target.name} is not in the lobby now; sign in to send a challenge that "
                "waits for them, or try again later",
            )
        seek = await self._new_seek(member, fields)
        seek = replace(seek, target=target.id, target_name=target.name)
        if seek.kept:
            seek = replace(seek, expires=seek.created + self._expiry(seek))
        await self._add(seek)
        if seek.kept:
            await self._tell_away(ChallengeNews("sent", seek))
        return seek

    async def _tell_away(self, news: ChallengeNews) -> None:
        """Hand the news of a kept challenge to :attr:`challenge_hooks` when the account
        it is for is not in the lobby (where the list, or a message, shows it); the hooks
        only start their work."""
        if not self.challenge_hooks or not news.seek.kept:
            return
        try:
            here = await self._in_lobby(news.owner)
        except StoreError:  # (told anyway: a push to a player who is here does no harm)
            here = False
        if here:
            return
        for hook in self.challenge_hooks:
            try:
                hook(news)
            except Exception:  # (a hook that fails loses its notice, not the challenge)
                log.exception("a challenge hook failed for challenge %s", news.seek.id)

    def _expiry(self, seek: Seek) -> float:
        """How long a kept challenge waits for an answer, in seconds: days for a game of
        days per move, hours for any other (whose sender must be in the lobby to play)."""
        if _is_correspondence(seek):
            return self.settings.challenge_correspondence_days * 86400.0
        return self.settings.challenge_realtime_hours * 3600.0

    async def expire(self) -> list[Seek]:
        """Delete the kept challenges whose time is up and tell their senders (here, and
        through the other processes; a sender not in the lobby through
        :attr:`challenge_hooks`: each challenge is deleted by one process, which alone
        tells it). Nothing is written unless this process's copy of the seeks (read at
        every sweep) has one whose time is up."""
        now = self.now()
        if not any(s.expires is not None and s.expires <= now for s in self.seeks.values()):
            return []
        expired = await self.repository.expire_challenges(now)
        if expired:
            self._changed(removed=expired)
        for seek in expired:
            told = {"seek": seek.id, "to": seek.target_name}
            self._tell(seek.owner, {"type": "expired", **told})
            self._announce({"to": seek.owner, "expired": told})
        for seek in expired:
            await self._tell_away(ChallengeNews("expired", seek))
        return expired

    async def cancel(self, member: LobbyMember, seek_id: str) -> None:
        assert member.owner is not None
        removed = await self.repository.cancel_seek(seek_id, member.owner)
        if removed is None:
            raise ProtocolError("no_seek", "you have no such seek (it was taken or cancelled)")
        self._changed(removed=[removed])

    async def decline(self, member: LobbyMember, seek_id: str) -> None:
        if member.account is None:
            raise ProtocolError("no_seek", "there is no such challenge to you")
        removed = await self.repository.decline_seek(seek_id, member.account.id)
        if removed is None:
            raise ProtocolError("no_seek", "there is no such challenge to you (it was withdrawn)")
        self._changed(removed=[removed])
        declined = {"seek": removed.id, "by": member.display_name}
        self._tell(removed.owner, {"type": "declined", **declined})
        self._announce({"to": removed.owner, "declined": declined})
        await self._tell_away(ChallengeNews("declined", removed))

    # ------------------------------------------------------------------ accepting

    def refusal(self, seek: Seek, member: LobbyMember) -> ProtocolError | None:
        """Why ``member`` may not accept ``seek``, or None."""
        account = member.account
        if seek.owner == member.owner:
            return ProtocolError(
                "own_seek",
                "this is your own seek (posted by your account, or from this browser): a game "
                "needs two different players; cancel it instead",
            )
        if seek.target is not None and (account is None or account.id != seek.target):
            return ProtocolError("not_for_you", "this challenge is for another player")
        if seek.rated:
            if account is None:
                return ProtocolError(
                    "account_required", "this is a rated seek: sign in to accept it"
                )
            if account.id == seek.account_id:
                return ProtocolError(
                    "same_account",
                    "this rated seek was posted by your own account: a rated game needs two "
                    "different players",
                )
        if seek.rating_min is not None or seek.rating_max is not None:
            category = rating_category(seek.game, seek.time_control)
            rating = member.ratings.get(category, (UNRATED, 350.0))[0]
            low = seek.rating_min if seek.rating_min is not None else RATING_BOUNDS[0]
            high = seek.rating_max if seek.rating_max is not None else RATING_BOUNDS[1]
            if account is None:
                return ProtocolError(
                    "out_of_range",
                    f"this seek asks for a rating of {low} to {high}: sign in to show yours",
                )
            if not low <= rating <= high:
                return ProtocolError(
                    "out_of_range",
                    f"this seek asks for a rating of {low} to {high}; yours is {round(rating)}",
                )
        return None

    async def accept(self, member: LobbyMember, seek_id: str) -> None:
        """Accept a seek: take it (exactly one acceptor does) and start the game."""
        seek = self.seeks.get(seek_id) or await self.repository.seek(seek_id)
        if seek is None:
            raise ProtocolError("no_seek", "this seek is gone (taken or cancelled)")
        await self._read_ratings(member)
        refused = self.refusal(seek, member)
        if refused is not None:
            raise refused
        if seek.kept and not _is_correspondence(seek) and not await self._in_lobby(seek.owner):
            raise ProtocolError(
                "sender_away",
                f"{seek.name} is not in the lobby now, and a game on a clock needs both "
                f"players: this challenge waits for {seek.name} to come back (until it "
                "expires); or decline it",
            )
        taken = await self.repository.take_seek(seek_id)
        if taken is None:
            self._read_soon()
            raise ProtocolError("seek_taken", "someone else accepted this seek first")
        self._changed(removed=[taken])
        seat_url = await self._start_game(taken, member)
        await self._tell_away(ChallengeNews("accepted", taken, seat_url))

    async def _in_lobby(self, owner: str) -> bool:
        if owner in self.members:
            return True
        alive = await self._alive() | {self.store.server_id}
        return await self.repository.is_in_lobby(owner, alive)

    async def quick(self, member: LobbyMember, fields: dict[str, Any]) -> Seek | None:
        """Quick pairing: play the nearest rating waiting in the same pool, or wait in it
        (the seek left waiting is returned)."""
        seek = await self._new_seek(member, fields, color="random")
        pool = ":".join(
            (
                seek.game,
                seek.rules,
                short_time_control(seek.time_control) or "none",
                "rated" if seek.rated else "casual",
            )
        )
        seek = replace(seek, pool=pool)
        mine = seek.rating if seek.rating is not None else UNRATED

        def choose(waiting: list[Seek]) -> Seek | None:
            if any(other.owner == member.owner for other in waiting):
                raise ProtocolError(
                    "already_waiting", "you are already waiting for a game like this one"
                )
            fitting = [
                other
                for other in waiting
                if self.refusal(other, member) is None and _in_range(seek, other.rating)
            ]
            if not fitting:
                return None
            return min(
                fitting,
                key=lambda other: (
                    abs((other.rating if other.rating is not None else UNRATED) - mine),
                    other.created,
                    other.id,
                ),
            )

        try:
            taken = await self.repository.pair_or_add(seek, self.limits, choose)
        except SeekRefused as error:
            raise ProtocolError(error.code, error.reason) from None
        if taken is None:
            self._changed(added=seek)
            return seek
        self._changed(removed=[taken])
        await self._start_game(taken, member)
        return None

    async def _start_game(self, seek: Seek, member: LobbyMember) -> str:
        """Create the game of an accepted seek, attach the accounts (and rate it), send
        the acceptor its seat and take the seeker's connections, wherever they are, to
        theirs; the seeker's seat link."""
        seeker_seat = seek.color if seek.color != "random" else secrets.choice(("first", "second"))
        acceptor_seat = other_seat(seeker_seat)
        variant = get_variant(seek.game, seek.rules)
        # A friend game: the chat, an absent opponent's claims and the offers work as in
        # any game between two people; both seats are taken, so the page shows no invite.
        row, seats = await self.manager.create(
            kind="friend",
            variant=variant,
            time_control=None if seek.time_control is None else TimeControl(**seek.time_control),
            level=None,
            human_seat=seeker_seat,
            name=None,
            names={seeker_seat: seek.name, acceptor_seat: member.display_name},
        )
        # (a rated game keeps the networks its seats were taken from, for the rating rules)
        holders: dict[str, tuple[str, str | None]] = {}
        if seek.account_id is not None:
            holders[seeker_seat] = (seek.account_id, network_of(seek.address))
        if member.account is not None:
            holders[acceptor_seat] = (member.account.id, network_of(member.address))
        rated_in = rating_category(variant.game, seek.time_control) if seek.rated else None
        await self.accounts.repository.seat_game(
            row.id, row.created, rated_in=rated_in, holders=holders
        )
        paired = {"game_id": row.id, "seek": seek.id}
        member.send(_paired({**paired, "seat": acceptor_seat}, seats[acceptor_seat]))
        seeker = _paired({**paired, "seat": seeker_seat}, seats[seeker_seat])
        self._tell(seek.owner, seeker)
        self._announce({"to": seek.owner, "paired": {**paired, "seat": seeker_seat}})
        return str(seeker["seat_url"])


def _paired(paired: dict[str, Any], token: str) -> dict[str, Any]:
    game_id = str(paired["game_id"])
    return {
        "type": "paired",
        "game_id": game_id,
        "seek": paired.get("seek"),
        "seat": paired["seat"],
        "token": token,
        "seat_url": f"/g/{game_id}?t={token}",
        "watch_url": f"/w/{game_id}",
    }


def _is_correspondence(seek: Seek) -> bool:
    """Whether ``seek``'s game is played in days per move (it can start while its sender
    is away: their clock is days long)."""
    return bool(seek.time_control and seek.time_control.get("days"))


def _in_range(seek: Seek, rating: float | None) -> bool:
    """Whether an opponent of ``rating`` (None: anonymous) fits ``seek``'s range."""
    if seek.rating_min is None and seek.rating_max is None:
        return True
    if rating is None:
        return False
    low = seek.rating_min if seek.rating_min is not None else RATING_BOUNDS[0]
    high = seek.rating_max if seek.rating_max is not None else RATING_BOUNDS[1]
    return low <= rating <= high
