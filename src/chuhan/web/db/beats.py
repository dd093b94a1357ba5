"""Which server process drives which game, on a PostgreSQL database that several share.

Each process registers itself in ``servers`` when it opens and beats there (:func:`beat`,
every second), with the database's clock, so the machines' clocks need not agree. A game
whose driver stopped beating is taken over with a compare-and-set on its ``driver``
column, so of several survivors claiming at once exactly one gets it. At a clean close a
process hands its games back (:data:`RELEASE`); the others take them at their next beat.
"""

from __future__ import annotations

from chuhan.web.db.statements import All, Body

__all__ = ["BEAT", "FORGET_SECONDS", "LIVE", "REGISTER", "RELEASE", "beat", "live_servers"]

#: A server row that has not beaten for this long (or ten takeover delays, if longer) is
#: deleted by the next beat of any process.
FORGET_SECONDS = 3600.0

REGISTER = """
INSERT INTO servers (id, started, heartbeat) VALUES ($1, clock_timestamp(), clock_timestamp())
ON CONFLICT (id) DO UPDATE SET heartbeat = excluded.heartbeat
"""

# $1 this server, $2 the takeover delay in seconds, $3 how long before a dead server's row
# is deleted. A game is claimed only if its driver is still the one found stale (the
# compare-and-set that leaves each game with one driver when several claim at once).
BEAT = """
WITH alive AS (
    INSERT INTO servers (id, started, heartbeat)
    VALUES ($1, clock_timestamp(), clock_timestamp())
    ON CONFLICT (id) DO UPDATE SET heartbeat = excluded.heartbeat
    RETURNING id
), forgotten AS (
    DELETE FROM servers
    WHERE id <> $1 AND heartbeat < clock_timestamp() - make_interval(secs => $3)
), stale AS MATERIALIZED (
    SELECT g.id, g.driver
    FROM games g LEFT JOIN servers s ON s.id = g.driver
    WHERE g.status <> 'over' AND g.kind <> 'imported' AND g.driver IS DISTINCT FROM $1
      AND (
        s.id IS NULL OR s.heartbeat < clock_timestamp() - make_interval(secs => $2)
        -- A process killed on a machine whose connections the database saw close (no
        -- session of it left) is dead once it has missed a beat, without waiting $2.
        OR (
          s.heartbeat < clock_timestamp() - interval '1.5 seconds'
          AND NOT EXISTS (
            SELECT 1 FROM pg_stat_activity a
            WHERE a.application_name IN ('chuhan ' || g.driver, 'chuhan-listen ' || g.driver)
          )
        )
      )
    ORDER BY g.id
    FOR UPDATE OF g SKIP LOCKED  -- (in the order of ids; a game being written waits a beat)
), claimed AS (
    UPDATE games g SET driver = $1
    FROM stale
    WHERE g.id = stale.id AND g.driver IS NOT DISTINCT FROM stale.driver
      AND g.status <> 'over'
    RETURNING g.id
)
SELECT id FROM claimed
UNION
SELECT id FROM games WHERE driver = $1 AND status <> 'over' AND kind <> 'imported'
"""

#: The servers alive: beating within the takeover time, and (after one missed beat) still
#: connected (the same test as the beat's takeover).
LIVE = """
SELECT s.id FROM servers s
WHERE s.heartbeat >= clock_timestamp() - make_interval(secs => $1)
  AND (
    s.heartbeat >= clock_timestamp() - interval '1.5 seconds'
    OR EXISTS (
      SELECT 1 FROM pg_stat_activity a
      WHERE a.application_name IN ('chuhan ' || s.id, 'chuhan-listen ' || s.id)
    )
  )
"""

RELEASE = """
WITH gone AS (DELETE FROM servers WHERE id = $1), mine AS MATERIALIZED (
    SELECT id FROM games WHERE driver = $1 AND status <> 'over' AND kind <> 'imported'
    ORDER BY id FOR UPDATE
)
UPDATE games SET driver = NULL FROM mine WHERE games.id = mine.id
"""


def beat(server_id: str, takeover_seconds: float) -> Body[set[str]]:
    """Mark ``server_id`` alive (with the database's clock); take over the unfinished
    games (not imported ones, which have nothing to drive) whose driver has not beaten
    for ``takeover_seconds``, is gone, or was never set; the ids of every such game it
    drives now. One statement."""
    forget = max(FORGET_SECONDS, 10 * takeover_seconds)
    found = yield All(BEAT, (server_id, float(takeover_seconds), float(forget)))
    return {str(r["id"]) for r in found}


def live_servers(takeover_seconds: float) -> Body[set[str]]:
    """The processes that have beaten within ``takeover_seconds`` (and, after one missed
    beat, are still connected)."""
    found = yield All(LIVE, (float(takeover_seconds),))
    return {str(r["id"]) for r in found}
