"""The accounts' and the lobby's transactions as bodies fed rows: what they read, lock and
write, decided without a database."""

from __future__ import annotations

from typing import Any

import pytest

from chuhan.web.accounts import repository as accounts
from chuhan.web.accounts.repository import Account, NameConfusable, NameTaken
from chuhan.web.db.errors import Duplicate
from chuhan.web.db.statements import Do, Lock, One, Statement, run_fed
from chuhan.web.lobby import repository as lobby
from chuhan.web.lobby.repository import Seek, SeekLimits, SeekRefused


def test_a_full_attempt_key_takes_nothing_and_says_how_long_to_wait() -> None:
    seen: list[Statement] = []

    def answer(statement: Statement) -> Any:
        seen.append(statement)
        if isinstance(statement, One):  # (key "name x" is full since 1e9 - 50)
            return {"n": 5, "first": 1e9 - 50} if statement.args == ("name x",) else {"n": 0}
        return None if isinstance(statement, Lock) else 1

    body = accounts.take_attempt("try", {"name x": 5, "address y": 100}, 60.0, 1e9)
    assert run_fed(body, answer) == pytest.approx(10.0)
    # The keys are locked in one order, and nothing is inserted.
    assert seen[:2] == [Lock("attempts address y"), Lock("attempts name x")]
    assert not [s for s in seen if isinstance(s, Do) and s.sql == accounts.ATTEMPT_INSERT]


def test_a_taken_name_key_is_name_taken() -> None:
    ada = Account("a1", "Ada", 1.0, "hash")

    def answer(statement: Statement) -> Any:
        return Duplicate("unique") if isinstance(statement, Do) else None

    with pytest.raises(NameTaken, match="'Ada' is taken"):
        run_fed(accounts.create_account(ada, "ada", None), answer)


def test_a_name_that_looks_like_a_taken_one_is_refused_naming_it() -> None:
    seen: list[Statement] = []

    def answer(statement: Statement) -> Any:
        seen.append(statement)
        return {"id": "v1", "name": "Victim01"} if isinstance(statement, One) else None

    with pytest.raises(NameConfusable, match="'Victim01'"):
        run_fed(
            accounts.create_account(Account("a2", "Vi\u0441tim01", 1.0, "h"), "k", None), answer
        )
    # The skeleton is locked before it is looked for, and nothing is inserted.
    assert seen[0] == Lock("account skeleton k") and not any(isinstance(s, Do) for s in seen)


def test_a_rated_game_already_settled_is_returned_as_stored_and_nothing_is_written() -> None:
    stored = accounts.unrated("g1", "xiangqi", None, {}, 5.0)
    seen: list[Statement] = []

    def answer(statement: Statement) -> Any:
        seen.append(statement)
        return {"game": "xiangqi", "settled": 5.0, "settlement": stored.to_json()}

    def never(given: Any) -> Any:
        raise AssertionError("the rating rule is not asked again")

    assert run_fed(accounts.settle_rated_game("g1", 9.0, 86400.0, never), answer) == stored
    assert len(seen) == 1 and isinstance(seen[0], One) and seen[0].for_update


def _seek(seek_id: str, owner: str) -> Seek:
    return Seek(
        seek_id, owner, "10.0.0.1", None, "Ada", "xiangqi", "asian", None, False,
        "random", None, None, None, None, None, None, None, 1.0,
    )  # fmt: skip


def test_a_seek_over_its_owners_limit_is_refused_after_the_locks() -> None:
    seen: list[Statement] = []

    def answer(statement: Statement) -> Any:
        seen.append(statement)
        counts = ("owner_seeks", "address_seeks", "all_seeks", "address_anonymous")
        return {name: 3 for name in counts} | {"all_anonymous": 3, "target_seeks": 0}

    limits = SeekLimits(3, 10, 100, 5, 50, 5)
    with pytest.raises(SeekRefused, match="already have 3 open seeks"):
        run_fed(lobby.add_seek(_seek("s1", "v:x"), limits), answer)
    assert seen[:2] == [Lock("lobby seeks"), Lock("lobby owner v:x")]


def test_the_sweep_deletes_the_seeks_of_owners_no_live_process_holds() -> None:
    ghost = _seek("s1", "v:ghost")
    row = dict(zip(lobby.Seek._COLUMNS, ghost.columns()[:-1], strict=True))
    row["data"] = ghost.data_json()
    answers = {
        lobby.VISITORS_ALL: [
            {"owner": "v:ghost", "server_id": "dead"},
            {"owner": "v:here", "server_id": "me"},
        ],
        lobby.SEEK_OWNERS: [{"owner": "v:ghost"}, {"owner": "v:here"}],
        lobby.VISITOR_SERVERS: [{"server_id": "dead"}],
        lobby.SEEKS_OF_OWNER: [row],
    }
    done: list[Statement] = []

    def answer(statement: Statement) -> Any:
        done.append(statement)
        if isinstance(statement, (Do, Lock)):
            return 1
        return answers[str(statement.sql)]

    removed = run_fed(lobby.sweep_lobby("me", {"v:here"}, {"me"}), answer)
    assert removed == [ghost]
    assert Do(lobby.VISITORS_FORGET, ("dead",)) in done
    assert Lock("lobby owner v:ghost") in done and Lock("lobby owner v:here") not in done


def test_an_address_stands_for_its_network() -> None:
    # An IPv4 address is itself; an IPv6 address stands for its /64 (a host may take any
    # address in it), however it is written; what is not an IP address is no network.
    assert accounts.network_of("203.0.113.9") == "203.0.113.9"
    assert accounts.network_of("::ffff:203.0.113.9") == "203.0.113.9"
    same = {accounts.network_of(a) for a in ("2001:db8:5:7::1", "2001:db8:5:7:ffff::2")}
    assert same == {"2001:db8:5:7::/64"}
    assert accounts.network_of("2001:db8:5:7::/64") == "2001:db8:5:7::/64"  # (kept as it is)
    assert accounts.network_of("2001:db8:5:8::1") != "2001:db8:5:7::/64"
    assert accounts.network_of("testclient") is None and accounts.network_of("") is None
