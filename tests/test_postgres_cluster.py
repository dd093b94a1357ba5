"""The PostgreSQL fixtures themselves: each test's database is fresh, empty, writable and its
own; a dropped database is gone; the cluster runs as an unprivileged user when we are root;
and stop() leaves no postmaster and no directory behind."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import asyncpg  # type: ignore[import-untyped]
import pytest

from postgres_cluster import Cluster, database_of, pid_alive


async def fetch(url: str, sql: str, *args: Any) -> list[asyncpg.Record]:
    connection = await asyncpg.connect(url)
    try:
        rows: list[asyncpg.Record] = await connection.fetch(sql, *args)
        return rows
    finally:
        await connection.close()


def query(url: str, sql: str, *args: Any) -> list[asyncpg.Record]:
    return asyncio.run(fetch(url, sql, *args))


def user_tables(url: str) -> list[str]:
    rows = query(
        url,
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
    )
    return [row["table_name"] for row in rows]


def test_a_fresh_database_is_empty_and_writable(postgres_url: str) -> None:
    assert postgres_url.startswith("postgresql://")
    assert user_tables(postgres_url) == []

    async def write_and_read() -> list[asyncpg.Record]:
        connection = await asyncpg.connect(postgres_url)
        try:
            await connection.execute("CREATE TABLE games (id serial PRIMARY KEY, fen text)")
            await connection.execute("INSERT INTO games (fen) VALUES ($1)", "startpos")
            rows: list[asyncpg.Record] = await connection.fetch("SELECT fen FROM games")
            return rows
        finally:
            await connection.close()

    assert [row["fen"] for row in asyncio.run(write_and_read())] == ["startpos"]
    assert query(postgres_url, "SELECT current_database()")[0][0] == database_of(postgres_url)


def test_two_fresh_databases_are_independent(postgres_cluster: Cluster) -> None:
    first, second = postgres_cluster.create_database(), postgres_cluster.create_database()
    try:
        assert first != second
        query(first, "CREATE TABLE only_here (x int)")
        assert user_tables(first) == ["only_here"]
        assert user_tables(second) == []
    finally:
        postgres_cluster.drop_database(first)
        postgres_cluster.drop_database(second)


def test_a_dropped_database_is_gone_even_with_a_connection_open(
    postgres_cluster: Cluster,
) -> None:
    url = postgres_cluster.create_database()

    async def hold_and_drop() -> None:
        held = await asyncpg.connect(url)  # as a test's server may still have
        try:
            await asyncio.to_thread(postgres_cluster.drop_database, url)
        finally:
            held.terminate()

    asyncio.run(hold_and_drop())
    names = query(postgres_cluster.admin_url, "SELECT datname FROM pg_database")
    assert database_of(url) not in {row["datname"] for row in names}
    with pytest.raises(asyncpg.InvalidCatalogNameError):
        query(url, "SELECT 1")
    postgres_cluster.drop_database(url)  # twice is fine


@pytest.mark.skipif(os.geteuid() != 0, reason="only root's cluster runs as another user")
def test_the_cluster_runs_as_an_unprivileged_user_when_we_are_root(
    postgres_cluster: Cluster,
) -> None:
    if not postgres_cluster.owned:
        pytest.skip("CHUHAN_TEST_POSTGRES names a cluster we did not start")
    datadir = query(postgres_cluster.admin_url, "SELECT current_setting('data_directory')")[0][0]
    assert Path(datadir).stat().st_uid != 0
    assert postgres_cluster.pid is not None
    assert Path(f"/proc/{postgres_cluster.pid}").stat().st_uid != 0


def test_stop_leaves_no_postmaster_and_no_directory() -> None:
    cluster = Cluster()
    cluster.stop()  # before start: nothing to do
    cluster.start()
    pid, directory = cluster.pid, cluster.directory
    assert pid is not None and directory is not None and pid_alive(pid)
    url = cluster.create_database()
    assert query(url, "SELECT 1")[0][0] == 1
    cluster.stop()
    assert not pid_alive(pid)
    assert not directory.exists()
    cluster.stop()  # twice is fine
    assert cluster.pid is None
