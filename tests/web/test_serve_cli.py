"""``chuhan serve`` / ``chuhan play`` arguments, the default database place, a busy port."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from chuhan.cli import build_parser, main
from chuhan.web.storage import default_db_path


def test_default_db_path_follows_the_platform(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_db_path() == tmp_path / "chuhan" / "chuhan.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert default_db_path() == Path.home() / ".local/share/chuhan/chuhan.sqlite3"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert default_db_path().parts[-4:-2] == ("Library", "Application Support")
    monkeypatch.setattr(sys, "platform", "win32")
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
