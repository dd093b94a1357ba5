"""Password guesses are limited without locking the owner out (issue 28, 5 and 6), as a
hostile client would try them: someone else's wrong guesses at a name do not lock out a
browser that has held a session of the account, a forged or borrowed known-browser cookie
does not lift the limit, and the current password asked before a change or a deletion is
counted like a sign-in."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient
from web_helpers import MakeClient

CHEAP: dict[str, Any] = {"argon2_time_cost": 1, "argon2_memory_kib": 8192, "argon2_parallelism": 1}
PASSWORD = "correct horse battery"


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP, signin_per_name=3, signin_per_address=100, trust_proxy=True)


def post(client: TestClient, path: str, body: dict[str, Any], **cookies: str) -> Any:
    """A request carrying exactly ``cookies`` (the client's own jar is emptied after)."""
    header = "; ".join(f"{name}={value}" for name, value in cookies.items())
    response = client.post(path, json=body, headers={"cookie": header} if header else {})
    client.cookies.clear()
    return response


def from_address(client: TestClient, number: int, name: str, password: str) -> Any:
    response = client.post(
        "/api/account/signin",
        json={"name": name, "password": password},
        headers={"x-forwarded-for": f"203.0.113.{number}"},
    )
    client.cookies.clear()
    return response


def signed_up(client: TestClient, name: str) -> dict[str, str]:
    response = post(client, "/api/account/signup", {"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    return {
        "chuhan_session": response.cookies["chuhan_session"],
        "chuhan_known": response.cookies["chuhan_known"],
    }


def test_guesses_at_a_name_from_elsewhere_do_not_lock_out_its_owners_browser(
    client: TestClient,
) -> None:
    owner = signed_up(client, "Victim01")
    for number in range(5):  # an attacker from many addresses
        assert from_address(client, number, "Victim01", "guess").status_code in (401, 429)
    stranger = post(client, "/api/account/signin", {"name": "Victim01", "password": PASSWORD})
    assert stranger.status_code == 429  # a browser the account never used waits
    own = post(
        client,
        "/api/account/signin",
        {"name": "Victim01", "password": PASSWORD},
        chuhan_known=owner["chuhan_known"],
    )
    assert own.status_code == 200, own.text


def test_the_owners_browser_has_a_limit_of_its_own(client: TestClient) -> None:
    known = signed_up(client, "Ada01")["chuhan_known"]
    body = {"name": "Ada01", "password": "wrong password"}
    for _ in range(3):
        assert post(client, "/api/account/signin", body, chuhan_known=known).status_code == 401
    right = {"name": "Ada01", "password": PASSWORD}
    assert post(client, "/api/account/signin", right, chuhan_known=known).status_code == 429


def test_a_forged_or_borrowed_known_browser_cookie_does_not_lift_the_limit(
    client: TestClient,
) -> None:
    signed_up(client, "Victim02")
    other = signed_up(client, "Mallory1")["chuhan_known"]
    for number in range(3):
        from_address(client, number, "Victim02", "guess")
    right = {"name": "Victim02", "password": PASSWORD}
    body, _, signature = other.partition(".")
    account_id = body.split("~")[0]
    forged = [
        other,  # another account's
        f"{body}.{signature[:-2]}AA",  # a signature changed
        "x~y.z",
        f"{account_id}~tag.{signature}",  # a tag of one's own
    ]
    for cookie in forged:
        answer = post(client, "/api/account/signin", right, chuhan_known=cookie)
        assert answer.status_code == 429, cookie


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/account/password", {"new_password": "a brand new one"}),
        ("/api/account/delete", {}),
    ],
)
def test_the_current_password_is_counted_like_a_sign_in(
    client: TestClient, path: str, body: dict[str, str]
) -> None:
    session = signed_up(client, "Ada02")["chuhan_session"]
    for _ in range(3):
        wrong = post(client, path, {**body, "password": "not it"}, chuhan_session=session)
        assert wrong.status_code == 401
    refused = post(client, path, {**body, "password": PASSWORD}, chuhan_session=session)
    assert refused.status_code == 429
    assert "wrong passwords" in refused.json()["error"]["message"]
    me = client.get("/api/account", headers={"cookie": f"chuhan_session={session}"})
    assert me.json()["account"]["name"] == "Ada02"  # nothing was changed or deleted


def test_a_right_current_password_does_not_use_up_the_limit(client: TestClient) -> None:
    session = signed_up(client, "Ada03")["chuhan_session"]
    path, passwords = "/api/account/password", [PASSWORD, "a brand new one"]
    for turn in range(5):  # more changes than the limit, each with the right password
        old, new = passwords[turn % 2], passwords[(turn + 1) % 2]
        changed = post(client, path, {"password": old, "new_password": new}, chuhan_session=session)
        assert changed.status_code == 200, turn
