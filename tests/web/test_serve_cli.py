"""``chuhan serve`` / ``chuhan play`` arguments, the default database place, a busy port."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

import pytest

from chuhan.cli import build_parser, main
from chuhan.web.db import DatabaseInUse
from chuhan.web.db.files import database_owner, default_db_path
from chuhan.web.db.sqlite import SqliteStore
from chuhan.web.server import is_loopback, lan_address, share_origin


def test_default_db_path_follows_the_platform(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "chuhan" / "chuhan.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_db_path() == Path.home() / ".local/share/chuhan/chuhan.sqlite3"
    # platformdirs picks the platform's rules when it is imported: its macOS and Windows
    # rules are taken as they would be there (Windows' folder from APPDATA, off Windows).
    import platformdirs.macos
    import platformdirs.windows

    monkeypatch.setattr(platformdirs, "PlatformDirs", platformdirs.macos.MacOS)
    assert default_db_path().parts[-4:-2] == ("Library", "Application Support")
    monkeypatch.setattr(platformdirs, "PlatformDirs", platformdirs.windows.Windows)
    windows = platformdirs.windows
    monkeypatch.setattr(windows, "get_win_folder", windows.get_win_folder_from_env_vars)
    monkeypatch.setenv("APPDATA", str(tmp_path))
    assert default_db_path() == tmp_path / "chuhan" / "chuhan.sqlite3"


def test_arguments() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 8000, None)
    args = build_parser().parse_args(["play"])
    assert not args.terminal and args.port == 8000
    assert build_parser().parse_args(["play", "--terminal"]).terminal


def test_busy_port_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = main(["serve", "--port", str(port), "--db", str(tmp_path / "g.sqlite3")])
    assert code == 2
    assert f"127.0.0.1:{port}: the port is in use" in capsys.readouterr().err


def test_unusable_database_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("hello, this is not SQLite" * 100)
    assert main(["serve", "--db", str(not_a_db), "--port", "0"]) == 2
    assert "cannot open the game database" in capsys.readouterr().err


def test_share_origin_is_the_address_other_machines_use(monkeypatch: pytest.MonkeyPatch) -> None:
    assert share_origin("127.0.0.1", 8000) is None and share_origin("::1", 8000) is None
    assert share_origin("localhost", 8000) is None
    assert share_origin("192.168.1.20", 8080) == "http://192.168.1.20:8080"
    assert share_origin("fd00::5", 80) == "http://[fd00::5]:80"
    monkeypatch.setattr("chuhan.web.server.lan_address", lambda: "10.1.2.3")
    assert share_origin("0.0.0.0", 8000) == "http://10.1.2.3:8000"
    monkeypatch.setattr("chuhan.web.server.lan_address", lambda: None)
    assert share_origin("0.0.0.0", 8000) is None
    assert is_loopback("127.0.0.2") and not is_loopback("192.0.2.1")


def test_lan_address_is_not_loopback() -> None:
    address = lan_address()  # None on a machine with no network route
    assert address is None or not is_loopback(address)


def test_one_server_owns_a_database(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    first = SqliteStore(db)
    with pytest.raises(
        DatabaseInUse, match=rf"in use by another chuhan server \(process {os.getpid()}\)"
    ):
        SqliteStore(db)
    link = tmp_path / "elsewhere" / "link.sqlite3"
    link.parent.mkdir()
    link.symlink_to(db)
    with pytest.raises(DatabaseInUse):
        SqliteStore(link)  # the same file by another name
    first.announce("http://127.0.0.1:8123/")
    assert database_owner(db) == {"pid": os.getpid(), "url": "http://127.0.0.1:8123/"}
    asyncio.run(first.close())
    assert database_owner(db) is None
    asyncio.run(SqliteStore(db).close())  # free again once the owner closed it


def test_serve_refuses_a_database_another_server_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "games.sqlite3"
    owner = SqliteStore(db)
    owner.announce("http://127.0.0.1:8123/")
    try:
        assert main(["serve", "--db", str(db), "--port", "0"]) == 2
        error = capsys.readouterr().err
        assert f"the game database {db} is in use" in error
        assert "serving http://127.0.0.1:8123/" in error
        # `chuhan play` on the same games opens the running server instead of a second one.
        opened: list[str] = []
        monkey = pytest.MonkeyPatch()

        def open_in_browser(url: str) -> bool:
            opened.append(url)
            return True

        monkey.setattr("webbrowser.open", open_in_browser)
        try:
            assert main(["play", "--db", str(db)]) == 0
        finally:
            monkey.undo()
        assert opened == ["http://127.0.0.1:8123/"]
        assert "already served on http://127.0.0.1:8123/" in capsys.readouterr().out
    finally:
        asyncio.run(owner.close())


def test_serve_passes_its_limits_to_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[dict[str, object]] = []

    explorer_dbs: list[object] = []

    def fake_serve(
        host: str, port: int, db: object, *, limits: dict[str, object], explorer_db: object
    ) -> int:
        called.append(limits)
        explorer_dbs.append(explorer_db)
        return 0

    monkeypatch.setattr("chuhan.web.server.serve", fake_serve)
    argv = ["serve", "--trust-proxy", "--max-watchers", "5", "--max-sockets-per-address", "9"]
    assert main(argv) == 0
    assert called == [
        {"trust_proxy": True, "max_watchers_per_game": 5, "max_sockets_per_address": 9}
    ]
    assert main(["serve"]) == 0
    assert called[-1] == {"trust_proxy": False}
    assert main(["serve", "--explorer-db", "postgresql://chuhan@db.example/masters"]) == 0
    assert explorer_dbs == [None, None, "postgresql://chuhan@db.example/masters"]


@pytest.mark.parametrize("seconds", ["0", "-1", "soon", "nan", "inf"])
def test_serve_refuses_an_abandon_grace_that_is_not_a_number_of_seconds(
    seconds: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--abandon-seconds", seconds])
    assert "must be seconds from 0 to 86400" in capsys.readouterr().err


def test_serve_without_the_web_extra_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if it were not installed
    assert main(["serve", "--db", str(tmp_path / "games.sqlite3"), "--port", "0"]) != 0
    assert "pip install 'chuhan[web]'" in capsys.readouterr().err
