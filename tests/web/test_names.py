"""Account names against impersonation (issue 28, item 9), on both stores, as a hostile
user signs up: a name that looks like a taken one (``Victim0I`` beside ``Victim01``, or
Cyrillic ``САТ001`` beside ``CAT001``: UTS #39 confusable skeletons, made by disarm), a
name that mixes scripts (Cyrillic ``Viсtim01``: UTS #39's "highly restrictive" level)
and a name with a letter that shows nothing (a Hangul filler) are refused with a
sentence; accounts made before the rule keep working; and two sign-ups racing on two
processes cannot both take look-alike names."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_accounts import CHEAP, PASSWORD, sign_in, sign_up
from web_helpers import FakeClock, MakeClient

from chuhan.web.accounts.repository import (
    Account,
    AccountRepository,
    NameConfusable,
    NameTaken,
    do,
    name_key,
)


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP)


def signup(client: TestClient, name: str) -> Any:
    response = client.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    client.cookies.clear()
    return response


@pytest.mark.parametrize(
    ("taken", "look_alike"),
    [
        ("Victim01", "Vict\u0131m01"),  # LATIN SMALL LETTER DOTLESS I for i
        ("Victim01", "VictimOl"),  # O for 0, l for 1
        ("Victim01", "Victim0I"),  # capital I for 1
        ("Victim01", "Vict\u0269m01"),  # LATIN SMALL LETTER IOTA for i
        ("CAT001", "\u0421\u0410\u0422001"),  # all Cyrillic: ES, A, TE
        ("POPE_1", "\u03a1\u039f\u03a1\u0395_1"),  # all Greek: RHO, OMICRON, RHO, EPSILON
    ],
)
def test_a_name_that_looks_like_a_taken_one_is_refused(
    make_client: MakeClient, taken: str, look_alike: str
) -> None:
    client = make_client(signup_per_address=10, **CHEAP)
    sign_up(client, taken)
    response = signup(client, look_alike)
    assert response.status_code == 409, response.text
    error = response.json()["error"]
    assert error["code"] == "name_confusable"
    assert f"looks like the name of the player '{taken}'" in error["message"]
    assert "'name'" in error["message"]


@pytest.mark.parametrize(
    ("name", "scripts"),
    [
        ("Vi\u0441tim01", "Cyrillic and Latin"),  # CYRILLIC SMALL LETTER ES for c
        ("V\u0456ctim01", "Cyrillic and Latin"),  # CYRILLIC ... BYELORUSSIAN-UKRAINIAN I
        ("\u0474ictim01", "Cyrillic and Latin"),  # CYRILLIC CAPITAL LETTER IZHITSA for V
        ("Ada_\u03a9mega", "Greek and Latin"),
        ("\uae40\u3072Ada", "Hangul, Hiragana and Latin"),  # Korean and Japanese at once
    ],
)
def test_a_name_that_mixes_scripts_is_refused_even_when_nobody_has_its_look(
    client: TestClient, name: str, scripts: str
) -> None:
    # UTS #39's "highly restrictive" level: the skeletons do not list every pair of
    # letters that look alike, so the mix that makes look-alikes is refused itself.
    response = signup(client, name)
    assert response.status_code == 400, response.text
    message = response.json()["error"]["message"]
    assert f"'name' mixes the {scripts} scripts" in message


def test_latin_goes_with_the_scripts_of_chinese_japanese_and_korean(
    make_client: MakeClient,
) -> None:
    client = make_client(signup_per_address=10, **CHEAP)
    for name in (
        "\u5f35\u4e09_li",
        "\uae40\ucca0\uc218abc",
        "\u3086\u304d\u96ea_yuki",
        "\u041e\u043b\u0435\u0433_2",
    ):
        assert signup(client, name).status_code == 201, name


def test_names_that_only_share_letters_are_still_free(make_client: MakeClient) -> None:
    client = make_client(signup_per_address=10, **CHEAP)
    sign_up(client, "Victim01")
    for other in ("Victim02", "Victor01", "victims", "楚漢棋手", "장기왕"):
        assert signup(client, other).status_code == 201, other


@pytest.mark.parametrize(
    ("name", "code_point"),
    [
        ("\u3164\u3164\u3164", "U+3164"),  # HANGUL FILLER: a letter that shows nothing
        ("Ada\u3164", "U+3164"),
        ("\u115fAda", "U+115F"),  # HANGUL CHOSEONG FILLER
        ("Ada\u1160x", "U+1160"),  # HANGUL JUNGSEONG FILLER
        ("Ada\uffa0", "U+FFA0"),  # HALFWIDTH HANGUL FILLER (shown as typed)
        ("A\u200bda", "U+200B"),  # ZERO WIDTH SPACE
        ("Ad\u2060a", "U+2060"),  # WORD JOINER
    ],
)
def test_a_name_with_a_character_that_shows_nothing_is_refused(
    client: TestClient, name: str, code_point: str
) -> None:
    response = signup(client, name)
    assert response.status_code == 400, response.text
    message = response.json()["error"]["message"]
    assert "'name'" in message and f"({code_point})" in message
    assert not any(char in message for char in "\u3164\u115f\u1160\uffa0\u200b\u2060")


def test_look_alike_accounts_made_before_the_rule_keep_working(
    make_client: MakeClient, client: TestClient, clock: FakeClock
) -> None:
    # Two accounts an older server let in, one impersonating the other: both still sign
    # in after the upgrade; the older one holds the look, so a third is refused.
    sign_up(client, "Victim01")
    clock.advance(60)
    sign_up(client, "Other001")
    store = client.app.state.context.store  # type: ignore[attr-defined]
    lookalike = "Vi\u0441tim01"

    async def as_an_older_server_left_them() -> None:
        await store.write(
            do(
                "UPDATE accounts SET name = ?, name_key = ? WHERE name = ?",
                lookalike,
                name_key(lookalike),
                "Other001",
            ),
            "renaming",
        )
        await store.write(do("UPDATE accounts SET name_skeleton = NULL"), "forgetting")
        await store.write(do("DELETE FROM meta WHERE key = 'name_skeletons'"), "forgetting")

    client.portal.call(as_an_older_server_left_them)  # type: ignore[union-attr]
    restarted = make_client(**CHEAP)  # (the skeletons are filled in as it starts)
    for name in ("Victim01", lookalike):
        assert sign_in(restarted, name).status_code == 200, name
        assert restarted.get(f"/api/players/{name}").json()["name"] == name
    response = signup(restarted, "Vict\u0131m01")  # (dotless i)
    assert response.status_code == 409
    assert "'Victim01'" in response.json()["error"]["message"]


def test_two_processes_signing_up_look_alike_names_at_once_make_one_account(
    client: TestClient, database: str | Path
) -> None:
    """Ten rounds of two look-alike names created at the same moment through two stores
    (two server processes on PostgreSQL; SQLite's one writer): one of each pair is made."""
    from chuhan.web.db import open_store

    store = client.app.state.context.store  # type: ignore[attr-defined]

    async def race() -> list[int]:
        other = open_store(database) if store.shared else store
        await other.open()
        try:
            made = []
            for number in range(10):
                names = (f"Racer{number}x", f"Ra\u0441er{number}x")  # (Cyrillic es)

                async def create(which: int, names: tuple[str, str] = names) -> bool:
                    account = Account(f"{names[0]}-{which}", names[which], 1.8e9, "-")
                    try:
                        await AccountRepository((store, other)[which]).create_account(account)
                    except (NameTaken, NameConfusable):
                        return False
                    return True

                made.append(sum(await asyncio.gather(create(0), create(1))))
            return made
        finally:
            if other is not store:
                await other.close()

    assert client.portal.call(race) == [1] * 10  # type: ignore[union-attr]
