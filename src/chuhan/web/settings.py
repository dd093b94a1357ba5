"""The web server's settings: every limit and option in one frozen value, built once by
:func:`~chuhan.web.app.create_app` and read by the endpoints from the app's state."""

from __future__ import annotations

from dataclasses import dataclass

from chuhan.records import ReadLimits

__all__ = ["IMPORT_LIMITS", "TIME_CONTROL_EXAMPLES", "Settings"]

#: The time controls the new-game form suggests.
TIME_CONTROL_EXAMPLES = ("none", "5+3", "10+5", "15+10", "20 3x30", "10 5x20")


#: What an uploaded record may hold by default.
IMPORT_LIMITS = ReadLimits(max_plies=1000, max_variations=1000, max_depth=20, max_games=50)


@dataclass(frozen=True, slots=True)
class Settings:
    """What a server allows and where it is reached.

    ``share_origin`` is the address other machines reach the server at
    (``http://192.168.1.20:8000``), for invite links made on a page opened on loopback;
    ``local_only`` says the server listens on loopback only, so the page can say a friend
    elsewhere cannot join.
    """

    #: Seconds each janggi player has to choose an arrangement once connected.
    setup_seconds: float = 60.0
    #: Several server processes on one PostgreSQL store: how often each says it is alive,
    #: and how long a process may be silent before another takes over driving its games
    #: (their clocks, setup deadlines and computer moves).
    beat_seconds: float = 1.0
    takeover_seconds: float = 3.0
    #: Each connection's message budget: burst, then refill per second.
    rate_burst: float = 40
    rate_per_second: float = 20
    #: A connection is closed once it has had more than this many messages dropped by the
    #: rate limit, forgiven at ``drops_forgiven_per_second`` (so a client that keeps
    #: sending faster than the limit is closed, however it paces its messages).
    max_dropped: float = 20
    drops_forgiven_per_second: float = 1.0
    #: Chat lines one player (by seat) or one spectator (by address) may send in a game:
    #: a burst, then one every so many seconds; more are refused with a sentence saying
    #: how long to wait.
    chat_burst: float = 5
    chat_every_seconds: float = 2.0
    #: Seconds a player must have been gone from a timed game before the opponent may
    #: claim the win or a draw (lichess waits a similar time).
    abandon_seconds: float = 30.0
    #: Seconds a player has to make a first move once the opponent has made theirs; after
    #: that the opponent may abort the game (lichess gives a similar time).
    first_move_seconds: float = 30.0
    #: A tournament's pages are sent at most one reading of it per this many seconds
    #: (the newest: the changes between are in it): a 200-player arena changes several
    #: times a second, and each reading goes to every page watching it.
    tournament_page_seconds: float = 1.0
    share_origin: str | None = None
    local_only: bool = False
    #: Watchers one game admits at once; more are refused (close code 4429).
    max_watchers_per_game: int = 500
    #: Websockets one client address may hold open at once (close code 4429).
    max_sockets_per_address: int = 64
    #: New websockets taken in (handshake, hello) at the same time; the others wait.
    arrivals_at_once: int = 8
    #: Seconds a new websocket has to say ``hello`` (close code 4408).
    hello_timeout: float = 10.0
    #: Games one client address may create (``POST /api/games``): a burst, then one every
    #: so many seconds; the same for imports (``POST /api/import``).
    create_burst: float = 20
    create_every_seconds: float = 3.0
    import_burst: float = 10
    import_every_seconds: float = 10.0
    #: Take the client's address from the ``X-Forwarded-For`` header the reverse proxy in
    #: front of the server adds (its last entry). Off by default: without a proxy that
    #: rewrites it, any client could claim any address.
    trust_proxy: bool = False
    max_json_bytes: int = 16 * 1024
    max_import_bytes: int = 256 * 1024
    #: What one uploaded file may hold: games, plies in a line, variations in a game and
    #: their nesting (a record beyond them is refused with a sentence saying which).
    import_limits: ReadLimits = IMPORT_LIMITS
    #: Seconds an upload may take to read (in a worker); imports waiting for the worker.
    import_seconds: float = 5.0
    import_waiting: int = 4
    #: Reads of games (``GET /api/games/{id}``, its ``pgn`` and ``fen``, the analysis of a
    #: finished game's position) one client address may make: a burst, then one every so
    #: many seconds; and of those, the games it may have read from the store and replayed
    #: (a game not read since its last change: chuhan.web.round.reads).
    read_burst: float = 300
    read_every_seconds: float = 0.05
    #: A read refused for its address's budget is answered after this long (at most the
    #: wait it names): a client that reads as fast as it is answered then asks a few times
    #: a second, not hundreds, and its refusals cost the event loop next to nothing.
    read_refusal_delay_seconds: float = 1.0
    rebuild_burst: float = 60
    rebuild_every_seconds: float = 1.0
    #: What the games read are kept in (the least recently read go first), the seconds a
    #: game may take to be read in the read worker, and the reads waiting for it.
    read_cache_bytes: int = 32 * 1024 * 1024
    read_seconds: float = 10.0
    read_waiting: int = 16
    #: Start the read worker with the server (``chuhan serve`` does: the first read does
    #: not wait for a process to start) rather than at the first read (tests).
    read_worker_at_start: bool = False

    # The computer and time controls
    #: The longest the computer thinks about one move, by level 1 to 8 (ms), whatever its
    #: clock gives it; the level's own depth and node caps usually stop it sooner.
    computer_move_ms: tuple[int, ...] = (1000, 1000, 1000, 1500, 2000, 2500, 3000, 4000)
    #: Levels from this one up are deep searches: they may hold every move worker but one,
    #: which the quicker levels keep (a level-1 move never waits behind level-8 searches).
    computer_deep_level: int = 6
    #: Worker processes for deep searches (``None``: one per CPU, at most two).
    computer_workers: int | None = None
    #: Computer moves waiting for a worker, deep and quick each; one more is refused (its
    #: game is told the computer is busy) rather than queued behind minutes of searching.
    computer_max_waiting: int = 6
    #: A worker that has not answered this many seconds after its move's (or analysis's)
    #: time is up is killed and replaced; its game is told the computer could not move.
    worker_grace_seconds: float = 3.0
    #: The time controls a new game may have: main time, Fischer increment, byo-yomi
    #: periods and their length; without byo-yomi, a main time of at least
    #: ``min_main_seconds`` (with none the second player would lose at its first move).
    max_main_minutes: float = 180.0
    max_increment_seconds: float = 120.0
    max_periods: int = 10
    max_period_seconds: float = 300.0
    min_main_seconds: float = 10.0

    # The analysis board and game reviews (chuhan.web.analysis.rules)
    #: An external UCI/UCCI engine for analyses (a command line, ``chuhan serve
    #: --analysis-engine``), spoken to in ``analysis_engine_protocol``; None: chuhan's own.
    analysis_engine: str | None = None
    analysis_engine_protocol: str = "uci"
    #: How long the external engine may take to start and to answer each handshake
    #: (``uciok``, ``readyok``; ``chuhan serve --analysis-engine-start-seconds``): a
    #: program started on a busy machine may need more than the driver's 10 s.
    analysis_engine_start_seconds: float = 30.0
    #: Worker processes for analyses and reviews (``None``: one). They run at a lower CPU
    #: priority than the computer players', and apart from them: a computer's move never
    #: waits behind an analysis.
    analysis_workers: int | None = None
    #: Engine time one position of the analysis board gets (then the lines stay as they
    #: are until the analyst asks for more), and the longest turn on a worker while other
    #: analyses wait (then it goes to the back of the queue: time slices, round robin).
    analysis_seconds: float = 30.0
    analysis_slice_seconds: float = 2.0
    #: "Think longer" goes on past its time until the engine completes a depth beyond the
    #: one shown, for at most this long (engine seconds), or says why it cannot.
    analysis_deeper_seconds: float = 300.0
    #: The first turn of an analysis is shorter (its first lines are soon there), so that
    #: a newcomer waiting behind many new analyses gets its own lines soon.
    analysis_first_slice_seconds: float = 0.5
    #: Analysis sockets one client address may hold open; analyses waiting for a worker
    #: (one more is told the engine is busy).
    analysis_sockets_per_address: int = 6
    analysis_max_waiting: int = 24
    #: Boards of one address whose engine thinks (or waits for a worker) at once.
    analyses_per_address: int = 3
    #: The longest line the analysis board takes (plies from its start position).
    analysis_max_plies: int = 600
    #: A game review: the search of each position (nodes), and the longest game reviewed.
    review_nodes: int = 8000
    #: Then, unless that search saw a mate, a mate search of the position: a forced mate
    #: in up to ``review_mate_moves`` moves by the side to move, quiet moves included,
    #: within about ``review_mate_nodes`` nodes (so that a move into a forced mate is
    #: marked; the node-limited search sees 4-5 plies).
    review_mate_moves: int = 4
    review_mate_nodes: int = 15_000
    review_max_plies: int = 600
    #: Reviews under way at once: for one connection, for one address (its connections
    #: together), and on the server (at most half the analyses that may wait, so reviews
    #: never fill the queue the analysis boards wait in). Reviews already made are free.
    reviews_per_connection: int = 2
    reviews_per_address: int = 3
    reviews_at_once: int = 12

    # Accounts (chuhan.web.accounts.service) and ratings (chuhan.web.accounts.ratings)
    #: Sign-in attempts that may fail within ``attempt_window_seconds``, per name and per
    #: client address; sign-ups per address and per name in the same window.
    signin_per_name: int = 10
    signin_per_address: int = 30
    signup_per_address: int = 5
    signup_per_name: int = 5
    attempt_window_seconds: float = 900.0
    #: How long a sign-in lasts.
    session_days: float = 30.0
    #: Sessions one account may have at once (browsers signed in): a sign-in beyond it
    #: ends the account's oldest session, and its sockets are closed.
    sessions_per_account: int = 10
    #: How often each process asks the store whether the sessions its websockets came with
    #: still live (what a lost notice of a session's end, or its expiry, costs at most).
    session_sweep_seconds: float = 10.0
    #: Argon2id's costs (argon2-cffi's defaults, RFC 9106's low-memory choice).
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65536
    argon2_parallelism: int = 4
    #: How often each process settles the rated games left unsettled.
    rating_sweep_seconds: float = 10.0

    # The lobby (chuhan.web.lobby.service)
    #: Open seeks (challenges included) one player may have (an account, or an anonymous
    #: browser), one client address (an IPv6 /64), and the whole lobby; of them, the
    #: seeks of players not signed in, per address and in the whole lobby (so that a few
    #: addresses cannot fill it); the challenges one account may be sent at once (one
    #: from each player or address). Counted in the store, so they hold across server
    #: processes.
    lobby_seeks_per_player: int = 3
    lobby_seeks_per_address: int = 6
    lobby_max_seeks: int = 300
    lobby_anonymous_seeks_per_address: int = 2
    lobby_max_anonymous_seeks: int = 100
    lobby_challenges_per_target: int = 5
    #: Each lobby connection's message budget: burst, then refill per second (more than
    #: ``max_dropped`` messages dropped closes it, as on a game's socket).
    lobby_rate_burst: float = 10
    lobby_rate_per_second: float = 2
    #: How often each process sweeps the lobby (the seeks of players who left, or whose
    #: process died) and reads the seeks again (what a lost notice costs at most).
    lobby_sweep_seconds: float = 2.0
    #: How long a challenge from a signed-in player is kept unanswered (it stays while
    #: its sender is away): one of days per move this many days, any other (real-time or
    #: untimed, which can be accepted only while its sender is in the lobby) this many
    #: hours. The sender is told when one expires.
    challenge_correspondence_days: float = 7.0
    challenge_realtime_hours: float = 24.0

    # Correspondence games (chuhan.web.correspondence)
    #: The vacation days an account may take in a calendar year (UTC; a vacation counts
    #: in the year it starts, in whole days; ending it early gives back the days not begun).
    vacation_days_per_year: int = 30

    # E-mail notices (chuhan.web.notices)
    #: The SMTP server the digests go through (no host: no mail is sent), the sender's
    #: address, STARTTLS and a sign-in, all optional.
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_from: str = "chuhan@localhost"
    smtp_starttls: bool = False
    smtp_user: str | None = None
    smtp_password: str | None = None
    #: Seconds one SMTP exchange may take.
    smtp_timeout_seconds: float = 30.0
    #: The address the links in a mail start with (``https://xiangqi.example``).
    public_url: str = "http://localhost:8000"
    #: A player is away once no socket of theirs has been seen open, and the move has
    #: waited, this many minutes; one digest at most per account every
    #: ``notice_digest_minutes``; how often each process looks for digests to send.
    notice_away_minutes: float = 15.0
    notice_digest_minutes: float = 360.0
    notice_sweep_seconds: float = 60.0
    #: Attempts at one digest, or at one push to one browser, in a row
    #: (``notice_backoff_seconds`` before the second, doubling: 20 s then 40 s, the third
    #: try a minute after the first), then the next try after ``notice_retry_minutes``
    #: (doubling with each failed round, to a day at most).
    notice_attempts: int = 3
    notice_backoff_seconds: float = 20.0
    notice_retry_minutes: float = 10.0
    #: Web Push: a player with pushes on is pushed a game's turn once no socket of theirs
    #: has been seen open for this many minutes; each push service exchange may take
    #: ``push_timeout_seconds``; the VAPID contact (``mailto:`` the sender otherwise);
    #: whether an ``http://`` endpoint on this machine is taken (the tests' push service).
    notice_push_away_minutes: float = 2.0
    push_timeout_seconds: float = 10.0
    #: The longest pause a push service's ``Retry-After`` (with a 429 or 5xx) is
    #: granted before the next try; one that asks for more is not tried again now (the
    #: turn's next round, and the digest, carry it).
    push_retry_after_max_seconds: float = 120.0
    push_contact: str | None = None
    push_http_localhost: bool = False
